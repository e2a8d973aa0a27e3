//! Print mode (`ttnn-tui explain`): every error of a report, explained as plain text or JSON for
//! a terminal log, a CI job or a script.

mod json;
mod text;

use crate::analysis::failure::AllocationFailure;
use crate::analysis::perf_callout::PerfStatus;
use crate::analysis::stack::source_label;
use crate::report::linked::LinkedReports;
use crate::report::{ErrorRecord, MemoryReport, ReportError};

pub use json::render_json;
pub use text::render_text;

/// What to print.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ExplainOptions {
    /// Only this operation's block.
    pub operation: Option<u64>,
    /// Hexadecimal addresses.
    pub hex: bool,
}

/// One error to print: an operation's attached error, or an unattached one.
#[derive(Debug, Clone)]
pub struct ExplainedError<'a> {
    /// The operation's id and name (attached), or the error row's (unattached).
    pub operation_id: u64,
    /// The operation name; empty for an unattached row without one.
    pub operation_name: &'a str,
    /// The operation's `{file}:{line}` from its stack trace, as the operations list shows it
    /// (behaviour.md §1.5); none for an unattached error or without such a place.
    pub source: Option<String>,
    /// The error row.
    pub error: &'a ErrorRecord,
    /// The allocation failure, when the message is one.
    pub failure: Option<&'a AllocationFailure>,
    /// Failed device operations (attached errors only), or why the graph is unavailable.
    pub failed_device_operations: Result<Vec<String>, ReportError>,
    /// The operation's perf status, when a linked performance report is open.
    pub perf: Option<PerfStatus>,
}

/// The errors of a report, in print order: attached ones by operation id, then unattached ones.
pub struct Explanation<'a> {
    /// The performance report opened with the memory report, linked or not.
    pub linked: Option<&'a LinkedReports>,
    /// Operations with an attached error, in id order.
    pub operations: Vec<ExplainedError<'a>>,
    /// Errors no operation picked, in table order.
    pub unattached: Vec<ExplainedError<'a>>,
}

/// Collects what to print; `Err` names an `--operation` id the report does not have.
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
    let traces = report.stack_traces(&with_error).unwrap_or_default();
    let operations = with_error
        .into_iter()
        .filter_map(|i| {
            let op = &report.operations[i];
            let error = report.error_of(i)?;
            Some(ExplainedError {
                operation_id: op.id,
                operation_name: &op.name,
                source: traces.get(&i).and_then(|t| source_label(t)),
                error,
                failure: error.failure.as_ref(),
                failed_device_operations: report.failed_device_operations(i),
                perf: linked.and_then(|l| l.status_of(report, i)),
            })
        })
        .collect();
    let unattached = if options.operation.is_some() {
        Vec::new()
    } else {
        report
            .unattached_errors()
            .map(|error| ExplainedError {
                operation_id: error.operation_id,
                operation_name: &error.operation_name,
                source: None,
                error,
                failure: error.failure.as_ref(),
                failed_device_operations: Ok(Vec::new()),
                perf: None,
            })
            .collect()
    };
    Ok(Explanation { linked, operations, unattached })
}

/// The message's own first line: the text after `info:` when present, else its first non-empty line.
pub fn first_line(message: &str) -> &str {
    let mut lines = message.lines();
    while let Some(line) = lines.next() {
        if let Some(rest) = line.trim_start().strip_prefix("info:") {
            let rest = rest.trim();
            if !rest.is_empty() {
                return rest;
            }
            return lines.find(|l| !l.trim().is_empty()).map(str::trim).unwrap_or("");
        }
    }
    message.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or("")
}

#[cfg(test)]
mod tests {
    use super::first_line;

    #[test]
    fn first_line_after_info() {
        assert_eq!(
            first_line("TT_THROW @ a.cpp:1: tt::exception\ninfo:\nttnn.matmul: bad\nbacktrace:"),
            "ttnn.matmul: bad"
        );
        assert_eq!(first_line("TT_FATAL @ b:4: false\ninfo: Out of Memory: x"), "Out of Memory: x");
        assert_eq!(first_line("\n  Shape mismatch\nmore"), "Shape mismatch");
        assert_eq!(first_line(""), "");
    }
}
