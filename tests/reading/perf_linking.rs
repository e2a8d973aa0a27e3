//! Linking perf CSVs to memory-side operations end to end: the reference's retry case, `Op
//! failed` rows and the callout, multi-device collapse, and an unrelated CSV that must not link.

use crate::support;

use serde_json::{Value, json};
use std::collections::HashMap;
use support::perf::{Era, PerfCsv, Row};
use ttnn_tui::analysis::graph::nodes::parse_graph;
use ttnn_tui::analysis::graph::scopes::failed_device_operations;
use ttnn_tui::analysis::messages::failure::parse_allocation_failure;
use ttnn_tui::analysis::perf::callout::{FailedOperation, failure_listings, perf_callout, perf_status_for_operation};
use ttnn_tui::analysis::perf::flags::{FlagKind, flags_for_rows};
use ttnn_tui::analysis::perf::link::{LinkState, MemoryOperation, link, per_device_map};
use ttnn_tui::report::perf::perf_report::PerfReport;

const L1_FAILURE: &str = "Out of Memory: Not enough space to allocate 3276800 B L1 buffer across 4 banks, where each bank needs to store 819200 B, but bank size is only 1382720 B";

fn graph(nodes: &[(&str, &str, bool)]) -> Vec<ttnn_tui::analysis::graph::nodes::GraphNode> {
    let mut all = vec![json!({"counter": 0, "node_type": "capture_start", "params": null})];
    for (i, (kind, name, aborted)) in nodes.iter().enumerate() {
        let mut params = json!({"name": name});
        if *aborted {
            params["aborted"] = json!(true);
        }
        all.push(json!({"counter": i + 1, "node_type": kind, "params": params}));
    }
    parse_graph(&Value::Array(all).to_string()).unwrap()
}

fn pair(name: &str) -> [(&str, &str, bool); 2] {
    [("function_start", name, false), ("function_end", name, false)]
}

