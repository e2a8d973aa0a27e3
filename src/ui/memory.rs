//! The Memory tab: for the selected operation, the memory at its failure or after it — a heading,
//! the basis and check, the advice (or why there is none), the map of the region, and the
//! holders table (only its visible rows are built).

use super::View;
use super::memory_holders::draw_holders;
use super::memory_map::{MapMarks, legend, map_lines};
use super::progress::draw_progress;
use super::text::{truncate_line, wrap_lines};
use crate::analysis::format::size;
use crate::analysis::memory::{
    MemoryAtFailure, advice_sentence, basis_sentence, check_sentence, fullness_sentence, reason_sentence,
};
use crate::app::{JobState, Loaded, MemoryPicture, MemoryTab, NoPicture, ordered_holders};
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Margin, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};

/// Why an operation has no picture, as the tab says it.
pub fn no_picture_sentence(id: u64, reason: &NoPicture) -> String {
    match reason {
        NoPicture::FailedWithoutRecords => format!(
            "Operation {id} failed to allocate, but the report records neither a buffers snapshot nor a captured graph to rebuild its memory from."
        ),
        NoPicture::FailedBeforeAllocating { error_type, first_line } => format!(
            "Operation {id} failed before allocating ({error_type}: {first_line}) and the report records no buffers after it."
        ),
        NoPicture::NoBuffers => format!("Operation {id} has no buffers recorded after it."),
        NoPicture::NothingAtStart { last } => format!(
            "Operation {id} was not recorded; the snapshot after operation {last}, the memory when it started, holds no buffer."
        ),
    }
}

/// The heading of a picture.
pub fn heading(view: &View, operation: usize, picture: &MemoryPicture) -> String {
    let op = &view.model.operations[operation];
    match picture {
        MemoryPicture::Failure(m) => {
            format!(
                "Memory at the failure of {} {} · device {} · {}",
                op.id,
                op.name,
                m.device_id,
                m.buffer_type.label()
            )
        }
        MemoryPicture::Operation(m) => match m.snapshot_operation_id {
            Some(p) => format!(
                "Memory when {} {} started (after {p}) · device {} · {}",
                op.id,
                op.name,
                m.device_id,
                m.buffer_type.label()
            ),
            None => format!("Memory after {} {} · device {} · {}", op.id, op.name, m.device_id, m.buffer_type.label()),
        },
        MemoryPicture::NeedsReplay | MemoryPicture::Nothing(_) => format!("Memory of {} {}", op.id, op.name),
    }
}

/// The sentences under the heading: basis and check, the reason from the map, the advice, the
/// notes (a failure); what the snapshot holds and its notes (any other operation).
pub fn sentences(view: &View, picture: &MemoryPicture) -> Vec<String> {
    let hex = view.hex;
    match picture {
        MemoryPicture::Failure(m) => {
            let mut lines = vec![format!("{}. {}", basis_sentence(m, hex), check_sentence(m))];
            lines.extend(reason_sentence(m));
            lines.push(advice_sentence(m, hex));
            lines.extend(fullness_sentence(&m.map));
            lines.extend(m.notes.iter().map(|n| format!("Note: {}", n.text(hex))));
            lines
        }
        MemoryPicture::Operation(m) => {
            let mut lines = crate::analysis::memory::operation_lines(m, hex);
            // The table lists the holders.
            lines.retain(|l| !l.starts_with("Largest holders:"));
            lines.extend(fullness_sentence(&m.map));
            lines
        }
        MemoryPicture::NeedsReplay | MemoryPicture::Nothing(_) => Vec::new(),
    }
}

/// The marks of a failure's map: its request, or its circular buffers' range.
fn failure_marks(m: &MemoryAtFailure) -> (Option<u64>, Option<(u64, u64)>) {
    let band = m.circular_buffers.as_ref().map(|c| {
        let lowest = c.circular_buffers.iter().map(|b| b.address).min();
        (lowest.or(m.map.region.start).unwrap_or(0), c.region_end)
    });
    (m.needed_per_bank.filter(|_| band.is_none()), band)
}

/// Draws the tab for the selected operation.
pub fn draw(frame: &mut Frame, area: Rect, view: &View, operation: Option<usize>, tab: &mut MemoryTab) {
    let theme = view.theme;
    let message = |frame: &mut Frame, text: String| {
        let lines = wrap_lines([Line::from(text)], area.width.saturating_sub(2) as usize);
        frame.render_widget(Paragraph::new(lines).style(theme.dim), area.inner(Margin::new(1, 1)));
    };
    let Some(i) = operation else { return message(frame, "No operation selected".into()) };
    tab.follow(Some(i));
    let (by_address, replay) = (tab.by_address, tab.replay.clone());
    let (picture, holders) = tab.drawn(i);
    let picture = match picture {
        None => return message(frame, "Reading the memory of this operation…".into()),
        Some(Loaded::Unavailable(reason)) => return message(frame, format!("The memory cannot be read: {reason}")),
        Some(Loaded::Ready(MemoryPicture::Nothing(reason))) => {
            return message(frame, no_picture_sentence(view.model.operations[i].id, reason));
        }
        Some(Loaded::Ready(MemoryPicture::NeedsReplay)) => return draw_replay(frame, area, view, &replay),
        Some(Loaded::Ready(picture)) => picture,
    };
    let width = area.width as usize;
    let head = truncate_line(Line::styled(heading(view, i, picture), theme.bold), width);
    let text = wrap_lines(sentences(view, picture).into_iter().map(Line::from), width);
    // The map takes 5 lines and the holders table keeps at least 5 (two rows).
    let room = (area.height as usize).saturating_sub(1 + 5 + 5).max(1);
    let text_height = text.len().min(room.min((area.height as usize / 3).max(2))) as u16;
    let [head_area, text_area, map_area, table_area] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Length(text_height),
        Constraint::Length(5),
        Constraint::Fill(1),
    ])
    .areas(area);
    frame.render_widget(Paragraph::new(head), head_area);
    frame.render_widget(Paragraph::new(text), text_area);
    let ordered = ordered_holders(picture, by_address);
    let selected = holders.selected().and_then(|k| ordered.get(k)).map(|b| b.address);
    let (map, (request, band)) = match picture {
        MemoryPicture::Failure(m) => (&m.map, failure_marks(m)),
        MemoryPicture::Operation(m) => (&m.map, (None, None)),
        _ => return,
    };
    let marks = MapMarks { request, circular_buffers: band, selected };
    let block = Block::new().borders(Borders::ALL).title_bottom(legend(theme, &marks));
    let inner = block.inner(map_area);
    let (lines, cell) = map_lines(map, picture.live_buffers(), &marks, inner.width as usize, view.hex, theme);
    let title = format!(" Map · {} a column ", size(cell));
    frame.render_widget(Paragraph::new(lines).block(block.title(Span::styled(title, theme.bold))), map_area);
    draw_holders(frame, table_area, view, &ordered, by_address, holders);
}

/// The replay some failures need, with its progress.
fn draw_replay(frame: &mut Frame, area: Rect, view: &View, replay: &JobState) {
    let text = match replay {
        JobState::Failed(reason) => format!("Replaying the captured graphs failed: {reason}"),
        _ => "This report has no buffers snapshot for the failure's device: replaying every captured graph before it, once for the report…".to_string(),
    };
    draw_progress(frame, area.inner(Margin::new(1, 1)), view.theme, text, replay);
}
