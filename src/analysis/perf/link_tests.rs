use super::*;
use crate::analysis::graph::nodes::parse_graph;
use crate::analysis::perf::report_rows::SIGNPOST_OP_TYPE;
use serde_json::{Value, json};

/// Graph builder of docs/rules/reference.md §14.8: `capture_start`, then the given nodes.
fn graph(nodes: &[Value]) -> Vec<crate::analysis::graph::nodes::GraphNode> {
    let mut all = vec![json!({"counter": 0, "node_type": "capture_start", "params": null})];
    for (i, n) in nodes.iter().enumerate() {
        let mut n = n.clone();
        n["counter"] = json!(i + 1);
        all.push(n);
    }
    parse_graph(&Value::Array(all).to_string()).unwrap()
}

fn s(name: &str) -> Value {
    json!({"node_type": "function_start", "params": {"name": name}})
}

fn e(name: &str) -> Value {
    json!({"node_type": "function_end", "params": {"name": name}})
}

fn e_aborted(name: &str, aborted: Value) -> Value {
    json!({"node_type": "function_end", "params": {"name": name, "aborted": aborted}})
}

/// Nested graph of names: `s a, s b, e b, e a`.
fn nested(names: &[&str]) -> Vec<Value> {
    names.iter().map(|n| s(n)).chain(names.iter().rev().map(|n| e(n))).collect()
}

/// Not nested: each name started and ended in turn.
fn flat(names: &[&str]) -> Vec<Value> {
    names.iter().flat_map(|n| [s(n), e(n)]).collect()
}

/// Failed graph: `s ttnn.matmul`, a pair per completed name, `s <failed>`; aborted shape adds
/// the aborted ends.
fn failed(completed: &[&str], failed: &str, aborted_shape: bool) -> Vec<Value> {
    let mut nodes = vec![s("ttnn.matmul")];
    nodes.extend(flat(completed));
    nodes.push(s(failed));
    if aborted_shape {
        nodes.push(e_aborted(failed, json!("true")));
        nodes.push(e_aborted("ttnn.matmul", json!("true")));
    }
    nodes
}

fn op(id: u64, nodes: &[Value]) -> MemoryOperation {
    MemoryOperation::from_graph(id, format!("op{id}"), &graph(nodes))
}

fn row(id: u64, code: &str) -> PerfRow {
    PerfRow { id, raw_op_code: code.into(), op_code: code.into(), op_type: DEVICE_OP_TYPE.into(), ..PerfRow::default() }
}

fn signpost(id: u64, code: &str) -> PerfRow {
    PerfRow { op_type: SIGNPOST_OP_TYPE.into(), ..row(id, code) }
}

fn names(list: &[CompletedDeviceOperation]) -> Vec<&str> {
    list.iter().map(|d| d.name.as_str()).collect()
}

#[test]
fn the_failed_device_operation_is_dropped_from_both_lists() {
    for aborted_shape in [true, false] {
        let o = op(1, &failed(&["TilizeDeviceOperation"], "MatmulDeviceOperation", aborted_shape));
        assert_eq!(names(&o.starts), ["TilizeDeviceOperation"]);
        assert_eq!(names(&o.ends), ["TilizeDeviceOperation"]);
    }
}

#[test]
fn aborted_is_read_exactly() {
    for (flag, dropped) in [(json!(true), true), (json!("true"), true), (json!("True"), false), (json!("false"), false)]
    {
        let o = op(1, &[s("MatmulDeviceOperation"), e_aborted("MatmulDeviceOperation", flag)]);
        assert_eq!(o.starts.is_empty(), dropped);
    }
}

#[test]
fn stray_ends_are_ignored() {
    let o = op(1, &[e("AddDeviceOperation"), s("MatmulDeviceOperation"), e("MatmulDeviceOperation")]);
    assert_eq!(names(&o.starts), ["MatmulDeviceOperation"]);
}

#[test]
fn start_order_aligns_and_trailing_rows_are_allowed() {
    let ops = [op(1, &nested(&["A", "B"])), op(2, &flat(&["C"]))];
    let rows = [signpost(2, "start"), row(3, "A"), row(4, "B"), row(5, "C"), row(6, "D")];
    let linked = link(&ops, &rows, 1);
    assert_eq!(linked.attempt, Some(Attempt::StartOrder));
    assert_eq!(linked.map.rows_of(1), [3, 4]);
    assert_eq!(linked.map.operation_of(5), Some(2));
    assert_eq!(linked.map.operation_of(2), None);
    assert_eq!(linked.state(), LinkState::Linked);
}

#[test]
fn end_order_is_tried_second() {
    let ops = [op(1, &nested(&["A", "B"]))];
    let linked = link(&ops, &[row(2, "B"), row(3, "A")], 1);
    assert_eq!(linked.attempt, Some(Attempt::EndOrder));
    assert_eq!(linked.map.rows_of(1), [2, 3]);
}

#[test]
fn alignment_is_all_or_nothing() {
    let ops = [op(1, &flat(&["A", "B"]))];
    assert!(link(&ops, &[row(2, "A"), row(3, "X")], 1).map.is_empty());
    // More device operations than rows.
    assert!(link(&ops, &[row(2, "A")], 1).map.is_empty());
    // An empty memory side never links.
    let linked = link(&[op(1, &[])], &[row(2, "A")], 1);
    assert_eq!(linked.state(), LinkState::Unlinked);
}

