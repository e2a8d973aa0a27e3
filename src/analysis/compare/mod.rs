//! Two runs compared (`ttnn-tui diff`, `--compare`; docs/rules/interfaces.md §1): their operations aligned
//! by name, their failures gone, new and kept, the line a comparison leads with, and the memory
//! after each aligned operation. Pure: the report layer reads each run, print mode and the UI say
//! what these rules find.

mod align;
mod failures;
mod memory_lines;
mod myers;

pub use align::{Alignment, Parting};
pub use failures::{
    FailureChanges, NEVER_COMPLETED, RunFailure, compare_failures, failure_words, kept_words, lead_line, run_failures,
};
pub use memory_lines::{PairUse, PairsUse, count_pair_uses, matching_key, pair_uses, pairs_sentence};

/// The sentence of the alignment, e.g. `5 operations aligned (5 before, 11 after); the runs part
/// at operation 2 ttnn.deallocate, which only the after run has.` `name` gives an operation's id
/// and name by its index in BEFORE (`true`) or AFTER.
pub fn aligned_sentence(
    alignment: &Alignment,
    (before, after): (usize, usize),
    name: impl Fn(bool, usize) -> (u64, String),
) -> String {
    let operations = if alignment.pairs() == 1 { "operation" } else { "operations" };
    let head = format!("{} {operations} aligned ({before} before, {after} after)", alignment.pairs());
    let place = |side: bool, index: usize| {
        let (id, name) = name(side, index);
        format!("operation {id} {name}")
    };
    match alignment.parted_at() {
        None => format!("{head}; the runs do not part."),
        Some(Parting { before: Some(i), after: None }) => {
            format!("{head}; the runs part at {}, which only the before run has.", place(true, i))
        }
        Some(Parting { before: None, after: Some(j) }) => {
            format!("{head}; the runs part at {}, which only the after run has.", place(false, j))
        }
        Some(Parting { before: Some(i), after: Some(j) }) => {
            format!("{head}; the runs part at {} before, {} after.", place(true, i), place(false, j))
        }
        Some(Parting { before: None, after: None }) => format!("{head}."),
    }
}

#[cfg(test)]
mod tests;
