//! The `v` popup: the raw message and the stack trace of an operation's error, in two sections,
//! scrollable, for any error.

use super::clear;
use crate::app::App;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Wrap};

/// Draws the popup.
pub fn draw(frame: &mut Frame, app: &App, area: Rect, operation: usize, scroll: u16) {
    clear(frame, area);
    let theme = &app.theme;
    let op = &app.operations[operation];
    let mut lines = vec![Line::styled("Error details", theme.bold.patch(theme.danger))];
    if let Some(error) = app.error_of(operation) {
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
        .title_bottom(Line::styled(" j/k scroll · Esc close ", theme.dim));
    frame.render_widget(Paragraph::new(lines).block(block).wrap(Wrap { trim: false }).scroll((scroll, 0)), area);
}
