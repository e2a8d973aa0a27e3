//! The shapes of docs/rules/reference.md §14.5 as trees, plus the circular-buffer pre-pass.

use super::*;
use crate::analysis::graph::nodes::NodeFields;

fn start(name: &str, level: Option<i64>) -> GraphNode {
    GraphNode::from(NodeFields {
        node_type: Some(NodeType::FunctionStart),
        name: name.into(),
        stacking_level: level,
        ..NodeFields::default()
    })
}

fn end(name: &str, level: Option<i64>) -> GraphNode {
    GraphNode::from(NodeFields { node_type: Some(NodeType::FunctionEnd), ..start(name, level).fields() })
}

fn aborted(name: &str, level: Option<i64>, reason: Option<&str>) -> GraphNode {
    GraphNode::from(NodeFields { aborted: true, abort_reason: reason.map(str::to_string), ..end(name, level).fields() })
}

fn node(node_type: NodeType, size: u64, device: u64) -> GraphNode {
    GraphNode::from(NodeFields {
        node_type: Some(node_type),
        size: Some(size),
        address: Some(4096),
        device_id: Some(device),
        core_range_set: Some("{[0-0 - 7-7]}".into()),
        ..NodeFields::default()
    })
}

fn with_ids(mut nodes: Vec<GraphNode>) -> Vec<GraphNode> {
    for (i, n) in nodes.iter_mut().enumerate() {
        n.edit(|n| n.id = i as u64);
    }
    nodes
}

fn scope(entry: &TreeEntry) -> &ScopeBlock {
    match entry {
        TreeEntry::Scope(s) => s,
        TreeEntry::Buffer(b) => panic!("expected a scope, got {b:?}"),
    }
}

/// `(name, outcome, marked, children count)` of a scope.
fn shape(entry: &TreeEntry) -> (&str, Outcome, bool, usize) {
    let s = scope(entry);
    (s.name.as_str(), s.outcome, s.marked, s.children.len())
}

#[test]
fn aborted_ends_fail_and_keep_their_allocations() {
    let nodes = with_ids(vec![
        start("ttnn.matmul", Some(1)),
        start("MatmulDeviceOperation", Some(2)),
        node(NodeType::BufferAllocate, 2048, 0),
        aborted("MatmulDeviceOperation", Some(2), Some("Out of Memory")),
        aborted("ttnn.matmul", Some(1), None),
    ]);
    let tree = device_ops_tree(&nodes, true);
    assert_eq!(tree.len(), 1);
    assert_eq!(shape(&tree[0]), ("ttnn.matmul", Outcome::Failed, true, 1));
    let outer = scope(&tree[0]);
    assert_eq!(outer.outcome_text.as_deref(), Some("Did not complete: an error was raised inside it"));
    let inner = scope(&outer.children[0]);
    assert_eq!(shape(&outer.children[0]), ("MatmulDeviceOperation", Outcome::Failed, true, 1));
    assert_eq!(inner.outcome_text.as_deref(), Some("Out of Memory"));
    assert!(
        matches!(&inner.children[0], TreeEntry::Buffer(b) if b.kind == NodeType::BufferAllocate && b.size == Some(2048))
    );
    assert_eq!(first_failed_path(&tree), Some(vec![0, 0]));
}

#[test]
fn stacking_levels_close_a_scope_left_open_at_the_next_start_of_its_level() {
    let nodes = with_ids(vec![
        start("ttnn.conv2d", Some(1)),
        start("Failed", Some(2)),
        node(NodeType::BufferAllocate, 1024, 0),
        start("Next", Some(2)),
        end("Next", Some(2)),
        end("ttnn.conv2d", Some(1)),
    ]);
    let tree = device_ops_tree(&nodes, true);
    // ttnn.conv2d completes but carries the marker of the failed scope inside it.
    assert_eq!(shape(&tree[0]), ("ttnn.conv2d", Outcome::Completed, true, 2));
    let outer = scope(&tree[0]);
    assert_eq!(outer.outcome_text, None);
    assert_eq!(shape(&outer.children[0]), ("Failed", Outcome::Failed, true, 1));
    assert_eq!(scope(&outer.children[0]).outcome_text.as_deref(), Some("Launch failed before reaching the device"));
    assert_eq!(shape(&outer.children[1]), ("Next", Outcome::Completed, false, 0));
    assert_eq!(first_failed_path(&tree), Some(vec![0, 0]));
}

