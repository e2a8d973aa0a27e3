//! The Performance tab: the allocation-failure callout above the table (behaviour.md §10), the
//! table of the active view (only the visible rows are built) and a footer explaining the
//! selected row's flags (§11).

use super::theme::{SELECTION_SYMBOL, Theme};
use crate::analysis::flags::{Flag, FlagKind};
use crate::app::App;
use crate::app::content::{callout_lines, wrap_line};
use crate::app::perf::{NO_PERF_REPORT, PerfTab, micros};
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Margin, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{
    Block, Borders, Cell, HighlightSpacing, Paragraph, Row, Scrollbar, ScrollbarOrientation, ScrollbarState, Table,
    TableState,
};

/// Terminals narrower than this show only ID, OP Code, Device Time and Flags.
pub const ALL_COLUMNS_WIDTH: u16 = 100;

/// The glyph before a flag, so danger and warning survive without colour.
pub fn flag_glyph(kind: FlagKind) -> &'static str {
    if kind == FlagKind::OpFailed { "✖ " } else { "! " }
}

/// The status-bar texts of the tab: position, filters, address base and the link state.
pub fn status_texts(perf: &PerfTab, hex: bool) -> Vec<String> {
    let shown = perf.table.shown.len();
    let position = if shown == 0 { 0 } else { perf.table.selected + 1 };
    let mut parts = vec![format!("row {position}/{shown}")];
    if perf.flagged_only {
        parts.push("flagged only".to_string());
    }
    if perf.per_device {
        parts.push("per device".to_string());
    }
    if hex {
        parts.push("hex".to_string());
    }
    parts.push(perf.state().text().to_string());
    parts
}

/// The counter of the table's title.
pub fn counter(perf: &PerfTab) -> String {
    if perf.flagged_only {
        format!("Showing {} of {} rows", perf.table.shown.len(), perf.rows.len())
    } else {
        format!("Showing {} rows", perf.table.shown.len())
    }
}

/// Draws the tab.
pub fn draw(frame: &mut Frame, app: &mut App, area: Rect) {
    let theme = app.theme;
    let Some(perf) = app.perf.as_ref() else {
        frame.render_widget(Paragraph::new(NO_PERF_REPORT).style(theme.dim), area.inner(Margin::new(1, 1)));
        return;
    };
    let (title, callout, starts) = callout_text(perf, app.hex, &theme, area.width.saturating_sub(2) as usize);
    let footer = wrap_lines(footer_lines(app, perf), area.width as usize);
    let body = area.height as usize;
    let footer_height = (footer.len() + 1).min((body / 4).max(2));
    // The table keeps room for its rows (up to a third of the body); the callout takes the rest.
    let table_min = (perf.table.shown.len() + 3).min((body / 3).max(5));
    let callout_room = body.saturating_sub(footer_height + table_min).max(4);
    let callout_height = if callout.is_empty() { 0 } else { (callout.len() + 2).min(callout_room) };
    let [callout_area, table_area, footer_area] = Layout::vertical([
        Constraint::Length(callout_height as u16),
        Constraint::Fill(1),
        Constraint::Length(footer_height as u16),
    ])
    .areas(area);
    let perf = app.perf.as_mut().expect("checked above");
    // The table's inner height less its header row.
    perf.table.height = (table_area.height as usize).saturating_sub(3);
    perf.select(perf.table.selected);
    if callout_height > 0 {
        let visible = callout_height - 2;
        // The last listing takes the closing `And … more` line with it.
        let last = perf.listing + 1 >= perf.listed();
        let start = starts[perf.listing];
        let end = if last { callout.len() } else { starts[perf.listing + 1] };
        if start < perf.callout_scroll {
            perf.callout_scroll = start;
        } else if end > perf.callout_scroll + visible {
            perf.callout_scroll = start.min(end - visible);
        }
        perf.callout_scroll = perf.callout_scroll.min(callout.len().saturating_sub(visible));
    }
    let perf = app.perf.as_ref().expect("checked above");
    if callout_height > 0 {
        draw_callout(frame, perf.callout_scroll, &theme, &title, callout, callout_area);
    }
    draw_table(frame, perf, &theme, table_area);
    let block = Block::new().borders(Borders::TOP).border_style(theme.dim);
    frame.render_widget(Paragraph::new(footer).block(block), footer_area);
}

