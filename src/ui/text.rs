//! Fitting styled text to a width: wrapping that keeps a line's indent, and cutting with `…`.

use ratatui::style::Style;
use ratatui::text::{Line, Span};
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

/// The mark of text cut short.
pub(crate) const ELLIPSIS: &str = "…";

/// Splits a styled line into lines of at most `width` columns. Breaks at the last space that
/// fits, unless that would leave the line less than half full (a long path after `File` is then
/// broken mid-word rather than leaving `File` alone); continuation lines repeat the leading spaces.
pub(crate) fn wrap_line(line: Line<'static>, width: usize) -> Vec<Line<'static>> {
    if width == 0 || line.width() <= width {
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
            rest[..=fit]
                .iter()
                .rposition(|(c, _)| *c == ' ')
                .filter(|&k| k > lead && 2 * k >= room)
                .unwrap_or(fit.max(1))
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

/// Every line wrapped to `width` columns.
pub(crate) fn wrap_lines(lines: impl IntoIterator<Item = Line<'static>>, width: usize) -> Vec<Line<'static>> {
    lines.into_iter().flat_map(|line| wrap_line(line, width)).collect()
}

/// A text cut to `width` columns, ending in `…` when cut.
pub(crate) fn truncate(text: &str, width: usize) -> String {
    if text.width() <= width {
        return text.to_string();
    }
    if width == 0 {
        return String::new();
    }
    let mut out = String::new();
    let mut used = 0;
    for c in text.chars() {
        let w = c.width().unwrap_or(0);
        if used + w + 1 > width {
            break;
        }
        used += w;
        out.push(c);
    }
    out.push_str(ELLIPSIS);
    out
}

/// A styled line cut to `width` columns, its last kept span ending in `…` when cut.
pub(crate) fn truncate_line(line: Line<'static>, width: usize) -> Line<'static> {
    if line.width() <= width {
        return line;
    }
    let mut spans = Vec::new();
    let mut room = width;
    for span in line.spans {
        let w = span.content.width();
        if w < room {
            room -= w;
            spans.push(span);
            continue;
        }
        spans.push(Span::styled(truncate(&span.content, room), span.style));
        break;
    }
    Line::from(spans).style(line.style)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::style::Modifier;

    fn texts(lines: &[Line]) -> Vec<String> {
        lines.iter().map(|l| l.to_string()).collect()
    }

    #[test]
    fn wrapping_keeps_styles_and_the_indent() {
        let bold = Style::new().add_modifier(Modifier::BOLD);
        let line = Line::from(vec![Span::raw("  "), Span::styled("Fragmented.", bold), Span::raw(" 977 KiB free")]);
        let wrapped = wrap_line(line, 10);
        assert_eq!(texts(&wrapped), vec!["  Fragment", "  ed. 977", "  KiB free"]);
        assert!(wrapped.iter().all(|l| l.width() <= 10));
        assert_eq!(wrapped[1].spans.iter().find(|s| s.content.contains("ed.")).map(|s| s.style), Some(bold));
        let words = wrap_line(Line::from("    Short by 426 KiB per bank: needs 800 KiB"), 20);
        assert_eq!(texts(&words), vec!["    Short by 426 KiB", "    per bank: needs", "    800 KiB"]);
        let short = Line::from("fits");
        assert_eq!(wrap_line(short.clone(), 10), vec![short]);
    }

    #[test]
    fn a_stack_frame_never_leaves_file_alone_on_a_line() {
        let frame =
            Line::from("  File \"/home/user/tt-metal/models/demos/hybrid_vit/tt/model.py\", line 57, in <lambda>");
        let wrapped = texts(&wrap_line(frame, 40));
        assert_eq!(wrapped[0], "  File \"/home/user/tt-metal/models/demos");
        assert!(wrapped.iter().all(|l| l.trim() != "File"), "{wrapped:?}");
        assert!(wrapped[1..].iter().all(|l| l.starts_with("  ")), "{wrapped:?}");
    }

    #[test]
    fn cutting_ends_in_an_ellipsis() {
        assert_eq!(truncate("TilizeWithValPaddingDeviceOperation", 12), "TilizeWithV…");
        assert_eq!(truncate("short", 12), "short");
        assert_eq!(truncate("ab", 1), "…");
        let line = Line::from(vec![Span::raw("12 "), Span::raw("ttnn.to_memory_config"), Span::raw(" (model.py:57)")]);
        assert_eq!(truncate_line(line, 14).to_string(), "12 ttnn.to_me…");
    }
}
