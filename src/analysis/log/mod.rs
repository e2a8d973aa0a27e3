//! Allocation failures in a log (pytest output, a CI job, a pasted message): a streaming scan,
//! line by line, that keeps only the lines of the message being read and what the log said
//! about where it came from (issue 15).
//!
//! Each line is cleaned ([`clean::clean_line`]); a line holding the opening of an allocation-failure
//! message starts a candidate message, continued by the lines after it (a message wrapped by a
//! logger or a terminal) until a blank line, another opening, or [`MAX_CONTINUATION`] lines. The
//! project's one parser decides ([`parse_allocation_failure`]); the message is the fewest of those
//! lines that give the same failure. The same failure printed again in a row (the logger, the
//! exception, pytest's `E` lines), or again for the same test, is one failure seen on more lines.

mod clean;
mod context;
mod findings;
pub(crate) mod join;
#[cfg(test)]
mod tests;

use crate::analysis::messages::failure::{AllocationFailure, parse_allocation_failure};
use context::{Context, Origin};
use regex::Regex;
use std::sync::LazyLock;

pub use context::OtherError;
pub use findings::{LogFailure, LogFindings};

/// How many lines after its first a wrapped message may run over.
pub const MAX_CONTINUATION: usize = 8;
/// Failures listed at most; more are counted.
pub const MAX_FAILURES: usize = 10_000;
/// Repeat lines listed at most per failure; more are counted.
pub const MAX_REPEATS: usize = 1_000;
/// Earlier failures a repeat for the same test is looked for among.
const REPEAT_LOOKBACK: usize = 64;

/// The openings of every message the parser recognises (docs/rules/reference.md §4.2, §13.2).
static OPENING: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        "Not enough space|Statically allocated|Circular buffers on service-core|Cannot set to globally allocated|Cannot set circular buffer size",
    )
    .expect("the opening pattern is valid")
});

/// A candidate message: its first line, the lines so far, and where it came from.
#[derive(Debug)]
struct Candidate {
    line: u64,
    lines: Vec<String>,
    origin: Origin,
}

/// The streaming scan: feed it every line with [`LogScanner::push_line`], then [`LogScanner::finish`].
#[derive(Debug, Default)]
pub struct LogScanner {
    findings: LogFindings,
    context: Context,
    candidate: Option<Candidate>,
    /// The line before, cleaned: a terminal may have wrapped a message's `Out of Memory:` there.
    previous: String,
}

/// What the out-of-memory messages begin with, before their opening.
const OUT_OF_MEMORY: &str = "Out of Memory:";

/// When a terminal wrapped `Out of Memory:` before the opening on `line` (`… Out` / `of Memory:
/// Not enough space …`), the part of `previous` the message begins with.
fn wrapped_prefix<'p>(previous: &'p str, line: &str) -> Option<&'p str> {
    let head = line[..OPENING.find(line)?.start()].trim();
    if head.is_empty() || head.len() >= OUT_OF_MEMORY.len() || !OUT_OF_MEMORY.ends_with(head) {
        return None;
    }
    let start = OUT_OF_MEMORY[..OUT_OF_MEMORY.len() - head.len()].trim_end();
    let previous = previous.trim_end();
    previous.ends_with(start).then(|| &previous[previous.len() - start.len()..])
}

impl LogScanner {
    /// A scan at line 1.
    pub fn new() -> Self {
        Self::default()
    }

    /// Reads the next line of the log (its line ending may be left on).
    pub fn push_line(&mut self, raw: &str) {
        self.findings.lines += 1;
        let number = self.findings.lines;
        let line = clean::clean_line(raw);
        let opening = OPENING.is_match(&line);
        if let Some(candidate) = &mut self.candidate {
            if opening || line.is_empty() || candidate.lines.len() > MAX_CONTINUATION {
                self.close_candidate();
            } else {
                candidate.lines.push(line.to_string());
            }
        }
        self.context.update(number, &line);
        self.name_unfinished();
        if opening {
            let origin = self.context.origin(&line);
            // A message wrapped inside `Out of Memory:` begins on the line before.
            let candidate = match wrapped_prefix(&self.previous, &line) {
                Some(start) => Candidate { line: number - 1, lines: vec![start.to_string(), line.to_string()], origin },
                None => Candidate { line: number, lines: vec![line.to_string()], origin },
            };
            self.candidate = Some(candidate);
        }
        self.previous = line.into_owned();
    }

    /// Ends the scan.
    pub fn finish(mut self) -> LogFindings {
        self.close_candidate();
        self.context.finish();
        self.name_unfinished();
        if self.findings.failures.is_empty() {
            self.findings.other_error = self.context.other_error_seen().cloned();
        }
        self.findings
    }

    /// A test's section ended with an operation ttnn's logger left started: the test's failures
    /// that no line named an operation for are that operation's.
    fn name_unfinished(&mut self) {
        let Some((test, operation)) = self.context.take_unfinished() else { return };
        let failures = self.findings.failures.iter_mut().rev().take(REPEAT_LOOKBACK);
        for f in failures.filter(|f| f.test.as_deref() == Some(test.as_str()) && f.operation_name.is_none()) {
            f.operation_name = Some(operation.clone());
        }
    }

    fn close_candidate(&mut self) {
        let Some(candidate) = self.candidate.take() else { return };
        let Some(failure) = parse_allocation_failure(&candidate.lines.join("\n")) else { return };
        // The fewest lines that say the same: a message complete on its first line is that line.
        let used = (1..candidate.lines.len())
            .find(|&n| parse_allocation_failure(&candidate.lines[..n].join("\n")).as_ref() == Some(&failure))
            .unwrap_or(candidate.lines.len());
        let message = candidate.lines[..used].join("\n");
        self.record(candidate.line, candidate.origin, message, failure);
    }

    fn record(&mut self, line: u64, origin: Origin, message: String, failure: AllocationFailure) {
        let failures = &mut self.findings.failures;
        let same = |f: &LogFailure| {
            f.failure == failure && !(f.test.is_some() && origin.test.is_some() && f.test != origin.test)
        };
        let repeat = match failures.last() {
            Some(last) if same(last) => Some(failures.len() - 1),
            _ if origin.test.is_some() => failures
                .iter()
                .enumerate()
                .rev()
                .take(REPEAT_LOOKBACK)
                .find(|(_, f)| f.failure == failure && f.test == origin.test)
                .map(|(i, _)| i),
            _ => None,
        };
        let Origin { source, operation: operation_name, test } = origin;
        if let Some(i) = repeat {
            let earlier = &mut failures[i];
            if earlier.also_at.len() < MAX_REPEATS {
                earlier.also_at.push(line);
            } else {
                self.findings.repeats_not_listed += 1;
            }
            // What the first occurrence did not say, a repeat may (the exception after the logger line).
            if earlier.source.is_none() && source.is_some() {
                (earlier.source, earlier.operation_name) = (source, operation_name.or(earlier.operation_name.take()));
            } else if earlier.operation_name.is_none() {
                earlier.operation_name = operation_name;
            }
            if earlier.test.is_none() {
                earlier.test = test;
            }
        } else if failures.len() < MAX_FAILURES {
            failures.push(LogFailure { line, also_at: Vec::new(), operation_name, source, test, message, failure });
        } else {
            self.findings.failures_not_listed += 1;
        }
    }
}

/// Scans a whole text (for tests and small inputs; a log is streamed with [`LogScanner`]).
pub fn scan_text(text: &str) -> LogFindings {
    let mut scanner = LogScanner::new();
    for line in text.split_inclusive('\n') {
        scanner.push_line(line);
    }
    scanner.finish()
}
