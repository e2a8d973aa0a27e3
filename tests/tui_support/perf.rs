//! Linked memory and performance reports for the Performance-tab tests: memory reports whose
//! captured graphs name the device ops that a CSV written by the test then holds.

use super::messages::{FRAGMENTED, LARGER_THAN_BANK, NOT_ENOUGH};
use super::support::perf::{Era, PerfCsv, Row};
use super::{Harness, Report};
use std::sync::atomic::{AtomicUsize, Ordering};
use ttnn_tui::report::perf::linked::LinkedReports;
use ttnn_tui::report::perf::perf_report::PerfReport;

static NEXT: AtomicUsize = AtomicUsize::new(0);

/// A captured graph from `(node type, name, aborted)` triples, after a `capture_start`.
pub fn graph(nodes: &[(&str, &str, bool)]) -> String {
    let mut all = vec![r#"{"counter":0,"node_type":"capture_start","params":null,"connections":[]}"#.to_string()];
    for (k, (kind, name, aborted)) in nodes.iter().enumerate() {
        let abort = if *aborted { r#","aborted":"true","abort_reason":"Out of Memory""# } else { "" };
        all.push(format!(
            r#"{{"counter":{},"node_type":"{kind}","params":{{"name":"{name}"{abort}}},"connections":[]}}"#,
            k + 1
        ));
    }
    format!("[{}]", all.join(","))
}

/// A scope that completed.
pub fn ran(name: &'static str) -> [(&'static str, &'static str, bool); 2] {
    [("function_start", name, false), ("function_end", name, false)]
}

/// A scope that failed (its end aborted).
pub fn failed(name: &'static str) -> [(&'static str, &'static str, bool); 2] {
    [("function_start", name, false), ("function_end", name, true)]
}

/// An operation's graph: its host scope around device scopes.
pub fn host_scope(name: &'static str, inside: &[[(&'static str, &'static str, bool); 2]], aborted: bool) -> String {
    let mut nodes = vec![("function_start", name, false)];
    for [start, end] in inside {
        nodes.extend([*start, *end]);
    }
    nodes.push(("function_end", name, aborted));
    graph(&nodes)
}

/// Writes the CSV into a fresh folder and opens it.
pub fn open_csv(csv: &PerfCsv) -> PerfReport {
    let unique = format!("ttnn-tui-perf-{}-{}", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed));
    let folder = std::env::temp_dir().join(unique);
    std::fs::create_dir_all(&folder).unwrap();
    PerfReport::open(&csv.write(&folder, "ops_perf_results.csv")).unwrap()
}

/// The app on a memory report with a performance report, on the Performance tab, drawn.
pub fn harness(report: &Report, csv: &PerfCsv, width: u16, height: u16, plain: bool) -> Harness {
    let memory = report.open();
    let linked = LinkedReports::new(&memory, open_csv(csv)).unwrap();
    let mut h = Harness::new(memory, width, height, plain, None);
    h.app.set_perf(ttnn_tui::tui::perf_input(linked));
    h.press(&[ttnn_tui::app::Action::GoToTab(2)]);
    h
}

/// Seven operations: 2 ran a tilize, then its matmul failed to allocate; 3 retried the matmul;
/// 4 an add; 5 failed before reaching the device; 6 failed with no graph; 7 a reshape.
pub fn linked_report() -> Report {
    Report::default()
        .op(1, "ttnn.from_torch", None)
        .op(
            2,
            "ttnn.matmul",
            Some(host_scope("ttnn.matmul", &[ran("TilizeDeviceOperation"), failed("MatmulDeviceOperation")], true)),
        )
        .op(3, "ttnn.matmul", Some(host_scope("ttnn.matmul", &[ran("MatmulDeviceOperation")], false)))
        .op(4, "ttnn.add", Some(host_scope("ttnn.add", &[ran("BinaryNgDeviceOperation")], false)))
        .op(5, "ttnn.softmax", Some(host_scope("ttnn.softmax", &[failed("SoftmaxDeviceOperation")], true)))
        .op(6, "ttnn.conv2d", None)
        .op(7, "ttnn.reshape", Some(host_scope("ttnn.reshape", &[ran("ReshapeViewDeviceOperation")], false)))
        .error(2, "ttnn.matmul", "RuntimeError", NOT_ENOUGH)
        .error(5, "ttnn.softmax", "RuntimeError", LARGER_THAN_BANK)
        .error(6, "ttnn.conv2d", "RuntimeError", FRAGMENTED)
}

/// The CSV of `linked_report`'s run (IDs are line numbers): a signpost, a hidden host op, and one
/// row after the last linked one; flags of four kinds.
pub fn linked_csv() -> PerfCsv {
    let mut csv = PerfCsv::new(Era::Y2026);
    let hashed = |row: Row, hash: &str, hit: &str| row.set("PROGRAM HASH", hash).set("PROGRAM CACHE HIT", hit);
    csv.push(hashed(Row::device("TilizeDeviceOperation", 0, 1000), "1111", "True")); // 2: op 2, Op failed
    csv.push(Row::signpost("layer 1")); // 3
    let matmul =
        Row::device("MatmulDeviceOperation", 0, 5000).set("PM IDEAL [ns]", 100).set("OP TO OP LATENCY [ns]", 750);
    csv.push(hashed(matmul, "2222", "True")); // 4: op 3, Low util
    csv.push(Row::host("aten::relu (torch)")); // 5: hidden
    let add = Row::device("BinaryNgDeviceOperation", 0, 2000).set("OP TO OP LATENCY [ns]", 1250);
    csv.push(hashed(add, "3333", "False")); // 6: op 4
    let reshape = Row::device("ReshapeViewDeviceOperation", 0, 1500).set("CORE COUNT", 8);
    csv.push(hashed(reshape, "4444", "True")); // 7: op 7, Few cores
    csv.push(hashed(Row::device("BinaryNgDeviceOperation", 0, 2000), "3333", "False")); // 8: Recompute
    csv
}

/// A CSV of another run: its op codes do not align with `linked_report`.
pub fn unrelated_csv() -> PerfCsv {
    let mut csv = PerfCsv::new(Era::Y2025);
    csv.push(Row::device("SoftmaxDeviceOperation", 0, 1000));
    csv.push(Row::device("MatmulDeviceOperation", 0, 4000));
    csv.push(Row::device("BinaryNgDeviceOperation", 0, 2000));
    csv
}

/// Seven operations that each ran a tilize and then failed to allocate in a matmul.
pub fn seven_failures() -> (Report, PerfCsv) {
    const NAMES: [&str; 7] =
        ["ttnn.matmul", "ttnn.linear", "ttnn.conv2d", "ttnn.softmax", "ttnn.add", "ttnn.concat", "ttnn.gelu"];
    let mut report = Report::default();
    let mut csv = PerfCsv::new(Era::Y2026);
    for (k, name) in NAMES.into_iter().enumerate() {
        let id = k as u64 + 1;
        let graph = host_scope(name, &[ran("TilizeDeviceOperation"), failed("MatmulDeviceOperation")], true);
        report = report.op(id, name, Some(graph)).error(id, name, "RuntimeError", NOT_ENOUGH);
        csv.push(Row::device("TilizeDeviceOperation", 0, 1000 + 100 * id));
    }
    (report, csv)
}

/// Two devices: a matmul, an all-gather (collective), and a matmul whose second device op failed.
pub fn two_devices() -> (Report, PerfCsv) {
    let report = Report::default()
        .op(1, "ttnn.matmul", Some(host_scope("ttnn.matmul", &[ran("MatmulDeviceOperation")], false)))
        .op(2, "ttnn.all_gather", Some(host_scope("ttnn.all_gather", &[ran("AllGatherAsync")], false)))
        .op(
            3,
            "ttnn.matmul",
            Some(host_scope("ttnn.matmul", &[ran("MatmulDeviceOperation"), failed("MatmulDeviceOperation")], true)),
        )
        .error(3, "ttnn.matmul", "RuntimeError", NOT_ENOUGH);
    let mut csv = PerfCsv::new(Era::Y2026);
    csv.push(Row::device("MatmulDeviceOperation", 0, 1000)); // 2
    csv.push(Row::device("MatmulDeviceOperation", 1, 2000)); // 3: kept when merged (slowest)
    csv.push(Row::device("AllGatherAsync", 0, 1000)); // 4: kept when merged (first), mean 2 µs
    csv.push(Row::device("AllGatherAsync", 1, 3000)); // 5
    csv.push(Row::device("MatmulDeviceOperation", 0, 1500)); // 6
    csv.push(Row::device("MatmulDeviceOperation", 1, 2500)); // 7: kept when merged
    (report, csv)
}
