//! Word wrapping of styled lines to a width, measured with `unicode-width`, so a pane can count
//! its lines exactly and scroll to a given one (ratatui's own wrapping does not say where lines
//! break).

use ratatui::style::Style;
use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthStr;

/// Wraps every line to `width` columns; continuation lines keep the line's leading indent (up to
/// half the width). Words longer than a line are cut.
pub fn wrap_lines(lines: &[Line<'static>], width: usize) -> Vec<Line<'static>> {
    lines.iter().flat_map(|line| wrap_line(line, width)).collect()
}

/// Wraps one line; an empty line stays one empty line.
pub fn wrap_line(line: &Line<'static>, width: usize) -> Vec<Line<'static>> {
    let width = width.max(1);
    if line.width() <= width {
        return vec![line.clone()];
    }
    let text: String = line.spans.iter().map(|s| s.content.as_ref()).collect();
    let indent = (text.len() - text.trim_start_matches(' ').len()).min(width / 2);
    let mut out = Vec::new();
    let mut current: Vec<Span<'static>> = Vec::new();
    let mut used = 0;
    let flush = |current: &mut Vec<Span<'static>>, out: &mut Vec<Line<'static>>| {
        out.push(Line::from(std::mem::take(current)).style(line.style));
    };
    for span in &line.spans {
        for word in span.content.split_inclusive(' ') {
            let word_width = word.trim_end_matches(' ').width();
            if used > indent && used + word_width > width {
                flush(&mut current, &mut out);
                push_indent(indent, &mut current);
                used = indent;
            }
            let word = if used == indent && !out.is_empty() { word.trim_start_matches(' ') } else { word };
            push_cut(word, span.style, width, indent, &mut used, &mut current, &mut out, line.style);
        }
    }
    if !current.is_empty() {
        flush(&mut current, &mut out);
    }
    out
}

/// Starts a continuation line with the indent.
fn push_indent(indent: usize, current: &mut Vec<Span<'static>>) {
    if indent > 0 {
        current.push(Span::raw(" ".repeat(indent)));
    }
}

/// Appends a word, cutting it over several lines when it is wider than what is left.
#[allow(clippy::too_many_arguments)]
fn push_cut(
    word: &str,
    style: Style,
    width: usize,
    indent: usize,
    used: &mut usize,
    current: &mut Vec<Span<'static>>,
    out: &mut Vec<Line<'static>>,
    line_style: Style,
) {
    let mut piece = String::new();
    for c in word.chars() {
        let w = c.to_string().width();
        if *used + w > width && *used > indent && !c.is_whitespace() {
            if !piece.is_empty() {
                current.push(Span::styled(std::mem::take(&mut piece), style));
            }
            out.push(Line::from(std::mem::take(current)).style(line_style));
            push_indent(indent, current);
            *used = indent;
        }
        piece.push(c);
        *used += w;
    }
    if !piece.is_empty() {
        current.push(Span::styled(piece, style));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(lines: &[Line]) -> Vec<String> {
        lines.iter().map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect()).collect()
    }

    #[test]
    fn wraps_at_words_and_keeps_the_indent() {
        let line = Line::from("    Failed in MatmulDeviceOperation; 1 earlier device op ran");
        let wrapped = wrap_line(&line, 30);
        assert_eq!(texts(&wrapped), ["    Failed in ", "    MatmulDeviceOperation; 1 ", "    earlier device op ran"]);
        assert!(wrapped.iter().all(|l| l.width() <= 30));
    }

    #[test]
    fn short_lines_are_untouched_and_long_words_are_cut() {
        assert_eq!(texts(&wrap_line(&Line::from("fits"), 10)), ["fits"]);
        assert_eq!(texts(&wrap_line(&Line::from(""), 10)), [""]);
        let cut = wrap_line(&Line::from("abcdefghijklmnop"), 6);
        assert_eq!(texts(&cut), ["abcdef", "ghijkl", "mnop"]);
    }

    #[test]
    fn styles_follow_their_words() {
        let bold = Style::new().add_modifier(ratatui::style::Modifier::BOLD);
        let line = Line::from(vec![Span::styled("Larger than bank.", bold), Span::raw(" It needs 2 MiB")]);
        let wrapped = wrap_line(&line, 20);
        assert_eq!(texts(&wrapped), ["Larger than bank. It ", "needs 2 MiB"]);
        assert_eq!(wrapped[0].spans[0].style, bold);
        assert_eq!(wrapped[1].spans[0].style, Style::new());
    }
}