/// Lines wrapped to `width` columns, continuations keeping their indent.
fn wrap_lines(lines: Vec<Line<'static>>, width: usize) -> Vec<Line<'static>> {
    lines.into_iter().flat_map(|line| wrap_line(line, width)).collect()
}

/// The callout's title, its lines wrapped to `width`, and the line where each listing starts.
fn callout_text(perf: &PerfTab, hex: bool, theme: &Theme, width: usize) -> (String, Vec<Line<'static>>, Vec<usize>) {
    let Some(callout) = perf.callout(hex) else { return (String::new(), Vec::new(), Vec::new()) };
    let mut lines = Vec::new();
    let mut starts = Vec::new();
    for (k, listing) in callout.listings.iter().enumerate() {
        starts.push(lines.len());
        let selected = k == perf.listing;
        let label = Line::from(vec![
            Span::raw(if selected { SELECTION_SYMBOL } else { "  " }),
            Span::styled(listing.label.clone(), if selected { theme.selected.patch(theme.bold) } else { theme.bold }),
        ]);
        lines.push(label);
        lines.extend(wrap_lines(callout_lines(&listing.body, theme, "    "), width));
    }
    if let Some(more) = callout.more {
        starts.push(lines.len());
        lines.extend(wrap_line(Line::from(format!("  {more}")), width));
    }
    (callout.title, lines, starts)
}

/// Draws the callout from line `scroll` on (the draw keeps the selected listing in view).
fn draw_callout(frame: &mut Frame, scroll: usize, theme: &Theme, title: &str, lines: Vec<Line<'static>>, area: Rect) {
    let block = Block::new()
        .borders(Borders::ALL)
        .border_style(theme.danger)
        .title(Span::styled(format!(" ✖ {title} "), theme.danger.patch(theme.bold)))
        .title_bottom(Line::styled(" [/] choose · Enter go to operation ", theme.dim));
    let visible: Vec<Line> = lines.into_iter().skip(scroll).collect();
    frame.render_widget(Paragraph::new(visible).block(block), area);
}

/// Draws the table: header and the visible rows only.
fn draw_table(frame: &mut Frame, perf: &PerfTab, theme: &Theme, area: Rect) {
    let name = perf.linked.perf.path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let mut title = vec![Span::styled(format!(" {name} "), theme.bold)];
    if perf.has_per_device_view() {
        let view = if perf.per_device { "per device" } else { "devices merged" };
        title.push(Span::styled(format!("· {view} "), theme.dim));
    }
    title.push(Span::styled(format!("· {} ", counter(perf)), theme.dim));
    let block = Block::new().borders(Borders::ALL).title(Line::from(title));
    if perf.table.shown.is_empty() {
        let text = if perf.rows.is_empty() { "This performance report has no device rows" } else { "No flagged row" };
        frame.render_widget(Paragraph::new(Line::styled(text, theme.dim)).block(block), area);
        return;
    }
    let all = area.width >= ALL_COLUMNS_WIDTH;
    let headers: &[&str] = if all {
        &["ID", "OP Code", "Device", "Device Time", "Op-to-Op Gap", "Cores", "Math Fidelity", "Flags"]
    } else {
        &["ID", "OP Code", "Device Time", "Flags"]
    };
    let widths: &[Constraint] = if all {
        &[
            Constraint::Length(6),
            Constraint::Fill(3),
            Constraint::Length(6),
            Constraint::Length(13),
            Constraint::Length(13),
            Constraint::Length(5),
            Constraint::Length(13),
            Constraint::Fill(2),
        ]
    } else {
        &[Constraint::Length(6), Constraint::Fill(3), Constraint::Length(13), Constraint::Fill(2)]
    };
    let numeric = |h: &str| matches!(h, "ID" | "Device" | "Device Time" | "Op-to-Op Gap" | "Cores");
    let header = Row::new(headers.iter().map(|&h| {
        let line = Line::from(h);
        Cell::from(if numeric(h) { line.right_aligned() } else { line })
    }))
    .style(theme.bold);
    let window = &perf.table.shown[perf.table.offset.min(perf.table.shown.len())..];
    let rows = window.iter().take(perf.table.height.max(1)).map(|&r| table_row(perf, r, theme, all));
    let table = Table::new(rows, widths.to_vec())
        .header(header)
        .block(block)
        .row_highlight_style(theme.selected)
        .highlight_symbol(SELECTION_SYMBOL)
        .highlight_spacing(HighlightSpacing::Always);
    let mut state = TableState::default().with_selected(Some(perf.table.selected - perf.table.offset));
    frame.render_stateful_widget(table, area, &mut state);
    if perf.table.shown.len() > perf.table.height {
        let mut state = ScrollbarState::new(perf.table.shown.len()).position(perf.table.selected);
        frame.render_stateful_widget(
            Scrollbar::new(ScrollbarOrientation::VerticalRight),
            area.inner(Margin::new(0, 1)),
            &mut state,
        );
    }
}

/// One row of the table.
fn table_row(perf: &PerfTab, index: usize, theme: &Theme, all: bool) -> Row<'static> {
    let row = &perf.rows[index];
    let number = |text: String| Cell::from(Line::from(text).right_aligned());
    let flags = flags_line(&perf.flags[index], theme);
    let cells = if all {
        vec![
            number(row.id.to_string()),
            Cell::from(row.op_code.to_string()),
            number(row.device.map(|d| d.to_string()).unwrap_or_default()),
            number(micros(row.device_time_us)),
            number(micros(row.op_to_op_gap_us)),
            number(row.cores.map(|c| c.to_string()).unwrap_or_default()),
            Cell::from(row.math_fidelity.to_string()),
            Cell::from(flags),
        ]
    } else {
        vec![
            number(row.id.to_string()),
            Cell::from(row.op_code.to_string()),
            number(micros(row.device_time_us)),
            Cell::from(flags),
        ]
    };
    Row::new(cells)
}

