//! `explain --json` byte for byte: the pretty-printed document the typed structs stream out
//! (indentation, key order, nulls, the final newline), and a reader that goes away early.

use crate::cli;
use crate::support;

use cli::run;
use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use support::sim::{Era, Options, Sim, SimOp};
use support::{BufferRow, BufferType, Device, ErrorRow, Graph, Op, ReportBuilder, Schema, TempDir};
use ttnn_tui::answer::MemoryAnswer;
use ttnn_tui::report::{FailureMemory, MemoryReport, resolve_report};

const OOM_V3: &str = "TT_FATAL @ tt_metal/impl/allocator/bank_manager.cpp:486: false\ninfo:\nOut of Memory: Not enough space to allocate 3276800 B L1 buffer across 4 banks, where each bank needs to store 819200 B, but bank size is 1382720 B (allocated: 1000000 B, free: 382720 B, largest free block: 300000 B)\nbacktrace:\n --- build_Release/lib/libtt_metal.so(+0x570add) [0x7f0bc96eeadd]";

/// One L1 failure with its own snapshot (two live buffers), and one error no operation took.
fn small_report(dir: &Path) {
    let graph = Graph::failed_conv2d().to_json();
    ReportBuilder::new(Schema::V2)
        .device(Device::wormhole(0))
        .operation(Op::new(11, "ttnn.add").buffers(vec![BufferRow::l1(1_000_000, 200_000)]))
        .operation(
            Op::new(12, "ttnn.conv2d")
                .graph(graph)
                .buffers(vec![BufferRow::l1(1_000_000, 200_000), BufferRow::l1(1_200_000, 100_000)]),
        )
        .error(ErrorRow::new(12, "ttnn.conv2d", "RuntimeError", OOM_V3))
        .error(ErrorRow::new(40, "ttnn.matmul", "RuntimeError", "TT_THROW @ matmul.cpp:7: shapes differ"))
        .write_to(dir);
}

#[test]
fn the_document_of_a_small_report_byte_for_byte() {
    let dir = TempDir::new("json-bytes");
    small_report(dir.path());
    let db = dir.path().join("db.sqlite");
    let o = run(&["explain", "--json", dir.path().to_str().unwrap()], None);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let expected = EXPECTED.replace("{DB}", db.to_str().unwrap());
    assert_eq!(String::from_utf8(o.stdout).unwrap(), expected);
}

/// Every recorded report of `fixtures/real` and `fixtures/models`: the document written with two
/// threads is byte for byte the one written on one, and both are serde_json's pretty layout of
/// themselves.
#[test]
fn every_recorded_report_writes_the_same_document_on_one_thread_and_two() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let (mut reports, mut memories) = (0, 0);
    for group in ["real", "models"] {
        let mut folders: Vec<_> = std::fs::read_dir(fixtures.join(group)).unwrap().map(|e| e.unwrap().path()).collect();
        folders.sort();
        for folder in folders.iter().filter(|f| f.join("db.sqlite").is_file()) {
            let folder = folder.to_str().unwrap();
            let one = run(&["explain", "--json", "--threads", "1", folder], None);
            let two = run(&["explain", "--json", "--threads", "2", folder], None);
            assert_eq!(one.status.code(), Some(0), "{folder}: {}", String::from_utf8_lossy(&one.stderr));
            assert!(one.stdout == two.stdout, "{folder}: the documents differ");
            let document: serde_json::Value = serde_json::from_slice(&two.stdout).unwrap();
            let laid = serde_json::to_string_pretty(&document).unwrap() + "\n";
            assert!(laid.as_bytes() == two.stdout, "{folder}: not serde_json's layout");
            reports += 1;
            memories += document["operations"].as_array().unwrap().iter().filter(|e| e["memory"].is_object()).count();
        }
    }
    assert!(reports >= 38 && memories >= 29, "{reports} reports, {memories} memories at a failure");
}

