//! Tab 5's list of the tensors held past their last use (issue 16), under the chart: its heading
//! (what freeing all of them does to the peak), wrapped; one short row per tensor, its saving
//! first, so the figures show at 80 columns; and under the rows the selected one's whole
//! suggestion, wrapped — the line `y` copies.

use super::view::View;
use super::wrap::{truncate_line, wrap_lines};
use crate::analysis::memory::late::{LateTensor, late_at_failure_sentence, late_heading, late_row, suggestion};
use crate::app::OverTimeTab;
use ratatui::style::Style;
use ratatui::text::Line;

/// The list's parts at one width: the heading and the selected tensor's suggestion, wrapped.
struct Parts {
    heading: Vec<Line<'static>>,
    detail: Vec<Line<'static>>,
}

fn parts(view: &View, tab: &OverTimeTab, width: usize) -> Option<Parts> {
    if let Some(reason) = &tab.late_unavailable {
        let line = Line::styled(format!("Held past their last use unavailable: {reason}"), view.theme.bold);
        return Some(Parts { heading: wrap_lines([line], width), detail: Vec::new() });
    }
    let summary = tab.late_summary_of_shown()?;
    let heading = format!("Held past their last use: {}", late_heading(summary));
    let mut lines = vec![Line::styled(heading, view.theme.bold)];
    // At the line's failure under the cursor (or the next), what freeing them all does (replayed).
    if let Some(f) = tab.late_failure_at_cursor() {
        let name = view.model.operation_index(f.operation_id).map_or("", |i| view.model.operations[i].name.as_ref());
        lines.push(Line::from(late_at_failure_sentence(f, name, view.hex)));
    }
    let heading = wrap_lines(lines, width);
    let detail = tab.selected_late().map_or_else(Vec::new, |t| wrap_lines([Line::from(suggestion(t))], width));
    Some(Parts { heading, detail })
}

/// The lines the list wants in `width` columns out of a tab `height` lines tall: all of it when
/// it fits in a third of the tab, else a third — but never less than the heading, the selected
/// one's suggestion and one row (nor more than half the tab). None without a list.
pub(crate) fn late_height(view: &View, tab: &OverTimeTab, width: usize, height: u16) -> u16 {
    let Some(Parts { heading, detail }) = parts(view, tab, width) else { return 0 };
    let rows = tab.late_of_shown().len();
    let wanted = heading.len() + rows + detail.len();
    let least = heading.len() + rows.min(1) + detail.len();
    let room = (height as usize / 3).max(least).min(height as usize / 2).max(2);
    wanted.min(room) as u16
}

/// The list's lines in `width` × `height`: the heading, the rows around the selected one (marked),
/// biggest saving first, then the selected one's suggestion.
pub(crate) fn late_lines(
    view: &View,
    tab: &OverTimeTab,
    late: &[&LateTensor],
    width: usize,
    height: usize,
) -> Vec<Line<'static>> {
    let Some(Parts { heading, detail }) = parts(view, tab, width) else { return Vec::new() };
    let rows = height.saturating_sub(heading.len() + detail.len()).max(1);
    let offset = tab.late_selected.map_or(0, |k| (k + 1).saturating_sub(rows));
    let mut lines = heading;
    for (k, t) in late.iter().enumerate().skip(offset).take(rows) {
        let selected = tab.late_selected == Some(k);
        let (mark, style) = if selected { ("▶ ", view.theme.selected) } else { ("  ", Style::default()) };
        lines.push(truncate_line(Line::styled(format!("{mark}{}", late_row(t)), style), width));
    }
    lines.extend(detail);
    lines.truncate(height);
    lines
}
