//! The memory of two runs side by side: which chart line of one run is the other's, and the memory
//! used per bank after each aligned operation on that line (docs/rules/interfaces.md §1).

use super::align::Alignment;
use crate::analysis::format::size;
use crate::analysis::memory::usage::UsageKey;
use crate::analysis::memory::usage_series::UsageSeries;

/// The line of the other run that answers `key`: the same device and buffer type, else the one
/// line of that buffer type when the other run has only one (a release that names a single chip
/// by its mesh id, another by its chip id).
pub fn matching_key(key: UsageKey, others: &[UsageKey]) -> Option<UsageKey> {
    if others.contains(&key) {
        return Some(key);
    }
    let mut same_type = others.iter().filter(|k| k.1 == key.1);
    match (same_type.next(), same_type.next()) {
        (Some(only), None) => Some(*only),
        _ => None,
    }
}

/// One aligned pair of operations and the memory used per bank after each.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PairUse {
    /// The BEFORE operation (index).
    pub before: usize,
    /// The AFTER operation (index).
    pub after: usize,
    /// Bytes per bank after it in BEFORE.
    pub before_used: u64,
    /// Bytes per bank after it in AFTER.
    pub after_used: u64,
}

impl PairUse {
    /// How far apart the two figures are.
    fn change(&self) -> u64 {
        self.before_used.abs_diff(self.after_used)
    }
}

/// The memory used after the aligned operations of one line, counted.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PairsUse {
    /// Aligned pairs with a figure on both sides.
    pub compared: usize,
    /// Pairs where AFTER uses less.
    pub lower: usize,
    /// Pairs where AFTER uses more.
    pub higher: usize,
    /// The pair whose figures are furthest apart (the first on ties); none when all are equal.
    pub largest: Option<PairUse>,
}

/// The memory used after each aligned pair on one line of each run (each series has one point
/// per operation of its run, in order), in alignment order.
pub fn pair_uses<'a>(
    before: &'a UsageSeries,
    after: &'a UsageSeries,
    alignment: &'a Alignment,
) -> impl Iterator<Item = PairUse> + 'a {
    alignment.paired().filter_map(|(i, j)| {
        let before_used = before.points.get(i)?.used_per_bank?;
        let after_used = after.points.get(j)?.used_per_bank?;
        Some(PairUse { before: i, after: j, before_used, after_used })
    })
}

/// Counts the pairs where AFTER uses less and more, and finds the largest change.
pub fn count_pair_uses(uses: impl Iterator<Item = PairUse>) -> PairsUse {
    let mut counted = PairsUse::default();
    for pair in uses {
        counted.compared += 1;
        match pair.after_used.cmp(&pair.before_used) {
            std::cmp::Ordering::Less => counted.lower += 1,
            std::cmp::Ordering::Greater => counted.higher += 1,
            std::cmp::Ordering::Equal => continue,
        }
        if counted.largest.is_none_or(|l| pair.change() > l.change()) {
            counted.largest = Some(pair);
        }
    }
    counted
}

/// The sentence of a line's aligned pairs, e.g. `L1 per bank on device 1 after the 5 aligned
/// operations with a figure in both runs: less after 4, more after none, the same after 1; the
/// largest change is after operation 4 ttnn.softmax (now operation 9): 412 KiB before, 382 KiB
/// after.` `name` gives an operation's id and name by its index in BEFORE (`true`) or AFTER.
pub fn pairs_sentence(line: &str, counted: &PairsUse, name: impl Fn(bool, usize) -> (u64, String)) -> String {
    if counted.compared == 0 {
        return format!("{line}: no aligned operation has a figure in both runs.");
    }
    let count = |n: usize| if n == 0 { "none".to_string() } else { n.to_string() };
    let same = counted.compared - counted.lower - counted.higher;
    let operations = if counted.compared == 1 { "operation" } else { "operations" };
    let mut sentence = format!(
        "{line} after the {} aligned {operations} with a figure in both runs: less after {}, more after {}, the same after {}",
        counted.compared,
        count(counted.lower),
        count(counted.higher),
        count(same)
    );
    if let Some(pair) = counted.largest {
        let (before_id, before_name) = name(true, pair.before);
        let (after_id, _) = name(false, pair.after);
        let now = if after_id == before_id { String::new() } else { format!(" (now operation {after_id})") };
        sentence.push_str(&format!(
            "; the largest change is after operation {before_id} {before_name}{now}: {} before, {} after",
            size(pair.before_used),
            size(pair.after_used)
        ));
    }
    sentence.push('.');
    sentence
}