#[test]
fn without_stacking_levels_what_follows_nests_inside() {
    let nodes =
        with_ids(vec![start("ttnn.conv2d", None), start("Failed", None), start("Next", None), end("Next", None)]);
    let tree = device_ops_tree(&nodes, true);
    assert_eq!(shape(&tree[0]), ("ttnn.conv2d", Outcome::Failed, true, 1));
    let failed = &scope(&tree[0]).children[0];
    assert_eq!(shape(failed), ("Failed", Outcome::Failed, true, 1));
    assert_eq!(shape(&scope(failed).children[0]), ("Next", Outcome::Completed, false, 0));
}

#[test]
fn an_unclosed_scope_without_a_recorded_error_is_not_marked() {
    let nodes =
        with_ids(vec![start("ttnn.conv2d", None), start("Conv2d", None), node(NodeType::BufferAllocate, 64, 0)]);
    let tree = device_ops_tree(&nodes, false);
    assert_eq!(shape(&tree[0]), ("ttnn.conv2d", Outcome::Unclosed, false, 1));
    let inner = &scope(&tree[0]).children[0];
    assert_eq!(shape(inner), ("Conv2d", Outcome::Unclosed, false, 1));
    assert_eq!(scope(inner).outcome_text.as_deref(), Some("The capture ended before this scope closed"));
    assert_eq!(first_failed_path(&tree), None);
    // The same capture with a recorded error: both failed, allocation still inside.
    let tree = device_ops_tree(&nodes, true);
    assert_eq!(shape(&scope(&tree[0]).children[0]), ("Conv2d", Outcome::Failed, true, 1));
}

#[test]
fn crossed_end_closes_the_inner_scope_implicitly() {
    let nodes = with_ids(vec![start("ttnn.conv2d", None), start("Conv2d", None), end("ttnn.conv2d", None)]);
    let tree = device_ops_tree(&nodes, true);
    assert_eq!(shape(&tree[0]), ("ttnn.conv2d", Outcome::Completed, true, 1));
    assert_eq!(shape(&scope(&tree[0]).children[0]), ("Conv2d", Outcome::Failed, true, 0));
}

#[test]
fn circular_buffers_collapse_across_devices_and_deallocation_follows_the_run() {
    let nodes = with_ids(vec![
        start("Op", Some(1)),
        node(NodeType::CircularBufferDeallocateAll, 0, 0),
        node(NodeType::CircularBufferAllocate, 32768, 0),
        node(NodeType::CircularBufferAllocate, 32768, 1),
        node(NodeType::BufferAllocate, 2048, 0),
        end("Op", Some(1)),
        node(NodeType::CircularBufferDeallocateAll, 0, 0),
    ]);
    let tree = device_ops_tree(&nodes, false);
    // The top-level deallocation has no CB allocation in its scope and disappears.
    assert_eq!(tree.len(), 1);
    let kinds: Vec<(NodeType, usize)> = scope(&tree[0])
        .children
        .iter()
        .map(|c| match c {
            TreeEntry::Buffer(b) => (b.kind, b.devices),
            TreeEntry::Scope(_) => panic!("no scope expected"),
        })
        .collect();
    assert_eq!(
        kinds,
        vec![
            (NodeType::CircularBufferAllocate, 2),
            (NodeType::CircularBufferDeallocateAll, 1),
            (NodeType::BufferAllocate, 1)
        ]
    );
}

#[test]
fn a_completed_reshape_with_equal_shapes_is_a_no_op() {
    let tensor = |id: u64, shape: &str| {
        GraphNode::from(NodeFields {
            id,
            node_type: Some(NodeType::Tensor),
            shape: Some(shape.into()),
            ..NodeFields::default()
        })
    };
    let build = |out_shape: &str| {
        vec![
            tensor(0, "Shape([1, 32])"),
            GraphNode::from(NodeFields { id: 1, input_tensors: vec![0], ..start("Tensor::reshape", None).fields() }),
            GraphNode::from(NodeFields { id: 2, connections: vec![3], ..end("Tensor::reshape", None).fields() }),
            tensor(3, out_shape),
        ]
    };
    let tree = device_ops_tree(&build("Shape([1, 32])"), false);
    assert_eq!(scope(&tree[0]).warning, Some(NO_OP_RESHAPE));
    let tree = device_ops_tree(&build("Shape([32])"), false);
    assert_eq!(scope(&tree[0]).warning, None);
}

#[test]
fn entry_at_follows_child_indexes() {
    let nodes = with_ids(vec![start("A", None), start("B", None), end("B", None), end("A", None)]);
    let tree = device_ops_tree(&nodes, false);
    assert_eq!(entry_at(&tree, &[0, 0]).map(|e| scope(e).name.as_str()), Some("B"));
    assert_eq!(entry_at(&tree, &[0, 1]), None);
    assert_eq!(entry_at(&tree, &[]), None);
}
