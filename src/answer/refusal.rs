//! A question with no answer, said as the CLI says it: an operation the report does not have,
//! a fix that does not read, a log that cannot be read.

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

/// The index of the operation with this id, or `no operation {id} in this report: {path}`.
pub fn operation_index(report: &MemoryReport, id: u64) -> Result<usize, Refusal> {
    report.operation_index(id).ok_or_else(|| Refusal::about(report, &format!("no operation {id} in this report")))
}
