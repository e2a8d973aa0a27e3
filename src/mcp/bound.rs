//! Answers bounded in size: every list that grows with the run is cut at `limit` items (50 when
//! not given, never more than 500), and the answer's `left_out` says how many each list lost.

use serde_json::{Map, Value};

/// Items per list when `limit` is not given.
pub(crate) const DEFAULT_LIMIT: u64 = 50;
/// The most items per list, whatever `limit` asks.
pub(crate) const MAX_LIMIT: u64 = 500;

/// The items per list for a `limit` argument: the default when none, at most [`MAX_LIMIT`]
/// (0 keeps no item: `left_out` then counts them).
pub(crate) fn limit(given: Option<u64>) -> usize {
    given.unwrap_or(DEFAULT_LIMIT).min(MAX_LIMIT) as usize
}

/// Cuts the lists of `answer` at `paths` (keys joined by `.`; `*` goes into every item of a
/// list) to `limit` items, and adds `left_out`: `{"operations": 12}` per path that lost items
/// (every item of a `*` path summed), `{}` when nothing was cut.
pub(crate) fn bounded(mut answer: Value, paths: &[&str], limit: usize) -> Value {
    let mut left_out = Map::new();
    for path in paths {
        let keys: Vec<&str> = path.split('.').collect();
        let cut = cut(&mut answer, &keys, limit);
        if cut > 0 {
            left_out.insert((*path).to_string(), Value::from(cut));
        }
    }
    if let Value::Object(map) = &mut answer {
        map.insert("left_out".to_string(), Value::Object(left_out));
    }
    answer
}

/// Cuts the list at `keys` under `value`; how many items it lost.
fn cut(value: &mut Value, keys: &[&str], limit: usize) -> usize {
    match (keys, value) {
        ([], Value::Array(items)) => {
            let lost = items.len().saturating_sub(limit);
            items.truncate(limit);
            lost
        }
        (["*", rest @ ..], Value::Array(items)) => items.iter_mut().map(|item| cut(item, rest, limit)).sum(),
        ([key, rest @ ..], Value::Object(map)) => map.get_mut(*key).map_or(0, |v| cut(v, rest, limit)),
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn limits_default_and_cap() {
        assert_eq!(limit(None), 50);
        assert_eq!(limit(Some(3)), 3);
        assert_eq!(limit(Some(0)), 0);
        assert_eq!(limit(Some(10_000)), 500);
    }

    #[test]
    fn lists_are_cut_and_what_was_left_out_is_said() {
        let answer = json!({
            "operations": [1, 2, 3],
            "memory": {"live_buffers": [1, 2, 3, 4], "free_blocks": [1]},
            "memory_at_start": [{"live_buffers": [1, 2, 3]}, {"live_buffers": [1, 2]}],
            "memory_none": null,
        });
        let paths = ["operations", "memory.live_buffers", "memory.free_blocks", "memory_at_start.*.live_buffers"];
        let cut = bounded(answer, &paths, 2);
        assert_eq!(cut["operations"], json!([1, 2]));
        assert_eq!(cut["memory"]["live_buffers"], json!([1, 2]));
        assert_eq!(cut["memory"]["free_blocks"], json!([1]));
        assert_eq!(cut["memory_at_start"][0]["live_buffers"], json!([1, 2]));
        assert_eq!(
            cut["left_out"],
            json!({"operations": 1, "memory.live_buffers": 2, "memory_at_start.*.live_buffers": 1})
        );
        assert_eq!(bounded(json!({"late": [], "x": null}), &["late", "x.y"], 50)["left_out"], json!({}));
    }
}
