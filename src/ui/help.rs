//! The `?` help popup: every key of the key table, grouped by pane.

use super::clear;
use crate::app::keys::pane_title;
use crate::app::{App, KEY_TABLE, Pane};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Wrap};

const PANES: [Pane; 6] =
    [Pane::Operations, Pane::DeviceOps, Pane::Performance, Pane::Search, Pane::Help, Pane::ErrorPopup];

/// The help text: for each pane, its keys and what they do (disabled ones marked).
pub fn help_lines(app: &App) -> Vec<Line<'static>> {
    let theme = &app.theme;
    let mut lines = Vec::new();
    for pane in PANES {
        if !lines.is_empty() {
            lines.push(Line::default());
        }
        lines.push(Line::styled(pane_title(pane), theme.bold));
        for b in KEY_TABLE.iter().filter(|b| b.panes.contains(&pane)) {
            let enabled = app.enabled(b.action);
            let mut spans = vec![
                Span::styled(format!("  {:<26}", b.keys), if enabled { theme.key } else { theme.dim }),
                Span::styled(b.description, if enabled { theme.text } else { theme.dim }),
            ];
            if !enabled {
                spans.push(Span::styled(" (not available now)", theme.dim));
            }
            lines.push(Line::from(spans));
        }
    }
    lines
}

/// Draws the popup.
pub fn draw(frame: &mut Frame, app: &App, area: Rect, scroll: u16) {
    clear(frame, area);
    let block = Block::new()
        .borders(Borders::ALL)
        .title(Span::styled(" Keys ", app.theme.bold))
        .title_bottom(Line::styled(" j/k scroll · Esc close ", app.theme.dim));
    frame.render_widget(
        Paragraph::new(help_lines(app)).block(block).wrap(Wrap { trim: false }).scroll((scroll, 0)),
        area,
    );
}
