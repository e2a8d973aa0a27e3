//! A failure's advice, each fix replayed (docs/rules/memory.md §9.2), as every front end reads it: explain's
//! entries and the MCP tools through `Entries` (`FixAnswer`), the terminal UI's tab 4 through
//! [`failure_advice`] and [`your_fixes`], which it formats at each draw (the hex setting changes
//! while it runs) with the same sentence `FixAnswer::sentence` holds.

use crate::analysis::memory::whatif::{Advice, AdviceKind, Fix, ReplayedAdvice, Sources, not_applied};
use crate::report::memory::graph_only::GraphOnlyPass;
use crate::report::memory::pictures::FailureMemory;
use crate::report::{MemoryReport, ReportError, WhatIfOptions};
use serde::Serialize;
use std::sync::atomic::AtomicBool;

/// One advice line as a replayed fix (docs/rules/memory.md §9.3).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FixAnswer {
    /// The fixes, as the `whatif` command takes them.
    pub fix: String,
    /// What tt-metal would do with the operation: `fits`, `does_not_fit` or `unknown`.
    pub outcome: &'static str,
    /// Where the request would land (when the request fits; the operation may still not).
    pub address: Option<u64>,
    /// The advice line.
    pub sentence: String,
}

/// The advice of an operation's failure (by index), each line replayed; none without a picture
/// of the failure (a `graph_only` basis waits for `replay`). Stops once `cancel` is set.
pub fn failure_advice(
    report: &MemoryReport,
    index: usize,
    replay: Option<&GraphOnlyPass>,
    cancel: Option<&AtomicBool>,
) -> Result<Vec<ReplayedAdvice>, ReportError> {
    match report.pictures().at_failure(index, replay)? {
        FailureMemory::Found(m) => report.replays().failure_fixes_with(index, &m, cancel),
        FailureMemory::Absent | FailureMemory::NeedsReplay => Ok(Vec::new()),
    }
}

/// The replay of fixes the user gave for an operation's failure (by index), as one more advice
/// line of theirs; `Ok(Err(why))` when a fix cannot act on this run (as `whatif` refuses it).
/// Stops once `cancel` is set.
pub fn your_fixes(
    report: &MemoryReport,
    index: usize,
    fixes: &[Fix],
    replay: Option<&GraphOnlyPass>,
    cancel: Option<&AtomicBool>,
) -> Result<Result<ReplayedAdvice, String>, ReportError> {
    let memory = match report.pictures().at_failure(index, replay)? {
        FailureMemory::Found(m) => Some(m),
        FailureMemory::Absent | FailureMemory::NeedsReplay => None,
    };
    let options = WhatIfOptions::default();
    let mut answers = report.replays().what_ifs_at(index, &[fixes], &options, memory.as_deref(), cancel)?;
    let answer = answers.remove(0).answer;
    if let Some(why) = not_applied(&answer.notes) {
        return Ok(Err(why));
    }
    let advice = Advice { kind: AdviceKind::Yours, fixes: answer.fixes.clone() };
    Ok(Ok(ReplayedAdvice { advice, answer: Some(answer), skipped: None, sources: Sources::default() }))
}

/// The `fixes` of an entry: each replayed advice line with its outcome, address and sentence.
pub(crate) fn fix_answers(fixes: &[ReplayedAdvice], operation_id: u64, hex: bool) -> Vec<FixAnswer> {
    fixes
        .iter()
        .map(|r| FixAnswer {
            fix: r.fix_text(),
            outcome: r.answer.as_ref().map_or("unknown", |a| a.outcome.as_str()),
            address: r.answer.as_ref().and_then(|a| a.address),
            sentence: r.sentence(operation_id, hex),
        })
        .collect()
}
