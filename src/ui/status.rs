//! The status bar: where the user is, filters, search, the perf report's link and the one-off
//! message on the first line (the message, last, is what is cut with `…` when too long); the key hints of the focused pane, from its binding table, on
//! the second — disabled keys dimmed, keys that make no sense here left out, and `? help` and
//! `q quit` kept at every width.

use super::performance::link_status;
use super::theme::Theme;
use super::wrap::truncate_line;
use crate::analysis::model::ERRORS_NOT_RECORDED;
use crate::app::bindings::{bindings, hint_text};
use crate::app::{Action, App, Availability, Binding, OperationsTab, Pane, PerfState, PerfTab, Tab};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use unicode_width::UnicodeWidthStr;

/// The first line's texts, separated by `│`.
pub(crate) fn state_texts(app: &App) -> Vec<String> {
    let mut parts = Vec::new();
    if let Some((operations, added)) = app.live {
        let added = if added > 0 { format!(" (+{added})") } else { String::new() };
        parts.push(format!("live · {} operations{added}", spaced(operations)));
    }
    match (&app.perf, app.tab) {
        (PerfState::Ready(perf), Tab::Performance) => parts.extend(perf_texts(perf)),
        _ => parts.extend(operations_texts(app)),
    }
    if !app.model.errors_recorded {
        parts.push(ERRORS_NOT_RECORDED.to_lowercase());
    }
    if app.hex {
        parts.push("hex".to_string());
    }
    if let Some(e) = &app.model.stack_trace_error {
        parts.push(e.clone());
    }
    parts
}

/// The Performance tab's texts: the row's position, and the view's filters.
fn perf_texts(perf: &PerfTab) -> Vec<String> {
    let position = perf.table.selected().map_or(0, |s| s + 1);
    let mut parts = vec![format!("row {position}/{}", perf.shown.len())];
    if perf.flagged_only {
        parts.push("flagged only".to_string());
    }
    if perf.per_device {
        parts.push("per device".to_string());
    }
    parts
}

/// The operations list's texts, on every other tab: the selected operation and its position,
/// the errors-only filter, the search.
fn operations_texts(app: &App) -> Vec<String> {
    let tab = &app.operations;
    let mut parts = vec![match tab.selected_operation() {
        Some(i) => {
            let position = tab.rows.selected().map_or(0, |s| s + 1);
            format!("op {} · {position}/{}", app.model.operations[i].id, tab.shown.len())
        }
        None => format!("0/{}", tab.shown.len()),
    }];
    if tab.errors_only {
        parts.push("errors only".to_string());
    }
    parts.extend(search_text(tab));
    parts
}

/// The search while it is edited or has a query: `/query`, the cursor while editing, and which
/// match is selected.
fn search_text(tab: &OperationsTab) -> Option<String> {
    let search = &tab.search;
    if !search.editing && search.query.is_empty() {
        return None;
    }
    let cursor = if search.editing { "█" } else { "" };
    let count = match search.matches.len() {
        _ if search.query.is_empty() => String::new(),
        0 => " no matches".to_string(),
        n => {
            let selected = tab.rows.selected().unwrap_or(0);
            let current = search.matches.binary_search(&selected).map_or(0, |k| k + 1);
            format!(" {current}/{n} matches")
        }
    };
    Some(format!("/{}{cursor}{count}", search.query))
}

/// A count with its thousands separated by spaces, as `1 234`.
fn spaced(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (k, c) in digits.chars().enumerate() {
        if k > 0 && (digits.len() - k).is_multiple_of(3) {
            out.push(' ');
        }
        out.push(c);
    }
    out
}

/// The hints of the focused pane, with whether each is enabled; absent keys are left out.
pub fn hints(app: &App) -> Vec<(&'static Binding, bool)> {
    bindings(app.pane())
        .filter(|b| b.hint)
        .filter_map(|b| match app.availability(b.action) {
            Availability::Absent => None,
            availability => Some((b, availability == Availability::Enabled)),
        })
        .collect()
}

/// The hints a popup's bottom border gives, from its pane's table: ` j/k scroll · Esc close `.
pub(crate) fn popup_hints(pane: Pane, actions: &[Action]) -> String {
    let hints: Vec<String> = actions.iter().map(|&a| hint_text(pane, a)).collect();
    format!(" {} ", hints.join(" · "))
}

/// The hints that fit `width` columns: help and quit always, the others in order while they fit.
pub(crate) fn fitted_hints(app: &App, width: usize) -> Vec<(&'static Binding, bool)> {
    let all = hints(app);
    let always = |b: &Binding| matches!(b.action, Action::Help | Action::Quit);
    let wide = |b: &Binding| b.label.width() + b.description.width() + 3;
    let reserved: usize = all.iter().filter(|(b, _)| always(b)).map(|(b, _)| wide(b)).sum();
    let mut room = width.saturating_sub(1 + reserved);
    all.into_iter()
        .filter(|(b, _)| {
            if always(b) {
                return true;
            }
            let fits = wide(b) <= room;
            room = if fits { room - wide(b) } else { 0 };
            fits
        })
        .collect()
}

/// Draws the two lines.
pub(crate) fn draw(frame: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    let width = area.width as usize;
    // The state and the link status first: a long message is what gets cut, not them.
    let mut first = vec![Span::styled(format!(" {}", state_texts(app).join(" │ ")), theme.bold)];
    if let Some(link) = link_status(&app.perf) {
        first.push(Span::styled(format!(" │ {link}"), theme.dim));
    }
    if let Some(message) = &app.message {
        first.push(Span::styled(format!(" │ {message}"), theme.bold));
    }
    let mut second = vec![Span::raw(" ")];
    for (binding, enabled) in fitted_hints(app, width) {
        let (key_style, text_style) = if enabled { (theme.key, theme.text) } else { (theme.dim, theme.dim) };
        second.push(Span::styled(binding.label, key_style));
        second.push(Span::styled(format!(" {}  ", binding.description), text_style));
    }
    let lines = vec![truncate_line(Line::from(first), width), truncate_line(Line::from(second), width)];
    frame.render_widget(Paragraph::new(lines), area);
}
