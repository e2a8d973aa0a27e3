//! The shared harness of the fuzz targets: one function per target, each taking the fuzzer's
//! bytes, running a whole path of the library on them and asserting what must hold for any
//! input (no panic; printable output). A new target is one function here, a three-line file
//! under `fuzz_targets/`, a `[[bin]]` entry in `Cargo.toml` and a folder of seeds.

use std::collections::HashMap;
use std::path::Path;
use std::sync::LazyLock;
use ttnn_tui::analysis::failure::{AllocationFailure, parse_allocation_failure};
use ttnn_tui::analysis::flags::flags_for_rows;
use ttnn_tui::analysis::graph::{GraphNode, parse_graph, parse_scopes};
use ttnn_tui::analysis::link::{MemoryOperation, link, per_device_map};
use ttnn_tui::analysis::perf_callout::{FailedOperation, failure_listings, perf_callout};
use ttnn_tui::analysis::reason::{CalloutBody, explain, summary};
use ttnn_tui::analysis::sanitize::{sanitize_line, sanitize_text};
use ttnn_tui::analysis::scopes::{
    completed_device_operations, failed_device_operations, pair_scopes, scope_closes, started_device_operations,
};
use ttnn_tui::analysis::tree::{TreeEntry, device_ops_tree, entry_at, first_failed_path};
use ttnn_tui::explain::{ExplainOptions, collect, first_line, render_json, render_text};
use ttnn_tui::report::MemoryReport;
use ttnn_tui::report::linked::LinkedReports;
use ttnn_tui::report::perf::{DeviceLog, PerfReport};

/// An allocation-failure message: parsed, then summarised, explained and laid out as a callout
/// in both address styles.
pub fn failure_message(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let _ = first_line(&text);
    if let Some(failure) = parse_allocation_failure(&text) {
        render_failure(&failure);
    }
}

fn render_failure(failure: &AllocationFailure) {
    for hex in [false, true] {
        let _ = summary(failure, hex);
        let _ = explain(failure, hex);
        let body = CalloutBody::new(failure, hex, &["MatmulDeviceOperation".to_string()], None);
        let _ = body.lines();
        let _ = body.reason_line();
    }
}

/// A captured graph: parsed both ways (whole nodes, and the scope fields linking reads), then
/// paired into scopes, given outcomes, built into the device-operations tree, and its failed and
/// completed device operations found.
pub fn graph(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    if let Ok(nodes) = parse_graph(&text) {
        scope_rules(&nodes);
    }
    if let Ok(nodes) = parse_scopes(&text) {
        let _ = MemoryOperation::from_graph(1, "ttnn.op", &nodes);
    }
}

fn scope_rules(nodes: &[GraphNode]) {
    let _ = pair_scopes(nodes);
    for recorded in [false, true] {
        let _ = scope_closes(nodes, recorded);
        let tree = device_ops_tree(nodes, recorded);
        if let Some(path) = first_failed_path(&tree) {
            assert!(entry_at(&tree, &path).is_some(), "the first failed path leads to an entry");
        }
        walk(&tree);
    }
    let _ = failed_device_operations(nodes);
    let _ = completed_device_operations(nodes);
    let _ = started_device_operations(nodes);
}

/// Visits every entry of a tree, as drawing it does.
fn walk(entries: &[TreeEntry]) {
    for entry in entries {
        if let TreeEntry::Scope(block) = entry {
            walk(&block.children);
        }
    }
}

