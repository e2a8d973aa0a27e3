//! The Memory tab: for the selected operation, the memory at its failure or after it — a heading,
//! the basis and check, the advice (or why there is none), the map of the region, and the
//! holders table (only its visible rows are built).

use super::memory_holders::draw_holders;
use super::memory_map::{MapBuffers, MapMarks, legend, map_lines};
use super::progress::draw_progress;
use super::theme::Theme;
use super::view::View;
use super::wrap::{truncate_line, wrap_line, wrap_lines};
use crate::analysis::format::{counted, size};
use crate::analysis::memory::whatif::ReplayedAdvice;
use crate::analysis::memory::{
    MemoryAtFailure, NoFit, advice_sentence, basis_sentence, check_sentence, clash_facts, fullness_sentence,
    reason_sentence,
};
use crate::app::{AdviceScroll, FixList, JobState, Loaded, MemoryPicture, MemoryTab, NoPicture, ordered_holders};
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
                m.named_device(),
                m.buffer_type.label()
            )
        }
        MemoryPicture::Operation(m) => match m.snapshot_operation_id {
            Some(p) => format!(
                "Memory when {} {} started (after {p}) · device {} · {}",
                op.id,
                op.name,
                m.named_device(),
                m.buffer_type.label()
            ),
            None => {
                format!("Memory after {} {} · device {} · {}", op.id, op.name, m.named_device(), m.buffer_type.label())
            }
        },
        MemoryPicture::NeedsReplay | MemoryPicture::Nothing(_) => format!("Memory of {} {}", op.id, op.name),
    }
}

