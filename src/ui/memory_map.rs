//! The map of a region on the Memory tab: one row of the screen's width, each live buffer a block
//! filled by its tensor (a stable colour per tensor id, or a distinct fill character without
//! colour), free space left empty, the largest free block marked, the request drawn beside it at
//! the same scale, the circular-buffer region as a band, address ticks at both ends, and the
//! selected holder in reverse video.

use super::theme::Theme;
use crate::analysis::format::{format_address, size};
use crate::analysis::memory::whatif::BufferAfterFix;
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
    /// Where the request was placed (a fix's map): drawn from there instead.
    pub request_at: Option<u64>,
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

/// The buffers a map draws: a picture's live buffers, or those after a fix.
#[derive(Clone, Copy)]
pub enum MapBuffers<'a> {
    /// The live buffers of a failure's or an operation's picture.
    Live(&'a [LiveBuffer]),
    /// The live buffers after a fix.
    AfterFix(&'a [BufferAfterFix]),
}

/// A buffer as the map draws it: where it lies and its tensor.
#[derive(Clone, Copy)]
struct Drawn {
    address: u64,
    end: u64,
    tensor_id: Option<u64>,
}

impl<'a> MapBuffers<'a> {
    /// Each buffer, in order.
    fn each(self) -> impl Iterator<Item = Drawn> + 'a {
        let (live, after): (&[LiveBuffer], &[BufferAfterFix]) = match self {
            Self::Live(live) => (live, &[]),
            Self::AfterFix(after) => (&[], after),
        };
        let live = live.iter().map(|b| Drawn { address: b.address, end: b.end(), tensor_id: b.tensor_id });
        live.chain(after.iter().map(|b| Drawn { address: b.address, end: b.end(), tensor_id: b.tensor_id }))
    }
}

/// The address range the map spans: the region when known, else the live buffers' extent.
fn extent(map: &MemoryMap, live: MapBuffers<'_>) -> (u64, u64) {
    if let Some(bounds) = map.region.bounds() {
        return bounds;
    }
    let start = live.each().map(|b| b.address).min().unwrap_or(0);
    let end = live.each().map(|b| b.end).max().unwrap_or(start + 1);
    (start, end.max(start + 1))
}

/// How addresses map to the map's columns: the range shown and the bytes one cell stands for.
struct Scale {
    start: u64,
    end: u64,
    cell: u64,
    width: usize,
}

impl Scale {
    /// The address range `[start, end)` of column `c`.
    fn range(&self, c: usize) -> (u64, u64) {
        (self.start + c as u64 * self.cell, self.start + (c as u64 + 1) * self.cell)
    }

    /// The column of an address, clamped into the range shown.
    fn column(&self, address: u64) -> usize {
        ((address.clamp(self.start, self.end) - self.start) / self.cell) as usize
    }
}

/// The bytes two ranges `[lo, hi)` and `[a, b)` share.
fn overlap((lo, hi): (u64, u64), (a, b): (u64, u64)) -> u64 {
    hi.min(b).saturating_sub(lo.max(a))
}

/// The map's lines at `width` columns: the buffers, the marks, the ticks; and the size one cell
/// stands for.
pub fn map_lines(
    map: &MemoryMap,
    live: MapBuffers<'_>,
    marks: &MapMarks,
    width: usize,
    hex: bool,
    theme: &Theme,
) -> (Vec<Line<'static>>, u64) {
    let width = width.max(1);
    let (start, end) = extent(map, live);
    let scale = Scale { start, end, cell: (end - start).div_ceil(width as u64).max(1), width };
    let largest = map.free_blocks.iter().filter(|b| Some(b.size) == map.largest_free_block).max_by_key(|b| b.size);
    let largest = largest.map(|l| (l.address, l.address + l.size));
    let mut lines = vec![buffers_line(&scale, live, largest, marks.selected, theme)];
    if let Some(need) = marks.request {
        let from = marks.request_at.or(largest.map(|(address, _)| address));
        lines.push(request_line(&scale, need, from, theme));
    } else if let Some(band) = marks.circular_buffers {
        lines.push(band_line(&scale, band, hex, theme));
    }
    let (left, right) = (format_address(Some(start), hex), format_address(Some(end), hex));
    let gap = width.saturating_sub(left.width() + right.width());
    lines.push(Line::styled(format!("{left}{}{right}", " ".repeat(gap)), theme.dim));
    (lines, scale.cell)
}

/// The buffer each column shows: the one covering most of it (the later one on a tie). Every
/// buffer is visited once, over the cells it covers, so a snapshot of many buffers stays cheap.
fn column_holders(scale: &Scale, live: MapBuffers<'_>) -> Vec<Option<Drawn>> {
    let mut best: Vec<Option<(u64, Drawn)>> = vec![None; scale.width];
    for b in live.each() {
        let (from, to) = (b.address.max(scale.start), b.end.min(scale.end));
        if from >= to {
            continue;
        }
        let (first, last) = (scale.column(from), scale.column(to - 1));
        for (c, slot) in best.iter_mut().enumerate().take(last.min(scale.width - 1) + 1).skip(first) {
            let covered = overlap(scale.range(c), (b.address, b.end));
            if covered > 0 && slot.is_none_or(|(most, _)| covered >= most) {
                *slot = Some((covered, b));
            }
        }
    }
    best.into_iter().map(|holder| holder.map(|(_, b)| b)).collect()
}

