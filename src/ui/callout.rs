//! The failure callout as styled lines (docs/rules/reference.md §5.4), and an error's raw text, shared by the
//! detail pane, expanded list items, the unattached-errors callout and the Performance tab.

use super::theme::Theme;
use crate::analysis::beside::operation_note;
use crate::analysis::messages::reason::{BEYOND_REFERENCE_MEANING, CalloutBody};
use crate::analysis::model::ErrorRecord;
use crate::app::Model;
use ratatui::text::{Line, Span};

/// The words after the kind label of a failure recognised beyond the reference (docs/rules/reference.md §13).
pub(crate) const BEYOND_REFERENCE_MARK: &str = " (beyond TT-NN Visualizer)";

/// The callout body as styled lines: the kind label bold (marked when the failure was recognised
/// beyond the reference), the reason label bold before its detail.
pub(crate) fn callout_lines(body: &CalloutBody, theme: &Theme, indent: &str) -> Vec<Line<'static>> {
    let mut heading =
        vec![Span::raw(indent.to_string()), Span::styled(body.kind_label, theme.bold.patch(theme.danger))];
    if body.beyond_reference {
        heading.push(Span::styled(BEYOND_REFERENCE_MARK, theme.dim));
    }
    let mut lines = vec![Line::from(heading), Line::from(format!("{indent}{}", body.summary))];
    if let Some(e) = &body.explanation {
        lines.push(Line::from(vec![
            Span::raw(indent.to_string()),
            Span::styled(format!("{}.", e.reason.label()), theme.bold),
            Span::raw(format!(" {}", e.detail)),
        ]));
    }
    if let Some(last) = &body.last_line {
        lines.push(Line::from(format!("{indent}{last}")));
    }
    if body.beyond_reference {
        lines.push(Line::styled(format!("{indent}{}", beyond_reference_legend()), theme.dim));
    }
    lines
}

/// The legend of the mark, under a callout that has it.
pub(crate) fn beyond_reference_legend() -> String {
    format!("(beyond TT-NN Visualizer: {BEYOND_REFERENCE_MEANING})")
}

/// The callout body of an error that is an allocation failure, with `Failed in …`.
pub(crate) fn error_callout(error: &ErrorRecord, hex: bool, failed_in: &[String]) -> Option<CalloutBody> {
    error.failure.as_ref().map(|f| CalloutBody::new(f, hex, failed_in, None))
}

/// What an operation's callout adds after the failure (docs/rules/reference.md §13.5): where the log beside
/// the report shows it, or why an operation the report did not record has no message.
pub(crate) fn note_line(model: &Model, operation: usize, theme: &Theme, indent: &str) -> Option<Line<'static>> {
    let op = &model.operations[operation];
    let error = model.error_of(operation)?;
    let note = operation_note(error, op.recorded, &op.name, model.log_path.as_deref())?;
    Some(Line::styled(format!("{indent}{note}"), theme.dim))
}

/// The line saying an operation's failed device operations are unknown, and why (its graph could
/// not be read), as explain says it.
pub(crate) fn unavailable_line(model: &Model, operation: usize, theme: &Theme, indent: &str) -> Option<Line<'static>> {
    let reason = model.failed_in_unavailable(operation)?;
    Some(Line::styled(format!("{indent}Device operations unavailable: {reason}"), theme.warning))
}

/// Lines of a multi-line text, each indented.
pub(crate) fn text_lines(text: &str, indent: &str) -> Vec<Line<'static>> {
    text.lines().map(|l| Line::from(format!("{indent}{l}"))).collect()
}

/// The lines of an error: its callout when it is an allocation failure, then (when `raw`) the
/// message under `Error Message` and the stack trace, when there is one, under `Error Stack
/// Trace` (docs/rules/reference.md §7.2).
pub(crate) fn error_lines(
    error: &ErrorRecord,
    hex: bool,
    failed_in: &[String],
    theme: &Theme,
    indent: &str,
) -> Vec<Line<'static>> {
    let mut lines = error_callout(error, hex, failed_in).map(|b| callout_lines(&b, theme, indent)).unwrap_or_default();
    lines.push(Line::styled(format!("{indent}Error Message"), theme.bold));
    lines.extend(text_lines(&error.message, indent));
    if !error.stack_trace.trim().is_empty() {
        lines.push(Line::styled(format!("{indent}Error Stack Trace"), theme.bold));
        lines.extend(text_lines(&error.stack_trace, indent));
    }
    lines
}
