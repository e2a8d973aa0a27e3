//! The `U` popup: every unattached error, each explained as the callout explains its first five
//! (docs/rules/reference.md §7.5, §13.4), numbered, scrollable.

use super::status::popup_hints;
use super::unattached::{error_lines, title};
use super::view::{View, clear};
use super::wrap::{truncate, wrap_lines};
use crate::app::{Action, Pane, Scroll};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};

/// Every unattached error, in table order, a blank line between two.
pub(crate) fn all_lines(view: &View) -> Vec<Line<'static>> {
    let model = view.model;
    let mut lines = Vec::new();
    for (k, &e) in model.unattached().iter().enumerate() {
        if k > 0 {
            lines.push(Line::default());
        }
        lines.extend(error_lines(view, &model.errors[e], Some(k + 1)));
    }
    lines
}

/// Draws the popup.
pub(crate) fn draw(frame: &mut Frame, area: Rect, view: &View, scroll: &mut Scroll) {
    clear(frame, area);
    let theme = view.theme;
    let block = Block::new()
        .borders(Borders::ALL)
        .border_style(theme.danger)
        .title(Span::styled(
            truncate(&format!(" ✖ {} ", title(view.model.unattached().len())), area.width.saturating_sub(2) as usize),
            theme.danger.patch(theme.bold),
        ))
        .title_bottom(Line::styled(
            popup_hints(Pane::UnattachedPopup, &[Action::Down, Action::First, Action::Back]),
            theme.dim,
        ));
    let inner = block.inner(area);
    let lines = wrap_lines(all_lines(view), inner.width as usize);
    scroll.fit(lines.len(), inner.height as usize);
    let shown: Vec<Line> = lines.into_iter().skip(scroll.offset()).collect();
    frame.render_widget(Paragraph::new(shown).block(block), area);
}