#[test]
fn multi_device_collapse() {
    // Two devices: each device operation recorded twice in the graph, once per device.
    let ops = [op(1, &flat(&["A", "A", "B", "B"]))];
    let rows = [row(2, "A"), row(5, "B")];
    assert!(link(&ops, &rows, 1).map.is_empty());
    let linked = link(&ops, &rows, 2);
    assert_eq!(linked.attempt, Some(Attempt::StartOrderCollapsed));
    assert_eq!(linked.map.rows_of(1), [2, 5]);
    // A key seen a number of times other than numDevices breaks the collapse.
    let ops = [op(1, &flat(&["A", "A", "B"]))];
    assert!(link(&ops, &[row(2, "A"), row(3, "B")], 2).map.is_empty());
}

#[test]
fn a_same_named_retry_links_to_its_own_row() {
    // Operation 2's MatmulDeviceOperation failed, operation 3 retried it, operation 4 was an add.
    for aborted_shape in [true, false] {
        let ops = [
            op(2, &failed(&[], "MatmulDeviceOperation", aborted_shape)),
            op(3, &nested(&["ttnn.matmul", "MatmulDeviceOperation"])),
            op(4, &nested(&["ttnn.add", "BinaryNgDeviceOperation"])),
        ];
        let rows = [signpost(2, "start"), row(3, "MatmulDeviceOperation"), row(5, "BinaryNgDeviceOperation")];
        let linked = link(&ops, &rows, 1);
        assert_eq!(linked.map.operation_of(3), Some(3));
        assert_eq!(linked.map.operation_of(5), Some(4));
        assert!(linked.map.rows_of(2).is_empty());
    }
}

#[test]
fn an_unrelated_report_does_not_link() {
    let ops = [op(1, &flat(&["MatmulDeviceOperation", "BinaryNgDeviceOperation"]))];
    let rows = [row(2, "SoftmaxDeviceOperation"), row(3, "MatmulDeviceOperation")];
    let linked = link(&ops, &rows, 1);
    assert!(!linked.is_linked());
    assert_eq!(linked.state().text(), UNLINKED_TEXT);
    assert_eq!(LinkState::Linked.text(), LINKED_TEXT);
}

#[test]
fn the_per_device_view_extends_the_mapping_by_group() {
    let mut merged = LinkMap::default();
    merged.insert(7, 4); // the merged row kept device 1's Matmul (id 4)
    merged.insert(8, 5);
    let device = |id: u64, code: &str, d: u64| PerfRow { device: Some(d), ..row(id, code) };
    let unmerged = [
        device(2, "Matmul", 0),
        device(4, "Matmul", 1),
        device(3, "Add", 0),
        device(5, "Add", 1),
        device(6, "Relu", 0),
        device(7, "Relu", 1),
    ];
    let map = per_device_map(&merged, &unmerged);
    assert_eq!(map.rows_of(7), [4, 2]);
    assert_eq!(map.operation_of(3), Some(8));
    // A group without a mapped row stays unmapped.
    assert_eq!(map.operation_of(6), None);
    assert_eq!(per_device_map(&LinkMap::default(), &unmerged), LinkMap::default());
}

#[test]
fn a_failed_link_says_why() {
    let ops = [op(1, &flat(&["MatmulDeviceOperation", "BinaryNgDeviceOperation"]))];
    let rows = [signpost(2, "start"), row(3, "MatmulDeviceOperation"), row(5, "SoftmaxDeviceOperation")];
    let unrelated = link(&ops, &rows, 1);
    assert_eq!(
        unrelated.reason().as_deref(),
        Some(
            "2 device operations completed in the memory report, 3 rows in the performance report (1 signpost among them, not compared); first difference at ID 5: BinaryNgDeviceOperation vs SoftmaxDeviceOperation"
        )
    );
    assert_eq!(unrelated.state(), LinkState::Unlinked);
    let short = link(&ops, &rows[..2], 1);
    assert_eq!(
        short.reason().as_deref(),
        Some(
            "2 device operations completed in the memory report, 2 rows in the performance report (1 signpost among them, not compared); more device operations than rows to compare"
        )
    );
    let linked = link(&ops, &[row(2, "MatmulDeviceOperation"), row(3, "BinaryNgDeviceOperation")], 1);
    assert_eq!((linked.state(), linked.reason()), (LinkState::Linked, None));
    assert_eq!(link(&[], &rows, 1).reason().as_deref(), Some("the memory report has no operations"));
    assert_eq!(
        link(&[op(1, &[])], &rows, 1).reason().as_deref(),
        Some("no device operation completed in the memory report")
    );
}

/// docs/rules/reference.md §8.1: a performance report with a header and no rows is `unavailable`.
#[test]
fn a_performance_report_without_rows_is_unavailable() {
    let empty = link(&[op(1, &flat(&["MatmulDeviceOperation"]))], &[], 1);
    assert_eq!(empty.state(), LinkState::Unavailable);
    assert_eq!(empty.state().as_str(), "unavailable");
    assert_eq!(empty.state().text(), UNLINKED_TEXT);
    assert_eq!(empty.reason().as_deref(), Some("the performance report has no rows"));
}
