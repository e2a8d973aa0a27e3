//! One run's memory for a comparison of two runs (`ttnn-tui diff`, `--compare`): the one pass over
//! `buffers` — its sums give the peaks `explain --peak` gives and the chart lines tab 5 draws, its
//! runs the tensors held past their last use `explain --late` lists — or, on a report without
//! `buffers` rows, the graph replay tab 5 charts instead.

use super::questions::Passes;
use super::usage::UsageProgress;
use crate::analysis::memory::late::LateFindings;
use crate::analysis::memory::usage::MemoryUsage;
use crate::analysis::memory::usage_series::UsageSeries;
use crate::report::error::ReportError;
use std::sync::atomic::AtomicBool;

/// The memory of one run over its operations.
#[derive(Debug, Clone, Default)]
pub struct RunMemory {
    /// The sums of the pass over `buffers` (empty without rows).
    pub usage: MemoryUsage,
    /// One chart line per device and buffer type, in device then type order: from the sums, or
    /// from the replayed graphs when the report has no `buffers` rows.
    pub series: Vec<UsageSeries>,
    /// The tensors held past their last use, as `explain --late` finds them.
    pub late: LateFindings,
}

impl<'r> Passes<'r> {
    /// Reads a run's memory: the one pass over `buffers` (with progress; stopped by `cancel`),
    /// else every captured graph replayed. The late list is `explain --late`'s without what
    /// freeing it would do at each failure (a replay per failure, which a comparison does not
    /// say and which, on a report without lookup indexes, reads far more than the pass).
    pub fn run_memory(
        &self,
        cancel: &AtomicBool,
        progress: &mut dyn FnMut(UsageProgress),
    ) -> Result<RunMemory, ReportError> {
        let mut usage = MemoryUsage::with_runs();
        let questions = self.report.usage();
        questions.read(&mut usage, cancel, progress)?;
        if usage.rows > 0 {
            let late = self.report.late().tensors(&usage)?;
            let series = usage.keys().map(|(device, kind)| questions.series(&usage, device, kind)).collect();
            return Ok(RunMemory { usage, series, late });
        }
        match self.report.graphs().graph_only_pass(&mut |_, _| {}, cancel)? {
            Some(replay) => {
                let late = self.report.late().from_graphs(&replay)?;
                Ok(RunMemory { series: questions.replay_series(&replay), usage, late })
            }
            // A replay gives nothing only when cancelled.
            None => Err(ReportError::Cancelled),
        }
    }
}
