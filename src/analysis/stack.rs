//! The `file.py:line` label of an operation, from its Python stack trace (docs/rules/reference.md §1.5).

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

/// The line to change for an operation (issue 16): `{file}:{line}` of the innermost frame of its
/// stack trace that is not inside the `ttnn` package, site-packages or pytest — the model's own
/// call. Operation stack traces are stored innermost call first (ttnn's graph capture reverses
/// Python's order); a text that is a Python traceback is read most recent call last. None when
/// every frame is one of those (or there is none): no line of the model to name.
pub(crate) fn model_source_label(stack_trace: &str) -> Option<String> {
    let places = PLACE.captures_iter(stack_trace).map(|c| (c.get(1).map_or("", |m| m.as_str()), c[2].to_string()));
    let mut places: Vec<(&str, String)> = places.collect();
    if stack_trace.contains("Traceback (most recent call last)") {
        places.reverse();
    }
    let (path, line) = places.into_iter().find(|(path, _)| !is_library_path(path))?;
    let file = path.rsplit(['/', '\\']).next().unwrap_or(path);
    Some(format!("{file}:{line}"))
}

/// Whether a frame's file is library code, not the model's (the one rule for operation stack
/// traces and for tracebacks in logs): the `ttnn` package (installed, tt-metal's `ttnn/ttnn/`
/// source tree, or a path relative to it starting `ttnn/`), anything under site-packages or
/// dist-packages, pytest and pluggy, and Python's pseudo-files (`<frozen runpy>`, `<string>`).
/// tt-metal's own tests (`tests/ttnn/…`) are callers' code.
pub(crate) fn is_library_path(path: &str) -> bool {
    let parts: Vec<&str> = path.split(['/', '\\']).filter(|p| !p.is_empty()).collect();
    let library = |p: &&str| matches!(*p, "site-packages" | "dist-packages" | "_pytest" | "pluggy");
    let relative_to_package = !path.starts_with(['/', '\\']) && parts.first() == Some(&"ttnn") && parts.len() > 1;
    path.starts_with('<')
        || relative_to_package
        || parts.iter().any(library)
        || parts.windows(2).any(|w| w == ["ttnn", "ttnn"])
        || parts.last().is_some_and(|f| *f == "pytest" || *f == "py.test")
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

    #[test]
    fn the_model_line_is_the_innermost_frame_outside_ttnn_site_packages_and_pytest() {
        // As ttnn's graph capture stores it: innermost call first, decorators.py and graph.py
        // already left out, the ttnn wrapper of the operation first.
        let stored = "  File \"/home/u/tt-metal/ttnn/ttnn/operations/conv2d.py\", line 120, in conv2d\n    return conv(x)\n  File \"/home/u/tt-metal/models/demos/yolo/tt/block.py\", line 139, in forward\n    x = ttnn.conv2d(x, w)\n  File \"/venv/lib/python3.10/site-packages/torch/nn/modules/module.py\", line 1501, in _call_impl\n  File \"/home/u/tt-metal/tests/ttnn/test_yolo.py\", line 40, in test_yolo\n  File \"/venv/lib/python3.10/site-packages/_pytest/python.py\", line 194, in pytest_pyfunc_call\n";
        assert_eq!(model_source_label(stored).as_deref(), Some("block.py:139"));
        // The operations list keeps the reference's rule (docs/rules/reference.md §1.5): the first place.
        assert_eq!(source_label(stored).as_deref(), Some("conv2d.py:120"));
        // tt-metal's own tests live under tests/ttnn/: that is a caller's file, not the package.
        let test_only = "  File \"/t/tt-metal/ttnn/ttnn/decorators.py\", line 9, in __call__\n  File \"/t/tt-metal/tests/ttnn/unit_tests/test_add.py\", line 31, in test_add\n";
        assert_eq!(model_source_label(test_only).as_deref(), Some("test_add.py:31"));
        let installed = "  File \"/v/lib/python3.10/site-packages/ttnn/operations/core.py\", line 5, in to_memory_config\n  File \"C:\\m\\model.py\", line 8, in run\n";
        assert_eq!(model_source_label(installed).as_deref(), Some("model.py:8"));
    }

    #[test]
    fn a_traceback_is_read_most_recent_call_last_and_library_only_stacks_name_no_line() {
        let traceback = "Traceback (most recent call last):\n  File \"/m/run.py\", line 3, in <module>\n  File \"/m/model.py\", line 57, in forward\n  File \"/v/dist-packages/ttnn/decorators.py\", line 9, in __call__\n";
        assert_eq!(model_source_label(traceback).as_deref(), Some("model.py:57"));
        let library = "  File \"/v/site-packages/ttnn/x.py\", line 1, in f\n  File \"<frozen runpy>\", line 88, in _run_code\n  File \"/usr/bin/pytest\", line 8, in <module>\n";
        assert_eq!(model_source_label(library), None);
        assert_eq!(model_source_label(""), None);
        // Relative to tt-metal's ttnn folder, the package is `ttnn/…`; tt-metal's tests are not.
        assert!(is_library_path("ttnn/operations/conv2d.py"));
        assert!(!is_library_path("tests/ttnn/unit_tests/test_add.py"));
        assert!(!is_library_path("/home/u/ttnn_models/ttnn/model.py"));
    }
}
