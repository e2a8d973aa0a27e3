//! The tab bar: `1 Operations`, `2 Device ops`, `3 Performance`, and the report's name.

use super::theme::Theme;
use super::wrap::truncate_line;
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

/// Draws the tab bar: the tabs, then `ttnn-tui · {report name}`. When that does not fit, the
/// tabs lose their padding and the name its prefix, so the report's name is still read (cut
/// with `…` only when it alone is too long).
pub(crate) fn draw(frame: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    let width = area.width as usize;
    let full = bar(app, theme, false);
    let line = if full.width() <= width { full } else { bar(app, theme, true) };
    frame.render_widget(Paragraph::new(truncate_line(line, width)), area);
}

/// The bar's line, `compact` or not.
fn bar(app: &App, theme: &Theme, compact: bool) -> Line<'static> {
    let mut spans = Vec::new();
    for tab in TABS {
        let style = if tab == app.tab { theme.active_tab } else { theme.dim };
        let text = match (tab == app.tab, compact) {
            (true, _) => format!("[{}]", title(tab)),
            (false, false) => format!(" {} ", title(tab)),
            (false, true) => title(tab).to_string(),
        };
        spans.push(Span::styled(text, style));
        spans.push(Span::raw(" "));
    }
    // Compared (`--compare`), the shown run after the earlier one.
    let shown = match app.comparison() {
        Some(c) => format!("{} → {}", c.name, app.model.name),
        None => app.model.name.clone(),
    };
    let name = if compact { format!(" {shown}") } else { format!("  ttnn-tui · {shown}") };
    spans.push(Span::styled(name, theme.dim));
    Line::from(spans)
}