/// The fixed memory side the perf target links against: three operations whose completed
/// device operations are a tilize, a matmul and an add, and a failed conv2d.
static MEMORY_SIDE: LazyLock<Vec<MemoryOperation>> = LazyLock::new(|| {
    let graph = |names: &[&str]| {
        let mut nodes = vec![r#"{"counter":0,"node_type":"capture_start","params":null}"#.to_string()];
        for name in names {
            nodes.push(format!(r#"{{"counter":1,"node_type":"function_start","params":{{"name":"{name}"}}}}"#));
            nodes.push(format!(r#"{{"counter":2,"node_type":"function_end","params":{{"name":"{name}"}}}}"#));
        }
        parse_graph(&format!("[{}]", nodes.join(","))).expect("valid graph")
    };
    vec![
        MemoryOperation::from_graph(1, "ttnn.tilize", &graph(&["TilizeWithValPaddingDeviceOperation"])),
        MemoryOperation::from_graph(2, "ttnn.matmul", &graph(&["MatmulDeviceOperation", "MatmulDeviceOperation"])),
        MemoryOperation::from_graph(3, "ttnn.add", &graph(&["BinaryNgDeviceOperation"])),
    ]
});

/// The failure the perf target lists above the table, on operation 2.
static FAILED: LazyLock<Vec<FailedOperation>> = LazyLock::new(|| {
    let message = "Out of Memory: Not enough space to allocate 3276800 B L1 buffer across 4 banks, where each bank needs to store 819200 B, but bank size is 1382720 B";
    let failure = parse_allocation_failure(message).expect("a reference message");
    vec![FailedOperation {
        id: 2,
        name: "ttnn.matmul".into(),
        failure,
        failed_device_operations: vec!["MatmulDeviceOperation".into()],
    }]
});

/// A perf CSV: read, rows built merged and per device, linked against a small fixed memory side
/// (one and two devices), then the per-device mapping, the Flags column, the failure callout
/// and the link's reason.
pub fn perf_csv(data: &[u8]) {
    let log = DeviceLog::parse("ARCH: wormhole_b0, CHIP_FREQ[MHz]: 1000, Max Compute Cores: 64");
    let Ok(perf) = PerfReport::from_bytes(data, Path::new("ops_perf_results.csv"), Some(log)) else { return };
    let rows = perf.rows(true);
    let unmerged = perf.rows(false);
    let _ = perf.device_count();
    let failures: HashMap<u64, AllocationFailure> = FAILED.iter().map(|f| (f.id, f.failure.clone())).collect();
    for devices in [1, 2] {
        let linked = link(&MEMORY_SIDE, &rows, devices);
        assert_printable(linked.state().text(), false);
        if let Some(reason) = linked.reason() {
            assert_printable(&reason, false);
        }
        let view = per_device_map(&linked.map, &unmerged);
        let _ = flags_for_rows(&rows, &linked.map, &failures, &HashMap::new(), perf.max_cores(&rows));
        let _ = flags_for_rows(&unmerged, &view, &failures, &HashMap::new(), perf.max_cores(&unmerged));
        let listings = failure_listings(&FAILED, &linked.map, &view);
        let _ = perf_callout(&listings, linked.is_linked(), false);
    }
}

/// The sanitiser, both forms: the output never holds a control (but the newlines of the
/// multi-line form), an escape or a bidi control.
pub fn sanitize(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    assert_printable(&sanitize_line(&text), false);
    assert_printable(&sanitize_text(&text), true);
}

/// Unicode's Bidi_Control characters: embeddings, overrides, isolates and the marks.
pub fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{061C}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// Panics when `text` holds a control character (newlines allowed when `multiline`), an ESC or a
/// bidi control.
pub fn assert_printable(text: &str, multiline: bool) {
    for c in text.chars() {
        let allowed_newline = multiline && c == '\n';
        assert!(!c.is_control() || allowed_newline, "control {c:?} in {text:?}");
        assert!(!is_bidi_control(c), "bidi control {c:?} in {text:?}");
    }
}

/// The small performance report the whole-report target links with.
static PERF_CSV: &str = "OP CODE,OP TYPE,GLOBAL CALL COUNT,DEVICE ID,HOST START TS,DEVICE KERNEL DURATION [ns],OP TO OP LATENCY [ns],CORE COUNT\nTilizeWithValPaddingDeviceOperation,tt_dnn_device,1024,0,10,5000,0,8\nMatmulDeviceOperation,tt_dnn_device,2048,0,20,90000,700,64\n";

/// A whole memory report from its database bytes: opened in memory for rank 0 and 1, explained as
/// text and JSON (with a small performance report linked, and without), then each operation's
/// graph, tree, stack trace, arguments and buffers read as the UI reads them.
pub fn report(data: &[u8]) {
    for rank in [0, 1] {
        let Ok(report) = MemoryReport::from_bytes(data, "fuzz", rank) else { continue };
        let perf = PerfReport::from_bytes(PERF_CSV.as_bytes(), Path::new("ops_perf_results.csv"), None)
            .expect("the fixed CSV reads");
        let linked = LinkedReports::new(&report, perf).ok();
        for hex in [false, true] {
            let options = ExplainOptions { operation: None, hex };
            for with_perf in [None, linked.as_ref()] {
                let explanation = collect(&report, with_perf, &options).expect("no --operation given");
                assert_printable(&render_text(&report, &explanation, &options), true);
                let json = render_json(&report, &explanation, &options);
                assert!(serde_json::from_str::<serde_json::Value>(&json).is_ok(), "invalid JSON: {json}");
            }
        }
        if let Some(linked) = &linked {
            let _ = linked.callout(false);
            let _ = linked.flags();
        }
        let indexes: Vec<usize> = (0..report.operations.len().min(64)).collect();
        let _ = report.stack_traces(&indexes);
        for &i in &indexes {
            if let Ok(nodes) = report.graph(i) {
                scope_rules(&nodes);
            }
            let _ = report.arguments(i);
            let _ = report.buffers(i);
            let _ = report.failed_device_operations(i);
        }
    }
}
