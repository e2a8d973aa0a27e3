//! The answers: what `explain`, `whatif` and the MCP server say about a report or a log, as plain
//! typed values built from `report` and `analysis` before anything is written. Serialised by
//! serde they are the JSON contract (one definition of each figure, whoever writes it); the text
//! forms are made from the same values. Building one reads the report and returns a
//! `ReportError` when it cannot; a part of an entry that cannot be read is said in the entry
//! (`Unavailable`), never left as a silent null.

mod entry;
mod failure;
mod late;
mod log;
mod memory;
mod operation;
mod peak;
mod sections;
mod select;
mod whatif;

pub use entry::{Entries, ErrorAnswer, FixAnswer, LogPlaceAnswer, MemorySectionAnswer, OperationAnswer, Unavailable};
pub use failure::{FailureAnswer, FiguresAnswer};
pub use late::{LateAnswer, LateFailureAnswer, LateSummaryAnswer, LateTensorAnswer, read_late};
pub use log::{LogAnswer, LogFailureAnswer, LogSummaryAnswer, MAX_LINE_BYTES, OtherErrorAnswer, scan_log};
pub use memory::{BlockAnswer, LiveBufferAnswer, MemoryAnswer, SnapshotAnswer};
pub use operation::{
    MemoryAfterAnswer, OperationDetailAnswer, OperationListing, PerfRowsAnswer, find_operations, memory_after,
    operation_detail,
};
pub use peak::{PeakAnswer, PeaksAnswer, read_peaks};
pub use select::{ExplainedError, Selection};
pub(crate) use select::{explained_operation, explained_unattached};
pub use whatif::{WhatIfAnswer, what_if};

use crate::analysis::sanitize::sanitize_line;
use crate::report::MemoryReport;

/// A question that has no answer: an operation the report does not have, a fix that does not
/// read, a log that cannot be read. `message` is the one line the CLI prints after `error: `.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct Refusal {
    /// What, where (the report's path, sanitised), and what to do when that helps.
    pub message: String,
    /// The CLI's exit code: 1 for what the report does not have, 2 for a usage error.
    pub code: u8,
}

impl Refusal {
    /// `{what}: {the report's path}`, exit code 1.
    pub fn about(report: &MemoryReport, what: &str) -> Self {
        Self { message: format!("{what}: {}", sanitize_line(&report.source.display_path())), code: 1 }
    }

    /// A usage error (exit code 2).
    pub fn usage(message: impl Into<String>) -> Self {
        Self { message: message.into(), code: 2 }
    }
}

/// The report as a whole: the `memory_report` object of `explain --json` (without `peak`).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ReportAnswer {
    /// The database read, sanitised.
    path: String,
    /// The rank read.
    rank: u32,
    /// How many operations the report holds.
    operations: usize,
    /// How many error rows of the rank it holds.
    errors: usize,
    /// `report_metadata.schema_version`, when recorded.
    schema_version: Option<String>,
}

impl ReportAnswer {
    /// The report's header.
    pub fn new(report: &MemoryReport) -> Self {
        Self {
            path: sanitize_line(&report.source.display_path()),
            rank: report.rank(),
            operations: report.operations.len(),
            errors: report.errors.len(),
            schema_version: report.schema_version.clone(),
        }
    }
}

/// The index of the operation with this id, or `no operation {id} in this report: {path}`.
pub fn operation_index(report: &MemoryReport, id: u64) -> Result<usize, Refusal> {
    report.operation_index(id).ok_or_else(|| Refusal::about(report, &format!("no operation {id} in this report")))
}
