//! Two runs' operations aligned by name (interfaces.md §1): a longest common subsequence of the
//! two name sequences, found as `git diff` finds one — the common prefix and suffix set aside,
//! names only one side has set aside, then Myers' linear-space search of the middle snake — with
//! a cost bound that keeps a run of 200 000 operations a side linear-ish. Past the bound the
//! split is the furthest-reaching one (as git's xdiff does): still a common subsequence, rarely a
//! shorter one, never a slow one; and past a budget of work for the whole search (two unrelated
//! runs), what is left is aligned by a bounded look-ahead.

use std::collections::HashMap;

/// Where each operation of one run sits in the other: for each operation (by index) its partner
/// in the other run, or none when only its run has it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Alignment {
    /// For each BEFORE operation, its AFTER partner.
    before: Vec<Option<usize>>,
    /// For each AFTER operation, its BEFORE partner.
    after: Vec<Option<usize>>,
    /// How many operations are paired.
    pairs: usize,
}

/// Where two runs part: the first operation only one of them has, on each side where there is
/// one (both for an operation replaced by another).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Parting {
    /// The BEFORE operation (index) only BEFORE has, when the runs part there on its side.
    pub before: Option<usize>,
    /// The AFTER operation (index) only AFTER has.
    pub after: Option<usize>,
}

impl Alignment {
    /// Aligns two sequences of names.
    pub fn new<S: AsRef<str>>(before: &[S], after: &[S]) -> Self {
        let (a, b) = intern(before, after);
        let (changed_a, changed_b) = changes(&a, &b);
        let mut alignment = Self { before: vec![None; a.len()], after: vec![None; b.len()], pairs: 0 };
        let kept_a = (0..a.len()).filter(|&i| !changed_a[i]);
        let kept_b = (0..b.len()).filter(|&j| !changed_b[j]);
        for (i, j) in kept_a.zip(kept_b) {
            alignment.before[i] = Some(j);
            alignment.after[j] = Some(i);
            alignment.pairs += 1;
        }
        alignment
    }

    /// How many operations are paired.
    pub fn pairs(&self) -> usize {
        self.pairs
    }

    /// The AFTER partner of a BEFORE operation (index).
    pub fn after_of(&self, before: usize) -> Option<usize> {
        self.before.get(before).copied().flatten()
    }

    /// The BEFORE partner of an AFTER operation (index).
    pub fn before_of(&self, after: usize) -> Option<usize> {
        self.after.get(after).copied().flatten()
    }

    /// The paired operations, `(before, after)` indexes, in order.
    pub fn paired(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        self.before.iter().enumerate().filter_map(|(i, j)| Some((i, (*j)?)))
    }

    /// The first place where the runs part; none when every operation of each is paired.
    pub fn parted_at(&self) -> Option<Parting> {
        let (mut i, mut j) = (0, 0);
        while i < self.before.len() && j < self.after.len() && self.before[i] == Some(j) {
            i += 1;
            j += 1;
        }
        let before = (i < self.before.len() && self.before[i].is_none()).then_some(i);
        let after = (j < self.after.len() && self.after[j].is_none()).then_some(j);
        (before.is_some() || after.is_some()).then_some(Parting { before, after })
    }
}

/// The names as small numbers, one per distinct name.
fn intern<'s, S: AsRef<str>>(before: &'s [S], after: &'s [S]) -> (Vec<u32>, Vec<u32>) {
    fn numbered<'s, S: AsRef<str>>(side: &'s [S], ids: &mut HashMap<&'s str, u32>) -> Vec<u32> {
        side.iter()
            .map(|name| {
                let next = u32::try_from(ids.len()).unwrap_or(u32::MAX);
                *ids.entry(name.as_ref()).or_insert(next)
            })
            .collect()
    }
    let mut ids = HashMap::new();
    let a = numbered(before, &mut ids);
    (a, numbered(after, &mut ids))
}

