//! The plain-text form of print mode, written from the answers (`crate::answer`).

use super::explanation::{ExplainOptions, Explanation};
use super::paint::Paint;
use crate::analysis::beside::{NO_STACK_TRACES, NOT_RECORDED};
use crate::analysis::format::counted;
use crate::analysis::messages::raw_message::raw_message_text;
use crate::analysis::messages::reason::{BEYOND_REFERENCE_MEANING, failed_in};
use crate::analysis::model::ERRORS_NOT_RECORDED;
use crate::analysis::sanitize::sanitize_line;
use crate::answer::{ErrorAnswer, ExplainedError, OperationAnswer, Ready, Selection};
use crate::report::MemoryReport;
use std::fmt::Write;

/// Renders the errors of a report as text blocks, one per error, then the peaks (`--peak`).
pub fn render_text(report: &MemoryReport, explanation: &Explanation<'_>, options: &ExplainOptions) -> String {
    let mut out = String::new();
    let selection = &explanation.selection;
    if options.operation.is_none() {
        let line = match report.records_errors() {
            true => count_line(selection.operations().len(), selection.unattached().len(), report.operations.len()),
            false => not_recorded_line(report.operations.len()),
        };
        let _ = writeln!(out, "{line}");
        if let Some((headroom, true_peaks)) = &explanation.passing {
            // With --peak the true peaks follow anyway.
            let tightest = true_peaks.tightest.first().filter(|_| explanation.peaks.is_none());
            out.push_str(&passing_text(headroom, tightest));
        }
        if let Some(note) = no_stack_traces(report, explanation) {
            let _ = writeln!(out, "{note}");
        }
    }
    out.push_str(&blocks(report, explanation, options));
    if let Some(note) = beyond_reference_note(&explanation.selection) {
        let _ = writeln!(out, "{note}");
    }
    if let Some(peaks) = &explanation.peaks {
        out.push_str(&super::peak::peak_text(peaks));
    }
    if let Some(late) = &explanation.late {
        out.push_str(&super::late::late_text(late));
    }
    out
}

/// A run without errors: each headroom line, then the true peak of its tightest operation (the
/// least L1 room at its peak).
fn passing_text(headroom: &crate::answer::HeadroomAnswer, tightest: Option<&crate::answer::TruePeakAnswer>) -> String {
    if headroom.headroom.is_empty() && headroom.unknown.is_empty() {
        return String::new();
    }
    let mut out = super::headroom::render_headroom_text(headroom, &[]);
    if let Some(p) = tightest {
        let _ = writeln!(out, "{}", super::peak::true_peak_line(p));
    }
    out
}

/// Said once under the blocks when a failure printed was recognised beyond the reference
/// (docs/rules/reference.md §13; JSON `beyond_reference`): which ones, and what that means.
fn beyond_reference_note(selection: &Selection<'_>) -> Option<String> {
    let beyond = |e: &&ExplainedError<'_>| e.failure.is_some_and(|f| f.beyond_reference);
    let ids: Vec<String> =
        selection.operations().filter(beyond).filter_map(|e| e.operation_id).map(|id| id.to_string()).collect();
    let unattached = selection.unattached().filter(beyond).count();
    let which = match (ids.as_slice(), unattached) {
        ([], 0) => return None,
        ([], n) => counted(n, "unattached error", "unattached errors"),
        ([one], 0) => format!("operation {one}"),
        (many, 0) => format!("operations {}", many.join(", ")),
        (ids, n) => format!(
            "{} {} and {}",
            if ids.len() == 1 { "operation" } else { "operations" },
            ids.join(", "),
            counted(n, "unattached error", "unattached errors")
        ),
    };
    Some(format!("Beyond TT-NN Visualizer ({which}): {BEYOND_REFERENCE_MEANING} (beyond_reference: true in the JSON)."))
}

