//! The report as a whole, as `explain --json`'s `memory_report` object gives it.

use crate::analysis::sanitize::sanitize_line;
use crate::report::MemoryReport;

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