/// The sentences under the heading: basis and check, the reason from the map, the advice (the
/// reason no freeing helps, and every fix with its replayed answer, the one on the map marked),
/// the notes (a failure); what the snapshot holds and its notes (any other operation).
pub fn sentences(view: &View, picture: &MemoryPicture, fixes: &FixList, operation: usize) -> Vec<String> {
    let hex = view.hex;
    match picture {
        MemoryPicture::Failure(m) => {
            let mut lines = vec![format!("{}. {}", basis_sentence(m, hex), check_sentence(m))];
            lines.extend(reason_sentence(m));
            lines.extend(fix_lines(m, fixes, operation, hex));
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

/// The advice of a failure: §6's sentence where it says why no freeing helps, then each fix
/// with its replayed answer (`▶` before the one on the map), or that they are being replayed.
fn fix_lines(m: &MemoryAtFailure, fixes: &FixList, operation: usize, hex: bool) -> Vec<String> {
    let list: &[ReplayedAdvice] = match fixes.of(operation) {
        Some(Loaded::Ready(list)) => list,
        Some(Loaded::Unavailable(reason)) => {
            return vec![advice_sentence(m, hex), format!("The fixes cannot be replayed: {reason}")];
        }
        None => {
            let mut lines = vec![advice_sentence(m, hex), "Replaying each fix…".to_string()];
            lines.extend(prompt_line(fixes));
            return lines;
        }
    };
    let mut lines = Vec::new();
    // The freeing advice and "move them" are said by the fixes; the reasons no freeing helps stay.
    match &m.fit {
        _ if list.is_empty() => lines.push(advice_sentence(m, hex)),
        Ok(fit) if !fit.free.is_empty() => {}
        Err(NoFit::CircularBuffers) => lines.push(clash_facts(m, hex)),
        _ => lines.push(advice_sentence(m, hex)),
    }
    let shown = fixes.shown(operation).map(|(k, _)| k);
    lines.extend(list.iter().enumerate().map(|(k, r)| {
        let mark = if Some(k) == shown { "▶ " } else { "· " };
        format!("{mark}{}", r.sentence(m.operation_id(), hex))
    }));
    lines.extend(prompt_line(fixes));
    lines
}

/// The sentences wrapped to `width`, and the wrapped lines of the fix on the map (`▶`), if any.
fn advice_lines(sentences: Vec<String>, width: usize) -> (Vec<Line<'static>>, Option<(usize, usize)>) {
    let mut lines = Vec::new();
    let mut fix_at = None;
    for sentence in sentences {
        let start = lines.len();
        let shown = sentence.starts_with("▶ ");
        lines.extend(wrap_line(Line::from(sentence), width));
        if shown {
            fix_at = Some((start, lines.len()));
        }
    }
    (lines, fix_at)
}

/// The advice lines that fit `height`: when they do not all fit, the window `J`/`K` scrolls
/// (brought over the fix on the map when one was just chosen) and a last line saying what is
/// cut, above and below.
fn advice_window(
    lines: Vec<Line<'static>>,
    height: usize,
    fix_at: Option<(usize, usize)>,
    advice: &mut AdviceScroll,
    theme: &Theme,
) -> Vec<Line<'static>> {
    if lines.len() <= height || height < 2 {
        advice.scroll.fit(lines.len(), height);
        return lines;
    }
    let shown = height - 1;
    advice.scroll.fit(lines.len(), shown);
    if std::mem::take(&mut advice.reveal_fix)
        && let Some((start, end)) = fix_at
    {
        let offset = advice.scroll.offset();
        let target = if start < offset { start } else { offset.max(end.saturating_sub(shown)).min(start) };
        advice.scroll.by(target as isize - offset as isize);
    }
    let offset = advice.scroll.offset();
    let (above, below) = (offset, lines.len() - offset - shown);
    let mut window: Vec<Line<'static>> = lines.into_iter().skip(offset).take(shown).collect();
    let lines = |n: usize| if n == 1 { "line" } else { "lines" };
    let sign = match (above, below) {
        (0, b) => format!("↓ {b} more {} · J scrolls", lines(b)),
        (a, 0) => format!("↑ {} above · K scrolls back", counted(a, "line", "lines")),
        (a, b) => format!("↑ {} above, ↓ {b} more · J/K scroll", counted(a, "line", "lines")),
    };
    window.push(Line::styled(sign, theme.dim));
    window
}

/// The fixes being typed (`w`), drawn while the prompt is open, whether or not the failure's
/// own fixes have been replayed yet.
fn prompt_line(fixes: &FixList) -> Option<String> {
    let text = fixes.prompt.as_ref()?;
    Some(format!("What if (fixes separated by commas, e.g. free 8@10, output-to-dram): {text}█"))
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
pub fn draw(
    frame: &mut Frame,
    area: Rect,
    view: &View,
    operation: Option<usize>,
    tab: &mut MemoryTab,
    replay: &JobState,
) {
    let theme = view.theme;
    let message = |frame: &mut Frame, text: String| {
        let lines = wrap_lines([Line::from(text)], area.width.saturating_sub(2) as usize);
        frame.render_widget(Paragraph::new(lines).style(theme.dim), area.inner(Margin::new(1, 1)));
    };
    let Some(i) = operation else { return message(frame, "No operation selected".into()) };
    let by_address = tab.by_address;
    let (picture, holders, fixes, advice) = tab.drawn(i);
    let picture = match picture {
        None => return message(frame, "Reading the memory of this operation…".into()),
        Some(Loaded::Unavailable(reason)) => return message(frame, format!("The memory cannot be read: {reason}")),
        Some(Loaded::Ready(MemoryPicture::Nothing(reason))) => {
            return message(frame, no_picture_sentence(view.model.operations[i].id, reason));
        }
        Some(Loaded::Ready(MemoryPicture::NeedsReplay)) => return draw_replay(frame, area, view, replay),
        Some(Loaded::Ready(picture)) => picture,
    };
    let width = area.width as usize;
    let head = truncate_line(Line::styled(heading(view, i, picture), theme.bold), width);
    let (text, fix_at) = advice_lines(sentences(view, picture, fixes, i), width);
    // The map takes 5 lines and the holders table keeps at least 5 (two rows).
    let room = (area.height as usize).saturating_sub(1 + 5 + 5).max(1);
    let text_height = text.len().min(room.min((area.height as usize / 3).max(2)));
    let text = advice_window(text, text_height, fix_at, advice, theme);
    let text_height = text_height as u16;
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
    let after = fixes.after(i);
    let (map, live, (request, band), request_at) = match (picture, after) {
        (MemoryPicture::Failure(_), Some(a)) => (
            &a.map,
            MapBuffers::AfterFix(&a.live),
            (a.request.map(|r| r.1), a.circular_buffers),
            a.request.map(|r| r.0),
        ),
        (MemoryPicture::Failure(m), None) => (&m.map, MapBuffers::Live(&m.live_buffers), failure_marks(m), None),
        (MemoryPicture::Operation(m), _) => (&m.map, MapBuffers::Live(&m.live_buffers), (None, None), None),
        _ => return,
    };
    let marks = MapMarks { request, request_at, circular_buffers: band, selected };
    let block = Block::new().borders(Borders::ALL).title_bottom(legend(theme, &marks));
    let inner = block.inner(map_area);
    let (lines, cell) = map_lines(map, live, &marks, inner.width as usize, view.hex, theme);
    let title = match fixes.shown(i) {
        Some((_, r)) => format!(" Map after {} · {} a column ", r.advice.title(), size(cell)),
        None => format!(" Map · {} a column ", size(cell)),
    };
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
