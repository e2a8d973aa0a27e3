//! The one sanitiser for text read from a report: no escape sequence or bidi control reaches the
//! terminal or the print output.

/// Tab stops every 8 columns when tabs are expanded.
const TAB_WIDTH: usize = 8;

/// Sanitises a single-line field (a name, a type): newlines become visible `\n` escapes.
pub fn sanitize_line(text: &str) -> String {
    sanitize(text, false)
}

/// [`sanitize_line`], borrowing the text when it needs no change (most report text does not).
pub(crate) fn sanitize_line_borrowed(text: &str) -> std::borrow::Cow<'_, str> {
    match is_plain(text, false) {
        true => std::borrow::Cow::Borrowed(text),
        false => std::borrow::Cow::Owned(sanitize(text, false)),
    }
}

/// Sanitises a multi-line field (a message, a stack trace): newlines are kept, `\r\n` becomes `\n`.
pub fn sanitize_text(text: &str) -> String {
    sanitize(text, true)
}

/// Unicode's Bidi_Control characters: embeddings and overrides, isolates, and the marks (LRM,
/// RLM, ALM), which can also reorder what a terminal shows.
fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{061C}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// True when the text is printable ASCII (and newlines, in a multi-line field): kept as is.
fn is_plain(text: &str, multiline: bool) -> bool {
    text.bytes().all(|b| (0x20..0x7f).contains(&b) || (multiline && b == b'\n'))
}

fn sanitize(text: &str, multiline: bool) -> String {
    // Most report text is plain printable ASCII (and newlines): nothing to do but copy it.
    if is_plain(text, multiline) {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut column = 0usize;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\n' if multiline => {
                out.push('\n');
                column = 0;
                continue;
            }
            '\r' if multiline && chars.peek() == Some(&'\n') => continue,
            '\t' => {
                let spaces = TAB_WIDTH - column % TAB_WIDTH;
                out.extend(std::iter::repeat_n(' ', spaces));
                column += spaces;
                continue;
            }
            '\u{1b}' => {
                if skip_escape_sequence(&mut chars) {
                    continue;
                }
                push_visible(&mut out, &mut column, c);
            }
            // C1 introducers of whole sequences: CSI, OSC, DCS, and the string controls.
            '\u{9b}' => skip_csi(&mut chars),
            '\u{9d}' | '\u{90}' | '\u{98}' | '\u{9e}' | '\u{9f}' => skip_string(&mut chars),
            c if is_bidi_control(c) => {}
            c if c.is_control() => push_visible(&mut out, &mut column, c),
            c => {
                out.push(c);
                column += 1;
            }
        }
    }
    out
}

/// Shows a control character as a visible escape: `\n`, `\r`, `\x07`, `\u{85}`.
fn push_visible(out: &mut String, column: &mut usize, c: char) {
    let shown = match c {
        '\n' => "\\n".to_string(),
        '\r' => "\\r".to_string(),
        c if (c as u32) < 0x80 => format!("\\x{:02x}", c as u32),
        c => format!("\\u{{{:x}}}", c as u32),
    };
    *column += shown.len();
    out.push_str(&shown);
}

/// After ESC: skips a whole CSI, OSC, DCS (or SOS/PM/APC) sequence, or a two-character escape.
/// Returns false when ESC ends the text, so it is shown as a visible escape.
fn skip_escape_sequence(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) -> bool {
    match chars.next() {
        None => false,
        Some('[') => {
            skip_csi(chars);
            true
        }
        Some(']' | 'P' | 'X' | '^' | '_') => {
            skip_string(chars);
            true
        }
        // nF sequences (ESC, intermediates 0x20–0x2F, then a final byte) and Fp/Fe/Fs escapes.
        Some(c) if ('\u{20}'..='\u{2f}').contains(&c) => {
            while let Some(&next) = chars.peek() {
                chars.next();
                if !('\u{20}'..='\u{2f}').contains(&next) {
                    break;
                }
            }
            true
        }
        Some(_) => true,
    }
}

/// Skips CSI parameters and intermediates up to and including the final byte (0x40–0x7E).
fn skip_csi(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) {
    for c in chars.by_ref() {
        if ('\u{40}'..='\u{7e}').contains(&c) {
            break;
        }
        if !('\u{20}'..='\u{3f}').contains(&c) {
            // Not a CSI byte: the sequence is malformed; stop here (the byte is dropped with it).
            break;
        }
    }
}

/// Skips a control string up to its terminator: BEL, ST (`ESC \`) or C1 ST (U+009C).
fn skip_string(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) {
    while let Some(c) = chars.next() {
        match c {
            '\u{7}' | '\u{9c}' => break,
            '\u{1b}' => {
                if chars.peek() == Some(&'\\') {
                    chars.next();
                }
                break;
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_sequences_are_removed() {
        assert_eq!(sanitize_line("\x1b[31mred\x1b[0m"), "red");
        assert_eq!(sanitize_line("a\x1b]0;title\x07b"), "ab");
        assert_eq!(sanitize_line("a\x1b]52;c;Zm9v\x1b\\b"), "ab");
        assert_eq!(sanitize_line("a\x1bPq#0;2;0;0;0\x1b\\b"), "ab");
        assert_eq!(sanitize_line("a\u{9b}2Jb"), "ab");
        assert_eq!(sanitize_line("a\x1b(Bb"), "ab");
        assert_eq!(sanitize_line("end\x1b"), "end\\x1b");
    }

    #[test]
    fn other_controls_become_visible_escapes() {
        assert_eq!(sanitize_line("bell\x07 del\x7f c1\u{85}"), "bell\\x07 del\\x7f c1\\u{85}");
        assert_eq!(sanitize_line("two\nlines\r"), "two\\nlines\\r");
    }

    #[test]
    fn bidi_controls_are_dropped() {
        assert_eq!(sanitize_line("a\u{202E}cba\u{202C} \u{2066}x\u{2069}"), "acba x");
        // Found by the `sanitize` fuzz target: the marks are bidi controls too.
        assert_eq!(sanitize_line("\u{2066}iso\u{2069} \u{200F}mark\u{200E} \u{061C}"), "iso mark ");
        assert_eq!(sanitize_text("a\u{200F}\nb\u{061C}"), "a\nb");
    }

    #[test]
    fn tabs_expand_and_multiline_keeps_newlines() {
        assert_eq!(sanitize_line("a\tb"), "a       b");
        assert_eq!(sanitize_text("x\r\n\ty"), "x\n        y");
        assert_eq!(sanitize_text("  File \"m.py\", line 1\n"), "  File \"m.py\", line 1\n");
    }

    #[test]
    fn plain_text_is_unchanged() {
        let text = "Out of Memory: Not enough space — 3.13 MiB [(x=0,y=0) - (x=7,y=7)] ✖";
        assert_eq!(sanitize_line(text), text);
    }
}
