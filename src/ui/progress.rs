//! The progress of a background pass, as both tabs that wait for one draw it: what is being
//! done, wrapped, and a gauge under it.

use super::theme::Theme;
use super::wrap::wrap_lines;
use crate::app::JobState;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::Line;
use ratatui::widgets::{Gauge, Paragraph};

/// Draws `text` (dimmed, wrapped to the area) and, unless the pass failed, a gauge of how far
/// it is.
pub(crate) fn draw_progress(frame: &mut Frame, area: Rect, theme: &Theme, text: String, pass: &JobState) {
    let lines = wrap_lines([Line::from(text)], area.width as usize);
    let height = u16::try_from(lines.len()).unwrap_or(u16::MAX);
    let [text_area, gauge_area, _] =
        Layout::vertical([Constraint::Length(height), Constraint::Length(1), Constraint::Fill(1)]).areas(area);
    frame.render_widget(Paragraph::new(lines).style(theme.dim), text_area);
    if !matches!(pass, JobState::Failed(_)) {
        let ratio = pass.fraction();
        let gauge = Gauge::default().ratio(ratio).label(format!("{:.0} %", ratio * 100.0)).gauge_style(theme.key);
        frame.render_widget(gauge, gauge_area);
    }
}
