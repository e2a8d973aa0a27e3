//! The texts of the Operations tab, built from the state: list labels and markers, the failure
//! callout, expanded items (behaviour.md §7.2), the detail pane, the unattached-errors callout
//! (§7.5) and what `y` copies.

use super::App;
use crate::analysis::failure::FailureKind;
use crate::analysis::reason::CalloutBody;
use crate::analysis::stack::source_label;
use crate::report::ErrorRecord;
use crate::ui::theme::Theme;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

/// How many unattached errors the callout explains before `And {n − 5} more.`.
pub const UNATTACHED_SHOWN: usize = 5;

/// The list label of behaviour.md §1.5: `{id} {name} ({file}:{line})`, the place once the stack
/// trace is loaded.
pub fn list_label(app: &App, operation: usize) -> String {
    let op = &app.operations[operation];
    match app.stack_traces.get(&operation).and_then(|t| source_label(t)) {
        Some(place) => format!("{} {} ({place})", op.id, op.name),
        None => format!("{} {}", op.id, op.name),
    }
}

/// The error marker of a list row, a glyph and a word that survive without colour.
pub fn marker(app: &App, operation: usize) -> Option<&'static str> {
    let error = app.error_of(operation)?;
    Some(match error.failure.as_ref().map(|f| f.kind) {
        Some(FailureKind::BankOutOfMemory | FailureKind::BankOutOfMemoryWithDependencies) => "✖ OOM",
        Some(FailureKind::CircularBuffersBeyondL1 | FailureKind::CircularBuffersClash) => "✖ CB",
        None => "✖ error",
    })
}

/// The callout body of an error, with `Failed in …` from `failed_in` (empty for unattached errors).
pub fn callout_body(app: &App, error: &ErrorRecord, failed_in: &[String]) -> Option<CalloutBody> {
    error.failure.as_ref().map(|f| CalloutBody::new(f, app.hex, failed_in, None))
}

/// The callout body as styled lines: kind label bold, reason label bold before its detail.
pub fn callout_lines(body: &CalloutBody, theme: &Theme, indent: &str) -> Vec<Line<'static>> {
    let mut lines = vec![
        Line::from(vec![Span::raw(indent.to_string()), Span::styled(body.kind_label, theme.bold.patch(theme.danger))]),
        Line::from(format!("{indent}{}", body.summary)),
    ];
    if let Some(e) = &body.explanation {
        lines.push(Line::from(vec![
            Span::raw(indent.to_string()),
            Span::styled(format!("{}.", e.reason.label()), theme.bold),
            Span::raw(format!(" {}", e.detail)),
        ]));
    }
    if let Some(last) = &body.last_line {
        lines.push(Line::from(format!("{indent}{last}")));
    }
    lines
}

/// Lines of a multi-line text, each indented.
fn text_lines(text: &str, indent: &str) -> impl Iterator<Item = Line<'static>> {
    text.lines().map(move |l| Line::from(format!("{indent}{l}")))
}

/// The lines an expanded list item shows below its row (behaviour.md §7.2).
pub fn expansion_lines(app: &App, operation: usize) -> Vec<Line<'static>> {
    const INDENT: &str = "    ";
    let theme = &app.theme;
    let Some(error) = app.error_of(operation) else {
        return vec![Line::styled(format!("{INDENT}No error recorded for this operation"), theme.dim)];
    };
    let failed_in = app.failed_in.get(&operation).map(Vec::as_slice).unwrap_or_default();
    let mut lines = callout_body(app, error, failed_in).map(|b| callout_lines(&b, theme, INDENT)).unwrap_or_default();
    lines.push(Line::styled(format!("{INDENT}Error Message"), theme.bold));
    lines.extend(text_lines(&error.message, INDENT));
    if !error.stack_trace.trim().is_empty() {
        lines.push(Line::styled(format!("{INDENT}Error Stack Trace"), theme.bold));
        lines.extend(text_lines(&error.stack_trace, INDENT));
    }
    lines
}

