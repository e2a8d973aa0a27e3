//! The shared harness of the fuzz targets: one function per target, each taking the fuzzer's
//! bytes, running a whole path of the library on them and asserting what must hold for any
//! input (no panic; printable output). A new target is one function here, a three-line file
//! under `fuzz_targets/`, a `[[bin]]` entry in `Cargo.toml` and a folder of seeds.

use std::collections::HashMap;
use std::path::Path;
use std::sync::LazyLock;
use ttnn_tui::analysis::messages::failure::{AllocationFailure, parse_allocation_failure};
use ttnn_tui::analysis::perf::flags::flags_for_rows;
use ttnn_tui::analysis::messages::failure::BufferType;
use ttnn_tui::analysis::graph::nodes::{GraphNode, parse_graph, parse_scopes};
use ttnn_tui::analysis::memory::{
    CheckStatus, DeviceFacts, EarlierSnapshot, FailureInputs, MemoryMap, OperationInputs, SnapshotRow, TensorFacts,
    TensorUse, failure_lines, live_addresses, memory_at_failure, operation_lines, operation_memory,
};
use ttnn_tui::analysis::perf::link::{MemoryOperation, link, per_device_map};
use ttnn_tui::analysis::perf::callout::{FailedOperation, failure_listings, perf_callout};
use ttnn_tui::analysis::messages::reason::{CalloutBody, explain, summary};
use ttnn_tui::analysis::sanitize::{sanitize_line, sanitize_text};
use ttnn_tui::analysis::graph::scopes::{
    completed_device_operations, failed_device_operations, pair_scopes, scope_closes, started_device_operations,
};
use ttnn_tui::analysis::graph::tree::{TreeEntry, device_ops_tree, entry_at, first_failed_path};
use ttnn_tui::analysis::model::first_line;
use ttnn_tui::analysis::messages::raw_message::raw_message_text;
use ttnn_tui::explain::{ExplainOptions, collect, render_json, render_log_json, render_log_text, render_text, scan_log};
use ttnn_tui::report::MemoryReport;
use ttnn_tui::report::perf::linked::LinkedReports;
use ttnn_tui::report::perf::perf_report::{DeviceLog, PerfReport};

