//! The memory section of each failure (docs/rules/memory.md), computed just before its block is printed and
//! dropped after it, so an answer holds one failure's section at a time however many there are.

use super::select::ExplainedError;
use crate::analysis::memory::MemoryAtFailure;
use crate::analysis::memory::whatif::ReplayedAdvice;
use crate::report::{FailureMemory, GraphOnlyPass, MemoryReport, ReportError};
use std::sync::atomic::AtomicBool;

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

    /// The memory at the failure of an operation's error, with the operation's index: none
    /// unless an allocation failure attached to an operation has one.
    pub(crate) fn memory_of(
        &mut self,
        e: &ExplainedError<'_>,
    ) -> Result<Option<(usize, Box<MemoryAtFailure>)>, ReportError> {
        let Some(index) = e.index.filter(|_| e.failure.is_some()) else { return Ok(None) };
        Ok(self.memory(index)?.map(|m| (index, m)))
    }

    /// The advice at the failure of the operation at `index`, each line replayed.
    pub(crate) fn fixes(&self, index: usize, memory: &MemoryAtFailure) -> Result<Vec<ReplayedAdvice>, ReportError> {
        self.report.replays().failure_fixes(index, memory)
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
