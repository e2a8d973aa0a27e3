//! The Over time tab: the memory used per bank after every operation on one device and buffer
//! type, as a chart — the line, the region's size as a ceiling, the failures and the peak marked,
//! the cursor on the selected operation — with a line under it saying what the cursor shows, and
//! a progress bar while the one pass over `buffers` runs; below, the tensors held past their
//! last use on that line (issue 16), the selected one's span marked on the chart.

use super::compare;
use super::core_grid::{grid_height, grid_lines, grid_width, none_line};
use super::late_list::{late_height, late_lines};
use super::progress::draw_progress;
use super::view::View;
use super::wrap::{truncate_line, wrap_lines};
use crate::analysis::format::size;
use crate::analysis::memory::late::LateTensor;
use crate::analysis::memory::peak::OperationPeak;
use crate::analysis::memory::usage_series::{UsageBasis, UsageSeries};
use crate::analysis::memory::{MemoryNote, named_device};
use crate::app::{Comparison, JobState, OverTimeTab, UsageSource};
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Margin, Rect};
use ratatui::style::Style;
use ratatui::symbols::Marker;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Axis, Block, Borders, Chart, Dataset, GraphType, Paragraph};

/// What the line under the chart says of the cursor's operation.
pub fn cursor_line(view: &View, series: &UsageSeries, cursor: usize) -> String {
    let Some(point) = series.points.get(cursor) else { return String::new() };
    let name = view.model.operation_index(point.operation_id).map_or("", |i| view.model.operations[i].name.as_ref());
    let used = match (point.used_per_bank, point.recorded) {
        (None, _) => "nothing recorded yet on this device".to_string(),
        (Some(u), true) => format!("{} per bank after it", size(u)),
        (Some(u), false) => format!("{} per bank (carried over: no figure of its own)", size(u)),
    };
    let mut line = format!("operation {} {name} · {used}", point.operation_id);
    if series.failures.contains(&cursor) {
        line.push_str(" · ✖ failed here");
    }
    if let Some(peak) = series.peak_point() {
        let at = if series.peak == Some(cursor) {
            " (this one)".to_string()
        } else {
            format!(" at operation {}", peak.operation_id)
        };
        line.push_str(&format!(" · peak {}{at}", size(peak.used_per_bank.unwrap_or(0))));
    }
    if let Some(ceiling) = series.ceiling {
        line.push_str(&format!(" · region {}", size(ceiling.size)));
    }
    if series.set_aside_rows > 0 {
        let count = usize::try_from(series.set_aside_rows).unwrap_or(usize::MAX);
        line.push_str(&format!(" · {}", MemoryNote::BadBuffers { count, source: "buffers rows" }.text(false)));
    }
    line
}

/// The true-peak line under the after-operation line: the cursor's operation's true peak and
/// what filled it, then the tightest operation of the line.
pub fn true_peak_line(view: &View, series: &UsageSeries, peaks: &[&OperationPeak], cursor: usize) -> Option<String> {
    let tightest = peaks.iter().filter(|p| p.bank_size.is_some()).min_by_key(|p| (p.room(), p.operation_id))?;
    let name = |id: u64| view.model.operation_index(id).map_or("", |i| view.model.operations[i].name.as_ref());
    let at = series.points.get(cursor).and_then(|pt| peaks.iter().find(|p| p.operation_id == pt.operation_id));
    let mut line = match at {
        Some(p) => {
            let c = &p.composition;
            format!(
                "true peak {} inside it: circular buffers {} · own {} · live {} · stale {}",
                size(p.peak_per_bank),
                size(c.circular_buffers),
                size(c.own),
                size(c.live),
                size(c.stale)
            )
        }
        None => "true peak: none recorded inside it".to_string(),
    };
    let left = tightest.room().map_or_else(String::new, |r| format!(", {} left", size(r)));
    line.push_str(&format!(
        " · tightest: operation {} {} ({} at its peak{left})",
        tightest.operation_id,
        name(tightest.operation_id),
        size(tightest.peak_per_bank)
    ));
    Some(line)
}

