//! The Operations tab: the unattached-errors callout, the list (only the visible rows are built)
//! and the detail pane beside it, or below it on narrow terminals.

use super::callout::{error_lines, note_line, unavailable_line};
use super::theme::SELECTION_SYMBOL;
use super::view::View;
use super::wrap::{truncate, truncate_line, wrap_lines};
use super::{compare, detail, unattached};
use crate::analysis::beside::NOT_RECORDED;
use crate::analysis::format::counted;
use crate::analysis::model::ERRORS_NOT_RECORDED;
use crate::app::{Comparison, FixList, ListWidth, OperationsTab, WindowedRows};
use ratatui::Frame;
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Margin, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{
    Block, Borders, Paragraph, Scrollbar, ScrollbarOrientation, ScrollbarState, StatefulWidget, Widget,
};
use std::collections::HashSet;
use unicode_width::UnicodeWidthStr;

/// Terminals at least this wide show the detail pane beside the list.
pub(crate) const SIDE_BY_SIDE_WIDTH: u16 = 110;

/// Columns before a row's label: the selection symbol and the error marker.
const LABEL_START: usize = 10;

/// Draws the tab (compared with an earlier run when `compare` is given).
pub(crate) fn draw(
    frame: &mut Frame,
    area: Rect,
    (view, compare): (&View, Option<&Comparison>),
    (tab, fixes): (&mut OperationsTab, &FixList),
) {
    let banner = compare.map(|c| compare::banner_lines(view, c, area.width as usize)).unwrap_or_default();
    let [banner_area, area] =
        Layout::vertical([Constraint::Length(banner.len() as u16), Constraint::Fill(1)]).areas(area);
    frame.render_widget(Paragraph::new(banner), banner_area);
    let callout_height = unattached::height(view, tab.unattached_folded, area);
    let [callout_area, rest] = Layout::vertical([Constraint::Length(callout_height), Constraint::Fill(1)]).areas(area);
    if callout_height > 0 {
        unattached::draw(frame, callout_area, view, tab.unattached_folded, &mut tab.unattached_scroll);
    }
    let [list_area, detail_area] = if rest.width >= SIDE_BY_SIDE_WIDTH {
        // At most 45% of the width, and no wider than its widest row or title (issue 30 §4.7),
        // unless an item is expanded: its callout then takes the room.
        let most = rest.width as usize * 45 / 100;
        let list = if tab.expanded.is_empty() { most.min(content_width(view, tab, compare.is_some())) } else { most };
        Layout::horizontal([Constraint::Length(list as u16), Constraint::Fill(1)]).areas(rest)
    } else {
        Layout::vertical([Constraint::Percentage(55), Constraint::Fill(1)]).areas(rest)
    };
    let OperationsTab { shown, rows, errors_only, search, expanded, .. } = tab;
    let list = OperationsList { view, shown, errors_only: *errors_only, matches: &search.matches, expanded, compare };
    frame.render_stateful_widget(list, list_area, rows);
    detail::draw(frame, detail_area, view, (tab.selected_operation(), fixes), &mut tab.detail_scroll);
}

/// The columns the list needs at most: its widest row (the marker, the widest id, name and place
/// read so far, at least a place's usual width), or its title, with borders and scrollbar.
fn content_width(view: &View, tab: &mut OperationsTab, compared: bool) -> usize {
    let model = view.model;
    let measured = (model.operations.len(), model.stack_traces.len());
    let widest = match tab.widest {
        Some(w) if w.measured == measured => w,
        Some(w) if w.measured.0 == measured.0 => {
            let place = model.stack_traces.keys().filter_map(|&i| model.source_label(i)).map(|p| p.width() + 3).max();
            ListWidth { measured, place: place.unwrap_or(0), ..w }
        }
        _ => {
            let name = model.operations.iter().map(|o| o.name.width()).max().unwrap_or(0);
            let unrecorded = model.operations.iter().any(|o| !o.recorded);
            let place = model.stack_traces.keys().filter_map(|&i| model.source_label(i)).map(|p| p.width() + 3).max();
            ListWidth { measured, name, unrecorded, place: place.unwrap_or(0) }
        }
    };
    tab.widest = Some(widest);
    let id = model.operations.last().map_or(1, |o| o.id.to_string().len());
    // A place not read yet is usually `(model.py:123)`; an unrecorded operation says so.
    let place = widest.place.max(16) + if widest.unrecorded { NOT_RECORDED.width() + 1 } else { 0 };
    let marker = if compared { compare::MARKER_WIDTH } else { 8 };
    let row = LABEL_START - 8 + marker + id + 1 + widest.name + place;
    // Either title, so that the filter does not move the split.
    let total = model.operations.len();
    let title = [false, true].map(|only| list_title(view, total, only).width()).into_iter().max().unwrap_or(0);
    let title = title + " Operations · ".len() + 1;
    row.max(title) + 3
}

/// The title of the list: how many operations and how many with an error, or the reference's
/// counter while the filter is on (docs/rules/reference.md §7.4).
pub(crate) fn list_title(view: &View, shown: usize, errors_only: bool) -> String {
    let total = view.model.operations.len();
    if errors_only {
        return format!("Showing {shown} of {total} operations");
    }
    let operations = counted(total, "operation", "operations");
    if !view.model.errors_recorded {
        // `0 with errors` would read as if the run had none.
        return format!("{operations} · errors not recorded");
    }
    let with_errors = match view.model.error_operations().len() {
        1 => "1 with an error".to_string(),
        n => format!("{n} with errors"),
    };
    format!("{operations} · {with_errors}")
}

