//! The plain-text form of print mode.

use super::{ExplainOptions, ExplainedError, Explanation, first_line};
use crate::analysis::memory::failure_lines;
use crate::analysis::reason::CalloutBody;
use crate::analysis::sanitize::sanitize_line;
use crate::report::MemoryReport;
use std::fmt::Write;

/// Renders the errors of a report as text blocks, one per error, then the peaks (`--peak`).
pub fn render_text(report: &MemoryReport, explanation: &Explanation<'_>, options: &ExplainOptions) -> String {
    let mut out = blocks(report, explanation, options);
    if let Some(peaks) = &explanation.peaks {
        out.push_str(&super::peak::peak_text(report, peaks));
    }
    out
}

fn blocks(report: &MemoryReport, explanation: &Explanation<'_>, options: &ExplainOptions) -> String {
    let mut out = String::new();
    if let Some(linked) = explanation.linked {
        let path = sanitize_line(&linked.perf.path.display().to_string());
        let _ = writeln!(out, "{}: {path}", linked.state().text());
    }
    if let Some(id) = options.operation
        && explanation.operations.is_empty()
    {
        let name = report.operation_index(id).map(|i| report.operations[i].name.as_str()).unwrap_or("");
        let _ = writeln!(out, "Operation {id} {name} has no error.");
        return out;
    }
    if explanation.operations.is_empty() && explanation.unattached.is_empty() {
        let n = report.operations.len();
        let _ = writeln!(out, "No errors recorded in this report ({n} operation{}).", if n == 1 { "" } else { "s" });
        return out;
    }
    for e in &explanation.operations {
        out.push_str(&operation_block(e, options.hex));
    }
    for e in &explanation.unattached {
        out.push_str(&unattached_block(e, options.hex));
    }
    out
}

/// The block of an operation's error.
pub(super) fn operation_block(e: &ExplainedError<'_>, hex: bool) -> String {
    block(&format!("Operation {} {}", e.operation_id, e.operation_name), e, true, hex)
}

/// The block of an error no operation picked.
pub(super) fn unattached_block(e: &ExplainedError<'_>, hex: bool) -> String {
    let name = if e.operation_name.is_empty() { "Unknown operation" } else { e.operation_name };
    block(&format!("Unattached error (operation {} {name}, {})", e.operation_id, e.error.error_type), e, false, hex)
}

/// One block: a heading line, then indented explanation lines. The heading is followed by the
/// kind label of an allocation failure, or by the error type when `with_type` is set.
fn block(heading: &str, e: &ExplainedError<'_>, with_type: bool, hex: bool) -> String {
    let mut out = String::new();
    match e.failure {
        Some(failure) => {
            let failed = e.failed_device_operations.as_deref().unwrap_or_default();
            // Linked to a performance report, the status sentence replaces `Failed in …`.
            let status = e.perf.as_ref().map(|p| p.status.clone());
            let body = CalloutBody::new(failure, hex, failed, status);
            let _ = writeln!(out, "{heading}: {}", body.kind_label);
            for line in body.lines().iter().skip(1) {
                let _ = writeln!(out, "  {line}");
            }
        }
        None => {
            if with_type {
                let _ = writeln!(out, "{heading}: {}", e.error.error_type);
            } else {
                let _ = writeln!(out, "{heading}");
            }
            let line = first_line(&e.error.message);
            if !line.is_empty() {
                let _ = writeln!(out, "  {line}");
            }
        }
    }
    if let Err(reason) = &e.failed_device_operations {
        let _ = writeln!(out, "  Device operations unavailable: {reason}");
    }
    match &e.memory {
        Ok(Some(memory)) => {
            for line in failure_lines(memory, hex) {
                let _ = writeln!(out, "  {line}");
            }
        }
        Ok(None) => {}
        Err(reason) => {
            let _ = writeln!(out, "  Memory at the failure unavailable: {reason}");
        }
    }
    out
}
