//! Core ranges as TT-NN writes them (docs/rules/formats.md §3): the one parser of the three forms a
//! `core_range_set` (and a message's core range) takes — ttnn's string `{[0-0 - 7-6]}`, the JSON
//! of newer graph nodes `[{"start": {"x": 0, "y": 0}, "end": {"x": 7, "y": 6}}]`, and the older
//! `[(x=0,y=0) - (x=7,y=7)]` — each range with its start and end core `(x, y)`.

use regex::Regex;
use serde_json::Value;
use std::sync::LazyLock;

/// `0-0 - 7-6`: x-y of the start, then of the end.
static DASHED: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(\d+)-(\d+)\s+-\s+(\d+)-(\d+)").expect("the dashed core range pattern is valid"));

/// `(x=0,y=0) - (x=7,y=7)`.
static NAMED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\(\s*x\s*=\s*(\d+)\s*,\s*y\s*=\s*(\d+)\s*\)\s*-\s*\(\s*x\s*=\s*(\d+)\s*,\s*y\s*=\s*(\d+)\s*\)")
        .expect("the named core range pattern is valid")
});

/// One rectangle of cores, both corners included.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CoreRange {
    /// The start core `(x, y)`.
    pub start: (u64, u64),
    /// The end core `(x, y)`.
    pub end: (u64, u64),
}

impl CoreRange {
    /// How many cores it holds (0 when the end is before the start).
    pub fn cores(&self) -> u64 {
        let span = |a: u64, b: u64| if b >= a { b - a + 1 } else { 0 };
        span(self.start.0, self.end.0) * span(self.start.1, self.end.1)
    }
}

/// The ranges of a core range set written in any of the three forms; none when the text names
/// no range (the text is then shown as written).
pub fn parse_core_ranges(text: &str) -> Option<Vec<CoreRange>> {
    let trimmed = text.trim();
    if trimmed.starts_with("[{") || trimmed.starts_with("{\"") {
        return core_ranges_of_json(&serde_json::from_str(trimmed).ok()?);
    }
    let pattern = if NAMED.is_match(trimmed) { &*NAMED } else { &*DASHED };
    let ranges: Option<Vec<CoreRange>> = pattern
        .captures_iter(trimmed)
        .map(|c| {
            let n = |i: usize| c[i].parse::<u64>().ok();
            Some(CoreRange { start: (n(1)?, n(2)?), end: (n(3)?, n(4)?) })
        })
        .collect();
    ranges.filter(|r| !r.is_empty())
}

/// The ranges of the JSON form: an array of `{"start": {"x", "y"}, "end": {"x", "y"}}` (or one
/// such object); coordinates as numbers or decimal strings. None when any range is malformed.
pub fn core_ranges_of_json(value: &Value) -> Option<Vec<CoreRange>> {
    let coordinate = |v: &Value| match v {
        Value::Number(n) => n.as_u64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    };
    let core = |v: &Value| Some((coordinate(v.get("x")?)?, coordinate(v.get("y")?)?));
    let range = |v: &Value| Some(CoreRange { start: core(v.get("start")?)?, end: core(v.get("end")?)? });
    let ranges: Option<Vec<CoreRange>> = match value {
        Value::Array(items) => items.iter().map(range).collect(),
        Value::Object(_) => range(value).map(|r| vec![r]),
        _ => None,
    };
    ranges.filter(|r| !r.is_empty())
}

/// A set written as ttnn writes its string form: `{[0-0 - 7-6], [0-7 - 3-7]}`.
pub fn core_ranges_text(ranges: &[CoreRange]) -> String {
    let each: Vec<String> =
        ranges.iter().map(|r| format!("[{}-{} - {}-{}]", r.start.0, r.start.1, r.end.0, r.end.1)).collect();
    format!("{{{}}}", each.join(", "))
}

/// The text a graph node's `core_range_set` is shown as: a string as written, the JSON form in
/// the string form; none for anything else.
pub(crate) fn core_range_set_text(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Array(_) | Value::Object(_) => core_ranges_of_json(value).map(|r| core_ranges_text(&r)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GRID: CoreRange = CoreRange { start: (0, 0), end: (7, 6) };

    #[test]
    fn the_three_forms_read_alike() {
        assert_eq!(parse_core_ranges("{[0-0 - 7-6]}"), Some(vec![GRID]));
        assert_eq!(parse_core_ranges(r#"[{"start": {"x": 0, "y": 0}, "end": {"x": 7, "y": 6}}]"#), Some(vec![GRID]));
        assert_eq!(parse_core_ranges("[(x=0,y=0) - (x=7,y=6)]"), Some(vec![GRID]));
        assert_eq!(parse_core_ranges("{[(x=0,y=0) - (x=7,y=6)]}"), Some(vec![GRID]));
        // A message's range, and a set of two.
        assert_eq!(parse_core_ranges("[0-0 - 10-9]").map(|r| r[0].cores()), Some(110));
        let two = parse_core_ranges("{[0-0 - 7-6], [0-7 - 3-7]}").unwrap();
        assert_eq!(
            (two.len(), two[1], core_ranges_text(&two)),
            (2, CoreRange { start: (0, 7), end: (3, 7) }, "{[0-0 - 7-6], [0-7 - 3-7]}".to_string())
        );
    }

    #[test]
    fn json_values_and_bad_texts() {
        let json: Value = serde_json::from_str(r#"[{"start": {"x": "1", "y": 2}, "end": {"x": 3, "y": 4}}]"#).unwrap();
        assert_eq!(core_range_set_text(&json).as_deref(), Some("{[1-2 - 3-4]}"));
        assert_eq!(core_range_set_text(&Value::String("{[0-0 - 7-6]}".into())).as_deref(), Some("{[0-0 - 7-6]}"));
        let bad: Value = serde_json::from_str(r#"[{"start": {"x": 1}}]"#).unwrap();
        assert_eq!((core_range_set_text(&bad), core_range_set_text(&Value::Null)), (None, None));
        assert_eq!(parse_core_ranges(""), None);
        assert_eq!(parse_core_ranges("[{not json"), None);
        assert_eq!(parse_core_ranges("CoreRangeSet()"), None);
    }
}
