//! The Performance tab's table (only the visible rows are built; text cut with `…` to widths
//! fitted to what the visible rows hold) and its footer explaining the selected row's flags.

use super::theme::{SELECTION_SYMBOL, Theme};
use super::view::View;
use super::wrap::truncate;
use crate::analysis::perf::flags::{Flag, FlagKind};
use crate::app::bindings::key_label;
use crate::app::{Action, Pane};
use crate::app::{Focus, PerfTab, micros};
use ratatui::Frame;
use ratatui::layout::{Constraint, Margin, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{
    Block, Borders, Cell, HighlightSpacing, Paragraph, Row, Scrollbar, ScrollbarOrientation, ScrollbarState, Table,
    TableState,
};

/// Terminals narrower than this show only ID, OP Code, Device Time and Flags.
pub(crate) const ALL_COLUMNS_WIDTH: u16 = 100;

/// The glyph before a flag, so danger and warning survive without colour.
pub(crate) fn flag_glyph(kind: FlagKind) -> &'static str {
    if kind == FlagKind::OpFailed { "✖ " } else { "! " }
}

/// The counter of the table's title.
pub(crate) fn counter(tab: &PerfTab) -> String {
    if tab.flagged_only {
        format!("Showing {} of {} rows", tab.shown.len(), tab.rows().len())
    } else {
        format!("Showing {} rows", tab.shown.len())
    }
}

/// The Flags cell: short labels after their glyph, danger or warning style.
pub(crate) fn flags_line(flags: &[Flag], theme: &Theme) -> Line<'static> {
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

/// The columns: header, and fixed width (none: takes what is left).
const ALL: [(&str, Option<u16>); 8] = [
    ("ID", Some(6)),
    ("OP Code", None),
    ("Device", Some(6)),
    ("Device Time", Some(13)),
    ("Op-to-Op Gap", Some(13)),
    ("Cores", Some(5)),
    ("Math Fidelity", Some(13)),
    ("Flags", Some(0)),
];
const NARROW: [(&str, Option<u16>); 4] =
    [("ID", Some(6)), ("OP Code", None), ("Device Time", Some(13)), ("Flags", Some(0))];

/// Draws the table: header and the visible rows only.
pub(crate) fn draw_table(frame: &mut Frame, area: Rect, view: &View, tab: &mut PerfTab) {
    let theme = view.theme;
    let block = Block::new().borders(Borders::ALL).title(title_line(tab, theme));
    // The inner height less the header row.
    tab.table.fit((area.height as usize).saturating_sub(3), |_| 1);
    if tab.shown.is_empty() {
        let text = if tab.rows().is_empty() { "This performance report has no device rows" } else { "No flagged row" };
        frame.render_widget(Paragraph::new(Line::styled(text, theme.dim)).block(block), area);
        return;
    }
    let columns: &[(&str, Option<u16>)] = if area.width >= ALL_COLUMNS_WIDTH { &ALL } else { &NARROW };
    let window = &tab.shown[tab.table.visible()];
    let (widths, op_code_width) = column_widths(tab, window, columns, area.width, theme);
    let header = Row::new(columns.iter().map(|&(h, _)| {
        let line = Line::from(h);
        Cell::from(if is_figure(h) { line.right_aligned() } else { line })
    }))
    .style(theme.bold);
    let rows = window.iter().map(|&r| table_row(tab, r, theme, columns, op_code_width as usize));
    let focused = tab.focus == Focus::Table;
    let table = Table::new(rows, widths)
        .header(header)
        .block(block)
        .row_highlight_style(if focused { theme.selected } else { theme.text })
        .highlight_symbol(if focused { SELECTION_SYMBOL } else { "  " })
        .highlight_spacing(HighlightSpacing::Always);
    let selected = tab.table.selected().map(|s| s - tab.table.offset());
    frame.render_stateful_widget(table, area, &mut TableState::default().with_selected(selected));
    if tab.shown.len() > tab.table.height() {
        let mut state = ScrollbarState::new(tab.shown.len()).position(tab.table.selected().unwrap_or(0));
        frame.render_stateful_widget(
            Scrollbar::new(ScrollbarOrientation::VerticalRight),
            area.inner(Margin::new(0, 1)),
            &mut state,
        );
    }
}