/// Which elements of each side are left out of the common subsequence.
fn changes(a: &[u32], b: &[u32]) -> (Vec<bool>, Vec<bool>) {
    let (mut changed_a, mut changed_b) = (vec![false; a.len()], vec![false; b.len()]);
    // A name the other side never has is never paired: leaving it out first shrinks the search.
    let names = a.iter().chain(b).map(|&x| x as usize + 1).max().unwrap_or(0);
    let present = |side: &[u32]| {
        let mut seen = vec![false; names];
        for &x in side {
            seen[x as usize] = true;
        }
        seen
    };
    let (in_a, in_b) = (present(a), present(b));
    let keep = |side: &[u32], other: &[bool], changed: &mut [bool]| -> (Vec<u32>, Vec<usize>) {
        let mut kept = (Vec::new(), Vec::new());
        for (k, &x) in side.iter().enumerate() {
            match other.get(x as usize).copied().unwrap_or(false) {
                true => {
                    kept.0.push(x);
                    kept.1.push(k);
                }
                false => changed[k] = true,
            }
        }
        kept
    };
    let (ka, index_a) = keep(a, &in_b, &mut changed_a);
    let (kb, index_b) = keep(b, &in_a, &mut changed_b);
    let (mut ca, mut cb) = (vec![false; ka.len()], vec![false; kb.len()]);
    Myers::new(&ka, &kb).compare(&mut ca, &mut cb);
    for (k, c) in ca.into_iter().enumerate().filter(|(_, c)| *c) {
        changed_a[index_a[k]] = c;
    }
    for (k, c) in cb.into_iter().enumerate().filter(|(_, c)| *c) {
        changed_b[index_b[k]] = c;
    }
    slide_up(a, &mut changed_a);
    slide_up(b, &mut changed_b);
    (changed_a, changed_b)
}

/// Slides each run of left-out operations as early as it goes: where it could equally be left
/// out one later (`ttnn.deallocate` inserted right after an operation that an original
/// `ttnn.deallocate` already follows), the one inserted is the earlier, as a fix inserts it right
/// after the last use, before what the script did next. The names kept, in order, stay the same:
/// the pairs stay a common subsequence of the same length.
fn slide_up(names: &[u32], changed: &mut [bool]) {
    let mut i = 0;
    while i < names.len() {
        if !changed[i] {
            i += 1;
            continue;
        }
        let mut end = i;
        while end < names.len() && changed[end] {
            end += 1;
        }
        let (next, mut start, mut last) = (end, i, end);
        while start > 0 && !changed[start - 1] && names[start - 1] == names[last - 1] {
            changed[start - 1] = true;
            changed[last - 1] = false;
            start -= 1;
            last -= 1;
            // Joined to the run before it, if any.
            while start > 0 && changed[start - 1] {
                start -= 1;
            }
        }
        i = next;
    }
}

/// One box of the edit graph still to split: `a[off1..lim1]` against `b[off2..lim2]`, and whether
/// its split must be a minimal one.
#[derive(Debug, Clone, Copy)]
struct Region {
    off1: usize,
    lim1: usize,
    off2: usize,
    lim2: usize,
    need_min: bool,
}

/// A split of a box: the point `(i1, i2)` the path goes through, and whether each half's own
/// search must be minimal.
struct Split {
    i1: usize,
    i2: usize,
    min_lo: bool,
    min_hi: bool,
}

/// Myers' search over two sequences with its two diagonal vectors (forward and backward).
struct Myers<'a> {
    a: &'a [u32],
    b: &'a [u32],
    /// Furthest-reaching `x` on each diagonal `k = x - y`, stored at `k + offset`.
    forward: Vec<i64>,
    backward: Vec<i64>,
    offset: i64,
    /// The edit cost past which a split takes the furthest-reaching path found.
    max_cost: i64,
    /// Diagonals visited and snake steps taken so far, and how many the search may take before
    /// the boxes left are aligned by a bounded look-ahead instead (two unrelated runs).
    work: u64,
    budget: u64,
}

/// The search's budget per element of the two runs: above what runs of one model with a fix
/// take (measured by `examples/bench_diff`, 200 000 operations a side: 2 000 `ttnn.deallocate`
/// inserted take 36, 1 000 operations replaced 59, 20 000 inserted 91), so that mostly unrelated
/// runs reach it (two runs of names drawn at random take 562 unbounded: 1.6 s instead of 0.5 s).
const WORK_PER_ELEMENT: u64 = 128;