/// The expansion of a list item wrapped to `width` columns (continuations keep the indent), as
/// the list draws it; `width` 0 leaves the lines as they are.
pub fn wrapped_expansion(app: &App, operation: usize, width: usize) -> Vec<Line<'static>> {
    let lines = expansion_lines(app, operation);
    if width == 0 {
        return lines;
    }
    lines.into_iter().flat_map(|line| wrap_line(line, width)).collect()
}

/// Splits a styled line into lines of at most `width` columns, at the last space that fits
/// (mid-word only for a word longer than a line); continuation lines repeat the leading spaces.
pub fn wrap_line(line: Line<'static>, width: usize) -> Vec<Line<'static>> {
    use unicode_width::UnicodeWidthChar;
    if line.width() <= width {
        return vec![line];
    }
    let chars: Vec<(char, Style)> =
        line.spans.iter().flat_map(|s| s.content.chars().map(move |c| (c, s.style))).collect();
    let indent = chars.iter().take_while(|(c, _)| *c == ' ').count().min(width / 2);
    let mut rows: Vec<&[(char, Style)]> = Vec::new();
    let mut rest = &chars[..];
    let mut first = true;
    while !rest.is_empty() {
        let room = if first { width } else { width - indent };
        let mut used = 0;
        let mut fit = 0;
        while fit < rest.len() && used + rest[fit].0.width().unwrap_or(0) <= room {
            used += rest[fit].0.width().unwrap_or(0);
            fit += 1;
        }
        let cut = if fit == rest.len() {
            fit
        } else {
            let lead = rest.iter().take_while(|(c, _)| *c == ' ').count();
            rest[..=fit].iter().rposition(|(c, _)| *c == ' ').filter(|&k| k > lead).unwrap_or(fit.max(1))
        };
        rows.push(&rest[..cut]);
        rest = &rest[cut..];
        // The space the line was broken at is not carried to the next line.
        if rest.first().is_some_and(|(c, _)| *c == ' ') {
            rest = &rest[1..];
        }
        first = false;
    }
    rows.iter()
        .enumerate()
        .map(|(k, row)| {
            let mut spans = if k == 0 { Vec::new() } else { vec![Span::raw(" ".repeat(indent))] };
            for (c, style) in row.iter() {
                match spans.last_mut() {
                    Some(last) if last.style == *style => last.content.to_mut().push(*c),
                    _ => spans.push(Span::styled(c.to_string(), *style)),
                }
            }
            Line::from(spans).style(line.style)
        })
        .collect()
}

/// A duration in seconds, as shown in the detail pane.
pub fn duration_text(seconds: Option<f64>) -> String {
    match seconds {
        None => "not recorded".to_string(),
        Some(s) if s >= 1.0 => format!("{s:.3} s"),
        Some(s) => format!("{:.3} ms", s * 1000.0),
    }
}

/// The detail pane of an operation: identity, the failure callout or the error, arguments and
/// stack trace.
pub fn detail_lines(app: &App, operation: usize) -> Vec<Line<'static>> {
    let theme = &app.theme;
    let op = &app.operations[operation];
    // Id, name and duration on one line, so the callout shows on small terminals too.
    let mut lines = vec![Line::from(vec![
        Span::styled(format!("{} {}", op.id, op.name), theme.bold),
        Span::styled(format!(" · duration {}", duration_text(op.duration)), theme.dim),
    ])];
    if let Some(error) = app.error_of(operation) {
        lines.push(Line::default());
        let failed_in = app.failed_in.get(&operation).map(Vec::as_slice).unwrap_or_default();
        match callout_body(app, error, failed_in) {
            Some(body) => lines.extend(callout_lines(&body, theme, "")),
            None => {
                lines.push(Line::styled(error.error_type.clone(), theme.bold.patch(theme.danger)));
                lines.extend(text_lines(&error.message, ""));
            }
        }
        lines.push(Line::styled("v: raw message and stack trace", theme.dim));
    }
    lines.push(Line::default());
    lines.push(Line::styled("Arguments", theme.bold));
    match app.arguments.get(&operation) {
        None => lines.push(Line::styled("  loading…", theme.dim)),
        Some(Err(e)) => lines.push(Line::styled(format!("  {e}"), theme.danger)),
        Some(Ok(args)) if args.is_empty() => lines.push(Line::styled("  none recorded", theme.dim)),
        Some(Ok(args)) => {
            for (name, value) in args {
                let mut value_lines = value.lines();
                let first = value_lines.next().unwrap_or("");
                lines.push(Line::from(vec![
                    Span::styled(format!("  {name} "), theme.bold),
                    Span::raw(first.to_string()),
                ]));
                lines.extend(text_lines(&value_lines.collect::<Vec<_>>().join("\n"), "    "));
            }
        }
    }
    lines.push(Line::default());
    lines.push(Line::styled("Stack trace", theme.bold));
    match app.stack_traces.get(&operation) {
        None => lines.push(Line::styled("  loading…", theme.dim)),
        Some(t) if t.trim().is_empty() => lines.push(Line::styled("  none recorded", theme.dim)),
        Some(t) => lines.extend(text_lines(t, "  ")),
    }
    lines
}