/// The table's title: the file name, whether devices are shown apart or merged, the counter.
fn title_line(tab: &PerfTab, theme: &Theme) -> Line<'static> {
    let mut title = vec![Span::styled(format!(" {} ", tab.input.file_name), theme.bold)];
    if tab.input.per_device.is_some() {
        let shown = if tab.per_device { "per device" } else { "devices merged" };
        title.push(Span::styled(format!("· {shown} "), theme.dim));
    }
    title.push(Span::styled(format!("· {} ", counter(tab)), theme.dim));
    Line::from(title)
}

/// The columns' widths for the visible rows `window`, and OP Code's: Flags and figures as wide as
/// those rows need (a figure is never cut); OP Code takes the rest of `area_width`.
fn column_widths(
    tab: &PerfTab,
    window: &[usize],
    columns: &[(&str, Option<u16>)],
    area_width: u16,
    theme: &Theme,
) -> (Vec<Constraint>, u16) {
    let flags_width = window.iter().map(|&r| flags_line(&tab.flags[r], theme).width()).max().unwrap_or(0).max(5) as u16;
    let fitted: Vec<u16> = columns
        .iter()
        .map(|&(h, w)| match (h, w) {
            ("Flags", _) => flags_width,
            (_, Some(w)) if is_figure(h) => {
                let widest = window.iter().map(|&r| figure(tab, r, h).chars().count()).max().unwrap_or(0);
                w.max(widest as u16)
            }
            (_, w) => w.unwrap_or(0),
        })
        .collect();
    let spacing = columns.len() as u16 - 1;
    let op_code_width = area_width.saturating_sub(2 + 2 + spacing + fitted.iter().sum::<u16>()).max(7);
    let widths = columns
        .iter()
        .zip(&fitted)
        .map(|(&(_, w), &fitted)| Constraint::Length(if w.is_some() { fitted } else { op_code_width }))
        .collect();
    (widths, op_code_width)
}

/// True for the columns holding figures, right-aligned and never cut.
fn is_figure(header: &str) -> bool {
    matches!(header, "ID" | "Device" | "Device Time" | "Op-to-Op Gap" | "Cores")
}

/// The text of a figure column's cell.
fn figure(tab: &PerfTab, index: usize, header: &str) -> String {
    let row = &tab.rows()[index];
    match header {
        "ID" => row.id.to_string(),
        "Device" => row.device.map(|d| d.to_string()).unwrap_or_default(),
        "Device Time" => micros(row.device_time_us),
        "Op-to-Op Gap" => micros(row.op_to_op_gap_us),
        "Cores" => row.cores.map(|c| c.to_string()).unwrap_or_default(),
        _ => String::new(),
    }
}

/// One row of the table.
fn table_row(
    tab: &PerfTab,
    index: usize,
    theme: &Theme,
    columns: &[(&str, Option<u16>)],
    op_width: usize,
) -> Row<'static> {
    let row = &tab.rows()[index];
    Row::new(columns.iter().map(|&(h, _)| match h {
        _ if is_figure(h) => Cell::from(Line::from(figure(tab, index, h)).right_aligned()),
        "OP Code" => Cell::from(truncate(&row.op_code, op_width)),
        "Math Fidelity" => Cell::from(truncate(&row.math_fidelity, 13)),
        _ => Cell::from(flags_line(&tab.flags[index], theme)),
    }))
}

/// The footer: the selected row, its operation, and each flag's label, description and detail.
pub(crate) fn footer_lines(view: &View, tab: &PerfTab) -> Vec<Line<'static>> {
    let theme = view.theme;
    let Some(index) = tab.selected_row() else { return Vec::new() };
    let row = &tab.rows()[index];
    let mut head = vec![Span::styled(format!("ID {} {}", row.id, row.op_code), theme.bold)];
    if let Some(id) = tab.operation_of(index) {
        let name = view.model.operation_index(id).map_or("", |i| view.model.operations[i].name.as_ref());
        let key = key_label(Pane::Performance, Action::Activate);
        head.push(Span::styled(format!(" · operation {id} {name} ({key})"), theme.dim));
    }
    let flags = &tab.flags[index];
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
