//! The Operations tab: the unattached-errors callout, the list (only the visible rows are
//! built) and the detail pane beside it, or below it on narrow terminals.

use super::theme::SELECTION_SYMBOL;
use super::{detail, unattached};
use crate::app::App;
use crate::app::content::{list_label, marker, wrapped_expansion};
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Margin, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Scrollbar, ScrollbarOrientation, ScrollbarState};

/// Terminals at least this wide show the detail pane beside the list.
pub const SIDE_BY_SIDE_WIDTH: u16 = 110;

/// Draws the tab.
pub fn draw_tab(frame: &mut Frame, app: &mut App, area: Rect) {
    let callout_height = unattached::height(app, area.height);
    let [callout_area, rest] = Layout::vertical([Constraint::Length(callout_height), Constraint::Fill(1)]).areas(area);
    if callout_height > 0 {
        unattached::draw(frame, app, callout_area);
    }
    let [list_area, detail_area] = if rest.width >= SIDE_BY_SIDE_WIDTH {
        Layout::horizontal([Constraint::Percentage(45), Constraint::Fill(1)]).areas(rest)
    } else {
        Layout::vertical([Constraint::Percentage(55), Constraint::Fill(1)]).areas(rest)
    };
    draw_list(frame, app, list_area);
    detail::draw(frame, app, detail_area);
}

/// Draws the list: rows from the offset until the area is full.
pub fn draw_list(frame: &mut Frame, app: &mut App, area: Rect) {
    let theme = app.theme;
    let title = Line::from(vec![
        Span::styled(" Operations ", theme.bold),
        Span::styled(format!("· {} ", app.counter()), theme.dim),
    ]);
    let block = Block::new().borders(Borders::ALL).title(title);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let height = inner.height as usize;
    // Leave the last column to the scrollbar.
    let width = (inner.width as usize).saturating_sub(1);
    if app.list.height != height || app.list.width != width {
        app.list.height = height;
        app.list.width = width;
        app.scroll_into_view();
    }
    if app.center_selection && height > 0 {
        app.center_selection = false;
        app.list.offset = app.list.selected.saturating_sub(height / 2);
        app.scroll_into_view();
    }
    if app.list.shown.is_empty() {
        let text = if app.errors_only { "No operation has an error" } else { "This report has no operations" };
        frame.render_widget(Paragraph::new(Line::styled(text, theme.dim)), inner);
        return;
    }
    let matches = &app.search.matches;
    let mut lines: Vec<Line> = Vec::with_capacity(height);
    let mut position = app.list.offset;
    while lines.len() < height && position < app.list.shown.len() {
        let i = app.list.shown[position];
        let selected = position == app.list.selected;
        let mark = marker(app, i);
        let mut spans = vec![
            Span::raw(if selected { SELECTION_SYMBOL } else { "  " }),
            Span::styled(format!("{:<8}", mark.unwrap_or("")), theme.danger.patch(theme.bold)),
        ];
        let label_style = if matches.binary_search(&position).is_ok() { theme.matched } else { theme.text };
        spans.push(Span::styled(list_label(app, i), label_style));
        let mut line = Line::from(spans);
        if selected {
            line = line.style(theme.selected);
        }
        lines.push(line);
        if app.expanded.contains(&i) {
            lines.extend(wrapped_expansion(app, i, width));
        }
        position += 1;
    }
    lines.truncate(height);
    frame.render_widget(Paragraph::new(lines), inner);
    if app.list.shown.len() > height {
        let mut state = ScrollbarState::new(app.list.shown.len()).position(app.list.selected);
        frame.render_stateful_widget(
            Scrollbar::new(ScrollbarOrientation::VerticalRight),
            area.inner(Margin::new(0, 1)),
            &mut state,
        );
    }
}
