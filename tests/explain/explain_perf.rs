//! `ttnn-tui explain` with a performance report (docs/rules/reference.md §9–§10, §14.8): the demo pair
//! linked, the three status sentences, an unrelated CSV that must not link, a CSV missing a
//! required column, the default perf report under `generated/profiler/reports/`, and the
//! reference's retry case on a real memory report.

use crate::cli;
use crate::support;

use cli::run;
use serde_json::Value;
use std::process::Output;
use support::perf::{Era, PerfCsv, Row};
use support::{Device, ErrorRow, Graph, Op, ReportBuilder, Schema, TempDir};
use ttnn_tui::report::perf::linked::LinkedReports;
use ttnn_tui::report::perf::perf_report::PerfReport;
use ttnn_tui::report::{MemoryReport, resolve_report};

fn stdout(o: &Output) -> String {
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout.clone()).expect("utf-8")
}

fn json(o: &Output) -> Value {
    serde_json::from_str(&stdout(o)).expect("valid JSON")
}

fn keys(v: &Value) -> Vec<String> {
    v.as_object().unwrap().keys().cloned().collect()
}

const L1_OOM: &str = "TT_FATAL @ tt_metal/impl/allocator/bank_manager.cpp:486: false\ninfo:\nOut of Memory: Not enough space to allocate 3276800 B L1 buffer across 4 banks, where each bank needs to store 819200 B, but bank size is 1382720 B (allocated: 1000000 B, free: 382720 B, largest free block: 300000 B)\nbacktrace:\n --- build_Release/lib/libtt_metal.so(+0x570add) [0x7f0bc96eeadd]";

#[test]
fn demo_linked_text_and_json() {
    let text = stdout(&run(&["explain", "--demo"], None));
    assert_eq!(
        text.lines().take(2).collect::<Vec<_>>(),
        [
            "14 operations with errors, 2 errors not placed on an operation",
            "Data linked between memory and performance reports: demo-perf/ops_perf_results_2026_11_29_10_12_00.csv"
        ]
    );
    insta::assert_snapshot!("demo_linked_text", text);

    let output = run(&["explain", "--demo", "--json"], None);
    let value = json(&output);
    assert_eq!(keys(&value["perf_report"]), ["path", "rows", "link", "reason"]);
    assert_eq!(value["perf_report"]["reason"], Value::Null);
    assert_eq!(value["perf_report"]["rows"], 27);
    assert_eq!(value["perf_report"]["link"], "linked");
    for op in value["operations"].as_array().unwrap() {
        assert_eq!(keys(&op["perf"]), ["ran_device_operations", "linked_rows", "status", "op_failed_row_ids"]);
    }
    let op_failed: Vec<(u64, Value)> = value["operations"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|o| !o["perf"]["op_failed_row_ids"].as_array().unwrap().is_empty())
        .map(|o| (o["operation_id"].as_u64().unwrap(), o["perf"]["op_failed_row_ids"].clone()))
        .collect();
    assert_eq!(
        op_failed,
        [(7, serde_json::json!(["10"])), (8, serde_json::json!(["11"])), (30, serde_json::json!(["25"]))]
    );
    insta::assert_snapshot!("demo_linked_json", stdout(&output));
}

fn pair(top: &str, device: &str) -> Graph {
    Graph::new().capture_start().start(top).start(device).end(device).end(top)
}

/// Starts `top`, completes `ran`, then `failed` ends aborted.
fn failed_after(top: &str, ran: &[&str], failed: &str) -> String {
    let mut g = Graph::new().capture_start().start(top);
    for name in ran {
        g = g.start(name).end(name);
    }
    g.start(failed)
        .aborted_end(failed, Some("Out of Memory"))
        .aborted_end(top, Some("Out of Memory"))
        .capture_end()
        .to_json()
}

#[test]
fn the_three_status_sentences() {
    let dir = TempDir::new("statuses");
    ReportBuilder::new(Schema::V2)
        .device(Device::wormhole(0))
        .operation(Op::new(1, "ttnn.add").graph(pair("ttnn.add", "BinaryNgDeviceOperation").capture_end().to_json()))
        // No graph: no device ops recorded.
        .operation(Op::new(2, "ttnn.matmul"))
        .operation(Op::new(3, "ttnn.softmax").graph(failed_after("ttnn.softmax", &[], "SoftmaxDeviceOperation")))
        .operation(Op::new(4, "ttnn.conv2d").graph(failed_after(
            "ttnn.conv2d",
            &["HaloDeviceOperation", "TilizeDeviceOperation"],
            "Conv2dDeviceOperation",
        )))
        .error(ErrorRow::new(2, "ttnn.matmul", "RuntimeError", L1_OOM))
        .error(ErrorRow::new(3, "ttnn.softmax", "RuntimeError", L1_OOM))
        .error(ErrorRow::new(4, "ttnn.conv2d", "RuntimeError", L1_OOM))
        .write_to(dir.path());
    let mut csv = PerfCsv::new(Era::Y2026);
    for code in ["BinaryNgDeviceOperation", "HaloDeviceOperation", "TilizeDeviceOperation"] {
        csv.push(Row::device(code, 0, 12_000));
    }
    let perf = csv.write(dir.path(), "ops_perf_results.csv");
    let args = ["explain", dir.path().to_str().unwrap(), "--perf", perf.to_str().unwrap()];
    let text = stdout(&run(&args, None));
    let statuses: Vec<&str> =
        text.lines().filter(|l| l.starts_with("  ") && l.contains("row")).map(str::trim).collect();
    assert_eq!(
        statuses,
        [
            "The memory report recorded no device ops for it, so no row in this report is linked to it.",
            "Failed in SoftmaxDeviceOperation before reaching the device, so it has no row in this report.",
            "Failed in Conv2dDeviceOperation; 2 earlier device ops ran, so it has 2 rows in this report.",
        ]
    );
    let value = json(&run(&[&args[..], &["--json"]].concat(), None));
    assert_eq!(value["operations"][2]["perf"]["op_failed_row_ids"], serde_json::json!(["3", "4"]));
}

