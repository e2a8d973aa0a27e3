//! Print mode (`ttnn-tui explain`): every error of a report, explained as plain text or JSON for
//! a terminal log, a CI job or a script.

mod beside;
mod diff;
mod diff_json;
mod failure_json;
mod follow;
mod json;
mod late;
mod log;
mod memory_json;
mod paint;
mod peak;
mod sections;
mod text;
mod whatif;

use crate::analysis::failure::AllocationFailure;
pub use crate::analysis::model::first_line;
use crate::analysis::perf_callout::PerfStatus;
use crate::analysis::stack::source_label;
use crate::report::linked::LinkedReports;
use crate::report::{ErrorRecord, MemoryReport, ReportError};

pub use diff::{Compared, Side, compare_runs, diff_error, diff_reports, render_diff_text};
pub use diff_json::render_diff_json;
pub use follow::{FollowEnd, follow};
pub use json::{render_json, write_json};
pub use late::read_late;
pub use log::{MAX_LINE_BYTES, RECORD_A_REPORT, render_log_json, render_log_text, scan_log};
pub use memory_json::{MemoryJson, memory_json};
pub use peak::{PeakLine, Peaks, read_peaks};
pub use text::render_text;
pub use whatif::{render_whatif_json, render_whatif_text};

/// What to print.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ExplainOptions {
    /// Only this operation's block.
    pub operation: Option<u64>,
    /// Hexadecimal addresses.
    pub hex: bool,
    /// Colours in the text (`--color`; never in JSON).
    pub color: bool,
}

/// One error to print: an operation's attached error, or an unattached one.
#[derive(Debug, Clone)]
pub(crate) struct ExplainedError<'a> {
    /// The operation's index in the report (attached errors only).
    pub(crate) index: Option<usize>,
    /// The operation's id (attached), or the error row's (unattached): none when NULL.
    pub(crate) operation_id: Option<u64>,
    /// The operation name; empty for an unattached row without one.
    pub(crate) operation_name: &'a str,
    /// False for an operation the report did not record (behaviour.md §13.5).
    pub(crate) recorded: bool,
    /// The operation's `{file}:{line}` from its stack trace, as the operations list shows it
    /// (behaviour.md §1.5); none for an unattached error or without such a place.
    pub(crate) source: Option<String>,
    /// The error row.
    pub(crate) error: &'a ErrorRecord,
    /// The allocation failure, when the message is one.
    pub(crate) failure: Option<&'a AllocationFailure>,
    /// Failed device operations (attached errors only), or why the graph is unavailable.
    pub(crate) failed_device_operations: Result<Vec<String>, ReportError>,
    /// The operation's perf status, when a linked performance report is open.
    pub(crate) perf: Option<PerfStatus>,
}

/// The errors of a report, in print order: attached ones by operation id, then unattached ones.
pub struct Explanation<'a> {
    /// The performance report opened with the memory report, linked or not.
    pub(crate) linked: Option<&'a LinkedReports>,
    /// Operations with an attached error, in id order.
    pub(crate) operations: Vec<ExplainedError<'a>>,
    /// Errors no operation picked, in table order.
    pub(crate) unattached: Vec<ExplainedError<'a>>,
    /// Each device's peak use per buffer type (`--peak`), with the region sizes; none without.
    pub peaks: Option<Peaks>,
    /// The tensors held past their last use (`--late`); none without.
    pub late: Option<crate::analysis::late::LateFindings>,
}

/// Collects what to print; `Err` names an `--operation` id the report does not have. The memory
/// sections are not among it: each is computed as its block is printed (`MemorySections`).
pub fn collect<'a>(
    report: &'a MemoryReport,
    linked: Option<&'a LinkedReports>,
    options: &ExplainOptions,
) -> Result<Explanation<'a>, u64> {
    let indexes: Vec<usize> = match options.operation {
        Some(id) => vec![report.operation_index(id).ok_or(id)?],
        None => (0..report.operations.len()).collect(),
    };
    let with_error: Vec<usize> = indexes.into_iter().filter(|&i| report.error_of(i).is_some()).collect();
    // Without its stack traces the blocks are still printed, without their source locations.
    let traces = report.details().stack_traces(&with_error).unwrap_or_default();
    let operations = with_error
        .into_iter()
        .filter_map(|i| {
            let mut explained = explained_operation(report, linked, i)?;
            explained.source = traces.get(&i).and_then(|t| source_label(t));
            Some(explained)
        })
        .collect();
    let unattached = if options.operation.is_some() {
        Vec::new()
    } else {
        report.unattached_errors().map(explained_unattached).collect()
    };
    Ok(Explanation { linked, operations, unattached, peaks: None, late: None })
}

/// The error of an operation (by index), when it has one.
fn explained_operation<'a>(
    report: &'a MemoryReport,
    linked: Option<&'a LinkedReports>,
    index: usize,
) -> Option<ExplainedError<'a>> {
    let op = &report.operations[index];
    let error = report.error_of(index)?;
    Some(ExplainedError {
        index: Some(index),
        operation_id: Some(op.id),
        operation_name: &op.name,
        recorded: op.recorded,
        source: None,
        error,
        failure: error.failure.as_ref(),
        failed_device_operations: report.graphs().failed_device_operations(index),
        perf: linked.and_then(|l| l.status_of(report, index)),
    })
}

/// An error row no operation picked.
fn explained_unattached(error: &ErrorRecord) -> ExplainedError<'_> {
    ExplainedError {
        index: None,
        operation_id: error.operation_id,
        operation_name: &error.operation_name,
        recorded: true,
        source: None,
        error,
        failure: error.failure.as_ref(),
        failed_device_operations: Ok(Vec::new()),
        perf: None,
    }
}
