//! The `?` help popup: every key of every pane's binding table, grouped by pane.

use super::status::popup_hints;
use super::theme::Theme;
use super::view::clear;
use super::wrap::wrap_lines;
use crate::analysis::messages::reason::BEYOND_REFERENCE_MEANING;
use crate::app::bindings::{bindings, pane_title};
use crate::app::keys::PANES;
use crate::app::{Action, App, Availability, Pane, Scroll};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};

/// The help text: for each pane, its keys and what they do. Keys of the pane the help was opened
/// from that cannot act now are marked.
pub fn help_lines(app: &App, theme: &Theme, from: Pane) -> Vec<Line<'static>> {
    let mut lines = Vec::new();
    for pane in PANES {
        if !lines.is_empty() {
            lines.push(Line::default());
        }
        lines.push(Line::styled(pane_title(pane), theme.bold));
        for b in bindings(pane) {
            let availability = if pane == from { app.availability_in(pane, b.action) } else { Availability::Enabled };
            let enabled = availability == Availability::Enabled;
            let mut spans = vec![
                Span::styled(format!("  {:<16}", b.label), if enabled { theme.key } else { theme.dim }),
                Span::styled(b.description, if enabled { theme.text } else { theme.dim }),
            ];
            if !enabled {
                spans.push(Span::styled(" (not available now)", theme.dim));
            }
            lines.push(Line::from(spans));
        }
    }
    lines.push(Line::default());
    lines.push(Line::styled("Marks", theme.bold));
    lines.push(Line::from(vec![
        Span::styled(format!("  {:<16}", "(beyond TT-NN Visualizer)"), theme.dim),
        Span::styled(
            format!(" after a failure's kind: {BEYOND_REFERENCE_MEANING} (beyond_reference: true in the JSON)"),
            theme.text,
        ),
    ]));
    lines
}

/// Draws the popup.
pub(crate) fn draw(frame: &mut Frame, area: Rect, app: &App, theme: &Theme, from: Pane, scroll: &mut Scroll) {
    clear(frame, area);
    let block = Block::new()
        .borders(Borders::ALL)
        .title(Span::styled(" Keys ", theme.bold))
        .title_bottom(Line::styled(popup_hints(Pane::Help, &[Action::Down, Action::Back]), theme.dim));
    let inner = block.inner(area);
    let lines = wrap_lines(help_lines(app, theme, from), inner.width as usize);
    scroll.fit(lines.len(), inner.height as usize);
    let shown: Vec<Line> = lines.into_iter().skip(scroll.offset()).collect();
    frame.render_widget(Paragraph::new(shown).block(block), area);
}
