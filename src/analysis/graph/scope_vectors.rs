//! docs/rules/reference.md §14.5 (scope outcomes), §14.6 (failed device operations) and the §14.8 graph
//! cases of completed device operations, as tests.

use super::nodes::{GraphNode, NodeFields, NodeType};
use super::scopes::{
    Close, Outcome, completed_device_operations, failed_device_operations, is_device_operation, outcome_text,
    scope_closes,
};

fn node(node_type: NodeType, name: &str, level: Option<i64>) -> GraphNode {
    GraphNode::from(NodeFields {
        node_type: Some(node_type),
        name: name.to_string(),
        stacking_level: level,
        ..NodeFields::default()
    })
}
fn s(name: &str) -> GraphNode {
    node(NodeType::FunctionStart, name, None)
}
fn s_at(name: &str, level: i64) -> GraphNode {
    node(NodeType::FunctionStart, name, Some(level))
}
fn e(name: &str) -> GraphNode {
    node(NodeType::FunctionEnd, name, None)
}
fn e_at(name: &str, level: i64) -> GraphNode {
    node(NodeType::FunctionEnd, name, Some(level))
}
fn aborted(name: &str, reason: Option<&str>) -> GraphNode {
    GraphNode::from(NodeFields { aborted: true, abort_reason: reason.map(String::from), ..e(name).fields() })
}
fn alloc() -> GraphNode {
    node(NodeType::BufferAllocate, "", None)
}

/// Renders closes as `(name, before, outcome)`, `before` = None at the end of the graph.
fn closes(nodes: &[GraphNode], has_error: bool) -> Vec<(String, Option<usize>, Outcome)> {
    scope_closes(nodes, has_error)
        .into_iter()
        .map(|c| (nodes[c.start].name().to_string(), c.before, c.outcome))
        .collect()
}

fn c(name: &str, before: Option<usize>, outcome: Outcome) -> (String, Option<usize>, Outcome) {
    (name.to_string(), before, outcome)
}

use Outcome::{Completed, Failed, Unclosed};

#[test]
fn completed_nesting_closes_at_each_end() {
    let g = [s("ttnn.conv2d"), s("Conv2d"), e("Conv2d"), e("ttnn.conv2d")];
    for has_error in [false, true] {
        assert_eq!(closes(&g, has_error), vec![c("Conv2d", Some(2), Completed), c("ttnn.conv2d", Some(3), Completed)]);
    }
}

#[test]
fn aborted_end_fails_with_its_reason() {
    let g = [s("Conv2d"), aborted("Conv2d", Some("Out of Memory"))];
    let all = scope_closes(&g, false);
    assert_eq!(
        all,
        vec![Close {
            start: 0,
            before: Some(1),
            outcome: Failed,
            end: Some(1),
            abort_reason: Some("Out of Memory".into())
        }]
    );
}

#[test]
fn open_scopes_at_the_end_depend_on_a_recorded_error() {
    let g = [s("ttnn.conv2d"), s("Conv2d"), alloc()];
    assert_eq!(closes(&g, true), vec![c("Conv2d", None, Failed), c("ttnn.conv2d", None, Failed)]);
    assert_eq!(closes(&g, false), vec![c("Conv2d", None, Unclosed), c("ttnn.conv2d", None, Unclosed)]);
}

#[test]
fn an_outer_end_closes_what_is_open_inside_it() {
    let g = [s("ttnn.conv2d"), s("Conv2d"), e("ttnn.conv2d")];
    assert_eq!(closes(&g, true), vec![c("Conv2d", Some(2), Failed), c("ttnn.conv2d", Some(2), Completed)]);
}

#[test]
fn stray_ends_are_ignored() {
    let g = [aborted("ttnn.matmul", None), s("Conv2d"), e("Halo"), e("Conv2d")];
    for has_error in [false, true] {
        assert_eq!(closes(&g, has_error), vec![c("Conv2d", Some(3), Completed)]);
    }
}

#[test]
fn stacking_level_closes_a_scope_left_open_at_the_next_sibling() {
    let g = [s_at("ttnn.conv2d", 1), s_at("Failed", 2), s_at("Next", 2), e_at("Next", 2), e_at("ttnn.conv2d", 1)];
    assert_eq!(
        closes(&g, true),
        vec![c("Failed", Some(2), Failed), c("Next", Some(3), Completed), c("ttnn.conv2d", Some(4), Completed)]
    );
}

#[test]
fn a_shallower_start_closes_every_deeper_scope_innermost_first() {
    let g = [s_at("ttnn.a", 1), s_at("Inner", 2), s_at("ttnn.b", 1)];
    for (has_error, implicit) in [(true, Failed), (false, Unclosed)] {
        assert_eq!(
            closes(&g, has_error),
            vec![c("Inner", Some(2), implicit), c("ttnn.a", Some(2), implicit), c("ttnn.b", None, implicit)]
        );
    }
}

