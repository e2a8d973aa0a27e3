//! Myers' linear-space search of the middle snake over two runs' interned names, as git's xdiff
//! runs it: a cost bound past which a split takes the furthest-reaching path, and a budget of
//! work for the whole search past which the boxes left are aligned by a bounded look-ahead.

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
pub(super) struct Myers<'a> {
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
    pub(super) fn new(a: &'a [u32], b: &'a [u32]) -> Self {
        let diagonals = a.len() + b.len() + 3;
        // As git's xdiff: about the square root of the diagonals, at least 256.
        let max_cost = ((diagonals as f64).sqrt() as i64).max(256);
        let offset = b.len() as i64 + 1;
        let budget = WORK_PER_ELEMENT * (a.len() + b.len()) as u64;
        Self { a, b, forward: vec![0; diagonals], backward: vec![0; diagonals], offset, max_cost, work: 0, budget }
    }

    /// Marks what is left out of the common subsequence, box by box (no recursion: a long
    /// path of splits never runs out of stack).
    pub(super) fn compare(&mut self, changed_a: &mut [bool], changed_b: &mut [bool]) {
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