/// A failure with 1 102 live L1 buffers (a simulated run, and 1 100 small buffers more in the
/// failed operation's snapshot), past which its memory is laid out on another thread while its
/// fixes replay: the document is byte for byte the one written on one thread.
#[test]
fn a_large_memory_laid_out_while_its_fixes_replay_writes_the_same_document() {
    let dir = TempDir::new("json-beside");
    let mut sim = Sim::new(Era::DecoratorWithErrors, Options::default(), 1);
    sim.weight("w", 0, BufferType::L1, 100_000);
    sim.run(SimOp::new("ttnn.embedding", "EmbeddingsDeviceOperation").input("w").output("a", BufferType::L1, 400_000));
    let failed =
        sim.fail(SimOp::new("ttnn.matmul", "MatmulDeviceOperation").input("w").output("c", BufferType::L1, 1_000_000));
    let more = format!(
        "INSERT INTO buffers (operation_id, device_id, address, max_size_per_bank, buffer_type, buffer_layout) \
         WITH RECURSIVE k(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM k WHERE n < 1099) \
         SELECT {failed}, 0, 101440 + 32 * n, 32, {}, NULL FROM k",
        BufferType::L1.code()
    );
    sim.report().sql(&more).write_to(dir.path());
    let folder = dir.path().to_str().unwrap();
    let one = run(&["explain", "--json", "--threads", "1", folder], None);
    let two = run(&["explain", "--json", "--threads", "2", folder], None);
    assert_eq!(two.status.code(), Some(0), "{}", String::from_utf8_lossy(&two.stderr));
    assert!(one.stdout == two.stdout, "the documents differ");
    let document: serde_json::Value = serde_json::from_slice(&two.stdout).unwrap();
    let entry = &document["operations"][0];
    assert_eq!(entry["memory"]["live_buffers"].as_array().map(Vec::len), Some(1102));
    assert!(entry["fixes"][0]["outcome"].is_string(), "a fix was replayed beside: {}", entry["fixes"]);
    let laid = serde_json::to_string_pretty(&document).unwrap() + "\n";
    assert!(laid.as_bytes() == two.stdout, "not serde_json's layout");
}