#[test]
fn without_levels_what_follows_nests_inside_the_open_scope() {
    let g = [s("ttnn.conv2d"), s("Failed"), s("Next"), e("Next")];
    assert_eq!(
        closes(&g, true),
        vec![c("Next", Some(3), Completed), c("Failed", None, Failed), c("ttnn.conv2d", None, Failed)]
    );
}

#[test]
fn crossed_ends_close_the_inner_scope_implicitly() {
    let g = [s("A"), s("B"), e("A"), e("B")];
    assert_eq!(closes(&g, false), vec![c("B", Some(2), Unclosed), c("A", Some(2), Completed)]);
}

#[test]
fn nameless_ends_close_nothing() {
    let g = [s(""), e("")];
    assert_eq!(closes(&g, false), vec![c("", None, Unclosed)]);
}

#[test]
fn failed_device_operations_vectors() {
    let names = |g: &[GraphNode]| failed_device_operations(g);
    assert_eq!(names(&[s("ttnn.conv2d"), s("Halo"), e("Halo"), s("Conv2d"), aborted("Conv2d", None)]), vec!["Conv2d"]);
    assert_eq!(names(&[s("ttnn.conv2d"), s("Halo"), e("Halo"), s("Conv2d")]), vec!["Conv2d"]);
    assert_eq!(names(&[s("Outer"), s("Inner")]), vec!["Outer", "Inner"]);
    assert_eq!(names(&[s("Outer"), s("Inner"), e("Outer"), e("Inner")]), vec!["Inner"]);
    assert!(names(&[]).is_empty());
}

#[test]
fn device_operation_names() {
    assert!(is_device_operation("MatmulDeviceOperation"));
    for name in ["ttnn.matmul", "Tensor::to_device", "aten::add (torch)", ""] {
        assert!(!is_device_operation(name), "{name}");
    }
}

#[test]
fn completed_device_operations_leave_out_failed_and_unclosed() {
    let capture = node(NodeType::CaptureStart, "", None);
    // Aborted shape: the failed device operation and its host scope are dropped from both lists.
    let aborted_shape = [
        capture.clone(),
        s("ttnn.matmul"),
        s("A"),
        e("A"),
        s("B"),
        e("B"),
        s("MatmulDeviceOperation"),
        aborted("MatmulDeviceOperation", Some("Out of Memory")),
        aborted("ttnn.matmul", None),
    ];
    let older_shape = &aborted_shape[..7];
    for g in [&aborted_shape[..], older_shape] {
        let (starts, ends) = completed_device_operations(g);
        let names =
            |l: &[super::scopes::CompletedDeviceOperation]| l.iter().map(|d| d.name.clone()).collect::<Vec<_>>();
        assert_eq!(names(&starts), vec!["A", "B"]);
        assert_eq!(names(&ends), vec!["A", "B"]);
    }
    // Nested: start order a, b; end order b, a.
    let nested = [capture, s("a"), s("b"), e("b"), e("a")];
    let (starts, ends) = completed_device_operations(&nested);
    assert_eq!((starts[0].name.as_str(), starts[1].name.as_str()), ("a", "b"));
    assert_eq!((ends[0].name.as_str(), ends[1].name.as_str()), ("b", "a"));
}

#[test]
fn aborted_is_read_exactly_for_linking() {
    for (value, counts) in [("true", true), ("\"true\"", true), ("\"True\"", false), ("\"false\"", false)] {
        let text = format!(
            r#"[{{"node_type":"function_start","params":{{"name":"X"}}}},{{"node_type":"function_end","params":{{"name":"X","aborted":{value}}}}}]"#
        );
        let g = super::nodes::parse_graph(&text).unwrap();
        assert_eq!(completed_device_operations(&g).0.is_empty(), counts, "{value}");
    }
}

#[test]
fn outcome_texts() {
    assert_eq!(outcome_text(Failed, "Conv2d", Some("Out of Memory")).as_deref(), Some("Out of Memory"));
    assert_eq!(outcome_text(Failed, "Conv2d", None).as_deref(), Some("Launch failed before reaching the device"));
    assert_eq!(
        outcome_text(Failed, "ttnn.conv2d", None).as_deref(),
        Some("Did not complete: an error was raised inside it")
    );
    assert_eq!(outcome_text(Unclosed, "Conv2d", None).as_deref(), Some("The capture ended before this scope closed"));
    assert_eq!(outcome_text(Completed, "Conv2d", None), None);
}