/// How far ahead the bounded look-ahead looks on each side for the next equal name.
const LOOK_AHEAD: usize = 16;

impl<'a> Myers<'a> {
    fn new(a: &'a [u32], b: &'a [u32]) -> Self {
        let diagonals = a.len() + b.len() + 3;
        // As git's xdiff: about the square root of the diagonals, at least 256.
        let max_cost = ((diagonals as f64).sqrt() as i64).max(256);
        let offset = b.len() as i64 + 1;
        let budget = WORK_PER_ELEMENT * (a.len() + b.len()) as u64;
        Self { a, b, forward: vec![0; diagonals], backward: vec![0; diagonals], offset, max_cost, work: 0, budget }
    }

    /// Marks what is left out of the common subsequence, box by box (no recursion: a long
    /// path of splits never runs out of stack).
    fn compare(&mut self, changed_a: &mut [bool], changed_b: &mut [bool]) {
        let (a, b) = (self.a, self.b);
        let mut boxes = vec![Region { off1: 0, lim1: a.len(), off2: 0, lim2: b.len(), need_min: false }];
        while let Some(Region { mut off1, mut lim1, mut off2, mut lim2, need_min }) = boxes.pop() {
            while off1 < lim1 && off2 < lim2 && a[off1] == b[off2] {
                off1 += 1;
                off2 += 1;
            }
            while off1 < lim1 && off2 < lim2 && a[lim1 - 1] == b[lim2 - 1] {
                lim1 -= 1;
                lim2 -= 1;
            }
            if off1 == lim1 {
                changed_b[off2..lim2].fill(true);
            } else if off2 == lim2 {
                changed_a[off1..lim1].fill(true);
            } else if self.work > self.budget {
                look_ahead((&a[off1..lim1], &b[off2..lim2]), (&mut changed_a[off1..lim1], &mut changed_b[off2..lim2]));
            } else {
                let s = self.split(off1 as i64, lim1 as i64, off2 as i64, lim2 as i64, need_min);
                boxes.push(Region { off1: s.i1, lim1, off2: s.i2, lim2, need_min: s.min_hi });
                boxes.push(Region { off1, lim1: s.i1, off2, lim2: s.i2, need_min: s.min_lo });
            }
        }
    }

    /// The middle snake of a box (both ends non-empty, no common first or last element): the
    /// forward and backward searches run until their paths meet, or, past the cost bound when
    /// a minimal split is not needed, the furthest-reaching path is taken.
    fn split(&mut self, off1: i64, lim1: i64, off2: i64, lim2: i64, need_min: bool) -> Split {
        let (a, b, o) = (self.a, self.b, self.offset);
        let (dmin, dmax) = (off1 - lim2, lim1 - off2);
        let (fmid, bmid) = (off1 - off2, lim1 - lim2);
        let odd = (fmid - bmid) & 1 != 0;
        let (mut fmin, mut fmax, mut bmin, mut bmax) = (fmid, fmid, bmid, bmid);
        let at = |d: i64| (d + o) as usize;
        self.forward[at(fmid)] = off1;
        self.backward[at(bmid)] = lim1;
        let mut cost = 1;
        loop {
            // Grow the forward diagonals by one each way, within the box.
            if fmin > dmin {
                fmin -= 1;
                self.forward[at(fmin - 1)] = -1;
            } else {
                fmin += 1;
            }
            if fmax < dmax {
                fmax += 1;
                self.forward[at(fmax + 1)] = -1;
            } else {
                fmax -= 1;
            }
            let mut d = fmax;
            while d >= fmin {
                let (low, high) = (self.forward[at(d - 1)], self.forward[at(d + 1)]);
                let mut i1 = if low >= high { low + 1 } else { high };
                let mut i2 = i1 - d;
                let from = i1;
                while i1 < lim1 && i2 < lim2 && a[i1 as usize] == b[i2 as usize] {
                    i1 += 1;
                    i2 += 1;
                }
                self.work += 1 + (i1 - from) as u64;
                self.forward[at(d)] = i1;
                if odd && bmin <= d && d <= bmax && self.backward[at(d)] <= i1 {
                    return Split { i1: i1 as usize, i2: i2 as usize, min_lo: true, min_hi: true };
                }
                d -= 2;
            }
            // The same backwards.
            if bmin > dmin {
                bmin -= 1;
                self.backward[at(bmin - 1)] = i64::MAX;
            } else {
                bmin += 1;
            }
            if bmax < dmax {
                bmax += 1;
                self.backward[at(bmax + 1)] = i64::MAX;
            } else {
                bmax -= 1;
            }
            let mut d = bmax;
            while d >= bmin {
                let (low, high) = (self.backward[at(d - 1)], self.backward[at(d + 1)]);
                let mut i1 = if low < high { low } else { high - 1 };
                let mut i2 = i1 - d;
                let from = i1;
                while i1 > off1 && i2 > off2 && a[i1 as usize - 1] == b[i2 as usize - 1] {
                    i1 -= 1;
                    i2 -= 1;
                }
                self.work += 1 + (from - i1) as u64;
                self.backward[at(d)] = i1;
                if !odd && fmin <= d && d <= fmax && i1 <= self.forward[at(d)] {
                    return Split { i1: i1 as usize, i2: i2 as usize, min_lo: true, min_hi: true };
                }
                d -= 2;
            }
            if !need_min && cost >= self.max_cost {
                return self.furthest((off1, lim1, off2, lim2), (fmin, fmax), (bmin, bmax));
            }
            cost += 1;
        }
    }