/// The link lines and every block, without the count line (`--follow` prints them as they come,
/// where a count would soon be stale).
pub(super) fn blocks(report: &MemoryReport, explanation: &Explanation<'_>, options: &ExplainOptions) -> String {
    let mut out = String::new();
    let selection = &explanation.selection;
    if let Some(linked) = selection.linked {
        let path = sanitize_line(&linked.perf.path.display().to_string());
        let _ = writeln!(out, "{}: {path}", linked.state().text());
        if let Some(reason) = linked.reason() {
            let _ = writeln!(out, "  {reason}");
        }
    }
    if let Some(id) = options.operation
        && selection.operations.is_empty()
    {
        let name = report.operation_index(id).map(|i| report.operations[i].name.as_ref()).unwrap_or("");
        match report.records_errors() {
            true => writeln!(out, "Operation {id} {name} has no error."),
            false => {
                writeln!(out, "Operation {id} {name} has no error recorded: {}.", ERRORS_NOT_RECORDED.to_lowercase())
            }
        }
        .ok();
        return out;
    }
    let built = explanation.each_entry(report, options.hex, &mut |ready| {
        let entry = match ready {
            Ready::Whole(entry) => *entry,
            Ready::Found(found) => found.finish(),
        };
        out.push_str(&operation_block(&entry, options));
        Ok::<_, std::convert::Infallible>(entry)
    });
    let Ok(()) = built;
    for e in &selection.unattached {
        out.push_str(&unattached_block(&ErrorAnswer::new(e, options.hex), options));
    }
    out.push_str(&super::beside::unjoined_text(report, options.hex, Paint::new(options.color)));
    out
}

/// The block of an operation's error, with its memory section when it has one, and what the
/// log beside the report adds (docs/rules/reference.md §13.5).
pub(super) fn operation_block(entry: &OperationAnswer, options: &ExplainOptions) -> String {
    let paint = Paint::new(options.color);
    let e = &entry.error;
    // The operations list's label: `{id} {name} ({file}:{line})` (docs/rules/reference.md §1.5).
    let id = e.operation_id.map_or_else(String::new, |id| format!(" {id}"));
    let mut heading = format!("Operation{id} {}", e.operation_name);
    if !entry.recorded {
        let _ = write!(heading, " {NOT_RECORDED}");
    }
    if let Some(source) = &entry.source {
        let _ = write!(heading, " ({source})");
    }
    let mut out = block(&heading, e, Some(entry), true, options);
    super::beside::push_lines(&mut out, &entry.notes);
    let unavailable = |section: &'static str| entry.unavailable.iter().filter(move |u| u.section == section);
    for u in unavailable("source").chain(unavailable("memory")) {
        let _ = writeln!(out, "  {}", paint.warning(&u.line()));
    }
    if let Some(section) = &entry.memory {
        super::beside::push_lines(&mut out, &section.lines);
    }
    for u in unavailable("fixes").chain(unavailable("memory_at_start")) {
        let _ = writeln!(out, "  {}", paint.warning(&u.line()));
    }
    out
}

/// The block of an error no operation picked.
pub(super) fn unattached_block(e: &ErrorAnswer, options: &ExplainOptions) -> String {
    let heading =
        format!("Unattached error ({}, {})", unattached_operation(e.operation_id, &e.operation_name), e.error_type);
    block(&heading, e, None, false, options)
}

/// The operation an unattached error names: `operation {id} {name}`; `Unknown operation` for an
/// empty name, and in place of `operation {id}` for a NULL id, never `operation 0` (0 can be a
/// real id, docs/rules/reference.md §13.4).
fn unattached_operation(id: Option<u64>, name: &str) -> String {
    match (id, name) {
        (Some(id), "") => format!("operation {id} Unknown operation"),
        (Some(id), name) => format!("operation {id} {name}"),
        (None, "") => "Unknown operation".to_string(),
        (None, name) => format!("Unknown operation {name}"),
    }
}