fn open(csv: &PerfCsv, name: &str) -> PerfReport {
    let dir = std::env::temp_dir().join(format!("ttnn-tui-link-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    PerfReport::open(&csv.write(&dir, "ops_perf_results.csv")).unwrap()
}

/// Operation 2: a tilize ran, then its MatmulDeviceOperation failed to allocate (aborted);
/// operation 3 retried the matmul; operation 4 was an add.
fn retry_case() -> (Vec<MemoryOperation>, Vec<FailedOperation>) {
    let mut op2 = vec![("function_start", "ttnn.matmul", false)];
    op2.extend(pair("TilizeDeviceOperation"));
    op2.extend([
        ("function_start", "MatmulDeviceOperation", false),
        ("function_end", "MatmulDeviceOperation", true),
        ("function_end", "ttnn.matmul", true),
    ]);
    let op2 = graph(&op2);
    let op3 = graph(&[
        pair("ttnn.matmul")[0],
        pair("MatmulDeviceOperation")[0],
        pair("MatmulDeviceOperation")[1],
        pair("ttnn.matmul")[1],
    ]);
    let op4 = graph(&pair("BinaryNgDeviceOperation"));
    let failed = FailedOperation {
        id: 2,
        name: "ttnn.matmul".into(),
        failure: parse_allocation_failure(L1_FAILURE).unwrap(),
        failed_device_operations: failed_device_operations(&op2),
    };
    let memory = vec![
        MemoryOperation::from_graph(2, "ttnn.matmul", &op2),
        MemoryOperation::from_graph(3, "ttnn.matmul", &op3),
        MemoryOperation::from_graph(4, "ttnn.add", &op4),
    ];
    (memory, vec![failed])
}

#[test]
fn the_retry_links_to_its_own_row_and_the_failed_operation_rows_are_flagged() {
    let (memory, failed) = retry_case();
    let mut csv = PerfCsv::new(Era::Y2026);
    csv.push(Row::device("TilizeDeviceOperation", 0, 1000)); // ID 2
    csv.push(Row::device("MatmulDeviceOperation", 0, 5000)); // ID 3
    csv.push(Row::host("aten::relu (torch)")); // ID 4, hidden
    csv.push(Row::device("BinaryNgDeviceOperation", 0, 1000)); // ID 5
    let report = open(&csv, "retry");
    let rows = report.rows(true);
    let linked = link(&memory, &rows, 1);
    assert_eq!(linked.state(), LinkState::Linked);
    assert_eq!(linked.map.operation_of(3), Some(3));
    assert_eq!(linked.map.operation_of(5), Some(4));
    assert_eq!(linked.map.rows_of(2), [2]);

    let failures = HashMap::from([(2, failed[0].failure.clone())]);
    let flags = flags_for_rows(&rows, &linked.map, &failures, &HashMap::new(), report.max_cores(&rows));
    let op_failed: Vec<u64> = rows
        .iter()
        .zip(&flags)
        .filter(|(_, f)| f.iter().any(|f| f.kind == FlagKind::OpFailed))
        .map(|(r, _)| r.id)
        .collect();
    assert_eq!(op_failed, [2]);

    let listings = failure_listings(&failed, &linked.map, &linked.map);
    let callout = perf_callout(&listings, linked.is_linked(), false).unwrap();
    assert_eq!(callout.title, "1 allocation failure recorded in the linked memory report");
    assert_eq!(callout.listings[0].label, "2 ttnn.matmul");
    assert_eq!(
        callout.listings[0].body.last_line.as_deref(),
        Some("Failed in MatmulDeviceOperation; 1 earlier device op ran, so it has 1 row in this report.")
    );
    let status = perf_status_for_operation(2, &failed[0].failed_device_operations, true, &linked.map, &linked.map);
    assert_eq!(status.op_failed_row_ids, ["2"]);
}

#[test]
fn an_unrelated_csv_does_not_link_and_shows_no_failure() {
    let (memory, failed) = retry_case();
    let mut csv = PerfCsv::new(Era::Y2025);
    csv.push(Row::device("SoftmaxDeviceOperation", 0, 1000));
    csv.push(Row::device("MatmulDeviceOperation", 0, 1000));
    csv.push(Row::device("BinaryNgDeviceOperation", 0, 1000));
    let rows = open(&csv, "unrelated").rows(true);
    let linked = link(&memory, &rows, 1);
    assert_eq!(linked.state(), LinkState::Unlinked);
    let listings = failure_listings(&failed, &linked.map, &linked.map);
    assert!(perf_callout(&listings, linked.is_linked(), false).is_none());
    let failures = HashMap::from([(2, failed[0].failure.clone())]);
    let flags = flags_for_rows(&rows, &linked.map, &failures, &HashMap::new(), 64);
    assert!(flags.iter().flatten().all(|f| f.kind != FlagKind::OpFailed));
}

#[test]
fn multi_device_links_collapsed_and_extends_the_per_device_view() {
    // Two devices; the graph records each device operation once per device.
    let op1 = graph(&[pair("MatmulDeviceOperation"), pair("MatmulDeviceOperation")].concat());
    let op2 = graph(&[pair("AllGatherAsync"), pair("AllGatherAsync")].concat());
    let memory =
        [MemoryOperation::from_graph(1, "ttnn.matmul", &op1), MemoryOperation::from_graph(2, "ttnn.all_gather", &op2)];
    let mut csv = PerfCsv::new(Era::Y2026);
    csv.push(Row::signpost("layer 0")); // ID 2
    csv.push(Row::device("MatmulDeviceOperation", 0, 1000)); // ID 3
    csv.push(Row::device("MatmulDeviceOperation", 1, 2000)); // ID 4
    csv.push(Row::device("AllGatherAsync", 1, 3000)); // ID 5
    csv.push(Row::device("AllGatherAsync", 0, 1000)); // ID 6
    let report = open(&csv, "multi");
    let merged = report.rows(true);
    assert_eq!(merged.iter().map(|r| r.id).collect::<Vec<_>>(), [2, 4, 6]);
    assert!(link(&memory, &merged, 1).map.is_empty());
    let linked = link(&memory, &merged, 2);
    assert_eq!((linked.map.operation_of(4), linked.map.operation_of(6)), (Some(1), Some(2)));
    let view = per_device_map(&linked.map, &report.rows(false));
    assert_eq!(view.rows_of(1), [4, 3]);
    assert_eq!(view.rows_of(2), [6, 5]);
}
