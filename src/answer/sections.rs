//! The memory section of each failure (docs/rules/memory.md), computed just before its block is printed and
//! dropped after it, so an answer holds one failure's section at a time however many there are.

use super::select::ExplainedError;
use crate::analysis::memory::MemoryAtFailure;
use crate::analysis::memory::whatif::ReplayedAdvice;
use crate::report::{FailureMemory, GraphOnlyPass, MemoryReport, ReportError};
use std::sync::atomic::AtomicBool;

/// One failure's memory section and its advice, each line replayed (docs/rules/memory.md §9.2).
pub(crate) struct FailureSection {
    /// The memory at the failure.
    pub(crate) memory: Box<MemoryAtFailure>,
    /// The advice lines with their replayed answers.
    pub(crate) fixes: Vec<ReplayedAdvice>,
}

/// One failure's memory section: none when it has none, or why it could not be read.
pub(crate) type Section = Result<Option<FailureSection>, ReportError>;

/// Computes memory sections one at a time; the graph-only pass runs once, for the first failure
/// that needs it, and its result serves every later one.
pub(crate) struct MemorySections<'a> {
    report: &'a MemoryReport,
    /// The graph-only pass, once it has run.
    replay: Option<Result<Option<GraphOnlyPass>, ReportError>>,
}

impl<'a> MemorySections<'a> {
    /// Nothing computed yet.
    pub(crate) fn new(report: &'a MemoryReport) -> Self {
        Self { report, replay: None }
    }

    /// The memory section of an operation's error: only an allocation failure attached to an
    /// operation has one.
    pub(crate) fn section(&mut self, e: &ExplainedError<'_>) -> Section {
        let Some(index) = e.index.filter(|_| e.failure.is_some()) else { return Ok(None) };
        let Some(memory) = self.memory(index)? else { return Ok(None) };
        let fixes = self.report.replays().failure_fixes(index, &memory)?;
        Ok(Some(FailureSection { memory, fixes }))
    }

    /// The memory at an operation's failure (by index), replaying the graphs once when needed.
    fn memory(&mut self, index: usize) -> Result<Option<Box<MemoryAtFailure>>, ReportError> {
        let replayed = self.replay.as_ref().and_then(|r| r.as_ref().ok()).and_then(Option::as_ref);
        match self.report.pictures().at_failure(index, replayed)? {
            FailureMemory::Found(m) => Ok(Some(m)),
            FailureMemory::Absent => Ok(None),
            FailureMemory::NeedsReplay if self.replay.is_some() => self.after_replay(index),
            FailureMemory::NeedsReplay => {
                let report = self.report;
                self.replay = Some(report.graphs().graph_only_pass(&mut |_, _| {}, &AtomicBool::new(false)));
                self.after_replay(index)
            }
        }
    }

    /// The section of a failure whose basis is `graph_only`, once the pass has run.
    fn after_replay(&self, index: usize) -> Result<Option<Box<MemoryAtFailure>>, ReportError> {
        let replay = match &self.replay {
            Some(Ok(replay)) => replay.as_ref(),
            Some(Err(e)) => return Err(e.clone()),
            None => None,
        };
        match self.report.pictures().at_failure(index, replay)? {
            FailureMemory::Found(m) => Ok(Some(m)),
            FailureMemory::Absent | FailureMemory::NeedsReplay => Ok(None),
        }
    }
}