/// Said once when the report records no stack trace and something printed would name the
/// model's line (a failure, the late list), unless a log beside it gives the line.
pub(super) fn no_stack_traces(report: &MemoryReport, explanation: &Explanation<'_>) -> Option<&'static str> {
    let names_lines = !explanation.selection.operations.is_empty() || explanation.late.is_some();
    let recorded = || report.details().any_stack_trace(&report.errors).unwrap_or(true);
    (names_lines && report.log().is_none() && !recorded()).then_some(NO_STACK_TRACES)
}

/// The first line for a report without an `errors` table: a count of none would read as if the
/// run had no error.
pub(super) fn not_recorded_line(total: usize) -> String {
    let operations = counted(total, "operation", "operations");
    format!("{ERRORS_NOT_RECORDED} ({operations}); a failed operation shows only as an operation without a duration.")
}

/// The first line: how many operations have an error and how many errors no operation took,
/// e.g. `13 operations with errors, 3 errors not placed on an operation`; without any error,
/// `No errors recorded in this report (39 operations).` (`total` operations).
fn count_line(operations: usize, unattached: usize, total: usize) -> String {
    if operations == 0 && unattached == 0 {
        return format!("No errors recorded in this report ({}).", counted(total, "operation", "operations"));
    }
    let with_errors = match operations {
        0 => "No operation has an error".to_string(),
        1 => "1 operation with an error".to_string(),
        n => format!("{n} operations with errors"),
    };
    match unattached {
        0 => with_errors,
        1 => format!("{with_errors}, 1 error not placed on an operation"),
        n => format!("{with_errors}, {n} errors not placed on an operation"),
    }
}

/// One block: a heading line, then indented explanation lines. The heading is followed by the
/// kind label of an allocation failure, or by the error type when `with_type` is set; an
/// operation's entry (`attached`) adds the failed device operations or its perf status.
fn block(
    heading: &str,
    e: &ErrorAnswer,
    attached: Option<&OperationAnswer>,
    with_type: bool,
    options: &ExplainOptions,
) -> String {
    let paint = Paint::new(options.color);
    let mut out = String::new();
    match &e.allocation_failure {
        Some(failure) => {
            // The callout's lines (`CalloutBody::lines`), its kind and reason label coloured.
            let _ = writeln!(out, "{}: {}", paint.bold(heading), paint.danger(failure.kind_label));
            let _ = writeln!(out, "  {}", failure.summary);
            if let Some((label, detail)) = failure.reason_line() {
                let _ = writeln!(out, "  {} {detail}", paint.bold(&format!("{label}.")));
            }
            // Linked to a performance report, the status sentence replaces `Failed in …`.
            let last = attached.and_then(|a| match &a.perf {
                Some(perf) => Some(perf.status.clone()),
                None => failed_in(&a.failed_device_operations),
            });
            if let Some(last) = last {
                let _ = writeln!(out, "  {last}");
            }
        }
        None => {
            if with_type {
                let _ = writeln!(out, "{}: {}", paint.bold(heading), paint.danger(&e.error_type));
            } else {
                let _ = writeln!(out, "{}", paint.bold(heading));
            }
            // What the message says, not its first line (docs/rules/reference.md §13.4).
            for line in raw_message_text(&e.message) {
                let _ = writeln!(out, "  {line}");
            }
        }
    }
    for u in attached.iter().flat_map(|a| &a.unavailable).filter(|u| u.section == "failed_device_operations") {
        let _ = writeln!(out, "  {}", paint.warning(&u.line()));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{count_line, not_recorded_line};

    #[test]
    fn the_count_line_in_every_form() {
        assert_eq!(count_line(13, 3, 39), "13 operations with errors, 3 errors not placed on an operation");
        assert_eq!(count_line(1, 1, 39), "1 operation with an error, 1 error not placed on an operation");
        assert_eq!(count_line(2, 0, 39), "2 operations with errors");
        assert_eq!(count_line(1, 0, 1), "1 operation with an error");
        assert_eq!(count_line(0, 2, 39), "No operation has an error, 2 errors not placed on an operation");
        assert_eq!(count_line(0, 0, 39), "No errors recorded in this report (39 operations).");
        assert_eq!(count_line(0, 0, 1), "No errors recorded in this report (1 operation).");
    }

    #[test]
    fn a_report_without_an_errors_table_says_so() {
        assert_eq!(
            not_recorded_line(39),
            "This report version does not record errors (39 operations); a failed operation shows only as an operation without a duration."
        );
        assert!(not_recorded_line(1).starts_with("This report version does not record errors (1 operation);"));
    }
}
