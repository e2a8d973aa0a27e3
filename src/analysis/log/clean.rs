//! Cleaning one log line: what loggers, CI runners, pytest and terminals put around a message
//! (colour codes, carriage returns, timestamps, logger fields, pytest's `E` marker, a brace).

use regex::Regex;
use std::borrow::Cow;
use std::sync::LazyLock;

/// ANSI escape sequences: CSI (colours, cursor), OSC (titles, links) and two-byte escapes.
static ANSI: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[@-Z\\-_])")
        .expect("the ANSI pattern is valid")
});

/// A CI runner's timestamp before every line (GitHub Actions: `2026-05-14T01:00:31.7551234Z `).
static CI_TIMESTAMP: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z ?").expect("the timestamp pattern is valid")
});

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
        line = Cow::Owned(ANSI.replace_all(&line, "").into_owned());
    }
    // A carriage return inside a line returns the cursor: the terminal shows what follows it.
    if let Some(at) = line.rfind('\r') {
        line = match line {
            Cow::Borrowed(s) => Cow::Borrowed(&s[at + 1..]),
            Cow::Owned(s) => Cow::Owned(s[at + 1..].to_string()),
        };
    }
    let mut rest: &str = &line;
    if rest.as_bytes().first().is_some_and(u8::is_ascii_digit)
        && let Some(m) = CI_TIMESTAMP.find(rest)
    {
        rest = &rest[m.end()..];
    }
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
    }
}