/// A line of the chart: name, marker, kind, style, points.
type ChartLine<'a> = (&'static str, Marker, GraphType, Style, &'a [(f64, f64)]);

/// Draws the tab, with the earlier run's line when compared (`compare`; `passes`: the shown
/// run's pass and the earlier run's).
pub fn draw(
    frame: &mut Frame,
    area: Rect,
    (view, compare): (&View, Option<&Comparison>),
    tab: &OverTimeTab,
    (pass, before_pass): (&JobState, &JobState),
) {
    let theme = view.theme;
    let inner = area.inner(Margin::new(1, 1));
    let message = |frame: &mut Frame, text: &str| {
        let lines = wrap_lines([Line::from(text.to_string())], inner.width as usize);
        frame.render_widget(Paragraph::new(lines).style(theme.dim), inner);
    };
    let Some(series) = tab.series() else {
        return match pass {
            JobState::Failed(reason) => message(frame, &format!("The run over time cannot be read: {reason}")),
            JobState::Done => {
                message(frame, "The report records no buffers on any device, and no captured graph allocates any.")
            }
            pass => draw_progress(frame, inner, view.theme, progress_text(tab, pass), pass),
        };
    };
    let late = tab.late_of_shown();
    let list_height = late_height(view, tab, area.width as usize, area.height);
    let peaks = tab.true_peaks_of_shown();
    let foot_height = if compare.is_some() { 3 } else { 2 } + u16::from(!peaks.is_empty());
    let [head, chart_area, foot, list] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Fill(1),
        Constraint::Length(foot_height),
        Constraint::Length(list_height),
    ])
    .areas(area);
    let basis = match series.basis {
        UsageBasis::Snapshots => "from the buffers snapshots",
        UsageBasis::GraphOnlyPass => "from the captured graphs (no buffers snapshots)",
    };
    let title = format!(
        "Memory over the run · device {} · {} · per bank after each operation, {basis}",
        named_device(series.device_id, tab.single_chip),
        series.buffer_type.label()
    );
    frame.render_widget(Paragraph::new(truncate_line(Line::styled(title, theme.bold), area.width as usize)), head);
    let before = compare.and_then(|c| Some((c, c.line((series.device_id, series.buffer_type))?)));
    let chart_area = if tab.grid_shown { draw_grid(frame, chart_area, view, tab) } else { chart_area };
    draw_chart(frame, chart_area, view, (series, &peaks), (tab.cursor, tab.selected_late(), before));
    let mut text = wrap_lines([Line::from(cursor_line(view, series, tab.cursor))], foot.width as usize);
    if let Some(line) = true_peak_line(view, series, &peaks, tab.cursor) {
        // The true-peak line keeps its own row under the after-operation line.
        text.truncate(1);
        text.push(truncate_line(Line::styled(line, theme.bold), foot.width as usize));
    }
    if let Some(c) = compare {
        // The last line of the foot is BEFORE's.
        text.truncate(foot_height as usize - 1);
        text.push(truncate_line(
            Line::styled(compare::cursor_line(c, before_pass, series, tab.cursor), theme.dim),
            foot.width as usize,
        ));
    }
    frame.render_widget(Paragraph::new(text), foot);
    let lines = late_lines(view, tab, &late, list.width as usize, list.height as usize);
    frame.render_widget(Paragraph::new(lines), list);
}

/// The least columns and lines the chart keeps beside or above the per-core grid.
const CHART_LEAST: (u16, u16) = (36, 6);

