//! The Performance tab: the allocation-failure callout above the table (docs/rules/reference.md §10, folded
//! with `u`, its listings chosen with `[`/`]`), the link state and why nothing linked, the table
//! of the active view and a footer explaining the selected row's flags (§11).

use super::callout::callout_lines;
use super::perf_table::{draw_table, footer_lines};
use super::theme::SELECTION_SYMBOL;
use super::view::View;
use super::wrap::{truncate, truncate_line, wrap_line, wrap_lines};
use crate::analysis::perf::callout::{PerfCallout, perf_callout};
use crate::analysis::perf::link::{LINKED_TEXT, UNLINKED_TEXT};
use crate::app::Action::{Activate, NextFailure, ToggleCallout};
use crate::app::bindings::{hint_text, key_label};
use crate::app::{Action, Focus, Pane, PerfState, PerfTab, WindowedRows};
use ratatui::Frame;
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Margin, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, StatefulWidget, Widget};

/// What the tab says when no performance report was opened.
pub(crate) const NO_PERF_REPORT: &str =
    "No performance report loaded — pass --perf PATH (a profiler report folder or ops_perf_results*.csv)";

/// The link state for the status bar: short, with the reason when nothing linked.
pub(crate) fn link_status(perf: &PerfState) -> Option<String> {
    match perf {
        PerfState::None => None,
        PerfState::Linking(_) => Some("perf: linking…".to_string()),
        PerfState::Failed(_) => Some("perf: not linked — the memory report could not be read again".to_string()),
        PerfState::Ready(tab) if tab.is_linked() => Some("perf: linked".to_string()),
        PerfState::Ready(tab) => Some(match &tab.input.unlinked_reason {
            Some(reason) => format!("perf: not linked — {reason}"),
            None => "perf: not linked".to_string(),
        }),
    }
}

/// The link line of the tab: the reference's text, and why nothing linked.
pub(crate) fn link_line(tab: &PerfTab) -> String {
    match (&tab.input.unlinked_reason, tab.is_linked()) {
        (_, true) => LINKED_TEXT.to_string(),
        (Some(reason), false) => format!("{UNLINKED_TEXT}: {reason}"),
        (None, false) => UNLINKED_TEXT.to_string(),
    }
}

/// The key the Performance tab binds to `action`.
fn key(action: Action) -> &'static str {
    key_label(Pane::Performance, action)
}

/// Draws the tab.
pub(crate) fn draw(frame: &mut Frame, area: Rect, view: &View, perf: &mut PerfState) {
    let theme = view.theme;
    let tab = match perf {
        PerfState::None => return draw_message(frame, area, NO_PERF_REPORT.to_string(), theme.dim),
        PerfState::Linking(file) => {
            let text = format!("Linking {file} with the memory report… (keys work meanwhile)");
            return draw_message(frame, area, text, theme.dim);
        }
        PerfState::Failed(reason) => {
            return draw_message(frame, area, format!("{UNLINKED_TEXT}: {reason}"), theme.warning);
        }
        PerfState::Ready(tab) => tab,
    };
    let width = area.width as usize;
    let link_style = if tab.is_linked() { theme.dim } else { theme.warning };
    let link = wrap_line(Line::styled(link_line(tab), link_style), width);
    let footer = wrap_lines(footer_lines(view, tab), width);
    let body = area.height as usize;
    let footer_height = (footer.len() + 1).min((body / 4).max(2));
    let link_height = link.len().min(3);
    // The table keeps room for its rows (up to a third of the body); the callout takes the rest.
    let table_min = (tab.shown.len() + 3).min((body / 3).max(5));
    let callout_room = body.saturating_sub(footer_height + link_height + table_min).max(3);
    // Built once a draw: every item's height and lines come from it.
    let callout = perf_callout(&tab.listings, tab.is_linked(), view.hex);
    let callout_height = callout_height(view, callout.as_ref(), tab.callout_folded, callout_room, width);
    let [callout_area, link_area, table_area, footer_area] = Layout::vertical([
        Constraint::Length(callout_height as u16),
        Constraint::Length(link_height as u16),
        Constraint::Fill(1),
        Constraint::Length(footer_height as u16),
    ])
    .areas(area);
    if let Some(callout) = &callout
        && callout_height > 0
    {
        // The callout's items are its own state; the rest of the tab is only read.
        let mut rows = std::mem::take(&mut tab.callout);
        frame.render_stateful_widget(Callout { view, tab, callout }, callout_area, &mut rows);
        tab.callout = rows;
    }
    frame.render_widget(Paragraph::new(link), link_area);
    draw_table(frame, table_area, view, tab);
    let block = Block::new().borders(Borders::TOP).border_style(theme.dim);
    frame.render_widget(Paragraph::new(footer).block(block), footer_area);
}

