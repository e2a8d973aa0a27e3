//! The `file.py:line` label of an operation, from its Python stack trace (behaviour.md §1.5).

use regex::Regex;
use std::sync::LazyLock;

static PLACE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r#"File\s+"([^"]*)",\s+line\s+([0-9]+)"#).expect("valid pattern"));

/// `{file}:{line}` from the first `File "<path>", line <n>` in a stack trace, `{file}` being the
/// part of the path after its last `/`; none without such a place.
pub(crate) fn source_label(stack_trace: &str) -> Option<String> {
    let c = PLACE.captures(stack_trace)?;
    let path = &c[1];
    let file = path.rsplit('/').next().unwrap_or(path);
    Some(format!("{file}:{}", &c[2]))
}

/// An operation's stack trace (stored innermost call first) as Python prints a traceback, most
/// recent call last, so it reads in the same order as an error's traceback. Lines before the first
/// `File "…"` frame stay first; blank lines between frames are dropped. A text without frames is
/// returned as it is, and so is a text that already is a Python traceback.
pub(crate) fn most_recent_call_last(stack_trace: &str) -> String {
    if stack_trace.contains("Traceback (most recent call last)") {
        return stack_trace.to_string();
    }
    let mut head = Vec::new();
    let mut frames: Vec<Vec<&str>> = Vec::new();
    for line in stack_trace.lines() {
        if line.trim_start().starts_with("File ") && PLACE.is_match(line) {
            frames.push(vec![line]);
        } else if line.trim().is_empty() {
            continue;
        } else if let Some(frame) = frames.last_mut() {
            frame.push(line);
        } else {
            head.push(line);
        }
    }
    if frames.is_empty() {
        return stack_trace.to_string();
    }
    head.into_iter().chain(frames.into_iter().rev().flatten()).collect::<Vec<_>>().join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_place_wins_and_whitespace_may_vary() {
        let trace = "Traceback:\n  File \"/home/u/models/resnet/tt/model.py\", line 212, in forward\n  File \"/x/y.py\", line 3, in f";
        assert_eq!(source_label(trace).as_deref(), Some("model.py:212"));
        assert_eq!(source_label("File\t\"a.py\",\n line  7").as_deref(), Some("a.py:7"));
        assert_eq!(source_label("File \"noslash.py\", line 1").as_deref(), Some("noslash.py:1"));
    }

    #[test]
    fn no_place_no_label() {
        assert_eq!(source_label(""), None);
        assert_eq!(source_label("C++ stack trace not available"), None);
        assert_eq!(source_label("File \"a.py\",line 7"), None);
    }

    #[test]
    fn operation_stacks_read_like_a_traceback() {
        let stored = "  File \"/m/model.py\", line 57, in <lambda>\n    x = f()\n\n  File \"/m/model.py\", line 12, in with_fallback\n    return attempt()\n\n  File \"/t/test.py\", line 38, in test\n    output = model(pixels)\n";
        assert_eq!(
            most_recent_call_last(stored),
            "  File \"/t/test.py\", line 38, in test\n    output = model(pixels)\n  File \"/m/model.py\", line 12, in with_fallback\n    return attempt()\n  File \"/m/model.py\", line 57, in <lambda>\n    x = f()"
        );
        assert_eq!(most_recent_call_last("C++ stack trace not available"), "C++ stack trace not available");
    }
}
