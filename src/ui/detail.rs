//! The detail pane of the selected operation: id, name, duration, the failure callout (or the
//! error type and message), arguments and stack trace. `J`/`K` scroll it; a scrollbar shows when
//! it holds more than fits.

use super::callout::{callout_lines, error_callout, note_line, text_lines, unavailable_line};
use super::view::View;
use super::wrap::wrap_lines;
use crate::analysis::beside::{NO_STACK_TRACES, NOT_RECORDED};
use crate::analysis::stack::most_recent_call_last;
use crate::app::bindings::key_label;
use crate::app::{Action, FixList, Loaded, Pane, Scroll};
use ratatui::Frame;
use ratatui::layout::{Margin, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Scrollbar, ScrollbarOrientation, ScrollbarState};

/// The heading of the stack trace, which reads in the order of a Python traceback.
pub const STACK_TRACE_HEADING: &str = "Stack trace (most recent call last)";

/// A duration in seconds, as shown in the detail pane. A failed operation has none: older
/// writers leave it NULL, the graph-report importer writes 0.
pub(crate) fn duration_text(seconds: Option<f64>, failed: bool) -> String {
    match seconds {
        None | Some(0.0) if failed => "not recorded (it failed)".to_string(),
        None => "not recorded".to_string(),
        Some(s) if s >= 1.0 => format!("{s:.3} s"),
        Some(s) => format!("{:.3} ms", s * 1000.0),
    }
}

/// The detail pane's lines for an operation, before wrapping.
pub fn detail_lines(view: &View, operation: usize) -> Vec<Line<'static>> {
    lines_with(view, operation, None)
}

/// [`detail_lines`] with the line saying what tab 4 has of an allocation failure's fixes.
fn lines_with(view: &View, operation: usize, fixes: Option<&FixList>) -> Vec<Line<'static>> {
    let (model, theme) = (view.model, view.theme);
    let op = &model.operations[operation];
    // Id, name and duration on one line, so the callout shows on small terminals too.
    let name = if op.recorded { op.name.to_string() } else { format!("{} {NOT_RECORDED}", op.name) };
    let mut lines = vec![Line::from(vec![
        Span::styled(format!("{} {name}", op.id), theme.bold),
        Span::styled(
            format!(" · duration {}", duration_text(op.duration, model.error_of(operation).is_some())),
            theme.dim,
        ),
    ])];
    if let Some(error) = model.error_of(operation) {
        lines.push(Line::default());
        match error_callout(error, view.hex, model.failed_in(operation)) {
            Some(body) => {
                lines.extend(callout_lines(&body, theme, ""));
                lines.extend(fixes.map(|f| Line::styled(f.hint(operation), theme.key)));
            }
            None => {
                lines.push(Line::styled(error.error_type.clone(), theme.bold.patch(theme.danger)));
                lines.extend(text_lines(&error.message, ""));
            }
        }
        lines.extend(unavailable_line(model, operation, theme, ""));
        lines.extend(note_line(model, operation, theme, ""));
        let key = key_label(Pane::Operations, Action::ViewError);
        lines.push(Line::styled(format!("{key}: raw message and stack trace"), theme.dim));
    }
    lines.push(Line::default());
    lines.push(Line::styled("Arguments", theme.bold));
    match model.arguments.get(&operation) {
        None => lines.push(Line::styled("  loading…", theme.dim)),
        Some(Loaded::Unavailable(reason)) => lines.push(Line::styled(format!("  {reason}"), theme.danger)),
        Some(Loaded::Ready(args)) if args.is_empty() => lines.push(Line::styled("  none recorded", theme.dim)),
        Some(Loaded::Ready(args)) => {
            for (name, value) in args {
                let mut value_lines = value.lines();
                let first = value_lines.next().unwrap_or("");
                lines.push(Line::from(vec![
                    Span::styled(format!("  {name} "), theme.bold),
                    Span::raw(first.to_string()),
                ]));
                lines.extend(value_lines.map(|l| Line::from(format!("    {l}"))));
            }
        }
    }
    lines.push(Line::default());
    lines.push(Line::styled(STACK_TRACE_HEADING, theme.bold));
    match (model.stack_traces.get(&operation), &model.stack_trace_error) {
        (None, Some(reason)) => lines.push(Line::styled(format!("  {reason}"), theme.danger)),
        (None, None) => lines.push(Line::styled("  loading…", theme.dim)),
        // A report without any says so, and how to get the model's line (a log given has it).
        (Some(t), _) if t.trim().is_empty() && !model.stack_traces_recorded && model.log_path.is_none() => {
            lines.push(Line::styled(format!("  {NO_STACK_TRACES}"), theme.dim))
        }
        (Some(t), _) if t.trim().is_empty() => lines.push(Line::styled("  none recorded", theme.dim)),
        (Some(t), _) => lines.extend(text_lines(&most_recent_call_last(t), "  ")),
    }
    lines
}

/// Draws the pane.
pub(crate) fn draw(
    frame: &mut Frame,
    area: Rect,
    view: &View,
    (operation, fixes): (Option<usize>, &FixList),
    scroll: &mut Scroll,
) {
    let theme = view.theme;
    let Some(i) = operation else {
        frame.render_widget(Block::new().borders(Borders::ALL).title(" Details "), area);
        return;
    };
    let op = &view.model.operations[i];
    let has_error = op.error.is_some();
    let title = Line::from(vec![Span::styled(
        format!(" {}Operation {} ", if has_error { "✖ " } else { "" }, op.id),
        if has_error { theme.danger.patch(theme.bold) } else { theme.bold },
    )]);
    let block =
        Block::new().borders(Borders::ALL).border_style(if has_error { theme.danger } else { theme.text }).title(title);
    let inner = block.inner(area);
    // Leave the last column to the scrollbar.
    let lines = wrap_lines(lines_with(view, i, Some(fixes)), (inner.width as usize).saturating_sub(1));
    scroll.fit(lines.len(), inner.height as usize);
    let total = lines.len();
    let shown: Vec<Line> = lines.into_iter().skip(scroll.offset()).collect();
    frame.render_widget(Paragraph::new(shown).block(block), area);
    if total > inner.height as usize {
        let mut state = ScrollbarState::new(total.saturating_sub(inner.height as usize) + 1).position(scroll.offset());
        frame.render_stateful_widget(
            Scrollbar::new(ScrollbarOrientation::VerticalRight),
            area.inner(Margin::new(0, 1)),
            &mut state,
        );
    }
}