/// Draws a message wrapped inside the tab's margin, in place of the tab.
fn draw_message(frame: &mut Frame, area: Rect, text: String, style: Style) {
    let lines = wrap_lines([Line::from(text)], area.width.saturating_sub(2) as usize);
    frame.render_widget(Paragraph::new(lines).style(style), area.inner(Margin::new(1, 1)));
}

/// The callout's height: none without a callout, one line folded, else what it wants up to `room`.
fn callout_height(view: &View, callout: Option<&PerfCallout>, folded: bool, room: usize, width: usize) -> usize {
    match (callout, folded) {
        (None, _) => 0,
        (Some(_), true) => 1,
        (Some(callout), false) => room.min(callout_wanted(view, callout, width)),
    }
}

/// Lines the open callout would take at this width, borders included.
fn callout_wanted(view: &View, callout: &PerfCallout, width: usize) -> usize {
    let items = callout.listings.len() + usize::from(callout.more.is_some());
    (0..items).map(|k| item_lines(view, callout, k, false, width.saturating_sub(2)).len()).sum::<usize>() + 2
}

/// The lines of a callout item: a listing (its link label, then its body) or `And … more`.
fn item_lines(view: &View, callout: &PerfCallout, k: usize, selected: bool, width: usize) -> Vec<Line<'static>> {
    let theme = view.theme;
    let marker = Span::raw(if selected { SELECTION_SYMBOL } else { "  " });
    let label_style = if selected { theme.selected.patch(theme.bold) } else { theme.bold };
    match callout.listings.get(k) {
        Some(listing) => {
            let mut lines = vec![Line::from(vec![marker, Span::styled(listing.label.clone(), label_style)])];
            lines.extend(wrap_lines(callout_lines(&listing.body, theme, "    "), width));
            lines
        }
        None => {
            let more = callout.more.clone().unwrap_or_default();
            wrap_line(
                Line::from(vec![marker, Span::styled(more, if selected { label_style } else { theme.text })]),
                width,
            )
        }
    }
}

/// The callout, drawn over its windowed items (each listing several lines tall).
struct Callout<'a> {
    view: &'a View<'a>,
    tab: &'a PerfTab,
    callout: &'a PerfCallout,
}

impl StatefulWidget for Callout<'_> {
    type State = WindowedRows;

    fn render(self, area: Rect, buf: &mut Buffer, items: &mut WindowedRows) {
        let (view, tab, callout, theme) = (self.view, self.tab, self.callout, self.view.theme);
        let title = &callout.title;
        if tab.callout_folded {
            let line = Line::from(vec![
                Span::styled(format!("▸ ✖ {title}"), theme.danger.patch(theme.bold)),
                Span::styled(format!("  ({}: show, {}: choose)", key(ToggleCallout), key(NextFailure)), theme.dim),
            ]);
            Paragraph::new(truncate_line(line, area.width as usize)).render(area, buf);
            return;
        }
        let focused = tab.focus == Focus::Callout;
        let block = Block::new()
            .borders(Borders::ALL)
            .border_style(if focused { theme.danger.patch(theme.bold) } else { theme.danger })
            .title(Span::styled(
                truncate(&format!(" ✖ {title} "), area.width.saturating_sub(2) as usize),
                theme.danger.patch(theme.bold),
            ))
            .title_bottom(Line::styled(
                format!(
                    " {} choose · {} · {} fold ",
                    key(NextFailure),
                    hint_text(Pane::Performance, Activate),
                    key(ToggleCallout)
                ),
                theme.dim,
            ));
        let inner = block.inner(area);
        block.render(area, buf);
        let width = inner.width as usize;
        items.fit(inner.height as usize, |k| item_lines(view, callout, k, false, width).len());
        let mut lines = Vec::new();
        for k in items.offset()..items.len() {
            if lines.len() >= inner.height as usize {
                break;
            }
            lines.extend(item_lines(view, callout, k, focused && items.selected() == Some(k), width));
        }
        Paragraph::new(lines).render(inner, buf);
    }
}
