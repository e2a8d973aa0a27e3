//! The tab bar: `1 Operations`, `2 Device ops`, `3 Performance`, and the report's name.

use super::Theme;
use super::text::truncate_line;
use crate::app::{App, TABS, Tab};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

/// The tab's title, with its number key.
pub(crate) fn title(tab: Tab) -> &'static str {
    match tab {
        Tab::Operations => "1 Operations",
        Tab::DeviceOps => "2 Device ops",
        Tab::Performance => "3 Performance",
        Tab::Memory => "4 Memory",
        Tab::OverTime => "5 Over time",
    }
}

/// Draws the tab bar.
pub(crate) fn draw(frame: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    let mut spans = Vec::new();
    for tab in TABS {
        let style = if tab == app.tab { theme.active_tab } else { theme.dim };
        let text = if tab == app.tab { format!("[{}]", title(tab)) } else { format!(" {} ", title(tab)) };
        spans.push(Span::styled(text, style));
        spans.push(Span::raw(" "));
    }
    spans.push(Span::styled(format!("  ttnn-tui · {}", app.model.name), theme.dim));
    frame.render_widget(Paragraph::new(truncate_line(Line::from(spans), area.width as usize)), area);
}
