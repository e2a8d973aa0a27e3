//! Which errors of a report an answer is about, in print order: attached ones by operation id,
//! then the ones no operation took.

use crate::analysis::messages::failure::AllocationFailure;
use crate::analysis::perf::callout::PerfStatus;
use crate::analysis::stack::source_label;
use crate::report::perf::linked::LinkedReports;
use crate::report::{ErrorRecord, MemoryReport, ReportError};

/// One error to answer about: an operation's attached error, or an unattached one.
#[derive(Debug, Clone)]
pub struct ExplainedError<'a> {
    /// The operation's index in the report (attached errors only).
    pub(crate) index: Option<usize>,
    /// The operation's id (attached), or the error row's (unattached): none when NULL.
    pub(crate) operation_id: Option<u64>,
    /// The operation name; empty for an unattached row without one.
    pub(crate) operation_name: &'a str,
    /// False for an operation the report did not record (docs/rules/reference.md §13.5).
    pub(crate) recorded: bool,
    /// The operation's `{file}:{line}` from its stack trace, as the operations list shows it
    /// (docs/rules/reference.md §1.5); none for an unattached error or without such a place.
    pub(crate) source: Option<String>,
    /// Why the stack traces could not be read, when they could not (the source is then none).
    pub(crate) source_unavailable: Option<ReportError>,
    /// The error row.
    pub(crate) error: &'a ErrorRecord,
    /// The allocation failure, when the message is one.
    pub(crate) failure: Option<&'a AllocationFailure>,
    /// Failed device operations (attached errors only), or why the graph is unavailable.
    pub(crate) failed_device_operations: Result<Vec<String>, ReportError>,
    /// The operation's perf status, when a linked performance report is open.
    pub(crate) perf: Option<PerfStatus>,
}

/// The errors of a report, in print order.
pub struct Selection<'a> {
    /// The performance report opened with the memory report, linked or not.
    pub(crate) linked: Option<&'a LinkedReports>,
    /// Operations with an attached error, in id order.
    pub(crate) operations: Vec<ExplainedError<'a>>,
    /// Errors no operation picked, in table order.
    pub(crate) unattached: Vec<ExplainedError<'a>>,
}

impl<'a> Selection<'a> {
    /// Every error of the report, or only the operation `operation`'s (an id); `Err` names an
    /// id the report does not have. The memory sections are not among it: each is built as its
    /// entry is written ([`super::Entries`]).
    pub fn collect(
        report: &'a MemoryReport,
        linked: Option<&'a LinkedReports>,
        operation: Option<u64>,
    ) -> Result<Self, u64> {
        let indexes: Vec<usize> = match operation {
            Some(id) => vec![report.operation_index(id).ok_or(id)?],
            None => (0..report.operations.len()).collect(),
        };
        let with_error: Vec<usize> = indexes.into_iter().filter(|&i| report.error_of(i).is_some()).collect();
        // Without its stack traces the entries are still given, without their source locations,
        // each saying why (`unavailable`).
        let (traces, unreadable) = match report.details().stack_traces(&with_error) {
            Ok(traces) => (traces, None),
            Err(e) => (Default::default(), Some(e)),
        };
        let operations = with_error
            .into_iter()
            .filter_map(|i| {
                let mut explained = explained_operation(report, linked, i)?;
                explained.source = traces.get(&i).and_then(|t| source_label(t));
                explained.source_unavailable = unreadable.clone();
                Some(explained)
            })
            .collect();
        let unattached = match operation {
            Some(_) => Vec::new(),
            None => report.unattached_errors().map(explained_unattached).collect(),
        };
        Ok(Self { linked, operations, unattached })
    }

    /// The operations with an error, in id order.
    pub fn operations(&self) -> std::slice::Iter<'_, ExplainedError<'a>> {
        self.operations.iter()
    }

    /// The errors no operation took, in table order.
    pub fn unattached(&self) -> std::slice::Iter<'_, ExplainedError<'a>> {
        self.unattached.iter()
    }
}

/// The error of an operation (by index), when it has one.
pub(crate) fn explained_operation<'a>(
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
        source_unavailable: None,
        error,
        failure: error.failure.as_ref(),
        failed_device_operations: report.graphs().failed_device_operations(index),
        perf: linked.and_then(|l| l.status_of(report, index)),
    })
}

/// An error row no operation picked.
pub(crate) fn explained_unattached(error: &ErrorRecord) -> ExplainedError<'_> {
    ExplainedError {
        index: None,
        operation_id: error.operation_id,
        operation_name: &error.operation_name,
        recorded: true,
        source: None,
        source_unavailable: None,
        error,
        failure: error.failure.as_ref(),
        failed_device_operations: Ok(Vec::new()),
        perf: None,
    }
}
