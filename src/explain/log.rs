//! `ttnn-tui explain --log`: the allocation failures of a log explained as text or JSON
//! (issue 15), both from the log's answer (`answer::LogAnswer`).

use super::paint::Paint;
use crate::analysis::format::counted;
use crate::analysis::log::LogFindings;
use crate::answer::{FailureAnswer, LogAnswer, LogFailureAnswer};
use std::fmt::Write;

pub use crate::answer::{MAX_LINE_BYTES, scan_log};

/// The one line after a log's failures that leads to a report.
pub const RECORD_A_REPORT: &str =
    "For what held the memory, record a report (README, \"Recording a report\") and run `ttnn-tui explain REPORT`.";

/// The text form: a count line, one block per failure, and how to get the full picture;
/// `color` colours each block's heading, kind and reason label.
pub fn render_log_text(findings: &LogFindings, hex: bool, color: bool) -> String {
    let answer = LogAnswer::new(findings, "", hex);
    let mut out = String::new();
    let lines = counted(answer.log.lines as usize, "line", "lines");
    if answer.failures.is_empty() {
        let _ = writeln!(out, "No allocation failure in this log ({lines}).");
        match &answer.log.other_error {
            Some(e) => _ = writeln!(out, "The last other error, on line {}: {}", e.line, e.text),
            None => out.push_str("No other error either (no TT_FATAL, TT_THROW or Python exception line).\n"),
        }
        return out;
    }
    let failures = counted(answer.failures.len(), "allocation failure", "allocation failures");
    let _ = writeln!(out, "{failures} in this log ({lines}).");
    for failure in &answer.failures {
        out.push('\n');
        out.push_str(&failure_block(failure, Paint::new(color)));
    }
    if answer.log.failures_not_listed > 0 {
        let more = counted(answer.log.failures_not_listed as usize, "failure", "failures");
        let _ = writeln!(out, "\n{more} more, not listed.");
    }
    let _ = writeln!(out, "\n{RECORD_A_REPORT}");
    out
}

/// `Line N: ttnn.conv2d at models/x/model.py:46: Out of memory`, the summary, the reason, the
/// test and the other lines it appears on.
pub(super) fn failure_block(f: &LogFailureAnswer, paint: Paint) -> String {
    let origin = match (&f.operation_name, &f.source) {
        (Some(op), Some(source)) => format!("{op} at {source}: "),
        (Some(op), None) => format!("{op}: "),
        (None, Some(source)) => format!("{source}: "),
        (None, None) => String::new(),
    };
    let heading = paint.bold(&format!("Line {}: {origin}", f.line));
    let body: &FailureAnswer = &f.allocation_failure;
    let mut out = format!("{heading}{}\n  {}\n", paint.danger(body.kind_label), body.summary);
    if let Some((label, detail)) = body.reason_line() {
        let _ = writeln!(out, "  {} {detail}", paint.bold(&format!("{label}.")));
    }
    if let Some(test) = &f.test {
        let _ = writeln!(out, "  Test: {test}");
    }
    match f.also_at.as_slice() {
        [] => {}
        [one] => _ = writeln!(out, "  Also on line {one}."),
        many => {
            let list: Vec<String> = many.iter().map(u64::to_string).collect();
            let _ = writeln!(out, "  Also on lines {}.", list.join(", "));
        }
    }
    out
}

/// The JSON form: the log's answer, pretty-printed, and a newline.
pub fn render_log_json(findings: &LogFindings, path: &str, hex: bool) -> String {
    super::json::pretty(&LogAnswer::new(findings, path, hex))
}
