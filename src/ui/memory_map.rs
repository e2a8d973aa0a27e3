//! The map of a region on the Memory tab: one row of the screen's width, each live buffer a block
//! filled by its tensor (a stable colour per tensor id, or a distinct fill character without
//! colour), free space left empty, the largest free block marked, the request drawn beside it at
//! the same scale, the circular-buffer region as a band, address ticks at both ends, and the
//! selected holder in reverse video.

use super::theme::Theme;
use crate::analysis::format::{format_address, size};
use crate::analysis::memory::{LiveBuffer, MemoryMap};
use ratatui::style::{Color, Style};
use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthStr;

/// Fill characters by tensor id, so tensors stay apart without colour.
const FILLS: [char; 7] = ['█', '▓', '▒', '#', '%', '@', '&'];
/// Colours by tensor id (the 16 named colours that read on both dark and light terminals).
const COLOURS: [Color; 6] = [Color::Cyan, Color::Magenta, Color::Blue, Color::Green, Color::Yellow, Color::LightRed];
/// A buffer no tensor is known for.
const UNKNOWN: char = '▚';
/// The largest free block.
const LARGEST: char = '░';
/// The request.
const REQUEST: char = '▬';
/// The circular-buffer band.
const BAND: char = '▄';

/// What the map shows besides the buffers.
pub struct MapMarks {
    /// The request per bank, drawn from the largest free block's start.
    pub request: Option<u64>,
    /// The circular buffers' range `[start, end)`.
    pub circular_buffers: Option<(u64, u64)>,
    /// The address of the selected holder.
    pub selected: Option<u64>,
}

/// The fill character and style of a buffer of this tensor.
pub fn tensor_fill(tensor: Option<u64>, theme: &Theme) -> (char, Style) {
    match tensor {
        None => (UNKNOWN, theme.dim),
        Some(id) if theme.plain => (FILLS[(id % FILLS.len() as u64) as usize], Style::new()),
        Some(id) => ('█', Style::new().fg(COLOURS[(id % COLOURS.len() as u64) as usize])),
    }
}

/// The address range the map spans: the region when known, else the live buffers' extent.
fn extent(map: &MemoryMap, live: &[LiveBuffer]) -> (u64, u64) {
    if let Some(bounds) = map.region.bounds() {
        return bounds;
    }
    let start = live.iter().map(|b| b.address).min().unwrap_or(0);
    let end = live.iter().map(LiveBuffer::end).max().unwrap_or(start + 1);
    (start, end.max(start + 1))
}

