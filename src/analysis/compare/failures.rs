//! The failures of two runs compared by (operation name, kind) (docs/rules/interfaces.md §1): gone (BEFORE
//! only), new (AFTER only), kept; and the line a comparison leads with.

use crate::analysis::attach::INCOMPLETE_OPERATION as INCOMPLETE;
use crate::analysis::messages::failure::FailureKind;
use crate::analysis::messages::reason::{Reason, explain, summary};
use crate::analysis::model::{ErrorRecord, Operation, first_line};
use std::collections::{HashMap, VecDeque};

/// What a run's log says of an operation that started and never completed, as a failure's label.
pub const NEVER_COMPLETED: &str = "Started but never completed";

/// One failure of a run: an operation's attached error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunFailure {
    /// The operation's index in its run.
    pub index: usize,
    /// The operation's id in its run.
    pub operation_id: u64,
    /// The operation's name.
    pub operation_name: String,
    /// The kind, as the JSON gives it: an allocation failure's (`bank_out_of_memory`, …), else
    /// the error's type as stored (`RuntimeError`, `incomplete_operation`).
    pub kind: String,
    /// The kind in words: `Out of memory`, `Circular buffers clash with L1 buffers`, else the
    /// error's type.
    pub label: String,
    /// The summary line of an allocation failure (docs/rules/reference.md §5.2), else the message's line
    /// worth quoting.
    pub summary: String,
    /// Why an allocation did not fit, where its figures say.
    pub reason: Option<Reason>,
}

/// The failures of one run, in operation order: every operation with an attached error.
pub fn run_failures(operations: &[Operation], errors: &[ErrorRecord]) -> Vec<RunFailure> {
    operations
        .iter()
        .enumerate()
        .filter_map(|(index, op)| {
            let error = errors.get(op.error?)?;
            Some(run_failure(index, op, error))
        })
        .collect()
}

/// One operation's failure.
fn run_failure(index: usize, op: &Operation, error: &ErrorRecord) -> RunFailure {
    let (kind, label, summary_line, reason) = match &error.failure {
        Some(failure) => (
            kind_token(failure.kind),
            failure.kind.label().to_string(),
            summary(failure, false),
            explain(failure, false).map(|e| e.reason),
        ),
        None => {
            let label = if error.is_incomplete() { NEVER_COMPLETED.to_string() } else { error.error_type.clone() };
            (error.error_type.clone(), label, first_line(&error.message).to_string(), None)
        }
    };
    RunFailure {
        index,
        operation_id: op.id,
        operation_name: op.name.to_string(),
        kind,
        label,
        summary: summary_line,
        reason,
    }
}

/// The kind's JSON token, as `explain --json` writes it (`bank_out_of_memory`).
fn kind_token(kind: FailureKind) -> String {
    serde_json::to_value(kind).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default()
}

/// The failures of two runs compared.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FailureChanges {
    /// In BEFORE only, in its order.
    pub gone: Vec<RunFailure>,
    /// In AFTER only, in its order.
    pub new: Vec<RunFailure>,
    /// In both, `(before, after)`, in BEFORE's order.
    pub kept: Vec<(RunFailure, RunFailure)>,
}