#[test]
fn a_reader_that_goes_away_ends_it_quietly() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_ttnn-tui"))
        .args(["explain", "--json", "--demo"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    // Read the start of the document (like `| head -c 64`), then close the pipe.
    let mut start = [0u8; 64];
    child.stdout.take().expect("piped").read_exact(&mut start).expect("the document starts");
    let status = child.wait().expect("it ends");
    let mut stderr = String::new();
    child.stderr.take().expect("piped").read_to_string(&mut stderr).unwrap();
    assert!(start.starts_with(b"{\n  \"memory_report\": {\n"));
    assert_eq!(status.code(), Some(0));
    assert_eq!(stderr, "");
}

#[test]
fn failures_that_need_the_graph_only_pass_each_get_their_section() {
    // A report without `buffers` rows: every failure's memory is rebuilt from the graphs alone.
    let mut sim = Sim::new(Era::GraphOnly, Options::default(), 1);
    sim.weight("w", 0, BufferType::L1, 131_072);
    sim.run(SimOp::new("ttnn.to_layout", "TilizeDeviceOperation").input("w").output("x", BufferType::L1, 262_144));
    let conv = |out: &str| {
        SimOp::new("ttnn.conv2d", "Conv2dDeviceOperation").input("x").output(out, BufferType::L1, 1_000_000)
    };
    sim.fail(conv("c"));
    sim.run(SimOp::new("ttnn.relu", "UnaryDeviceOperation").input("x").output("y", BufferType::L1, 65_536));
    sim.fail(conv("d"));
    let dir = TempDir::new("json-graph-only");
    sim.report().write_to(dir.path());
    let o = run(&["explain", "--json", dir.path().to_str().unwrap()], None);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let document: serde_json::Value = serde_json::from_slice(&o.stdout).expect("valid JSON");
    let report = MemoryReport::open(&resolve_report(Some(dir.path())).unwrap(), 0).unwrap();
    let replay = report.graphs().graph_only_pass(&mut |_, _| {}, &std::sync::atomic::AtomicBool::new(false)).unwrap();
    let entries = document["operations"].as_array().unwrap();
    let ids: Vec<u64> = entries.iter().map(|e| e["operation_id"].as_u64().unwrap()).collect();
    assert_eq!(ids, [2, 4]);
    for (entry, id) in entries.iter().zip(ids) {
        let index = report.operation_index(id).unwrap();
        let FailureMemory::Found(m) = report.pictures().at_failure(index, replay.as_ref()).unwrap() else {
            panic!("operation {id} has a memory section")
        };
        assert_eq!(entry["memory"]["basis"], "graph_only");
        assert_eq!(entry["memory"], serde_json::to_value(MemoryAnswer::new(&m)).unwrap(), "operation {id}");
    }
}

/// What `explain --json` printed for `small_report` before the document was streamed from typed
/// structs (`{DB}` stands for the database path).
const EXPECTED: &str = r#"{
  "memory_report": {
    "path": "{DB}",
    "rank": 0,
    "operations": 2,
    "errors": 2,
    "schema_version": null
  },
  "perf_report": null,
  "operations": [
    {
      "operation_id": 12,
      "operation_name": "ttnn.conv2d",
      "error_type": "RuntimeError",
      "message": "TT_FATAL @ tt_metal/impl/allocator/bank_manager.cpp:486: false\ninfo:\nOut of Memory: Not enough space to allocate 3276800 B L1 buffer across 4 banks, where each bank needs to store 819200 B, but bank size is 1382720 B (allocated: 1000000 B, free: 382720 B, largest free block: 300000 B)\nbacktrace:\n --- build_Release/lib/libtt_metal.so(+0x570add) [0x7f0bc96eeadd]",
      "stack_trace": null,
      "allocation_failure": {
        "kind": "bank_out_of_memory",
        "kind_label": "Out of memory",
        "summary": "Requested 3.13 MiB L1 across 4 banks (800 KiB per bank, bank size 1.32 MiB); free 374 KiB, largest free block 293 KiB",
        "reason": "not_enough_free_space",
        "reason_label": "Not enough free space",
        "reason_detail": "Short by 426 KiB per bank: needs 800 KiB, 374 KiB free. An interleaved L1 buffer can use only the part of that free space inside the interleaved region, so it may be short by more.",
        "beyond_reference": false,
        "figures": {
          "buffer_type": "L1",
          "requested_bytes": 3276800,
          "num_banks": 4,
          "bytes_per_bank": 819200,
          "bank_size_bytes": 1382720,
          "allocated_bytes": 1000000,
          "free_bytes": 382720,
          "largest_free_block_bytes": 300000,
          "placeable_bytes": null,
          "largest_placeable_bytes": null,
          "core_range": null,
          "circular_buffer_region_end": null,
          "max_l1_bytes": null,
          "l1_buffer_address": null,
          "circular_buffer_size_bytes": null,
          "l1_buffer_size_bytes": null
        }
      },
      "recorded": true,
      "failed_device_operations": [
        "Conv2dDeviceOperation"
      ],
      "perf": null,
      "memory": {
        "device_id": 0,
        "buffer_type": "L1",
        "mesh": null,
        "basis": "after_failure_snapshot",
        "snapshot_operation_id": null,
        "region": {
          "start": 101440,
          "end": 1466368,
          "source": "devices"
        },
        "live_buffers": [
          {
            "address": 1000000,
            "size_per_bank": 200000,
            "layout": "INTERLEAVED",
            "origin": "earlier",
            "device_operation": null,
            "tensor_id": null,
            "shape": null,
            "dtype": null,
            "producer_operation_id": null,
            "producer_operation_name": null,
            "last_use_operation_id": null,
            "input_of_failed_operation": false,
            "stale": false
          },
          {
            "address": 1200000,
            "size_per_bank": 100000,
            "layout": "INTERLEAVED",
            "origin": "earlier",
            "device_operation": null,
            "tensor_id": null,
            "shape": null,
            "dtype": null,
            "producer_operation_id": null,
            "producer_operation_name": null,
            "last_use_operation_id": null,
            "input_of_failed_operation": false,
            "stale": false
          }
        ],
        "used_per_bank": 300000,
        "free_blocks": [
          {
            "address": 101440,
            "size": 898560
          },
          {
            "address": 1300000,
            "size": 166368
          }
        ],
        "largest_free_block": 898560,
        "check": {
          "status": "under_counted",
          "allocated": 1000000,
          "free": 382720,
          "largest_free_block": 300000
        },
        "reason": null,
        "reason_label": null,
        "fit": {
          "needed_per_bank": 819200,
          "free": [],
          "freed_per_bank": 0,
          "block": {
            "address": 101440,
            "size": 898560
          }
        },
        "circular_buffers": null
      },
      "fixes": []
    }
  ],
  "unattached_errors": [
    {
      "operation_id": 40,
      "operation_name": "ttnn.matmul",
      "error_type": "RuntimeError",
      "message": "TT_THROW @ matmul.cpp:7: shapes differ",
      "stack_trace": null,
      "allocation_failure": null
    }
  ]
}
"#;
