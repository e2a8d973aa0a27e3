//! Two runs' operations aligned by name (docs/rules/interfaces.md §1): a longest common subsequence of the
//! two name sequences, found as `git diff` finds one — the common prefix and suffix set aside,
//! names only one side has set aside, then Myers' linear-space search of the middle snake — with
//! a cost bound that keeps a run of 200 000 operations a side linear-ish. Past the bound the
//! split is the furthest-reaching one (as git's xdiff does): still a common subsequence, rarely a
//! shorter one, never a slow one; and past a budget of work for the whole search (two unrelated
//! runs), what is left is aligned by a bounded look-ahead.

use super::myers::Myers;
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

#[cfg(test)]
#[path = "align_tests.rs"]
mod tests;
