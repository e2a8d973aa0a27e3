//! What `--compare` adds to the screen: above tab 1's list, the line the comparison leads with;
//! in the list, each failure marked new or kept and each operation where BEFORE failed marked gone;
//! on tab 5, BEFORE's line of the same device and buffer type, its failures, and the BEFORE
//! operation aligned with the cursor's.

use super::view::View;
use super::wrap::{truncate_line, wrap_lines};
use crate::analysis::format::size;
use crate::analysis::memory::usage_series::UsageSeries;
use crate::app::{Change, Comparison, JobState};
use ratatui::style::Style;
use ratatui::text::{Line, Span};

/// The width of the error marker column when compared (`✖ error kept` and a space).
pub(crate) const MARKER_WIDTH: usize = 13;

/// The lines above the list: `vs {BEFORE}: ` and the lead line, wrapped to at most two lines.
pub(crate) fn banner_lines(view: &View, compare: &Comparison, width: usize) -> Vec<Line<'static>> {
    let line = Line::from(vec![
        Span::styled(format!("vs {}: ", compare.name), view.theme.dim),
        Span::styled(compare.lead.clone(), view.theme.bold),
    ]);
    let mut lines = wrap_lines([line], width);
    if lines.len() > 2 {
        // The rest on the second line, cut with `…`.
        let rest: Vec<Span<'static>> =
            lines.drain(1..).flat_map(|l| l.spans.into_iter().chain([Span::raw(" ")])).collect();
        lines.push(truncate_line(Line::from(rest), width));
    }
    lines
}

/// The marker of a list row, compared: the error marker and `new` or `kept`, or `✔ gone` where
/// BEFORE failed on the aligned operation; with its style.
pub(crate) fn marker(view: &View, compare: &Comparison, operation: usize) -> (String, Style) {
    let theme = view.theme;
    let error = view.model.marker(operation);
    match (compare.change(operation), error) {
        (Some(Change::Gone), None) => ("✔ gone".to_string(), theme.key),
        (Some(change), Some(mark)) => (format!("{mark} {}", change.word()), theme.danger.patch(theme.bold)),
        (_, Some(mark)) => (mark.to_string(), theme.danger.patch(theme.bold)),
        (_, None) => (String::new(), theme.text),
    }
}

/// Points of a chart line, `(x, bytes per bank)`.
pub(crate) type Points = Vec<(f64, f64)>;

/// BEFORE's points on the shown run's axis, and those of its failures, for the shown line.
pub(crate) fn before_points(compare: &Comparison, before: &UsageSeries) -> (Points, Points) {
    let at = |k: usize| Some((*compare.x.get(k)?, before.points.get(k)?.used_per_bank? as f64));
    let line = (0..before.points.len()).filter_map(at).collect();
    let failures = before.failures.iter().filter_map(|&k| at(k)).collect();
    (line, failures)
}

/// What the line under the chart says of BEFORE at the cursor: its aligned operation and the
/// memory after it, or why there is none.
pub(crate) fn cursor_line(compare: &Comparison, pass: &JobState, shown: &UsageSeries, cursor: usize) -> String {
    let before = compare.line((shown.device_id, shown.buffer_type));
    let Some(before) = before else {
        return match pass {
            JobState::Done => {
                format!("before ({}): no {} line on a device like this one", compare.name, shown.buffer_type.token())
            }
            JobState::Failed(reason) => format!("before: cannot be read: {reason}"),
            JobState::Running { done, total } => format!("before: reading its buffers rows, {done} of {total}…"),
            JobState::Idle => "before: reading its buffers rows…".to_string(),
        };
    };
    let Some(index) = compare.alignment.before_of(cursor) else {
        return "before: no operation aligned with this one (only this run has it)".to_string();
    };
    let op = &compare.operations[index];
    let used = match before.points.get(index).and_then(|p| p.used_per_bank) {
        Some(used) => format!("{} per bank after it", size(used)),
        None => "nothing recorded yet on this device".to_string(),
    };
    let failed = if before.failures.contains(&index) { " · ✖ failed here" } else { "" };
    format!("before: operation {} {} · {used}{failed}", op.id, op.name)
}