/// An allocation-failure message: parsed, then summarised, explained and laid out as a callout
/// in both address styles.
pub fn failure_message(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let _ = first_line(&text);
    let _ = raw_message_text(&text);
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

/// `explain --log` on any bytes: the streaming scan, then the text and JSON forms in both
/// address styles; the text is printable and the JSON lists every failure found.
pub fn log(data: &[u8]) {
    let findings = scan_log(std::io::Cursor::new(data)).expect("reading from memory cannot fail");
    for hex in [false, true] {
        assert_printable(&render_log_text(&findings, hex, false), true);
        let json: serde_json::Value = serde_json::from_str(&render_log_json(&findings, "-", hex)).expect("valid JSON");
        assert_eq!(json["failures"].as_array().map(Vec::len), Some(findings.failures.len()));
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
            let options = ExplainOptions { operation: None, hex, color: false };
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
        let _ = report.details().stack_traces(&indexes);
        for &i in &indexes {
            if let Ok(nodes) = report.graphs().graph(i) {
                scope_rules(&nodes);
            }
            let _ = report.details().arguments(i);
            let _ = report.snapshots().buffers(&report.operations[i]);
            let _ = report.graphs().failed_device_operations(i);
            let _ = report.pictures().after_operation(i, None);
        }
    }
}

/// The memory at a failure rebuilt from arbitrary records: a failure message and a captured graph
/// (text up to the first and second NUL byte), then snapshot rows, a devices row and tensors built
/// from the remaining bytes with small addresses, so that buffers overlap, nest and leave gaps.
/// Whatever the picture, its map holds together and an `exact` check agrees with the message.
pub fn memory(data: &[u8]) {
    let mut parts = data.splitn(3, |&b| b == 0);
    let message = String::from_utf8_lossy(parts.next().unwrap_or_default()).into_owned();
    let graph = parse_graph(&String::from_utf8_lossy(parts.next().unwrap_or_default())).unwrap_or_default();
    let rest = parts.next().unwrap_or_default();
    let byte = |k: usize| rest.get(k).copied().unwrap_or(0);
    let types = [BufferType::Dram, BufferType::L1, BufferType::L1Small];
    let rows: Vec<SnapshotRow> = rest
        .chunks(5)
        .skip(1)
        .map(|c| {
            let at = |k: usize| c.get(k).copied().unwrap_or(0);
            SnapshotRow {
                device_id: u64::from(at(0) & 1),
                address: Some(i64::from(at(1)) * 256 + 1024 - i64::from(at(0) >> 7) * 4096),
                size_per_bank: Some(i64::from(at(2)) * 64 - i64::from(at(3) & 0x80)),
                buffer_type: (at(3) & 3 != 3).then(|| types[usize::from(at(3) & 3)]),
                layout: Some(i64::from(at(4) & 3)),
            }
        })
        .collect();
    let (own, earlier) = rows.split_at(rows.len() / 2);
    let devices = if byte(0) & 1 == 1 {
        vec![DeviceFacts {
            device_id: 0,
            l1_start: (byte(0) & 2 == 2).then_some(1024),
            l1_bank_size: u64::from(byte(1)) * 256,
            worker_l1_size: u64::from(byte(2)) * 512,
            l1_num_banks: u64::from(byte(3)),
        }]
    } else {
        Vec::new()
    };
    let tensors: Vec<TensorFacts> = rows
        .iter()
        .enumerate()
        .filter(|(k, _)| k % 3 == 0)
        .map(|(k, r)| TensorFacts {
            tensor_id: k as u64,
            device_id: Some(r.device_id),
            address: r.address.and_then(|a| u64::try_from(a).ok()),
            buffer_type: r.buffer_type,
            uses: vec![TensorUse { operation_id: (k % 7) as u64, operation_name: "ttnn.op".into(), output: k % 2 == 0 }],
            ..TensorFacts::default()
        })
        .collect();
    let inputs = FailureInputs {
        operation_id: 7,
        failure: parse_allocation_failure(&message),
        graph: graph.clone().into(),
        own_snapshot: if byte(0) & 4 == 4 { own.to_vec() } else { Vec::new() }.into(),
        earlier_snapshot: (byte(0) & 8 == 8).then(|| EarlierSnapshot { operation_id: 5, rows: earlier.to_vec() }),
        replayed_before: None,
        devices_with_rows: if byte(0) & 16 == 16 { vec![1] } else { Vec::new() },
        lowest_dram_address: (byte(0) & 32 == 32).then_some(64),
        devices: devices.clone(),
        input_tensor_ids: vec![0, 3],
        tensors: tensors.clone(),
    };
    let _ = live_addresses(&inputs);
    if let Some(m) = memory_at_failure(&inputs) {
        map_holds_together(&m.map);
        if m.check.status == CheckStatus::Exact {
            let tolerance = m.check.tolerance;
            let allocated = m.check.allocated.expect("an exact check has the allocated figure");
            assert!(m.map.used_per_bank.abs_diff(allocated) <= tolerance, "{m:?}");
        }
        for hex in [false, true] {
            for line in failure_lines(&m, hex) {
                assert_printable(&line, false);
            }
        }
        let json = serde_json::to_value(ttnn_tui::answer::MemoryAnswer::new(&m)).expect("the memory section serialises");
        assert!(json.is_object());
    }
    let operation = OperationInputs { operation_id: 7, graph, snapshot: rows, devices, input_tensor_ids: vec![0], tensors };
    if let Some(m) = operation_memory(&operation, None) {
        map_holds_together(&m.map);
        for line in operation_lines(&m, false) {
            assert_printable(&line, false);
        }
    }
}

/// Free blocks ascending, disjoint and inside the region; used plus free fills the region; the
/// largest block is the biggest free block.
fn map_holds_together(map: &MemoryMap) {
    let Some((start, end)) = map.region.bounds() else { return };
    let mut at = start;
    for block in &map.free_blocks {
        assert!(block.address >= at && block.size > 0, "{map:?}");
        at = block.address + block.size;
    }
    assert!(at <= end, "{map:?}");
    let free: u64 = map.free_blocks.iter().map(|b| b.size).sum();
    assert_eq!(map.used_per_bank + free, end - start, "{map:?}");
    assert_eq!(map.largest_free_block, Some(map.free_blocks.iter().map(|b| b.size).max().unwrap_or(0)), "{map:?}");
}
