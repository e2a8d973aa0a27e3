//! The earlier run the UI compares the shown one with (`ttnn-tui BEFORE --compare AFTER`): its
//! operations aligned with the shown run's, the failures gone, new and kept, and — once its one
//! pass over `buffers` has run on a worker — its memory over the run, drawn on tab 5 beside the
//! shown run's. The shown run is AFTER; this state is BEFORE's.

use crate::analysis::compare::{
    Alignment, FailureChanges, RunFailure, compare_failures, lead_line, matching_key, run_failures,
};
use crate::analysis::memory::usage::UsageKey;
use crate::analysis::memory::usage_series::UsageSeries;
use crate::analysis::model::{ErrorRecord, Operation};

/// What tab 1 says of an operation of the shown run, compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    /// Its failure is new: BEFORE does not have it.
    New,
    /// Its failure was there in BEFORE too.
    Kept,
    /// BEFORE failed here (on the aligned operation) and this run does not.
    Gone,
}

impl Change {
    /// The word after the error marker.
    pub fn word(self) -> &'static str {
        match self {
            Self::New => "new",
            Self::Kept => "kept",
            Self::Gone => "gone",
        }
    }
}

/// BEFORE, as the UI compares the shown run with it.
#[derive(Debug, Clone)]
pub struct Comparison {
    /// BEFORE's display name.
    pub(crate) name: String,
    /// BEFORE's operations (ids and names).
    pub(crate) operations: Vec<Operation>,
    /// The two runs' operations aligned by name (BEFORE, shown run).
    pub(crate) alignment: Alignment,
    /// The failures gone, new and kept.
    pub(crate) changes: FailureChanges,
    /// The line the comparison leads with.
    pub(crate) lead: String,
    /// Where each BEFORE operation sits on the shown run's axis (see [`x_positions`]).
    pub(crate) x: Vec<f64>,
    /// BEFORE's memory lines, once its pass has run.
    pub(crate) series: Vec<UsageSeries>,
}

impl Comparison {
    /// BEFORE (`name`, its operations and errors) beside the shown run's operations and errors.
    pub fn new(
        name: String,
        (operations, errors): (Vec<Operation>, &[ErrorRecord]),
        (shown, shown_errors): (&[Operation], &[ErrorRecord]),
    ) -> Self {
        let names = |ops: &[Operation]| ops.iter().map(|o| o.name.clone()).collect::<Vec<_>>();
        let alignment = Alignment::new(&names(&operations), &names(shown));
        let changes = compare_failures(run_failures(&operations, errors), run_failures(shown, shown_errors));
        let lead = lead_line(&changes);
        let x = x_positions(&alignment, operations.len(), shown.len());
        Self { name, operations, alignment, changes, lead, x, series: Vec::new() }
    }

    /// What tab 1 says of the shown run's operation `index`.
    pub fn change(&self, index: usize) -> Option<Change> {
        let is = |f: &RunFailure| f.index == index;
        if self.changes.new.iter().any(is) {
            return Some(Change::New);
        }
        if self.changes.kept.iter().any(|(_, after)| is(after)) {
            return Some(Change::Kept);
        }
        let gone_here = |f: &RunFailure| self.alignment.after_of(f.index) == Some(index);
        self.changes.gone.iter().any(gone_here).then_some(Change::Gone)
    }

    /// The kind marker of the BEFORE failure gone at the shown run's operation `index`.
    pub fn gone_kind(&self, index: usize) -> Option<&str> {
        let f = self.changes.gone.iter().find(|f| self.alignment.after_of(f.index) == Some(index))?;
        Some(&f.label)
    }

    /// BEFORE's line answering the shown run's line `key`.
    pub fn line(&self, key: UsageKey) -> Option<&UsageSeries> {
        let keys: Vec<UsageKey> = self.series.iter().map(|s| (s.device_id, s.buffer_type)).collect();
        let key = matching_key(key, &keys)?;
        self.series.iter().find(|s| (s.device_id, s.buffer_type) == key)
    }

    /// The BEFORE operation aligned with the shown run's operation `index`.
    pub fn before_of(&self, index: usize) -> Option<&Operation> {
        self.operations.get(self.alignment.before_of(index)?)
    }

    /// Takes BEFORE's memory lines.
    pub(crate) fn set_series(&mut self, series: Vec<UsageSeries>) {
        self.series = series;
    }
}

/// Where each BEFORE operation is drawn on the shown run's axis (one unit per shown operation):
/// an aligned one at its partner; those only BEFORE has spread evenly between the partners of
/// their aligned neighbours (never before 0).
pub(crate) fn x_positions(alignment: &Alignment, before: usize, after: usize) -> Vec<f64> {
    let mut x = vec![0.0; before];
    let mut start = 0; // the first BEFORE operation of the current run without a partner
    let mut previous = -1.0; // the x of the aligned operation before it
    for i in 0..=before {
        let anchor = if i == before { Some(after as f64) } else { alignment.after_of(i).map(|j| j as f64) };
        let Some(next) = anchor else { continue };
        let count = (i - start) as f64;
        for (k, slot) in x[start..i].iter_mut().enumerate() {
            *slot = (previous + (k as f64 + 1.0) * (next - previous) / (count + 1.0)).max(0.0);
        }
        if i < before {
            x[i] = next;
        }
        previous = next;
        start = i + 1;
    }
    x
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn before_only_operations_sit_between_their_neighbours() {
        let before = ["ttnn.matmul", "ttnn.softmax", "ttnn.relu", "ttnn.add"];
        let after = ["ttnn.matmul", "ttnn.deallocate", "ttnn.add"];
        let alignment = Alignment::new(&before, &after);
        // matmul at 0, add at 2; softmax and relu between 0 and 2.
        let x = x_positions(&alignment, 4, 3);
        assert_eq!(x, [0.0, 2.0 / 3.0, 4.0 / 3.0, 2.0]);
        // A run only BEFORE has, at the start and at the end.
        let alignment = Alignment::new(&["ttnn.empty", "ttnn.add", "ttnn.relu"], &["ttnn.add"]);
        assert_eq!(x_positions(&alignment, 3, 1), [0.0, 0.0, 0.5]);
    }
}
