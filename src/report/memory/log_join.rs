//! A log given beside a report (`--log`, docs/rules/reference.md §13.5): each of its allocation failures
//! joined to the report's operation it belongs to (`analysis::log::join`), which then reads as
//! if the report had recorded the message; the failures no operation took are kept to be listed
//! after the report's.

use super::log_beside::LogBeside;
use super::memory_report::MemoryReport;
use crate::analysis::log::LogFailure;
use crate::analysis::log::join::{JoinTarget, join_failures};
use crate::analysis::model::LogPlace;
use crate::analysis::sanitize::{sanitize_line, sanitize_text};
use std::sync::Arc;

impl MemoryReport {
    /// Joins the failures of a log to the report's operations: a joined failure's operation
    /// gains where the log shows it and, when its error has no allocation failure (an operation
    /// that never completed), the log's message and failure. Joined again whenever the errors
    /// are attached again (a watched report).
    pub fn join_log(&mut self, log: Arc<LogBeside>) {
        self.log = Some(log);
        self.apply_log();
    }

    /// The log given beside the report, when one was.
    pub fn log(&self) -> Option<&LogBeside> {
        self.log.as_deref()
    }

    /// The failures of the log beside the report that joined no operation, in log order.
    pub fn unjoined_log_failures(&self) -> impl Iterator<Item = &LogFailure> {
        let failures = self.log.as_ref().map_or(&[][..], |l| &l.findings.failures[..]);
        self.unjoined_log.iter().filter_map(move |&k| failures.get(k))
    }

    /// Applies the log to the errors as attached now.
    pub(super) fn apply_log(&mut self) {
        let Some(log) = self.log.clone() else { return };
        let with_error: Vec<(usize, usize)> =
            self.operations.iter().enumerate().filter_map(|(i, o)| Some((i, o.error?))).collect();
        let targets: Vec<JoinTarget<'_>> = with_error
            .iter()
            .map(|&(i, e)| JoinTarget {
                name: &self.operations[i].name,
                failure: self.errors[e].failure.as_ref(),
                incomplete: self.errors[e].is_incomplete(),
            })
            .collect();
        let joined = join_failures(&log.findings.failures, &targets);
        self.unjoined_log = (0..joined.len()).filter(|&k| joined[k].is_none()).collect();
        for (f, target) in log.findings.failures.iter().zip(joined) {
            let Some(t) = target else { continue };
            let error = &mut self.errors[with_error[t].1];
            let message_from_log = error.failure.is_none();
            if message_from_log {
                let mut failure = f.failure.clone();
                failure.figures.core_range = failure.figures.core_range.map(|c| sanitize_line(&c));
                error.failure = Some(failure);
                error.message = sanitize_text(&f.message);
            }
            error.log = Some(Box::new(LogPlace {
                path: sanitize_line(&log.path),
                line: f.line,
                also_at: f.also_at.clone(),
                source: f.source.as_deref().map(sanitize_line),
                test: f.test.as_deref().map(sanitize_line),
                message_from_log,
            }));
        }
        // Where each error is marked depends on its failure.
        self.marks = Default::default();
    }
}
