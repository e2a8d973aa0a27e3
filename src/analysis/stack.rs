//! The `file.py:line` label of an operation, from its Python stack trace (behaviour.md §1.5).

use regex::Regex;
use std::sync::LazyLock;

static PLACE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r#"File\s+"([^"]*)",\s+line\s+([0-9]+)"#).expect("valid pattern"));

/// `{file}:{line}` from the first `File "<path>", line <n>` in a stack trace, `{file}` being the
/// part of the path after its last `/`; none without such a place.
pub fn source_label(stack_trace: &str) -> Option<String> {
    let c = PLACE.captures(stack_trace)?;
    let path = &c[1];
    let file = path.rsplit('/').next().unwrap_or(path);
    Some(format!("{file}:{}", &c[2]))
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
}
