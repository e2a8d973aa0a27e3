//! `explain --follow`: the explanation of a report that is still being written, then each
//! failure's block as it appears, like `tail -f`, until the caller says stop.

use super::explanation::{ExplainOptions, collect};
use super::plain_text::{operation_block, unattached_block};
use crate::analysis::model::ErrorRecord;
use crate::answer::{Entries, ErrorAnswer, explained_operation, explained_unattached};
use crate::report::{MemoryReport, ReportError};
use std::collections::HashSet;
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// How often `stop` is looked at while waiting for the next poll.
const STOP_CHECK: Duration = Duration::from_millis(50);

/// Why following ended.
#[derive(Debug, thiserror::Error)]
pub enum FollowEnd {
    /// The output could not be written (e.g. a closed pipe).
    #[error("output closed: {0}")]
    Output(#[from] std::io::Error),
    /// The report could not be read.
    #[error(transparent)]
    Report(#[from] ReportError),
}

/// What tells an error row apart while its index in `errors` may change between polls.
type ErrorKey = (Option<u64>, String, String, String);

fn key_of(e: &ErrorRecord) -> ErrorKey {
    (e.operation_id, e.operation_name.clone(), e.error_type.clone(), e.message.clone())
}

/// Prints the explanation of a watched report (`MemoryReport::open_watched`) as `explain`
/// does, then polls it every `interval` and prints the block of each error that appears (with
/// its memory section, as `explain` prints it), until
/// `stop` is set (returns `Ok`), the output fails, or the report cannot be read. An error
/// printed as not placed on an operation (its row came first) is printed again once its
/// operation arrives, after a line that says it is the same error.
pub fn follow(
    report: &mut MemoryReport,
    options: &ExplainOptions,
    out: &mut dyn Write,
    stop: &AtomicBool,
    interval: Duration,
) -> Result<(), FollowEnd> {
    let options = ExplainOptions { operation: None, ..*options };
    if let Ok(explanation) = collect(report, None, &options) {
        // What `explain` prints after its count line.
        if let Some(note) = super::plain_text::no_stack_traces(report, &explanation) {
            writeln!(out, "{note}")?;
        }
        out.write_all(super::plain_text::blocks(report, &explanation, &options).as_bytes())?;
    }
    // Nothing will ever be printed for such a report: say why rather than stay silent.
    if !report.records_errors() {
        writeln!(out, "{}", super::plain_text::not_recorded_line(report.operations.len()))?;
    }
    out.flush()?;
    let mut printed_unattached: HashSet<ErrorKey> = report.errors.iter().filter(|e| !e.attached).map(key_of).collect();
    loop {
        let next = Instant::now() + interval;
        while Instant::now() < next {
            if stop.load(Ordering::Relaxed) {
                return Ok(());
            }
            std::thread::sleep(STOP_CHECK.min(next.saturating_duration_since(Instant::now())));
        }
        let Some(update) = report.poll_changes()? else { continue };
        let mut text = String::new();
        // Each block with its memory section, as `explain` and the first blocks print it.
        let mut entries = Entries::new(report, options.hex);
        for id in &update.new_failures {
            let index = report.operation_index(*id);
            if let Some((i, e)) = index.and_then(|i| Some((i, explained_operation(report, None, i)?))) {
                if printed_unattached.remove(&key_of(e.error)) {
                    text.push_str(&format!(
                        "The unattached error above (operation {} {}) now has its operation:\n",
                        report.operations[i].id, e.error.operation_name
                    ));
                }
                text.push_str(&operation_block(&entries.operation(&e), &options));
            }
        }
        for &i in &update.new_unattached {
            printed_unattached.insert(key_of(&report.errors[i]));
            let e = ErrorAnswer::new(&explained_unattached(&report.errors[i]), options.hex);
            text.push_str(&unattached_block(&e, &options));
        }
        out.write_all(text.as_bytes())?;
        out.flush()?;
    }
}
