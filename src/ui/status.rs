//! The status bar: report name, position, filter, search and message on the first line; the key
//! hints of the focused pane, from the key table, on the second (disabled keys dimmed).

use crate::app::{App, KEY_TABLE, Pane};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

/// The first line's texts, separated by `│`.
pub fn state_texts(app: &App) -> Vec<String> {
    let mut parts = vec![app.name.clone()];
    let shown = app.list.shown.len();
    let position = if shown == 0 { 0 } else { app.list.selected + 1 };
    parts.push(format!("op {position}/{shown}"));
    if app.errors_only {
        parts.push("errors only".to_string());
    }
    if app.search.editing || !app.search.query.is_empty() {
        let cursor = if app.search.editing { "█" } else { "" };
        let count = match app.search.matches.len() {
            _ if app.search.query.is_empty() => String::new(),
            0 => " no matches".to_string(),
            n => {
                let current = app.search.matches.binary_search(&app.list.selected).map_or(0, |k| k + 1);
                format!(" {current}/{n} matches")
            }
        };
        parts.push(format!("/{}{cursor}{count}", app.search.query));
    }
    if app.hex {
        parts.push("hex".to_string());
    }
    if let Some(e) = &app.load_error {
        parts.push(e.clone());
    }
    parts
}

/// The hints of a pane: `(keys, description, enabled)` from the key table.
pub fn hints(app: &App, pane: Pane) -> Vec<(&'static str, &'static str, bool)> {
    KEY_TABLE
        .iter()
        .filter(|b| b.hint && b.panes.contains(&pane))
        .map(|b| (b.keys, b.description, app.enabled(b.action)))
        .collect()
}

/// Draws the two lines.
pub fn draw(frame: &mut Frame, app: &App, area: Rect) {
    let theme = &app.theme;
    let mut first = vec![Span::styled(format!(" {}", state_texts(app).join(" │ ")), theme.bold)];
    if let Some(message) = &app.message {
        first.push(Span::styled(format!(" │ {message}"), theme.warning));
    }
    let mut second = vec![Span::raw(" ")];
    for (keys, description, enabled) in hints(app, app.pane()) {
        let (key_style, text_style) = if enabled { (theme.key, theme.text) } else { (theme.dim, theme.dim) };
        second.push(Span::styled(keys, key_style));
        second.push(Span::styled(format!(" {description}  "), text_style));
    }
    frame.render_widget(Paragraph::new(vec![Line::from(first), Line::from(second)]), area);
}
