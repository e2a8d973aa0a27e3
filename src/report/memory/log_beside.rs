//! A log given beside a report (`--log`, docs/rules/reference.md §13.5): what the report keeps of it. The
//! joining is the core's own (`log_join.rs`).

use crate::analysis::log::LogFindings;

/// A log read beside a report: its path as given and what its scan found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogBeside {
    /// The path as given (`-` for standard input).
    pub path: String,
    /// What the scan found.
    pub findings: LogFindings,
}