/// The Flags cell: short labels after their glyph, danger or warning style.
pub fn flags_line(flags: &[Flag], theme: &Theme) -> Line<'static> {
    let mut spans = Vec::new();
    for (k, flag) in flags.iter().enumerate() {
        if k > 0 {
            spans.push(Span::raw(", "));
        }
        let style = if flag.kind.is_danger() { theme.danger.patch(theme.bold) } else { theme.warning };
        spans.push(Span::styled(format!("{}{}", flag_glyph(flag.kind), flag.kind.short_label()), style));
    }
    Line::from(spans)
}

/// The footer: the selected row, its operation, and each flag's label, description and detail.
fn footer_lines(app: &App, perf: &PerfTab) -> Vec<Line<'static>> {
    let theme = &app.theme;
    let Some(index) = perf.selected_row() else { return Vec::new() };
    let row = &perf.rows[index];
    let mut head = vec![Span::styled(format!("Row {} {}", row.id, row.op_code), theme.bold)];
    if let Some(id) = perf.operation_of(index) {
        let position = app.operations.partition_point(|o| o.id < id);
        let name = app.operations.get(position).filter(|o| o.id == id).map_or("", |o| o.name.as_str());
        head.push(Span::styled(format!(" · operation {id} {name}"), theme.dim));
    }
    let flags = &perf.flags[index];
    if flags.is_empty() {
        head.push(Span::styled(" · no flags", theme.dim));
    }
    let mut lines = vec![Line::from(head)];
    for flag in flags {
        let style =
            if flag.kind.is_danger() { theme.danger.patch(theme.bold) } else { theme.warning.patch(theme.bold) };
        lines.push(Line::from(vec![
            Span::styled(format!("{}{}", flag_glyph(flag.kind), flag.kind.label()), style),
            Span::raw(format!(" — {}", flag.kind.description())),
        ]));
        if let Some(detail) = &flag.detail {
            lines.push(Line::from(format!("  {detail}")));
        }
    }
    lines
}
