//! The detail pane of the selected operation: id, name, duration, the failure callout (or the
//! error type and message), arguments and stack trace. `J`/`K` scroll it.

use crate::app::App;
use crate::app::content::detail_lines;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Wrap};

/// Draws the pane.
pub fn draw(frame: &mut Frame, app: &App, area: Rect) {
    let theme = &app.theme;
    let Some(i) = app.selected_operation() else {
        frame.render_widget(Block::new().borders(Borders::ALL).title(" Details "), area);
        return;
    };
    let op = &app.operations[i];
    let has_error = op.error.is_some();
    let title = Line::from(vec![Span::styled(
        format!(" {}Operation {} ", if has_error { "✖ " } else { "" }, op.id),
        if has_error { theme.danger.patch(theme.bold) } else { theme.bold },
    )]);
    let block =
        Block::new().borders(Borders::ALL).border_style(if has_error { theme.danger } else { theme.text }).title(title);
    let paragraph =
        Paragraph::new(detail_lines(app, i)).block(block).wrap(Wrap { trim: false }).scroll((app.detail_scroll, 0));
    frame.render_widget(paragraph, area);
}