/// Why the demo memory report does not link with three unrelated rows: its completed device
/// operations are the device rows of the demo run (`support::demo_perf::RUN`), and the first
/// differs from the unrelated CSV's first row (ID 2).
fn unrelated_reason() -> String {
    let ran = support::demo_perf::device_rows();
    format!(
        "{} device operations completed in the memory report, 3 rows in the performance report; first difference at ID 2: {} vs SoftmaxDeviceOperation",
        ran.len(),
        ran[0].1.name
    )
}

#[test]
fn an_unrelated_perf_report_does_not_link() {
    let dir = TempDir::new("unrelated");
    let mut csv = PerfCsv::new(Era::Y2025);
    for code in ["SoftmaxDeviceOperation", "MatmulDeviceOperation", "BinaryNgDeviceOperation"] {
        csv.push(Row::device(code, 0, 5_000));
    }
    let perf = csv.write(dir.path(), "ops_perf_results.csv");
    let perf = perf.to_str().unwrap();
    let text = stdout(&run(&["explain", "--demo", "--perf", perf], None));
    assert_eq!(
        text.lines().skip(1).take(2).collect::<Vec<_>>(),
        [format!("Unable to link active memory and performance reports: {perf}"), format!("  {}", unrelated_reason())]
    );
    assert!(text.contains("\n  Failed in Conv2dDeviceOperation\n"), "{text}");
    assert!(!text.contains("in this report"), "{text}");

    let value = json(&run(&["explain", "--demo", "--perf", perf, "--json"], None));
    assert_eq!(value["perf_report"]["link"], "unlinked");
    assert_eq!(value["perf_report"]["reason"], unrelated_reason());
    assert_eq!(value["perf_report"]["rows"], 3);
    assert!(value["operations"].as_array().unwrap().iter().all(|o| o["perf"].is_null()));
}

/// docs/rules/reference.md §8.1: the profiler's CSV when the model died before its first operation
/// finished, a header and no rows: the memory report is explained as usual, the link is
/// unavailable and says why, exit 0.
#[test]
fn a_perf_report_without_rows_is_unavailable() {
    let dir = TempDir::new("header-only");
    let perf = PerfCsv::new(Era::Y2026).write(dir.path(), "ops_perf_results.csv");
    let perf = perf.to_str().unwrap();
    let output = run(&["explain", "--demo", "--perf", perf], None);
    assert!(output.stderr.is_empty(), "{}", String::from_utf8_lossy(&output.stderr));
    let text = stdout(&output);
    assert_eq!(
        text.lines().take(3).collect::<Vec<_>>(),
        [
            "14 operations with errors, 2 errors not placed on an operation".to_string(),
            format!("Unable to link active memory and performance reports: {perf}"),
            "  the performance report has no rows".to_string(),
        ]
    );
    assert!(text.contains("\n  Failed in Conv2dDeviceOperation\n"), "{text}");
    let value = json(&run(&["explain", "--demo", "--perf", perf, "--json"], None));
    assert_eq!(
        value["perf_report"],
        serde_json::json!({"path": perf, "rows": 0, "link": "unavailable", "reason": "the performance report has no rows"})
    );
    assert_eq!(value["operations"].as_array().unwrap().len(), 14);
}

#[test]
fn rows_with_missing_or_extra_cells_are_read_and_counted() {
    let dir = TempDir::new("ragged");
    let mut csv = PerfCsv::new(Era::Y2025);
    csv.push(Row::device("SoftmaxDeviceOperation", 0, 5_000));
    csv.push(Row { truncate: Some(4), ..Row::device("MatmulDeviceOperation", 0, 5_000) });
    csv.push(Row { extra: 2, ..Row::device("BinaryNgDeviceOperation", 0, 5_000) });
    let perf = csv.write(dir.path(), "ops_perf_results.csv");
    let perf = perf.to_str().unwrap();
    let output = run(&["explain", "--demo", "--perf", perf, "--json"], None);
    assert_eq!(json(&output)["perf_report"]["rows"], 3);
    assert_eq!(
        String::from_utf8_lossy(&output.stderr),
        format!("warning: 2 rows have missing or extra cells, read as far as they go: {perf}\n")
    );
}