/// The first line: each column's buffer in its tensor's fill (the selected one in reverse
/// video), else the largest free block's mark, else blank.
fn buffers_line(
    scale: &Scale,
    live: MapBuffers<'_>,
    largest: Option<(u64, u64)>,
    selected: Option<u64>,
    theme: &Theme,
) -> Line<'static> {
    let cells = column_holders(scale, live).into_iter().enumerate().map(|(c, holder)| match holder {
        Some(b) => {
            let (fill, style) = tensor_fill(b.tensor_id, theme);
            let style = if selected == Some(b.address) { style.patch(theme.selected) } else { style };
            Span::styled(fill.to_string(), style)
        }
        None if largest.is_some_and(|l| overlap(scale.range(c), l) > 0) => {
            Span::styled(LARGEST.to_string(), theme.warning)
        }
        None => Span::raw(" "),
    });
    Line::from(cells.collect::<Vec<_>>())
}

/// The request per bank drawn at the same scale from the largest free block's start (else the
/// map's start), labelled when the label fits. A request larger than the whole region says so
/// inside its run (which then spans the map), where there is room.
fn request_line(scale: &Scale, need: u64, largest_start: Option<u64>, theme: &Theme) -> Line<'static> {
    let first = scale.column(largest_start.unwrap_or(scale.start));
    let cells = (need.div_ceil(scale.cell) as usize).max(1).min(scale.width.saturating_sub(first));
    let larger = format!(" request {}, larger than the region ", size(need));
    let run = if need > scale.end - scale.start && larger.width() + 2 <= cells {
        let rest = cells - 1 - larger.width();
        format!("{REQUEST}{larger}{}", REQUEST.to_string().repeat(rest))
    } else {
        REQUEST.to_string().repeat(cells)
    };
    let label = format!(" request {}", size(need));
    Line::styled(labelled_run(scale.width, first, run, &label), theme.danger)
}

/// The circular-buffer region `[a, b)` as a band, labelled with its end when the label fits.
fn band_line(scale: &Scale, (a, b): (u64, u64), hex: bool, theme: &Theme) -> Line<'static> {
    let first = scale.column(a);
    let last = ((b.clamp(scale.start, scale.end) - scale.start).div_ceil(scale.cell) as usize).min(scale.width);
    let label = format!(" circular buffers up to {}", format_address(Some(b), hex));
    let run = BAND.to_string().repeat(last.saturating_sub(first).max(1));
    Line::styled(labelled_run(scale.width, first, run, &label), theme.warning)
}

/// A run of cells starting at column `first` of a line `width` columns wide, followed by
/// `label` when it fits.
fn labelled_run(width: usize, first: usize, run: String, label: &str) -> String {
    let mut line = " ".repeat(first.min(width)) + &run;
    if line.width() + label.width() <= width {
        line.push_str(label);
    }
    line
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
        let marks = MapMarks { request: Some(50), request_at: None, circular_buffers: None, selected: Some(60) };
        let theme = Theme::plain();
        let (lines, cell) = map_lines(&map, MapBuffers::Live(&live), &marks, 10, false, &theme);
        assert_eq!(cell, 10);
        let text: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
        assert_eq!(text[0], "▓▓░░░░▒  ▚");
        // The request starts at the largest free block and overhangs it by a cell.
        assert_eq!(text[1], "  ▬▬▬▬▬");
        assert_eq!(text[2], "0      100");
        // The selected holder is in reverse video.
        assert_eq!(lines[0].spans[6].style, theme.selected);
    }

    #[test]
    fn a_request_larger_than_the_region_says_so_in_its_run() {
        // A 32 KiB region, empty (L1_SMALL opened with 32 KiB), and a 40 KiB request, 60 columns.
        let region = Region { start: Some(1000), end: Some(1000 + 32768), source: Some(RegionSource::Devices) };
        let map = MemoryMap {
            region,
            occupied: vec![],
            used_per_bank: 0,
            free_blocks: vec![Block { address: 1000, size: 32768 }],
            largest_free_block: Some(32768),
        };
        let marks = MapMarks { request: Some(40960), request_at: None, circular_buffers: None, selected: None };
        let (lines, _) = map_lines(&map, MapBuffers::Live(&[]), &marks, 60, false, &Theme::plain());
        let request = lines[1].to_string();
        assert_eq!(request, format!("▬ request 40 KiB, larger than the region {}", "▬".repeat(19)));
    }
}
