//! A log instead of a report (`explain --log`, issue 15): its allocation failures, read as a
//! stream, each with the FAILURE object of the report contract.

use super::failure::FailureAnswer;
use crate::analysis::log::{LogFailure, LogFindings, LogScanner};
use crate::analysis::sanitize::{sanitize_line, sanitize_text};
use serde::Serialize;
use std::io::{BufRead, Read};

/// The longest line kept: the rest of a longer line is skipped, so memory stays bounded.
pub const MAX_LINE_BYTES: usize = 1 << 20;

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

/// `explain --log --json`: `{"log": {…}, "failures": [{"line", "also_at", "operation_name",
/// "source", "test", "message", "allocation_failure"}]}`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LogAnswer {
    /// The log as a whole.
    pub log: LogSummaryAnswer,
    /// Its allocation failures, in order of first appearance.
    pub failures: Vec<LogFailureAnswer>,
}

/// The `log` object: the path, how many lines, the last other error, what was not listed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LogSummaryAnswer {
    path: String,
    /// How many lines were read.
    pub lines: u64,
    /// The last error that is not an allocation failure (TT_FATAL, TT_THROW, an exception).
    pub other_error: Option<OtherErrorAnswer>,
    /// Failures past the listed ones.
    pub failures_not_listed: u64,
    repeats_not_listed: u64,
}

/// `{"line", "text"}` of the last other error.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct OtherErrorAnswer {
    /// Its line number.
    pub line: u64,
    /// Its text, sanitised.
    pub text: String,
}

/// One failure of a log.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LogFailureAnswer {
    /// The line it is on (the first time).
    pub line: u64,
    /// The other lines it appears on.
    pub also_at: Vec<u64>,
    /// The operation the log names, sanitised.
    pub operation_name: Option<String>,
    /// The model's line the log's traceback names, sanitised.
    pub source: Option<String>,
    /// The pytest test it happened in, sanitised.
    pub test: Option<String>,
    /// The message, sanitised.
    pub message: String,
    /// The FAILURE object.
    pub allocation_failure: FailureAnswer,
}

impl LogAnswer {
    /// The answer of a scanned log read from `path` (addresses in hex with `hex`).
    pub fn new(findings: &LogFindings, path: &str, hex: bool) -> Self {
        Self {
            log: LogSummaryAnswer {
                path: sanitize_line(path),
                lines: findings.lines,
                other_error: findings
                    .other_error
                    .as_ref()
                    .map(|e| OtherErrorAnswer { line: e.line, text: sanitize_line(&e.text) }),
                failures_not_listed: findings.failures_not_listed,
                repeats_not_listed: findings.repeats_not_listed,
            },
            failures: findings.failures.iter().map(|f| LogFailureAnswer::new(f, hex)).collect(),
        }
    }
}

impl LogFailureAnswer {
    /// One failure of a log as the JSON form lists it.
    pub fn new(f: &LogFailure, hex: bool) -> Self {
        Self {
            line: f.line,
            also_at: f.also_at.clone(),
            operation_name: f.operation_name.as_deref().map(sanitize_line),
            source: f.source.as_deref().map(sanitize_line),
            test: f.test.as_deref().map(sanitize_line),
            message: sanitize_text(&f.message),
            allocation_failure: FailureAnswer::new(&f.failure, hex),
        }
    }
}