#[test]
fn a_csv_without_op_code_is_refused() {
    let dir = TempDir::new("no-op-code");
    let mut csv = PerfCsv::new(Era::Y2026);
    csv.columns.retain(|c| c != "OP CODE");
    csv.push(Row::device("MatmulDeviceOperation", 0, 5_000));
    let perf = csv.write(dir.path(), "ops_perf_results.csv");
    let o = run(&["explain", "--demo", "--perf", perf.to_str().unwrap()], None);
    assert_eq!(o.status.code(), Some(1));
    assert!(o.stdout.is_empty());
    let stderr = String::from_utf8(o.stderr).unwrap();
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.starts_with("error: ") && stderr.contains("OP CODE"), "{stderr}");
    assert!(stderr.contains(perf.to_str().unwrap()), "{stderr}");
}

#[test]
fn the_newest_profiler_report_is_found_without_arguments() {
    let cwd = TempDir::new("discover");
    let report = cwd.path().join("generated/ttnn/reports/1764411120");
    ReportBuilder::new(Schema::V2)
        .device(Device::wormhole(0))
        .operation(Op::new(1, "ttnn.matmul").graph(failed_after(
            "ttnn.matmul",
            &["TilizeDeviceOperation"],
            "MatmulDeviceOperation",
        )))
        .error(ErrorRow::new(1, "ttnn.matmul", "RuntimeError", L1_OOM))
        .write_to(&report);
    let folder = cwd.path().join("generated/profiler/reports/2026_11_29_10_12_00");
    std::fs::create_dir_all(&folder).unwrap();
    let mut csv = PerfCsv::new(Era::Y2026);
    csv.push(Row::device("TilizeDeviceOperation", 0, 8_000));
    csv.write(&folder, "ops_perf_results_2026_11_29_10_12_00.csv");
    std::fs::write(folder.join("profile_log_device.csv"), "ARCH: wormhole_b0, CHIP_FREQ[MHz]: 1000\n").unwrap();

    let value = json(&run(&["explain", "--json"], Some(cwd.path())));
    let path = value["perf_report"]["path"].as_str().unwrap();
    assert!(path.ends_with("generated/profiler/reports/2026_11_29_10_12_00/ops_perf_results_2026_11_29_10_12_00.csv"));
    assert_eq!(value["perf_report"]["link"], "linked");
    assert_eq!(value["operations"][0]["perf"]["op_failed_row_ids"], serde_json::json!(["2"]));
}

/// docs/rules/reference.md §14.8: operation 2's MatmulDeviceOperation failed after a tilize ran, operation
/// 3 retried the matmul, operation 4 was an add.
#[test]
fn the_reference_retry_case() {
    let dir = TempDir::new("retry");
    ReportBuilder::new(Schema::V2)
        .device(Device::wormhole(0))
        .operation(Op::new(2, "ttnn.matmul").graph(failed_after(
            "ttnn.matmul",
            &["TilizeDeviceOperation"],
            "MatmulDeviceOperation",
        )))
        .operation(
            Op::new(3, "ttnn.matmul").graph(pair("ttnn.matmul", "MatmulDeviceOperation").capture_end().to_json()),
        )
        .operation(Op::new(4, "ttnn.add").graph(pair("ttnn.add", "BinaryNgDeviceOperation").capture_end().to_json()))
        .error(ErrorRow::new(2, "ttnn.matmul", "RuntimeError", L1_OOM))
        .write_to(dir.path());
    let mut csv = PerfCsv::new(Era::Y2026);
    csv.push(Row::device("TilizeDeviceOperation", 0, 1_000)); // ID 2
    csv.push(Row::device("MatmulDeviceOperation", 0, 5_000)); // ID 3
    csv.push(Row::host("aten::relu (torch)")); // ID 4, hidden
    csv.push(Row::device("BinaryNgDeviceOperation", 0, 1_000)); // ID 5
    let perf = csv.write(dir.path(), "ops_perf_results.csv");

    let args = ["explain", dir.path().to_str().unwrap(), "--perf", perf.to_str().unwrap(), "--json"];
    let value = json(&run(&args, None));
    assert_eq!(value["perf_report"]["link"], "linked");
    let op2 = &value["operations"][0];
    assert_eq!(op2["operation_id"], 2);
    assert_eq!(
        op2["perf"],
        serde_json::json!({
            "ran_device_operations": 1,
            "linked_rows": 1,
            "status": "Failed in MatmulDeviceOperation; 1 earlier device op ran, so it has 1 row in this report.",
            "op_failed_row_ids": ["2"],
        })
    );
    // The JSON lists operations with errors only; the whole mapping is checked on the library.
    let memory = MemoryReport::open(&resolve_report(Some(dir.path())).unwrap(), 0).unwrap();
    let linked = LinkedReports::new(&memory, PerfReport::open(&perf).unwrap()).unwrap();
    assert_eq!(linked.link.map.operation_of(3), Some(3));
    assert_eq!(linked.link.map.operation_of(5), Some(4));
    assert_eq!(linked.link.map.rows_of(2), [2]);
}
