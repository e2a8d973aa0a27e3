//! Tab 5's per-core grid (`c`): L1 on every core of the device at the cursor's operation's true
//! peak (docs/true-peak.md "Per core"), in the device's core coordinates — x across, y down — each
//! core its share of the bank and a letter for what fills most of it (circular buffers, its own
//! buffers, live and used later, held past their last use); under it the busiest core named with
//! what fills it, and the legend. Cut to its area with a sign, never wrapped inside a cell; in too
//! small an area, one line.

use super::view::View;
use super::wrap::{truncate_line, wrap_lines};
use crate::analysis::format::size;
use crate::analysis::memory::named_device;
use crate::analysis::memory::peak::{Composition, CoreGrid, OperationPeak};
use crate::app::OverTimeTab;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

/// Columns of one core: its share (in %, `<1` for under 1 %) right-aligned in four, then its
/// letter.
const CELL: usize = 5;
/// Columns of the row labels.
const LABEL: usize = 3;
/// Columns the sign of cut columns takes (` … x 11–12 cut`).
const CUT_SIGN: usize = 16;
/// The legend of the letters.
const LEGEND: &str = "C circular buffers · O its own buffers · L live, used later · S held past its last use";

/// The columns the grid wants: the labels and every core.
pub(crate) fn grid_width(grid: &CoreGrid) -> usize {
    LABEL + CELL * grid.size.0 as usize
}

/// The lines the whole grid wants at `width`: title, header, one per row, and what follows.
pub(crate) fn grid_height(view: &View, peak: &OperationPeak, grid: &CoreGrid, width: usize) -> usize {
    let name = view.model.operation_index(peak.operation_id).map_or("", |i| view.model.operations[i].name.as_ref());
    let (busiest, legend) = footer(view, peak, grid, width);
    title(view, peak, name, width).len() + 1 + grid.size.1 as usize + busiest.len() + legend.len()
}

/// The grid's title, wrapped: the operation, and what a cell's figure is a share of.
fn title(view: &View, peak: &OperationPeak, name: &str, width: usize) -> Vec<Line<'static>> {
    let of = match peak.bank_size {
        Some(bank) => format!("% of the {} bank", size(bank)),
        None => "% of the busiest core (the bank's size is not recorded)".to_string(),
    };
    let text = format!("L1 per core at {}'s true peak, {of}:", operation(peak, name));
    wrap_lines([Line::styled(text, view.theme.bold)], width)
}

/// The letter of what fills most of a core (none: it holds nothing).
fn letter(c: &Composition) -> char {
    let parts = [(c.circular_buffers, 'C'), (c.own, 'O'), (c.live, 'L'), (c.stale, 'S')];
    parts.iter().filter(|p| p.0 > 0).max_by_key(|p| p.0).map_or('·', |p| p.1)
}

/// A core's cell: its share of the bank (or of the busiest core, the bank not known) and letter.
fn cell(view: &View, fill: &Composition, whole: u64) -> Span<'static> {
    let share = (fill.total().saturating_mul(100) / whole.max(1)).min(999);
    // Something under 1 % is not nothing.
    let share = if share == 0 && fill.total() > 0 { "<1".to_string() } else { share.to_string() };
    let l = letter(fill);
    let style = match l {
        'C' => view.theme.warning,
        'S' => view.theme.danger,
        'O' => view.theme.key,
        _ => Style::default(),
    };
    Span::styled(format!("{share:>4}{l}"), style)
}

/// The composition by the cells' letters, as the legend names them.
fn parts(c: &Composition) -> String {
    format!("C {} · O {} · L {} · S {}", size(c.circular_buffers), size(c.own), size(c.live), size(c.stale))
}

/// The busiest core named with what fills it (every core alike: said), and the legend, wrapped.
fn footer(
    view: &View,
    peak: &OperationPeak,
    grid: &CoreGrid,
    width: usize,
) -> (Vec<Line<'static>>, Vec<Line<'static>>) {
    let ((x, y), fill) = grid.busiest();
    let left = peak.room().map_or_else(String::new, |r| format!(", {} left", size(r)));
    let busiest = if grid.alike() {
        format!("every core alike: {}{left}: {}", size(fill.total()), parts(&fill))
    } else {
        let same = grid.fills.iter().zip(grid.counts()).filter(|(f, _)| f.total() == fill.total()).map(|(_, n)| n);
        let cores = grid.size.0 * grid.size.1;
        format!(
            "busiest x {x}, y {y} ({} of {cores} cores as full): {}{left}: {}",
            same.sum::<usize>(),
            size(fill.total()),
            parts(&fill)
        )
    };
    let busiest = wrap_lines([Line::styled(busiest, view.theme.bold)], width);
    (busiest, wrap_lines([Line::styled(LEGEND, view.theme.dim)], width))
}