/// The label of a list row, `{id} {name} ({file}:{line})` (docs/rules/reference.md §1.5), fitted to `width`
/// columns: the id right-aligned to the widest id of the report, so names start in one column;
/// the name is cut with `…` before the place is.
pub(crate) fn list_label(view: &View, operation: usize, width: usize) -> String {
    let op = &view.model.operations[operation];
    let mut place = view.model.source_label(operation).map(|p| format!(" ({p})")).unwrap_or_default();
    if !op.recorded {
        // Kept whole, as the place is: the name is cut first.
        place = format!(" {NOT_RECORDED}{place}");
    }
    // Operations are in id order: the last has the widest id.
    let id_width = view.model.operations.last().map_or(1, |o| o.id.to_string().len());
    let id = format!("{:>id_width$} ", op.id);
    let room = width.saturating_sub(id.width() + place.width());
    if room >= 8.min(op.name.width()) {
        format!("{id}{}{place}", truncate(&op.name, room))
    } else {
        truncate(&format!("{id}{}{place}", op.name), width)
    }
}

/// The lines an expanded list item shows below its row, wrapped to `width` (docs/rules/reference.md §7.2).
pub(crate) fn expansion_lines(view: &View, operation: usize, width: usize) -> Vec<Line<'static>> {
    const INDENT: &str = "    ";
    let model = view.model;
    let lines = match model.error_of(operation) {
        None if !model.errors_recorded => vec![Line::styled(format!("{INDENT}{ERRORS_NOT_RECORDED}"), view.theme.dim)],
        None => vec![Line::styled(format!("{INDENT}No error recorded for this operation"), view.theme.dim)],
        Some(error) => {
            let mut lines = error_lines(error, view.hex, model.failed_in(operation), view.theme, INDENT);
            // After the callout, before the raw message.
            let at = lines.iter().position(|l| l.to_string().trim() == "Error Message").unwrap_or(lines.len());
            if let Some(note) = note_line(model, operation, view.theme, INDENT) {
                lines.insert(at, note);
            }
            if let Some(line) = unavailable_line(model, operation, view.theme, INDENT) {
                lines.insert(at, line);
            }
            lines
        }
    };
    wrap_lines(lines, width)
}

/// The list of operations, drawn over its windowed rows.
struct OperationsList<'a> {
    view: &'a View<'a>,
    shown: &'a [usize],
    errors_only: bool,
    matches: &'a [usize],
    expanded: &'a HashSet<usize>,
    /// The earlier run the report is compared with (`--compare`).
    compare: Option<&'a Comparison>,
}

impl OperationsList<'_> {
    fn row_height(&self, position: usize, width: usize) -> usize {
        match self.shown.get(position) {
            Some(i) if self.expanded.contains(i) => 1 + expansion_lines(self.view, *i, width).len(),
            _ => 1,
        }
    }
}

impl StatefulWidget for OperationsList<'_> {
    type State = WindowedRows;

    fn render(self, area: Rect, buf: &mut Buffer, rows: &mut WindowedRows) {
        let theme = self.view.theme;
        let title = Line::from(vec![
            Span::styled(" Operations ", theme.bold),
            Span::styled(format!("· {} ", list_title(self.view, self.shown.len(), self.errors_only)), theme.dim),
        ]);

        let title = truncate_line(title, area.width.saturating_sub(2) as usize);
        let block = Block::new().borders(Borders::ALL).title(title);
        let inner = block.inner(area);
        block.render(area, buf);
        // Leave the last column to the scrollbar.
        let width = (inner.width as usize).saturating_sub(1);
        rows.fit(inner.height as usize, |p| self.row_height(p, width));
        if self.shown.is_empty() {
            let text = if self.errors_only { "No operation has an error" } else { "This report has no operations" };
            Paragraph::new(Line::styled(text, theme.dim)).render(inner, buf);
            return;
        }
        let height = inner.height as usize;
        let mut lines: Vec<Line> = Vec::with_capacity(height);
        let mut position = rows.offset();
        while lines.len() < height && position < self.shown.len() {
            let i = self.shown[position];
            let selected = Some(position) == rows.selected();
            let (mark, mark_style, marker_width) = match self.compare {
                Some(c) => {
                    let (mark, style) = compare::marker(self.view, c, i);
                    (mark, style, compare::MARKER_WIDTH)
                }
                None => (self.view.model.marker(i).unwrap_or("").to_string(), theme.danger.patch(theme.bold), 8),
            };
            let label_start = LABEL_START - 8 + marker_width;
            let label_style = if self.matches.binary_search(&position).is_ok() { theme.matched } else { theme.text };
            let mut line = Line::from(vec![
                Span::raw(if selected { SELECTION_SYMBOL } else { "  " }),
                Span::styled(format!("{mark:<marker_width$}"), mark_style),
                Span::styled(list_label(self.view, i, width.saturating_sub(label_start)), label_style),
            ]);
            if selected {
                line = line.style(theme.selected);
            }
            lines.push(line);
            if self.expanded.contains(&i) {
                lines.extend(expansion_lines(self.view, i, width));
            }
            position += 1;
        }
        lines.truncate(height);
        Paragraph::new(lines).render(inner, buf);
        if self.shown.len() > height {
            let mut state = ScrollbarState::new(self.shown.len()).position(rows.selected().unwrap_or(0));
            Scrollbar::new(ScrollbarOrientation::VerticalRight).render(area.inner(Margin::new(0, 1)), buf, &mut state);
        }
    }
}
