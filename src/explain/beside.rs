//! Print mode's part of behaviour.md §13.5: the lines an operation's block gains from a log
//! beside the report or for an operation the report did not record (its memory when it
//! started), the log's failures no operation took, and their JSON.

use super::ExplainedError;
use super::log::{failure_block, failure_value};
use crate::analysis::beside::operation_note;
use crate::analysis::format::counted;
use crate::analysis::memory::{OperationMemory, operation_lines};
use crate::analysis::model::LogPlace;
use crate::analysis::sanitize::sanitize_line;
use crate::report::MemoryReport;
use serde::Serialize;
use std::fmt::Write;

/// The lines an operation's block gains after its callout: where the log shows its failure, or,
/// for an operation the report did not record and no log explains, why it has no message.
pub(super) fn log_lines(report: &MemoryReport, e: &ExplainedError<'_>) -> Vec<String> {
    let log_path = report.log().map(|l| sanitize_line(&l.path));
    operation_note(e.error, e.recorded, e.operation_name, log_path.as_deref()).into_iter().collect()
}

/// The memory when an operation the report did not record started, when it has no failure to
/// rebuild the memory at: one picture per device and buffer type of the last recorded snapshot;
/// none for any other operation.
pub(super) fn memory_at_start(report: &MemoryReport, e: &ExplainedError<'_>) -> Option<Vec<OperationMemory>> {
    let index = e.index.filter(|_| !e.recorded && e.failure.is_none())?;
    // Unreadable, it is left out as an absent section is.
    report.memory_at_start(index).ok()
}

/// The lines of the memory when an unrecorded operation started.
pub(super) fn start_lines(memory: &[OperationMemory], hex: bool) -> Vec<String> {
    memory.iter().flat_map(|m| operation_lines(m, hex)).collect()
}

/// The log's failures no operation took, after the report's blocks, as log mode shows them.
pub(super) fn unjoined_text(report: &MemoryReport, hex: bool, paint: super::paint::Paint) -> String {
    let failures: Vec<_> = report.unjoined_log_failures().collect();
    let Some(log) = report.log().filter(|_| !failures.is_empty()) else { return String::new() };
    let mut out = format!(
        "\n{} in the log {} joined no operation of this report:\n",
        counted(failures.len(), "allocation failure", "allocation failures"),
        sanitize_line(&log.path)
    );
    for f in failures {
        out.push('\n');
        out.push_str(&failure_block(f, hex, paint));
    }
    out
}

/// The `log` object of an operation entry.
#[derive(Debug, Serialize)]
pub(super) struct LogJson<'r> {
    path: &'r str,
    line: u64,
    also_at: &'r [u64],
    source: Option<&'r str>,
    test: Option<&'r str>,
}

/// An operation entry's `log`: none without a log beside the report (no key), null when no
/// failure of the log joined the operation.
pub(super) fn log_json<'r>(report: &MemoryReport, e: &ExplainedError<'r>) -> Option<Option<LogJson<'r>>> {
    report.log()?;
    Some(e.error.log.as_deref().map(|p: &'r LogPlace| LogJson {
        path: &p.path,
        line: p.line,
        also_at: &p.also_at,
        source: p.source.as_deref(),
        test: p.test.as_deref(),
    }))
}

/// The document's `log_failures`: the log's failures no operation took, as `explain --log
/// --json` lists them; none without a log beside the report (no key).
pub(super) fn unjoined_json(report: &MemoryReport, hex: bool) -> Option<Vec<serde_json::Value>> {
    report.log()?;
    Some(report.unjoined_log_failures().map(|f| failure_value(f, hex)).collect())
}

/// Appends the lines to a block, indented.
pub(super) fn push_lines(out: &mut String, lines: &[String]) {
    for line in lines {
        let _ = writeln!(out, "  {line}");
    }
}