/// The map's lines at `width` columns: the buffers, the marks, the ticks; and the size one cell
/// stands for.
pub fn map_lines(
    map: &MemoryMap,
    live: &[LiveBuffer],
    marks: &MapMarks,
    width: usize,
    hex: bool,
    theme: &Theme,
) -> (Vec<Line<'static>>, u64) {
    let width = width.max(1);
    let (start, end) = extent(map, live);
    let cell = (end - start).div_ceil(width as u64).max(1);
    let range = |c: usize| (start + c as u64 * cell, start + (c as u64 + 1) * cell);
    let overlap = |(lo, hi): (u64, u64), (a, b): (u64, u64)| hi.min(b).saturating_sub(lo.max(a));
    let largest = map.free_blocks.iter().filter(|b| Some(b.size) == map.largest_free_block).max_by_key(|b| b.size);
    // Each cell shows the buffer covering most of it (the later one on a tie): every buffer is
    // visited once, over the cells it covers, so a snapshot of many buffers stays cheap.
    let mut best: Vec<Option<(u64, &LiveBuffer)>> = vec![None; width];
    for b in live {
        let (from, to) = (b.address.max(start), b.end().min(end));
        if from >= to {
            continue;
        }
        let (first, last) = (((from - start) / cell) as usize, ((to - 1 - start) / cell) as usize);
        for (c, slot) in best.iter_mut().enumerate().take(last.min(width - 1) + 1).skip(first) {
            let covered = overlap(range(c), (b.address, b.end()));
            if covered > 0 && slot.is_none_or(|(most, _)| covered >= most) {
                *slot = Some((covered, b));
            }
        }
    }
    let mut cells = Vec::with_capacity(width);
    for (c, holder) in best.into_iter().enumerate() {
        let span = range(c);
        cells.push(match holder.map(|(_, b)| b) {
            Some(b) => {
                let (fill, style) = tensor_fill(b.tensor_id, theme);
                let style = if marks.selected == Some(b.address) { style.patch(theme.selected) } else { style };
                Span::styled(fill.to_string(), style)
            }
            None if largest.is_some_and(|l| overlap(span, (l.address, l.address + l.size)) > 0) => {
                Span::styled(LARGEST.to_string(), theme.warning)
            }
            None => Span::raw(" "),
        });
    }
    let mut lines = vec![Line::from(cells)];
    if let Some(need) = marks.request {
        let from = largest.map_or(start, |l| l.address).clamp(start, end);
        let first = ((from - start) / cell) as usize;
        let cells = (need.div_ceil(cell) as usize).max(1);
        let mut second =
            " ".repeat(first.min(width)) + &REQUEST.to_string().repeat(cells.min(width.saturating_sub(first)));
        let label = format!(" request {}", size(need));
        if second.width() + label.width() <= width {
            second.push_str(&label);
        }
        lines.push(Line::styled(second, theme.danger));
    } else if let Some((a, b)) = marks.circular_buffers {
        let first = ((a.clamp(start, end) - start) / cell) as usize;
        let last = ((b.clamp(start, end) - start).div_ceil(cell) as usize).min(width);
        let mut second = " ".repeat(first.min(width)) + &BAND.to_string().repeat(last.saturating_sub(first).max(1));
        let label = format!(" circular buffers up to {}", format_address(Some(b), hex));
        if second.width() + label.width() <= width {
            second.push_str(&label);
        }
        lines.push(Line::styled(second, theme.warning));
    }
    let (left, right) = (format_address(Some(start), hex), format_address(Some(end), hex));
    let gap = width.saturating_sub(left.width() + right.width());
    lines.push(Line::styled(format!("{left}{}{right}", " ".repeat(gap)), theme.dim));
    (lines, cell)
}

/// The legend under the map.
pub fn legend(theme: &Theme, marks: &MapMarks) -> Line<'static> {
    let (fill, style) = tensor_fill(Some(0), theme);
    let mut spans = vec![
        Span::styled(fill.to_string(), style),
        Span::raw(" buffer (by tensor)  "),
        Span::styled(UNKNOWN.to_string(), theme.dim),
        Span::raw(" no tensor  "),
        Span::styled(LARGEST.to_string(), theme.warning),
        Span::raw(" largest free block  "),
    ];
    if marks.request.is_some() {
        spans.extend([Span::styled(REQUEST.to_string(), theme.danger), Span::raw(" request  ")]);
    }
    if marks.circular_buffers.is_some() {
        spans.extend([Span::styled(BAND.to_string(), theme.warning), Span::raw(" circular buffers  ")]);
    }
    Line::from(spans)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::memory::{Block, Region, RegionSource};

    fn buffer(address: u64, size: u64, tensor: Option<u64>) -> LiveBuffer {
        LiveBuffer { address, size_per_bank: size, tensor_id: tensor, ..LiveBuffer::default() }
    }

    #[test]
    fn buffers_free_space_the_largest_block_the_request_and_ticks() {
        // A 100-byte region, 10 columns: 10 bytes a cell.
        let region = Region { start: Some(0), end: Some(100), source: Some(RegionSource::Devices) };
        let live = [buffer(0, 20, Some(1)), buffer(60, 10, Some(2)), buffer(90, 10, None)];
        let map = MemoryMap {
            region,
            occupied: vec![(0, 20), (60, 70), (90, 100)],
            used_per_bank: 40,
            free_blocks: vec![Block { address: 20, size: 40 }, Block { address: 70, size: 20 }],
            largest_free_block: Some(40),
        };
        let marks = MapMarks { request: Some(50), circular_buffers: None, selected: Some(60) };
        let theme = Theme::plain();
        let (lines, cell) = map_lines(&map, &live, &marks, 10, false, &theme);
        assert_eq!(cell, 10);
        let text: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
        assert_eq!(text[0], "▓▓░░░░▒  ▚");
        // The request starts at the largest free block and overhangs it by a cell.
        assert_eq!(text[1], "  ▬▬▬▬▬");
        assert_eq!(text[2], "0      100");
        // The selected holder is in reverse video.
        assert_eq!(lines[0].spans[6].style, theme.selected);
    }
}
