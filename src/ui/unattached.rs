//! The unattached-errors callout above the operations list (behaviour.md §7.5): collapsible
//! (`u`) and scrollable (`[`/`]`).

use crate::app::App;
use crate::app::content::{unattached_lines, unattached_title};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Wrap};

/// Lines the callout takes in a body of this height: its title alone when collapsed.
pub fn height(app: &App, body_height: u16) -> u16 {
    if app.unattached.is_empty() {
        0
    } else if app.unattached_collapsed {
        1
    } else {
        let wanted = unattached_lines(app).len() as u16 + 2;
        wanted.min((body_height / 3).max(3))
    }
}

/// Draws the callout.
pub fn draw(frame: &mut Frame, app: &App, area: Rect) {
    let theme = &app.theme;
    let title = unattached_title(app.unattached.len());
    if app.unattached_collapsed {
        let line = Line::from(vec![
            Span::styled(format!("▸ ✖ {title}"), theme.danger.patch(theme.bold)),
            Span::styled("  (u: show)", theme.dim),
        ]);
        frame.render_widget(Paragraph::new(line), area);
        return;
    }
    let block = Block::new()
        .borders(Borders::ALL)
        .border_style(theme.danger)
        .title(Line::from(vec![Span::styled(format!(" ✖ {title} "), theme.danger.patch(theme.bold))]))
        .title_bottom(Line::styled(" u: hide  [/]: scroll ", theme.dim));
    let paragraph = Paragraph::new(unattached_lines(app))
        .block(block)
        .wrap(Wrap { trim: false })
        .scroll((app.unattached_scroll, 0));
    frame.render_widget(paragraph, area);
}