/// Draws the per-core grid (`c`) beside the chart when both fit side by side, else under it;
/// gives back the chart's area.
fn draw_grid(frame: &mut Frame, area: Rect, view: &View, tab: &OverTimeTab) -> Rect {
    let Some((peak, grid)) = tab.core_grid_at_cursor() else {
        let Some(why) = none_line(tab) else { return area };
        let [chart, line] = Layout::vertical([Constraint::Fill(1), Constraint::Length(1)]).areas(area);
        frame
            .render_widget(Paragraph::new(truncate_line(Line::styled(why, view.theme.dim), line.width as usize)), line);
        return chart;
    };
    let wide = grid_width(grid) as u16 + 1;
    let (chart, place) = if area.width >= wide + CHART_LEAST.0 {
        let [chart, _, place] =
            Layout::horizontal([Constraint::Fill(1), Constraint::Length(1), Constraint::Length(wide - 1)]).areas(area);
        (chart, place)
    } else {
        let wanted = grid_height(view, peak, grid, area.width as usize) as u16;
        let tall = wanted.min(area.height.saturating_sub(CHART_LEAST.1)).max(1);
        let [chart, place] = Layout::vertical([Constraint::Fill(1), Constraint::Length(tall)]).areas(area);
        (chart, place)
    };
    let lines = grid_lines(view, peak, grid, place.width as usize, place.height as usize);
    frame.render_widget(Paragraph::new(lines), place);
    chart
}

/// What the tab says while its pass runs: the pass over `buffers`, with how to cancel it, or the
/// replay.
fn progress_text(tab: &OverTimeTab, pass: &JobState) -> String {
    let (done, total) = match *pass {
        JobState::Running { done, total } => (done, total),
        _ => (0, 0),
    };
    match tab.source {
        UsageSource::GraphOnlyPass => {
            "This report has no buffers snapshots: replaying every captured graph to follow the memory over the run…"
                .to_string()
        }
        UsageSource::Snapshots => format!(
            "Reading every buffers row once for the session: {done} of {total} rows (leave the tab to cancel; coming back goes on from there)…"
        ),
    }
}

/// The chart's points, one set per line, and the ends of its axes.
struct ChartPoints {
    used: Vec<(f64, f64)>,
    /// Each operation's true peak.
    true_peak: Vec<(f64, f64)>,
    held: Vec<(f64, f64)>,
    cursor: Vec<(f64, f64)>,
    ceiling: Vec<(f64, f64)>,
    peak: Vec<(f64, f64)>,
    failures: Vec<(f64, f64)>,
    /// The earlier run's line (`--compare`) and its failures, on this run's axis.
    before: Vec<(f64, f64)>,
    before_failures: Vec<(f64, f64)>,
    /// The higher of the ceiling and the peak (at least 1 byte): the y axis's top before margin.
    top: f64,
    /// The x of the last operation (at least 1).
    last: f64,
}

impl ChartPoints {
    /// The points of `series`, the cursor's line at `cursor`, the span `late` is held for, and
    /// the earlier run's line `before`.
    fn new((series, peaks): (&UsageSeries, &[&OperationPeak]), (cursor, late, before): Marks) -> Self {
        let used = series.points.iter().enumerate().filter_map(|(x, p)| Some((x as f64, p.used_per_bank? as f64)));
        let by_id: std::collections::HashMap<u64, u64> =
            peaks.iter().map(|p| (p.operation_id, p.peak_per_bank)).collect();
        let true_peak: Vec<(f64, f64)> = series
            .points
            .iter()
            .enumerate()
            .filter_map(|(x, p)| Some((x as f64, *by_id.get(&p.operation_id)? as f64)))
            .collect();
        let (before, before_failures) = before.map(|(c, b)| compare::before_points(c, b)).unwrap_or_default();
        let top = series
            .ceiling
            .map(|c| c.size)
            .into_iter()
            .chain(series.peak_point().and_then(|p| p.used_per_bank))
            .chain(before.iter().map(|p| p.1 as u64))
            .chain(true_peak.iter().map(|p| p.1 as u64))
            .max()
            .unwrap_or(1)
            .max(1) as f64;
        let last = series.points.len().saturating_sub(1).max(1) as f64;
        let y_at = |k: usize| series.points.get(k).and_then(|p| p.used_per_bank).unwrap_or(0) as f64;
        // The selected late tensor's span: the line over the operations it is held past its last use.
        let held = late.map_or_else(Vec::new, |t| {
            let span = t.last_use_operation_id + 1..=t.held_until_operation_id;
            series
                .points
                .iter()
                .enumerate()
                .filter(|(_, p)| span.contains(&p.operation_id))
                .map(|(x, _)| (x as f64, y_at(x)))
                .collect()
        });
        ChartPoints {
            used: used.collect(),
            true_peak,
            held,
            cursor: vec![(cursor as f64, 0.0), (cursor as f64, top)],
            ceiling: series.ceiling.map(|c| vec![(0.0, c.size as f64), (last, c.size as f64)]).unwrap_or_default(),
            peak: series.peak.map(|k| (k as f64, y_at(k))).into_iter().collect(),
            failures: series.failures.iter().map(|&k| (k as f64, y_at(k))).collect(),
            before,
            before_failures,
            top,
            last,
        }
    }
}

