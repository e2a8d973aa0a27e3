//! Cleaning one log line: what loggers, CI runners, pytest and terminals put around a message
//! (colour codes, carriage returns, timestamps, logger fields, pytest's `E` marker, a brace).

use regex::Regex;
use std::borrow::Cow;
use std::sync::LazyLock;

/// tt-metal's logger fields: `2026-05-14 01:00:31.755 | critical | Always | `, or the older
/// `Always | FATAL    | ` (a level and a logger type, in either order, optionally after a time).
static LOGGER: LazyLock<Regex> = LazyLock::new(|| {
    let level = r"(?i:trace|debug|info|warning|error|critical|fatal)";
    Regex::new(&format!(
        r"^\s*(?:\d{{4}}-\d{{2}}-\d{{2}} [0-9:.]+\s*)?\|?\s*(?:{level}\s*\|\s*[A-Za-z]+|[A-Za-z]+\s*\|\s*{level})\s*\|\s?"
    ))
    .expect("the logger pattern is valid")
});

/// The text of a log line as the message was written: without colour codes, anything a carriage
/// return overwrote, a CI timestamp, logger fields, pytest's `E` marker or a leading brace, and
/// without surrounding whitespace.
pub(crate) fn clean_line(raw: &str) -> Cow<'_, str> {
    let mut line = Cow::Borrowed(raw.trim_end_matches(['\r', '\n']));
    if line.contains('\x1b') {
        line = Cow::Owned(strip_escapes(&line));
    }
    // A carriage return inside a line returns the cursor: the terminal shows what follows it.
    if let Some(at) = line.rfind('\r') {
        line = match line {
            Cow::Borrowed(s) => Cow::Borrowed(&s[at + 1..]),
            Cow::Owned(s) => Cow::Owned(s[at + 1..].to_string()),
        };
    }
    let mut rest: &str = &line;
    rest = strip_ci_timestamp(rest);
    if rest.contains('|')
        && let Some(m) = LOGGER.find(rest)
    {
        rest = &rest[m.end()..];
    }
    rest = strip_pytest_marker(rest.trim_start());
    rest = rest.strip_prefix('{').unwrap_or(rest).trim();
    match line {
        Cow::Borrowed(_) if rest.len() == line.len() => line,
        _ => Cow::Owned(rest.to_string()),
    }
}

/// Drops ANSI escape sequences: CSI (colours, cursor: `ESC [` … final byte), OSC (titles, links:
/// `ESC ]` … BEL or `ESC \\`) and two-byte escapes.
fn strip_escapes(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\x1b' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('[') => {
                // Parameter and intermediate bytes, then one final byte in `@`..=`~`.
                for c in chars.by_ref() {
                    if ('@'..='~').contains(&c) {
                        break;
                    }
                }
            }
            Some(']') => {
                while let Some(c) = chars.next() {
                    if c == '\x07' || (c == '\x1b' && chars.next_if_eq(&'\\').is_some()) {
                        break;
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// Drops a CI runner's timestamp before the line (GitHub Actions: `2026-05-14T01:00:31.7551234Z `).
fn strip_ci_timestamp(line: &str) -> &str {
    let b = line.as_bytes();
    let digits = |range: std::ops::Range<usize>| b.get(range).is_some_and(|d| d.iter().all(u8::is_ascii_digit));
    let shape = digits(0..4) && digits(5..7) && digits(8..10) && digits(11..13) && digits(14..16) && digits(17..19);
    if !shape || b[4] != b'-' || b[7] != b'-' || b[10] != b'T' || b[13] != b':' || b[16] != b':' {
        return line;
    }
    let mut end = 19;
    if b.get(end) == Some(&b'.') {
        end += 1;
        while b.get(end).is_some_and(u8::is_ascii_digit) {
            end += 1;
        }
    }
    if b.get(end) != Some(&b'Z') {
        return line;
    }
    end += 1;
    if b.get(end) == Some(&b' ') {
        end += 1;
    }
    &line[end..]
}

/// Drops pytest's `E` marker: `E` alone, or `E` and spaces before the text.
fn strip_pytest_marker(line: &str) -> &str {
    match line.strip_prefix('E') {
        Some("") => "",
        Some(rest) if rest.starts_with(' ') => rest.trim_start(),
        _ => line,
    }
}

#[cfg(test)]
mod tests {
    use super::clean_line;

    #[test]
    fn prefixes_are_taken_off() {
        let message = "Out of Memory: Not enough space";
        for line in [
            "Out of Memory: Not enough space",
            "E       Out of Memory: Not enough space",
            "2026-05-14T01:00:31.7551234Z Out of Memory: Not enough space\r",
            "2026-05-14T01:00:31.7551234Z E   Out of Memory: Not enough space",
            "\x1b[31mOut of Memory: Not enough space\x1b[0m",
            "\x1b]0;title\x07Out of Memory: \x1b]8;;http://x\x1b\\Not enough space\x1b]8;;\x1b\\",
            "2026-05-14T01:00:31Z \x1b[1;31;40mOut of Memory: Not enough space\x1b[K",
            "{Out of Memory: Not enough space",
            "progress 10%\rOut of Memory: Not enough space",
            "  Out of Memory: Not enough space  ",
        ] {
            assert_eq!(clean_line(line), message, "{line:?}");
        }
    }

    #[test]
    fn logger_fields_are_taken_off() {
        assert_eq!(
            clean_line("2026-05-14 01:00:31.755 | critical |          Always | TT_FATAL: Out of Memory"),
            "TT_FATAL: Out of Memory"
        );
        assert_eq!(clean_line("                 Always | FATAL    | Out of Memory"), "Out of Memory");
        assert_eq!(clean_line("| critical |          Always | TT_FATAL: x"), "TT_FATAL: x");
        assert_eq!(clean_line("Always | TT_FATAL: Out of Memory"), "Always | TT_FATAL: Out of Memory");
        // A table row is not a logger line.
        assert_eq!(clean_line("| a | b |"), "| a | b |");
    }

    #[test]
    fn other_text_is_kept() {
        assert_eq!(clean_line("Every line"), "Every line");
        assert_eq!(clean_line("E"), "");
        assert_eq!(clean_line("Error: x"), "Error: x");
        assert_eq!(clean_line("2026 was a year"), "2026 was a year");
        assert_eq!(clean_line("2026-05-14T01:00:31.75 no Z"), "2026-05-14T01:00:31.75 no Z");
    }
}