    /// Past the cost bound: the forward or backward path that got furthest into the box.
    fn furthest(&self, (off1, lim1, off2, lim2): (i64, i64, i64, i64), f: (i64, i64), b: (i64, i64)) -> Split {
        let at = |d: i64| (d + self.offset) as usize;
        let (mut fbest, mut fbest1) = (-1, -1);
        let mut d = f.1;
        while d >= f.0 {
            let mut i1 = self.forward[at(d)].min(lim1);
            let mut i2 = i1 - d;
            if lim2 < i2 {
                i1 = lim2 + d;
                i2 = lim2;
            }
            if fbest < i1 + i2 {
                fbest = i1 + i2;
                fbest1 = i1;
            }
            d -= 2;
        }
        let (mut bbest, mut bbest1) = (i64::MAX, i64::MAX);
        let mut d = b.1;
        while d >= b.0 {
            let mut i1 = self.backward[at(d)].max(off1);
            let mut i2 = i1 - d;
            if i2 < off2 {
                i1 = off2 + d;
                i2 = off2;
            }
            if i1 + i2 < bbest {
                bbest = i1 + i2;
                bbest1 = i1;
            }
            d -= 2;
        }
        if (lim1 + lim2) - bbest < fbest - (off1 + off2) {
            Split { i1: fbest1 as usize, i2: (fbest - fbest1) as usize, min_lo: true, min_hi: false }
        } else {
            Split { i1: bbest1 as usize, i2: (bbest - bbest1) as usize, min_lo: false, min_hi: true }
        }
    }
}

/// Aligns a box once the search's budget is spent: walking both sides, an equal pair is kept;
/// else the nearer of the next equal name within [`LOOK_AHEAD`] on either side is taken (what
/// lies before it left out); else both are left out. Linear, and still a common subsequence.
fn look_ahead((a, b): (&[u32], &[u32]), (changed_a, changed_b): (&mut [bool], &mut [bool])) {
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        if a[i] == b[j] {
            i += 1;
            j += 1;
            continue;
        }
        let in_b = (j + 1..b.len().min(j + LOOK_AHEAD)).find(|&k| b[k] == a[i]);
        let in_a = (i + 1..a.len().min(i + LOOK_AHEAD)).find(|&k| a[k] == b[j]);
        match (in_b, in_a) {
            (Some(k), l) if l.is_none_or(|l| k - j <= l - i) => {
                changed_b[j..k].fill(true);
                j = k;
            }
            (_, Some(l)) => {
                changed_a[i..l].fill(true);
                i = l;
            }
            _ => {
                changed_a[i] = true;
                changed_b[j] = true;
                i += 1;
                j += 1;
            }
        }
    }
    changed_a[i..].fill(true);
    changed_b[j..].fill(true);
}

#[cfg(test)]
#[path = "align_tests.rs"]
mod tests;
