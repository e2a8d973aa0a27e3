//! The Memory tab's holders table: one row per live buffer, only the visible rows built; the text
//! columns sized by what the visible rows hold, cut with `…` when they do not all fit.

use super::memory_map::tensor_fill;
use super::theme::SELECTION_SYMBOL;
use super::view::View;
use super::wrap::truncate;
use crate::analysis::format::{bare_shape, format_address, size};
use crate::analysis::memory::LiveBuffer;
use crate::app::WindowedRows;
use ratatui::Frame;
use ratatui::layout::{Constraint, Margin, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{
    Block, Borders, Cell, HighlightSpacing, Paragraph, Row, Scrollbar, ScrollbarOrientation, ScrollbarState, Table,
    TableState,
};
use unicode_width::UnicodeWidthStr;

/// The columns' headings, in order.
const HEADINGS: [&str; 7] = ["Address", "Size/bank", "Tensor", "Shape", "Produced by", "Last used", "Flags"];

/// The text columns (Shape, Produced by, Flags), cut to share the room the others leave; the
/// others (addresses and figures) are never cut.
const TEXT: [usize; 3] = [3, 4, 6];

/// The narrowest a text column is cut to while another is wider.
const MIN_TEXT: usize = 5;

/// Below this room for the three text columns, the Shape column is left out (producer and flags
/// say more in few columns).
const ROOM_FOR_SHAPE: usize = 24;

/// The cells of one holder as text, in column order; the address after two spaces, the first of
/// them replaced by its tensor's fill mark when drawn.
fn cells(b: &LiveBuffer, hex: bool) -> [String; 7] {
    let produced = match (b.producer_operation_id, &b.producer_operation_name) {
        (Some(id), Some(name)) => format!("{id} {name}"),
        (Some(id), None) => id.to_string(),
        _ if b.tensor_id.is_some() => "not recorded".to_string(),
        _ => String::new(),
    };
    let mut flags = Vec::new();
    if b.input_of_operation {
        flags.push("input".to_string());
    }
    if b.stale {
        flags.push("stale".to_string());
    }
    if b.is_this_operation() {
        flags.push(b.device_operation.as_ref().map_or_else(|| "this op".to_string(), |d| format!("this op ({d})")));
    }
    [
        format!("  {}", format_address(Some(b.address), hex)),
        size(b.size_per_bank),
        b.tensor_id.map_or_else(String::new, |t| t.to_string()),
        b.shape.as_deref().map_or_else(String::new, |s| bare_shape(s).to_string()),
        produced,
        b.last_use_operation_id.map_or_else(String::new, |k| k.to_string()),
        flags.join(", "),
    ]
}

/// The Flags cell without the device operation's name (`this op (SoftmaxDeviceOperation)` →
/// `this op`): what the column shows when the name does not fit.
fn short_flags(flags: &str) -> &str {
    const THIS_OP: &str = "this op";
    match flags.find("this op (") {
        Some(at) => &flags[..at + THIS_OP.len()],
        None => flags,
    }
}

/// The Flags cell in `width` columns: whole, else without the device operation's name, else cut.
fn flags_cell(flags: &str, width: usize) -> String {
    if flags.width() <= width { flags.to_string() } else { truncate(short_flags(flags), width) }
}

/// The column widths for these rows within `width` columns (inside the borders, after the
/// highlight symbol): each column as wide as its widest cell or heading; when that does not fit,
/// Flags gives up the device operation's names first (see [`short_flags`]), then the text
/// columns share what is left (see [`share`]); below `ROOM_FOR_SHAPE` Shape gets 0 (left out).
fn column_widths(rows: &[[String; 7]], width: usize) -> [usize; 7] {
    let mut widths: [usize; 7] =
        std::array::from_fn(|i| rows.iter().map(|r| r[i].width()).chain([HEADINGS[i].width()]).max().unwrap_or(0));
    let fixed: usize = (0..7).filter(|i| !TEXT.contains(i)).map(|i| widths[i]).sum();
    let room = width.saturating_sub(fixed + 6);
    let [shape, produced, _] = TEXT.map(|i| widths[i]);
    // Flags needs only its short form: whatever is left over goes to it (the last column).
    let flags = rows.iter().map(|r| short_flags(&r[6]).width()).chain([HEADINGS[6].width()]).max().unwrap_or(0);
    let text = if room >= ROOM_FOR_SHAPE {
        share([shape, produced, flags], room)
    } else {
        // One spacing fewer without the Shape column.
        let [produced, flags] = share([produced, flags], room + 1);
        [0, produced, flags]
    };
    for (&i, w) in TEXT.iter().zip(text) {
        widths[i] = w;
    }
    widths
}

/// Widths for columns that need `needs` within `room`: each gets its need if all fit; otherwise the
/// widest are cut to one common width (never below `MIN_TEXT` or their need), so that short
/// columns stay whole. What is left over goes to the last column.
fn share<const N: usize>(needs: [usize; N], room: usize) -> [usize; N] {
    let total: usize = needs.iter().sum();
    if total <= room {
        let mut widths = needs;
        widths[N - 1] += room - total;
        return widths;
    }
    let cut = |cap: usize| needs.map(|n| n.min(cap.max(MIN_TEXT)));
    // The largest common cap that fits (a cap of 0 still leaves each column its minimum).
    let cap = (0..=needs.iter().copied().max().unwrap_or(0))
        .rev()
        .find(|&cap| cut(cap).iter().sum::<usize>() <= room)
        .unwrap_or(0);
    cut(cap)
}

/// One holder as a table row: its cells cut to `widths`, figures right-aligned, the columns of
/// width 0 left out.
fn holder_row(cells: [String; 7], widths: [usize; 7], fill: Span<'static>) -> Row<'static> {
    let row = cells.into_iter().zip(widths).enumerate().filter(|&(_, (_, w))| w > 0).map(|(i, (text, w))| match i {
        // The address's first space stands for the fill mark.
        0 => Cell::from(Line::from(vec![fill.clone(), Span::raw(text[1..].to_string())])),
        1 | 2 | 5 => Cell::from(Line::from(text).right_aligned()),
        6 => Cell::from(flags_cell(&text, w)),
        _ => Cell::from(truncate(&text, w)),
    });
    Row::new(row.collect::<Vec<_>>())
}

/// The holders table, biggest first or by address.
pub(crate) fn draw_holders(
    frame: &mut Frame,
    area: Rect,
    view: &View,
    holders: &[&LiveBuffer],
    by_address: bool,
    rows: &mut WindowedRows,
) {
    let theme = view.theme;
    let order = if by_address { "by address" } else { "biggest first" };
    let title = format!(" Holders · {} live buffers · {order} ", holders.len());
    let block = Block::new().borders(Borders::ALL).title(Span::styled(title, theme.bold));
    rows.fit((area.height as usize).saturating_sub(3), |_| 1);
    if holders.is_empty() {
        frame.render_widget(Paragraph::new(Line::styled("No live buffer", theme.dim)).block(block), area);
        return;
    }
    let shown = &holders[rows.visible()];
    let texts: Vec<[String; 7]> = shown.iter().map(|b| cells(b, view.hex)).collect();
    let widths = column_widths(&texts, (area.width as usize).saturating_sub(2 + SELECTION_SYMBOL.width()));
    let kept = |&(_, &w): &(usize, &usize)| w > 0;
    let header =
        Row::new(HEADINGS.iter().zip(&widths).filter(|&(_, &w)| w > 0).map(|(h, _)| Cell::from(*h))).style(theme.bold);
    let constraints = widths.iter().enumerate().filter(kept).map(|(_, &w)| Constraint::Length(w as u16));
    let table_rows = shown.iter().zip(texts).map(|(b, t)| {
        let (fill, style) = tensor_fill(b.tensor_id, theme);
        holder_row(t, widths, Span::styled(fill.to_string(), style))
    });
    let table = Table::new(table_rows, constraints)
        .header(header)
        .block(block)
        .row_highlight_style(theme.selected)
        .highlight_symbol(SELECTION_SYMBOL)
        .highlight_spacing(HighlightSpacing::Always);
    let selected = rows.selected().map(|s| s - rows.offset());
    frame.render_stateful_widget(table, area, &mut TableState::default().with_selected(selected));
    if holders.len() > rows.height() {
        let mut state = ScrollbarState::new(holders.len()).position(rows.selected().unwrap_or(0));
        let bar = Scrollbar::new(ScrollbarOrientation::VerticalRight);
        frame.render_stateful_widget(bar, area.inner(Margin::new(0, 1)), &mut state);
    }
}

#[cfg(test)]
mod tests {
    use super::share;

    #[test]
    fn flags_give_up_the_device_operation_before_shape_and_producer_are_cut() {
        use super::{column_widths, flags_cell};
        let row = |shape: &str, produced: &str, flags: &str| {
            ["  600256", "10 KiB", "2023", shape, produced, "27", flags].map(str::to_string)
        };
        let rows =
            [row("[1, 8, 197, 197]", "27 ttnn.matmul", "input"), row("", "", "this op (SoftmaxDeviceOperation)")];
        // 76 columns: Shape and Produced by whole; Flags gets the rest, its long cell shortened.
        let widths = column_widths(&rows, 76);
        assert_eq!((widths[3], widths[4]), (16, 14));
        assert_eq!(widths.iter().sum::<usize>() + 6, 76);
        assert_eq!(flags_cell(&rows[1][6], widths[6]), "this op");
        assert_eq!(flags_cell(&rows[1][6], 40), "this op (SoftmaxDeviceOperation)");
        assert_eq!(flags_cell("input, this op (SoftmaxDeviceOperation)", 12), "input, this…");
    }

    #[test]
    fn all_fit_and_the_rest_goes_to_the_last_column() {
        assert_eq!(share([10, 20, 5], 50), [10, 20, 20]);
    }

    #[test]
    fn the_widest_are_cut_to_one_width_and_short_ones_stay_whole() {
        // 10 + 30 + 30 = 70 in 40: Shape keeps 10, the other two get 15 each.
        assert_eq!(share([10, 30, 30], 40), [10, 15, 15]);
        assert_eq!(share([10, 30, 12], 40), [10, 18, 12]);
    }

    #[test]
    fn no_column_goes_below_the_minimum() {
        assert_eq!(share([20, 20, 20], 6), [5, 5, 5]);
        assert_eq!(share([3, 20, 20], 6), [3, 5, 5]);
        assert_eq!(share([20, 20], 14), [7, 7]);
    }
}
