//! Fitting styled text to a width: wrapping that keeps a line's indent, and cutting with `…`.

use ratatui::style::Style;
use ratatui::text::{Line, Span};
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

/// The mark of text cut short.
pub(crate) const ELLIPSIS: &str = "…";

/// Splits a styled line into lines of at most `width` columns. Breaks at the last space that
/// fits, never inside a token nor between a number and its unit (`32 KiB`), unless the token
/// alone is wider than the line (a memory config), or the line would be less than half full
/// (`File` before a long path): the token is then broken after its last `,` `;` `(` `)` or `/`
/// that leaves the line half full, else where the line is full; continuation lines repeat the
/// leading spaces.
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
        let cut = if fit == rest.len() { fit } else { cut_at(rest, fit, room) };
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

/// Units a number is never parted from at a line's end.
const UNITS: &[&str] = &["B", "KiB", "MiB", "GiB", "TiB", "KB", "MB", "GB", "bytes", "%", "ms", "s", "banks", "cores"];

/// Whether the space at `k` may end a line: not a leading space, not between a number and its
/// unit.
fn breaks_at(row: &[(char, Style)], k: usize, lead: usize) -> bool {
    if row[k].0 != ' ' || k <= lead {
        return false;
    }
    let digit_before = row[k - 1].0.is_ascii_digit();
    let word: String = row[k + 1..].iter().map(|(c, _)| *c).take_while(|c| c.is_alphanumeric() || *c == '%').collect();
    !(digit_before && UNITS.contains(&word.as_str()))
}

/// Where to end a row of `rest` whose first `fit` characters fit in `room` columns: at the last
/// space that may end a line, unless the token it would carry over is wider than the line.
fn cut_at(rest: &[(char, Style)], fit: usize, room: usize) -> usize {
    let lead = rest.iter().take_while(|(c, _)| *c == ' ').count();
    let last = (0..=fit.min(rest.len() - 1)).rev().find(|&k| breaks_at(rest, k, lead));
    if last == Some(fit) {
        return fit;
    }
    let start = last.map_or(lead, |k| k + 1);
    let end = (fit..rest.len()).find(|&k| breaks_at(rest, k, lead)).unwrap_or(rest.len());
    let token: usize = rest[start..end].iter().map(|(c, _)| c.width().unwrap_or(0)).sum();
    // After a separator inside the token, when that leaves the line at least half full.
    let separator = (start.max(1)..fit)
        .rev()
        .find(|&k| matches!(rest[k - 1].0, ',' | ';' | '(' | ')' | '/'))
        .filter(|&k| 2 * k >= room);
    match last {
        Some(k) if 2 * k >= room => k,
        // A line less than half full (`File` before a long path): rather after a separator.
        Some(k) if token <= room => separator.unwrap_or(k),
        // The token alone is wider than the line: it fills it.
        _ => separator.unwrap_or(fit.max(1)),
    }
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
        // "Fragmented." alone is wider than the line; 977 stays with its unit.
        assert_eq!(texts(&wrapped), vec!["  Fragment", "  ed.", "  977 KiB", "  free"]);
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
        assert_eq!(wrapped[0], "  File \"/home/user/tt-metal/models/");
        assert!(wrapped.iter().all(|l| l.trim() != "File"), "{wrapped:?}");
        assert!(wrapped[1..].iter().all(|l| l.starts_with("  ")), "{wrapped:?}");
    }

    /// Issue 30 §4.7: no line ends inside a number and its unit, nor inside a token narrower
    /// than the line; a wider token is broken after a separator.
    #[test]
    fn a_number_keeps_its_unit_and_a_token_stays_whole() {
        let perf = wrap_line(Line::from("free 949 KiB, largest free block 32 KiB per bank"), 36);
        assert_eq!(texts(&perf), vec!["free 949 KiB, largest free block", "32 KiB per bank"]);
        let config = "  memory_config MemoryConfig(memory_layout=TensorMemoryLayout::INTERLEAVED,buffer_type=BufferType::L1,shard_spec=std::nullopt)";
        let wrapped = texts(&wrap_line(Line::from(config), 40));
        assert_eq!(
            wrapped,
            vec![
                "  memory_config MemoryConfig(",
                "  memory_layout=TensorMemoryLayout::INTE",
                "  RLEAVED,buffer_type=BufferType::L1,",
                "  shard_spec=std::nullopt)",
            ]
        );
        let long = texts(&wrap_line(Line::from("Short by 426 KiB per bank: needs 800 KiB, 374 KiB free."), 30));
        assert_eq!(long, vec!["Short by 426 KiB per bank:", "needs 800 KiB, 374 KiB free."]);
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
