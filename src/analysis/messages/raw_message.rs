//! What an unrecognised error message says, without its wrapper (docs/rules/reference.md §13.4): the
//! `TT_FATAL @ …` location line, `info:` and the backtrace say nothing about what went wrong.

use crate::analysis::format::counted;

/// How many lines of a message print mode shows before `… ({k} more lines; …)`.
pub const SHOWN_LINES: usize = 8;

/// The lines of a message that say what went wrong, and how many of them a limit left out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawMessage<'a> {
    /// The lines kept, in order, without trailing blanks.
    pub lines: Vec<&'a str>,
    /// Lines of what it says that the limit left out.
    pub more: usize,
}

/// Whether a line is a TT-Metal assertion's location line, e.g.
/// `TT_FATAL @ tt_metal/impl/allocator/bank_manager.cpp:439: false`.
fn is_location_line(line: &str) -> bool {
    ["TT_FATAL @", "TT_THROW @", "TT_ASSERT @"].iter().any(|p| line.trim_start().starts_with(p))
}

/// What a message says, at most `limit` lines: a leading location line and any `info:` line
/// dropped (the text after `info:` on the same line is kept), cut at `backtrace:`, leading and
/// trailing blank lines left out. A message that says nothing else keeps its location line.
pub fn raw_message(message: &str, limit: usize) -> RawMessage<'_> {
    let mut all = message.lines().map(str::trim_end).skip_while(|l| l.trim().is_empty()).peekable();
    let location = all.next_if(|l| is_location_line(l));
    let mut said: Vec<&str> = Vec::new();
    for line in all {
        let trimmed = line.trim_start();
        if trimmed.starts_with("backtrace:") {
            break;
        }
        let line = match trimmed.strip_prefix("info:") {
            Some(rest) if rest.trim().is_empty() => continue,
            Some(rest) => rest.trim(),
            None => line,
        };
        if !(said.is_empty() && line.trim().is_empty()) {
            said.push(line);
        }
    }
    while said.last().is_some_and(|l| l.trim().is_empty()) {
        said.pop();
    }
    if said.is_empty() {
        said.extend(location);
    }
    let more = said.len().saturating_sub(limit);
    said.truncate(limit);
    RawMessage { lines: said, more }
}

/// The print-mode lines of a message: what it says, up to [`SHOWN_LINES`] lines, then
/// `… ({k} more lines; --json has the whole message)` when some were left out.
pub fn raw_message_text(message: &str) -> Vec<String> {
    let raw = raw_message(message, SHOWN_LINES);
    let mut lines: Vec<String> = raw.lines.iter().map(|l| l.to_string()).collect();
    if raw.more > 0 {
        let more = counted(raw.more, "more line", "more lines");
        lines.push(format!("… ({more}; --json has the whole message)"));
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The message: a location line that says nothing, then what went wrong.
    const FATAL: &str = "TT_FATAL @ /tt-metal/tt_metal/impl/allocator/bank_manager.cpp:439: false\n\
        info:\n\
        Cannot allocate at an address below 1048576\n\
        backtrace:\n --- tt::tt_metal::BankManager::allocate_buffer\n --- libtt_metal.so(+0x570add)";

    #[test]
    fn the_location_and_info_lines_go_and_the_backtrace_is_cut() {
        assert_eq!(raw_message_text(FATAL), ["Cannot allocate at an address below 1048576"]);
        let thrown = "TT_THROW @ a.cpp:1: tt::exception\ninfo: ttnn.matmul: shapes differ\nbacktrace:\n --- x";
        assert_eq!(raw_message_text(thrown), ["ttnn.matmul: shapes differ"]);
        let asserted = "  TT_ASSERT @ b.cpp:9: n > 0\ninfo:\nn is 0\n\nsecond line\n\nbacktrace:";
        assert_eq!(raw_message_text(asserted), ["n is 0", "", "second line"]);
    }

    #[test]
    fn a_message_without_a_wrapper_is_kept_as_it_is() {
        let plain = "\nShape mismatch: cannot concatenate [1, 32] and [1, 16]\n  along dim 0\n";
        assert_eq!(
            raw_message_text(plain),
            ["Shape mismatch: cannot concatenate [1, 32] and [1, 16]", "  along dim 0"]
        );
        // A location line further down is not the wrapper's.
        assert_eq!(raw_message_text("first\nTT_FATAL @ x:1: y"), ["first", "TT_FATAL @ x:1: y"]);
        assert_eq!(raw_message_text(""), Vec::<String>::new());
    }

    #[test]
    fn a_message_that_says_nothing_else_keeps_its_location() {
        let bare = "TT_FATAL @ bank_manager.cpp:439: false\ninfo:\nbacktrace:\n --- x";
        assert_eq!(raw_message_text(bare), ["TT_FATAL @ bank_manager.cpp:439: false"]);
    }

    #[test]
    fn past_eight_lines_it_says_how_many_more() {
        let long: String = (1..=11).map(|k| format!("line {k}\n")).collect();
        let message = format!("TT_THROW @ c.cpp:2: tt::exception\ninfo:\n{long}backtrace:\n --- a\n --- b");
        let text = raw_message_text(&message);
        assert_eq!(text.len(), 9);
        assert_eq!(text[0], "line 1");
        assert_eq!(text[7], "line 8");
        assert_eq!(text[8], "… (3 more lines; --json has the whole message)");
        let nine: String = (1..=9).map(|k| format!("line {k}\n")).collect();
        assert_eq!(raw_message_text(&nine)[8], "… (1 more line; --json has the whole message)");
        let eight: String = (1..=8).map(|k| format!("line {k}\n")).collect();
        assert_eq!(raw_message_text(&eight).len(), 8);
        // Without a limit, every line of what it says.
        assert_eq!(raw_message(&message, usize::MAX), RawMessage { lines: long.lines().collect(), more: 0 });
    }
}