/// The grid's lines in `width` × `height`: rows and columns that do not fit are cut, with a sign
/// saying which; in too few lines for a row and the busiest core, or room for two cores, one line.
pub(crate) fn grid_lines(
    view: &View,
    peak: &OperationPeak,
    grid: &CoreGrid,
    width: usize,
    height: usize,
) -> Vec<Line<'static>> {
    let name = view.model.operation_index(peak.operation_id).map_or("", |i| view.model.operations[i].name.as_ref());
    let (gx, gy) = (grid.size.0 as usize, grid.size.1 as usize);
    let mut columns = (width.saturating_sub(LABEL) / CELL).min(gx);
    if columns < gx {
        // Room for the sign that says which columns are cut.
        columns = (width.saturating_sub(LABEL + CUT_SIGN) / CELL).min(gx);
    }
    if height < 5 || columns < 2 {
        return vec![summary(peak, grid, name, width)];
    }
    let whole = peak.bank_size.unwrap_or_else(|| grid.busiest().1.total());
    let mut lines = title(view, peak, name, width);
    let mut header = format!("{:<LABEL$}", "y\\x");
    header.extend((0..columns).map(|x| format!("{x:>4} ")));
    if columns < gx {
        header = format!("{} … x {columns}–{} cut", header.trim_end(), gx - 1);
    }
    lines.push(truncate_line(Line::styled(header, view.theme.dim), width));
    let (busiest, legend) = footer(view, peak, grid, width);
    // Every row, the busiest core and the legend when they fit under the title and the header;
    // else the legend goes, then rows, cut with a sign.
    let room = height.saturating_sub(lines.len());
    let (rows, mut tail) = match room.checked_sub(gy + busiest.len()) {
        Some(left) if left >= legend.len() => (gy, [busiest, legend].concat()),
        Some(_) => (gy, busiest),
        None => (room.saturating_sub(1 + busiest.len()), busiest),
    };
    if rows == 0 {
        return vec![summary(peak, grid, name, width)];
    }
    for y in 0..rows {
        let mut spans = vec![Span::styled(format!("{y:>LABEL$}"), view.theme.dim)];
        spans.extend((0..columns).map(|x| cell(view, &grid.fill((x as u32, y as u32)), whole)));
        lines.push(Line::from(spans));
    }
    if rows < gy {
        let cut = format!("… y {rows}–{} cut: a taller terminal shows them", gy - 1);
        lines.push(truncate_line(Line::styled(cut, view.theme.dim), width));
    }
    tail.truncate(height.saturating_sub(lines.len()));
    lines.extend(tail);
    lines
}

/// `operation 7 ttnn.add`, or `operation 7` when its name is not known.
fn operation(peak: &OperationPeak, name: &str) -> String {
    if name.is_empty() {
        format!("operation {}", peak.operation_id)
    } else {
        format!("operation {} {name}", peak.operation_id)
    }
}

/// The grid in one line: the operation, its busiest core and how many cores are as full.
pub(crate) fn summary(peak: &OperationPeak, grid: &CoreGrid, name: &str, width: usize) -> Line<'static> {
    let ((x, y), fill) = grid.busiest();
    let left = peak.room().map_or_else(String::new, |r| format!(", {} left", size(r)));
    let text = if grid.alike() {
        format!("L1 per core at {}: every core alike, {}{left}", operation(peak, name), size(fill.total()))
    } else {
        format!(
            "L1 per core at {}: busiest x {x}, y {y}, {}{left} ({} fills)",
            operation(peak, name),
            size(fill.total()),
            grid.fills.len()
        )
    };
    truncate_line(Line::from(text), width)
}

/// The one line the grid shows when there is none at the cursor: why.
pub(crate) fn none_line(tab: &OverTimeTab) -> Option<String> {
    let s = tab.series()?;
    let id = s.points.get(tab.cursor).map_or(0, |p| p.operation_id);
    Some(if !tab.core_grids.iter().any(|g| g.device_id == s.device_id) {
        format!(
            "L1 per core: the report does not record device {}'s core grid",
            named_device(s.device_id, tab.single_chip)
        )
    } else {
        format!("L1 per core: nothing stands in L1 during operation {id}")
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::Model;
    use crate::ui::Theme;
    use std::collections::HashMap;

    fn texts(lines: &[Line]) -> Vec<String> {
        lines.iter().map(|l| l.to_string().trim_end().to_string()).collect()
    }

    #[test]
    fn a_grid_wider_or_taller_than_its_area_is_cut_with_a_sign_and_a_tiny_one_is_one_line() {
        let model = Model::new("r".into(), Vec::new(), Vec::new(), HashMap::new());
        let theme = Theme::new(true);
        let view = View { model: &model, hex: false, theme: &theme };
        let fill = Composition { circular_buffers: 100, own: 200, live: 300, stale: 0 };
        let peak = OperationPeak {
            operation_id: 9,
            device_id: 0,
            buffer_type: crate::analysis::messages::failure::BufferType::L1,
            peak_per_bank: 600,
            after_per_bank: 500,
            core: None,
            bank_size: Some(1000),
            composition: fill,
        };
        let grid = CoreGrid::uniform(9, 0, (13, 10), fill);
        let lines = texts(&grid_lines(&view, &peak, &grid, 60, 40));
        let head = [
            "L1 per core at operation 9's true peak, % of the 1,000 B",
            "bank:",
            "y\\x   0    1    2    3    4    5    6    7 … x 8–12 cut",
            "  0  60L  60L  60L  60L  60L  60L  60L  60L",
        ];
        assert_eq!(lines[..4], head);
        let tail = [
            "every core alike: 600 B, 400 B left: C 100 B · O 200 B · L",
            "300 B · S 0 B",
            "C circular buffers · O its own buffers · L live, used later",
            "· S held past its last use",
        ];
        assert_eq!(lines.len(), 17, "{lines:#?}");
        assert_eq!(lines[13..], tail);
        // Eight lines: the rows that fit, the sign, the busiest core; the legend goes.
        let short = texts(&grid_lines(&view, &peak, &grid, 60, 8));
        let rows = ["  1  60L  60L  60L  60L  60L  60L  60L  60L", "… y 2–9 cut: a taller terminal shows them"];
        assert_eq!(short, [&head[..], &rows[..], &tail[..2]].concat());
        let tiny = texts(&grid_lines(&view, &peak, &grid, 80, 4));
        assert_eq!(tiny, ["L1 per core at operation 9: every core alike, 600 B, 400 B left"]);
        let cut = texts(&grid_lines(&view, &peak, &grid, 60, 4));
        assert_eq!(cut, ["L1 per core at operation 9: every core alike, 600 B, 400 B …"]);
    }
}
