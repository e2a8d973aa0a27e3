//! The unattached-errors callout above the operations list (behaviour.md §7.5): folded to its
//! title (`u`) or open and scrollable (`[`/`]`).

use super::View;
use super::callout::{callout_lines, error_callout, text_lines};
use super::text::{truncate_line, wrap_lines};
use crate::app::Scroll;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};

/// How many unattached errors the callout explains before `And {n − 5} more.`.
pub(crate) const UNATTACHED_SHOWN: usize = 5;

/// The title of the callout.
pub(crate) fn title(n: usize) -> String {
    if n == 1 {
        "1 error recorded that is not shown on any operation".to_string()
    } else {
        format!("{n} errors recorded that are not shown on any operation")
    }
}

/// The body of the callout: the first 5 explained, then `And {n − 5} more.`.
pub(crate) fn lines(view: &View) -> Vec<Line<'static>> {
    let (model, theme) = (view.model, view.theme);
    let unattached = model.unattached();
    let mut lines = Vec::new();
    for (k, &e) in unattached.iter().take(UNATTACHED_SHOWN).enumerate() {
        let error = &model.errors[e];
        if k > 0 {
            lines.push(Line::default());
        }
        let name = if error.operation_name.is_empty() { "Unknown operation" } else { &error.operation_name };
        lines.push(Line::from(vec![
            Span::styled(name.to_string(), theme.bold),
            Span::raw(format!(" {}", error.error_type)),
        ]));
        if let Some(body) = error_callout(error, view.hex, &[]) {
            lines.extend(callout_lines(&body, theme, "  "));
        }
        lines.extend(text_lines(&error.message, "  "));
        if !error.stack_trace.trim().is_empty() {
            lines.extend(text_lines(&error.stack_trace, "  "));
        }
    }
    if unattached.len() > UNATTACHED_SHOWN {
        lines.push(Line::default());
        lines.push(Line::from(format!("And {} more.", unattached.len() - UNATTACHED_SHOWN)));
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
    let title = title(view.model.unattached().len());
    if folded {
        let line = Line::from(vec![
            Span::styled(format!("▸ ✖ {title}"), theme.danger.patch(theme.bold)),
            Span::styled("  (u: show)", theme.dim),
        ]);
        frame.render_widget(Paragraph::new(truncate_line(line, area.width as usize)), area);
        return;
    }
    let block = Block::new()
        .borders(Borders::ALL)
        .border_style(theme.danger)
        .title(Line::from(vec![Span::styled(format!(" ✖ {title} "), theme.danger.patch(theme.bold))]))
        .title_bottom(Line::styled(" u: hide  [/]: scroll ", theme.dim));
    let inner = block.inner(area);
    let lines = wrap_lines(lines(view), inner.width as usize);
    scroll.fit(lines.len(), inner.height as usize);
    let shown: Vec<Line> = lines.into_iter().skip(scroll.offset()).collect();
    frame.render_widget(Paragraph::new(shown).block(block), area);
}