/// Compares by (operation name, kind): the k-th failure of a name and kind in BEFORE is kept when
/// AFTER has a k-th one too. A release that records no message (`incomplete_operation`) says only
/// that the operation failed: such a failure left over is kept with a failure left over of the
/// same operation name on the other side, of whatever kind.
pub fn compare_failures(before: Vec<RunFailure>, after: Vec<RunFailure>) -> FailureChanges {
    let mut waiting: HashMap<(String, String), VecDeque<usize>> = HashMap::new();
    for (k, f) in after.iter().enumerate() {
        waiting.entry((f.operation_name.clone(), f.kind.clone())).or_default().push_back(k);
    }
    let mut partner: Vec<Option<usize>> = Vec::with_capacity(before.len());
    for f in &before {
        let key = (f.operation_name.clone(), f.kind.clone());
        partner.push(waiting.get_mut(&key).and_then(VecDeque::pop_front));
    }
    let mut taken = vec![false; after.len()];
    partner.iter().flatten().for_each(|&k| taken[k] = true);
    for (f, p) in before.iter().zip(partner.iter_mut()).filter(|(_, p)| p.is_none()) {
        let unknown = |g: &RunFailure| g.kind == INCOMPLETE || f.kind == INCOMPLETE;
        let found =
            (0..after.len()).find(|&k| !taken[k] && after[k].operation_name == f.operation_name && unknown(&after[k]));
        if let Some(k) = found {
            taken[k] = true;
            *p = Some(k);
        }
    }
    let mut after: Vec<Option<RunFailure>> = after.into_iter().map(Some).collect();
    let mut changes = FailureChanges::default();
    for (f, k) in before.into_iter().zip(partner) {
        match k.and_then(|k| after[k].take()) {
            Some(kept) => changes.kept.push((f, kept)),
            None => changes.gone.push(f),
        }
    }
    changes.new = after.into_iter().zip(taken).filter(|(_, t)| !t).filter_map(|(f, _)| f).collect();
    changes
}

/// A failure in words: `Out of memory in ttnn.matmul (operation 10)`.
pub fn failure_words(f: &RunFailure) -> String {
    format!("{} in {} (operation {})", f.label, f.operation_name, f.operation_id)
}

/// A kept failure in words: `Out of memory in ttnn.add (operation 16, now 17)`, or one id when
/// both runs give it the same.
pub fn kept_words((before, after): &(RunFailure, RunFailure)) -> String {
    let ids = match before.operation_id == after.operation_id {
        true => format!("operation {}", before.operation_id),
        false => format!("operation {}, now {}", before.operation_id, after.operation_id),
    };
    // The side that says what the failure is.
    let label = if before.kind == INCOMPLETE { &after.label } else { &before.label };
    format!("{label} in {} ({ids})", before.operation_name)
}

/// The first of a list in words, with how many more: `X and 2 more`.
fn first_and_more<T>(list: &[T], words: impl Fn(&T) -> String) -> Option<(String, usize)> {
    let first = list.first()?;
    Some((words(first), list.len() - 1))
}

/// The line a comparison leads with, e.g. `Out of memory in ttnn.matmul (operation 10) is gone;
/// new: Circular buffers clash with L1 buffers in ttnn.matmul (operation 15).`
///
/// The other cases, in the same voice: `Out of memory in ttnn.add (operation 11) is gone; no new
/// failure.` — `No failure is gone; new: … .` — `No failure is gone or new; still there: … .`
/// — `Neither run has a failure.` Failures kept beside gone or new ones close the line with
/// `; still there: …`; more than one of a list is `X and 2 more`.
pub fn lead_line(changes: &FailureChanges) -> String {
    let gone = first_and_more(&changes.gone, failure_words);
    let new = first_and_more(&changes.new, failure_words);
    let kept = first_and_more(&changes.kept, kept_words);
    let more = |(words, more): (String, usize)| match more {
        0 => words,
        n => format!("{words} and {n} more"),
    };
    let mut line = match (gone, new) {
        (None, None) if kept.is_none() => return "Neither run has a failure.".to_string(),
        (None, None) => "No failure is gone or new".to_string(),
        (Some(gone), new) => {
            let verb = if gone.1 == 0 { "is" } else { "are" };
            let new = new.map_or_else(|| "no new failure".to_string(), |n| format!("new: {}", more(n)));
            format!("{} {verb} gone; {new}", more(gone))
        }
        (None, Some(new)) => format!("No failure is gone; new: {}", more(new)),
    };
    if let Some(kept) = kept {
        line.push_str(&format!("; still there: {}", more(kept)));
    }
    line.push('.');
    line
}