/// The title of the unattached-errors callout (behaviour.md §7.5).
pub fn unattached_title(n: usize) -> String {
    if n == 1 {
        "1 error recorded that is not shown on any operation".to_string()
    } else {
        format!("{n} errors recorded that are not shown on any operation")
    }
}

/// The body of the unattached-errors callout: the first 5 explained, then `And {n − 5} more.`.
pub fn unattached_lines(app: &App) -> Vec<Line<'static>> {
    let theme = &app.theme;
    let mut lines = Vec::new();
    for (k, &e) in app.unattached.iter().take(UNATTACHED_SHOWN).enumerate() {
        let error = &app.errors[e];
        if k > 0 {
            lines.push(Line::default());
        }
        let name = if error.operation_name.is_empty() { "Unknown operation" } else { &error.operation_name };
        lines.push(Line::from(vec![
            Span::styled(name.to_string(), theme.bold),
            Span::raw(format!(" {}", error.error_type)),
        ]));
        if let Some(body) = callout_body(app, error, &[]) {
            lines.extend(callout_lines(&body, theme, "  "));
        }
        lines.extend(text_lines(&error.message, "  "));
        if !error.stack_trace.trim().is_empty() {
            lines.extend(text_lines(&error.stack_trace, "  "));
        }
    }
    if app.unattached.len() > UNATTACHED_SHOWN {
        lines.push(Line::default());
        lines.push(Line::from(format!("And {} more.", app.unattached.len() - UNATTACHED_SHOWN)));
    }
    lines
}

/// What `y` copies for an operation: its callout as plain text, or its error type and message;
/// none without an error.
pub fn copy_text(app: &App, operation: usize) -> Option<String> {
    let op = &app.operations[operation];
    let error = app.error_of(operation)?;
    let failed_in = app.failed_in.get(&operation).map(Vec::as_slice).unwrap_or_default();
    let body = match callout_body(app, error, failed_in) {
        Some(body) => body.lines(),
        None => vec![error.error_type.clone(), crate::explain::first_line(&error.message).to_string()],
    };
    Some(format!("Operation {} {}\n{}\n", op.id, op.name, body.join("\n")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrapping_keeps_styles_and_the_indent() {
        let bold = Style::new().add_modifier(ratatui::style::Modifier::BOLD);
        let line = Line::from(vec![Span::raw("  "), Span::styled("Fragmented.", bold), Span::raw(" 977 KiB free")]);
        let wrapped = wrap_line(line, 10);
        let texts: Vec<String> = wrapped.iter().map(|l| l.to_string()).collect();
        assert_eq!(texts, vec!["  Fragment", "  ed. 977", "  KiB free"]);
        assert!(wrapped.iter().all(|l| l.width() <= 10));
        assert_eq!(wrapped[1].spans.iter().find(|s| s.content.contains("ed.")).map(|s| s.style), Some(bold));
        let words = wrap_line(Line::from("    Short by 426 KiB per bank: needs 800 KiB"), 20);
        let texts: Vec<String> = words.iter().map(|l| l.to_string()).collect();
        assert_eq!(texts, vec!["    Short by 426 KiB", "    per bank: needs", "    800 KiB"]);
        let short = Line::from("fits");
        assert_eq!(wrap_line(short.clone(), 10), vec![short]);
    }
}
