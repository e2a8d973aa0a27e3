//! `ttnn-tui explain --log`: the allocation failures of a log, read as a stream, explained as
//! text or JSON (issue 15).

use super::failure_json::failure_json;
use super::paint::Paint;
use crate::analysis::format::counted;
use crate::analysis::log::{LogFailure, LogFindings, LogScanner};
use crate::analysis::messages::reason::CalloutBody;
use crate::analysis::sanitize::{sanitize_line, sanitize_text};
use serde_json::{Value, json};
use std::fmt::Write;
use std::io::{BufRead, Read};

/// The longest line kept: the rest of a longer line is skipped, so memory stays bounded.
pub const MAX_LINE_BYTES: usize = 1 << 20;

/// The one line after a log's failures that leads to a report.
pub const RECORD_A_REPORT: &str =
    "For what held the memory, record a report (README, \"Recording a report\") and run `ttnn-tui explain REPORT`.";

/// Scans a log line by line: invalid UTF-8 is read lossily, CRLF and lone CRs are handled by the
/// scan, and a line longer than [`MAX_LINE_BYTES`] is cut there.
pub fn scan_log(mut reader: impl BufRead) -> std::io::Result<LogFindings> {
    let mut scanner = LogScanner::new();
    let mut line = Vec::with_capacity(4096);
    loop {
        line.clear();
        let n = reader.by_ref().take(MAX_LINE_BYTES as u64).read_until(b'\n', &mut line)?;
        if n == 0 {
            break;
        }
        if n == MAX_LINE_BYTES && line.last() != Some(&b'\n') {
            reader.skip_until(b'\n')?;
        }
        match std::str::from_utf8(&line) {
            Ok(text) => scanner.push_line(text),
            Err(_) => scanner.push_line(&String::from_utf8_lossy(&line)),
        }
    }
    Ok(scanner.finish())
}

/// The text form: a count line, one block per failure, and how to get the full picture;
/// `color` colours each block's heading, kind and reason label.
pub fn render_log_text(findings: &LogFindings, hex: bool, color: bool) -> String {
    let mut out = String::new();
    let lines = counted(findings.lines as usize, "line", "lines");
    if findings.failures.is_empty() {
        let _ = writeln!(out, "No allocation failure in this log ({lines}).");
        match &findings.other_error {
            Some(e) => _ = writeln!(out, "The last other error, on line {}: {}", e.line, sanitize_line(&e.text)),
            None => out.push_str("No other error either (no TT_FATAL, TT_THROW or Python exception line).\n"),
        }
        return out;
    }
    let failures = counted(findings.failures.len(), "allocation failure", "allocation failures");
    let _ = writeln!(out, "{failures} in this log ({lines}).");
    for failure in &findings.failures {
        out.push('\n');
        out.push_str(&failure_block(failure, hex, Paint::new(color)));
    }
    if findings.failures_not_listed > 0 {
        let more = counted(findings.failures_not_listed as usize, "failure", "failures");
        let _ = writeln!(out, "\n{more} more, not listed.");
    }
    let _ = writeln!(out, "\n{RECORD_A_REPORT}");
    out
}

/// `Line N: ttnn.conv2d at models/x/model.py:46: Out of memory`, the summary, the reason, the
/// test and the other lines it appears on.
pub(super) fn failure_block(f: &LogFailure, hex: bool, paint: Paint) -> String {
    let body = CalloutBody::new(&f.failure, hex, &[], None);
    let origin = match (&f.operation_name, &f.source) {
        (Some(op), Some(source)) => format!("{} at {}: ", sanitize_line(op), sanitize_line(source)),
        (Some(op), None) => format!("{}: ", sanitize_line(op)),
        (None, Some(source)) => format!("{}: ", sanitize_line(source)),
        (None, None) => String::new(),
    };
    let heading = paint.bold(&format!("Line {}: {origin}", f.line));
    let mut out = format!("{heading}{}\n  {}\n", paint.danger(body.kind_label), body.summary);
    if let Some(reason) = &body.explanation {
        let _ = writeln!(out, "  {} {}", paint.bold(&format!("{}.", reason.reason.label())), reason.detail);
    }
    if let Some(test) = &f.test {
        let _ = writeln!(out, "  Test: {}", sanitize_line(test));
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

/// One failure of a log as the JSON form lists it.
pub(super) fn failure_value(f: &LogFailure, hex: bool) -> Value {
    json!({
        "line": f.line,
        "also_at": f.also_at,
        "operation_name": f.operation_name.as_deref().map(sanitize_line),
        "source": f.source.as_deref().map(sanitize_line),
        "test": f.test.as_deref().map(sanitize_line),
        "message": sanitize_text(&f.message),
        "allocation_failure": failure_json(&f.failure, hex),
    })
}

/// The JSON form: `{"log": {…}, "failures": [{"line", "also_at", "operation_name", "source",
/// "test", "message", "allocation_failure"}]}`, the FAILURE object as in the report contract.
pub fn render_log_json(findings: &LogFindings, path: &str, hex: bool) -> String {
    let failures: Vec<Value> = findings.failures.iter().map(|f| failure_value(f, hex)).collect();
    let other = findings.other_error.as_ref().map(|e| json!({"line": e.line, "text": sanitize_line(&e.text)}));
    let document = json!({
        "log": {
            "path": sanitize_line(path),
            "lines": findings.lines,
            "other_error": other,
            "failures_not_listed": findings.failures_not_listed,
            "repeats_not_listed": findings.repeats_not_listed,
        },
        "failures": failures,
    });
    let mut text = serde_json::to_string_pretty(&document).expect("JSON values always serialise");
    text.push('\n');
    text
}