/// What is marked on the chart beside the line: the cursor, the late tensor chosen, and the
/// earlier run's line (`--compare`).
type Marks<'a> = (usize, Option<&'a LateTensor>, Option<(&'a Comparison, &'a UsageSeries)>);

/// The chart: the line, the ceiling, the failures, the peak and the cursor; compared, the
/// earlier run's line and failures.
fn draw_chart(frame: &mut Frame, area: Rect, view: &View, lines_of: (&UsageSeries, &[&OperationPeak]), marks: Marks) {
    let theme = view.theme;
    let series = lines_of.0;
    let compared = marks.2.is_some();
    let ChartPoints { used, true_peak, held, cursor, ceiling, peak, failures, before, before_failures, top, last } =
        ChartPoints::new(lines_of, marks);
    // Each line: its name, marker, kind, style and points; empty ones are left out.
    let lines: [ChartLine; 9] = [
        ("before", Marker::Dot, GraphType::Line, theme.dim, &before),
        ("✖ before", Marker::Dot, GraphType::Scatter, theme.warning, &before_failures),
        ("true peak", Marker::Dot, GraphType::Scatter, theme.warning, &true_peak),
        (if compared { "after" } else { "used" }, Marker::Braille, GraphType::Line, theme.key, &used),
        ("held", Marker::Dot, GraphType::Scatter, theme.warning, &held),
        ("cursor", Marker::Dot, GraphType::Line, theme.dim, &cursor),
        ("region", Marker::Dot, GraphType::Line, theme.warning, &ceiling),
        ("peak", Marker::Bar, GraphType::Scatter, theme.bold, &peak),
        (if compared { "✖ after" } else { "✖ failed" }, Marker::Block, GraphType::Scatter, theme.danger, &failures),
    ];
    let shown: Vec<ChartLine> =
        lines.into_iter().filter(|(name, .., data)| matches!(*name, "used" | "after") || !data.is_empty()).collect();
    // The legend goes under the chart, where it covers no line (issue 30 §4.7: in the chart's
    // corner it hid the region's line).
    let mut legend_spans = Vec::new();
    let wide: usize = shown.iter().map(|(name, ..)| name.chars().count() + 4).sum();
    let gap = if wide + 2 <= area.width as usize { "  " } else { " " };
    for (name, marker, _, style, _) in &shown {
        let glyph = match marker {
            Marker::Braille => "⣀",
            Marker::Bar => "▄",
            Marker::Block => "█",
            _ => "•",
        };
        legend_spans.push(Span::styled(format!("{glyph} "), *style));
        legend_spans.push(Span::raw(format!("{name}{gap}")));
    }
    let datasets: Vec<Dataset> = shown
        .into_iter()
        .map(|(name, marker, kind, style, data)| {
            Dataset::default().name(name).marker(marker).graph_type(kind).style(style).data(data)
        })
        .collect();
    let id = |k: usize| series.points.get(k).map_or(String::new(), |p| format!("op {}", p.operation_id));
    let x_labels = vec![Span::raw(id(0)), Span::raw(id(series.points.len().saturating_sub(1)))];
    let y_labels = vec![Span::raw("0 B"), Span::raw(size(top as u64))];
    let chart = Chart::new(datasets)
        .legend_position(None)
        .block(Block::new().borders(Borders::ALL).title_bottom(Line::from(legend_spans)))
        .x_axis(Axis::default().bounds([0.0, last]).labels(x_labels).style(theme.dim))
        .y_axis(Axis::default().bounds([0.0, top * 1.05]).labels(y_labels).style(theme.dim));
    frame.render_widget(chart, area);
}
