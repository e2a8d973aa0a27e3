//! The `v` popup: the raw message and the stack trace of an operation's error, in two sections,
//! scrollable, for any error.

use super::status::popup_hints;
use super::view::{View, clear};
use super::wrap::wrap_lines;
use crate::app::{Action, Pane, Scroll};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};

/// Draws the popup.
pub(crate) fn draw(frame: &mut Frame, area: Rect, view: &View, operation: usize, scroll: &mut Scroll) {
    clear(frame, area);
    let theme = view.theme;
    let op = &view.model.operations[operation];
    let mut lines = vec![Line::styled("Error details", theme.bold.patch(theme.danger))];
    if let Some(error) = view.model.error_of(operation) {
        lines.push(Line::styled(error.error_type.clone(), theme.bold));
        lines.extend(error.message.lines().map(|l| Line::from(l.to_string())));
        lines.push(Line::default());
        lines.push(Line::styled("Stack Trace", theme.bold.patch(theme.danger)));
        if error.stack_trace.trim().is_empty() {
            lines.push(Line::styled("No stack trace recorded", theme.dim));
        } else {
            lines.extend(error.stack_trace.lines().map(|l| Line::from(l.to_string())));
        }
    }
    let block = Block::new()
        .borders(Borders::ALL)
        .border_style(theme.danger)
        .title(Span::styled(format!(" Error of operation {} {} ", op.id, op.name), theme.bold))
        .title_bottom(Line::styled(popup_hints(Pane::ErrorPopup, &[Action::Down, Action::Back]), theme.dim));
    let inner = block.inner(area);
    let lines = wrap_lines(lines, inner.width as usize);
    scroll.fit(lines.len(), inner.height as usize);
    let shown: Vec<Line> = lines.into_iter().skip(scroll.offset()).collect();
    frame.render_widget(Paragraph::new(shown).block(block), area);
}
