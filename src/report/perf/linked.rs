//! A memory report and a performance report opened together: the link between them and what
//! depends on it — failures listed above the perf table, each operation's perf status, likely DRAM
//! fallbacks and the Flags column (docs/rules/reference.md §9–§11).

use super::perf_report::PerfReport;
use crate::analysis::graph::nodes::parse_scopes;
use crate::analysis::messages::failure::AllocationFailure;
use crate::analysis::perf::callout::{
    FailedOperation, PerfCallout, PerfStatus, failure_listings, perf_callout, perf_status_for_operation,
};
use crate::analysis::perf::dram_fallback::{DramFallback, detect_dram_fallbacks};
use crate::analysis::perf::flags::{Flag, flags_for_rows};
use crate::analysis::perf::link::{Link, LinkState, MemoryOperation, link};
use crate::analysis::perf::report_rows::PerfRow;
use crate::report::error::ReportError;
use crate::report::memory::memory_report::MemoryReport;
use std::collections::HashMap;

/// Both reports, linked (or found not to be).
pub struct LinkedReports {
    /// The performance report.
    pub(crate) perf: PerfReport,
    /// Its rows with devices merged: the link view.
    pub rows: Vec<PerfRow>,
    /// The alignment of completed device operations with those rows.
    pub link: Link,
    /// The memory report's allocation failures, in operation id order.
    pub(crate) failed: Vec<FailedOperation>,
    /// Likely DRAM fallbacks by operation id (docs/rules/reference.md §11.3); read only when linked.
    pub fallbacks: HashMap<u64, DramFallback>,
}

impl LinkedReports {
    /// Links a performance report to a memory report; reads every captured graph of the memory
    /// report once. An operation whose graph cannot be read takes part with no device operation.
    pub fn new(memory: &MemoryReport, perf: PerfReport) -> Result<Self, ReportError> {
        let memory_side: Vec<MemoryOperation> = memory.graphs().map(parse_scopes, |i, graph| {
            let op = &memory.operations[i];
            MemoryOperation::from_graph(op.id, op.name.to_string(), graph.as_deref().unwrap_or(&[]))
        })?;
        let rows = perf.rows(true);
        let link = link(&memory_side, &rows, memory.devices.len());
        let failed = (0..memory.operations.len())
            .filter_map(|i| {
                let op = &memory.operations[i];
                let failure = memory.error_of(i)?.failure.clone()?;
                let failed_device_operations = memory.graphs().failed_device_operations(i).unwrap_or_default();
                Some(FailedOperation { id: op.id, name: op.name.to_string(), failure, failed_device_operations })
            })
            .collect();
        // The flag needs the link, and reading every operation's arguments costs a pass over
        // the table: skip it when nothing is linked.
        let fallbacks = if link.is_linked() {
            detect_dram_fallbacks(&memory.tensors().fallback_operations(&memory.errors)?)
        } else {
            HashMap::new()
        };
        Ok(Self { perf, rows, link, failed, fallbacks })
    }

    /// `linked`, `unlinked`, or `unavailable` for a performance report without rows.
    pub fn state(&self) -> LinkState {
        self.link.state()
    }

    /// Why the reports did not link, as one line shown beside [`LinkState::text`] (e.g. `the
    /// performance report has no rows`); none when linked.
    pub(crate) fn reason(&self) -> Option<String> {
        self.link.reason()
    }

    /// The perf status of an operation with an attached error, when the reports are linked.
    pub(crate) fn status_of(&self, memory: &MemoryReport, index: usize) -> Option<PerfStatus> {
        if !self.link.is_linked() {
            return None;
        }
        let op = &memory.operations[index];
        let error = memory.error_of(index)?;
        let failed = memory.graphs().failed_device_operations(index).unwrap_or_default();
        Some(perf_status_for_operation(op.id, &failed, error.failure.is_some(), &self.link.map, &self.link.map))
    }

    /// The callout above the perf table (merged view), when linked and the memory report has
    /// allocation failures.
    pub fn callout(&self, hex: bool) -> Option<PerfCallout> {
        let listings = failure_listings(&self.failed, &self.link.map, &self.link.map);
        perf_callout(&listings, self.link.is_linked(), hex)
    }

    /// The Flags column of the merged rows (docs/rules/reference.md §11): `Op failed` and `DRAM fallback?`
    /// only when linked, the other flags where the CSV carries what they need.
    pub fn flags(&self) -> Vec<Vec<Flag>> {
        let failures: HashMap<u64, AllocationFailure> = self.failed.iter().map(|f| (f.id, f.failure.clone())).collect();
        flags_for_rows(&self.rows, &self.link.map, &failures, &self.fallbacks, self.perf.max_cores(&self.rows))
    }
}
