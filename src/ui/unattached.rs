//! The unattached-errors callout above the operations list (docs/rules/reference.md §7.5): folded to its
//! title (`u`) or open and scrollable (`[`/`]`); past five errors, `U` opens them all.

use super::callout::{callout_lines, error_callout, text_lines};
use super::view::View;
use super::wrap::{truncate_line, wrap_lines};
use crate::analysis::model::ErrorRecord;
use crate::app::Action::{ScrollCalloutDown, ShowUnattached, ToggleCallout};
use crate::app::bindings::key_label;
use crate::app::{Action, Pane, Scroll, UNATTACHED_SHOWN};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};

/// The key the Operations tab binds to `action`.
fn key(action: Action) -> &'static str {
    key_label(Pane::Operations, action)
}

/// The title of the callout.
pub(crate) fn title(n: usize) -> String {
    if n == 1 {
        "1 error recorded that is not shown on any operation".to_string()
    } else {
        format!("{n} errors recorded that are not shown on any operation")
    }
}

/// One error explained: the operation name in bold (`Unknown operation` when empty) and the
/// error type, the callout body when the message parses (no `Failed in`), the raw message and
/// the stack trace when there is one. `number` goes before the name in the whole list.
pub(crate) fn error_lines(view: &View, error: &ErrorRecord, number: Option<usize>) -> Vec<Line<'static>> {
    let theme = view.theme;
    let name = if error.operation_name.is_empty() { "Unknown operation" } else { &error.operation_name };
    let mut heading: Vec<Span<'static>> =
        number.map(|k| Span::styled(format!("{k}. "), theme.dim)).into_iter().collect();
    heading.push(Span::styled(name.to_string(), theme.bold));
    heading.push(Span::raw(format!(" {}", error.error_type)));
    let mut lines = vec![Line::from(heading)];
    if let Some(body) = error_callout(error, view.hex, &[]) {
        lines.extend(callout_lines(&body, theme, "  "));
    }
    lines.extend(text_lines(&error.message, "  "));
    if !error.stack_trace.trim().is_empty() {
        lines.extend(text_lines(&error.stack_trace, "  "));
    }
    lines
}

/// The body of the callout: the first 5 explained, then `And {n − 5} more.` with the key that
/// lists them all.
pub(crate) fn lines(view: &View) -> Vec<Line<'static>> {
    let model = view.model;
    let unattached = model.unattached();
    let mut lines = Vec::new();
    for (k, &e) in unattached.iter().take(UNATTACHED_SHOWN).enumerate() {
        if k > 0 {
            lines.push(Line::default());
        }
        lines.extend(error_lines(view, &model.errors[e], None));
    }
    if unattached.len() > UNATTACHED_SHOWN {
        lines.push(Line::default());
        lines.push(Line::from(vec![
            Span::styled(format!("And {} more.", unattached.len() - UNATTACHED_SHOWN), view.theme.bold),
            Span::styled(format!("  {}: show all {}", key(ShowUnattached), unattached.len()), view.theme.key),
        ]));
    }
    lines
}

/// Lines the callout takes in the tab's area: none without unattached errors, its title alone
/// when folded, else its lines up to a third of the area.
pub(crate) fn height(view: &View, folded: bool, area: Rect) -> u16 {
    if view.model.unattached().is_empty() {
        0
    } else if folded {
        1
    } else {
        let wanted = wrap_lines(lines(view), area.width.saturating_sub(2) as usize).len() as u16 + 2;
        wanted.min((area.height / 3).max(3))
    }
}

/// Draws the callout.
pub(crate) fn draw(frame: &mut Frame, area: Rect, view: &View, folded: bool, scroll: &mut Scroll) {
    let theme = view.theme;
    let n = view.model.unattached().len();
    let title = title(n);
    let all = if n > UNATTACHED_SHOWN { format!("{}: all", key(ShowUnattached)) } else { String::new() };
    if folded {
        let all = if all.is_empty() { all } else { format!(", {all}") };
        let line = Line::from(vec![
            Span::styled(format!("▸ ✖ {title}"), theme.danger.patch(theme.bold)),
            Span::styled(format!("  ({}: show{all})", key(ToggleCallout)), theme.dim),
        ]);
        frame.render_widget(Paragraph::new(truncate_line(line, area.width as usize)), area);
        return;
    }
    let block = Block::new()
        .borders(Borders::ALL)
        .border_style(theme.danger)
        .title(Line::from(vec![Span::styled(format!(" ✖ {title} "), theme.danger.patch(theme.bold))]))
        .title_bottom(Line::styled(
            format!(
                " {}: hide  {}: scroll{}{all} ",
                key(ToggleCallout),
                key(ScrollCalloutDown),
                if all.is_empty() { "" } else { "  " }
            ),
            theme.dim,
        ));
    let inner = block.inner(area);
    let lines = wrap_lines(lines(view), inner.width as usize);
    scroll.fit(lines.len(), inner.height as usize);
    let shown: Vec<Line> = lines.into_iter().skip(scroll.offset()).collect();
    frame.render_widget(Paragraph::new(shown).block(block), area);
}
