//! A section the report cannot give is said, never a silent null (issue 22 §1): the entry says
//! which key is empty and why (`unavailable`), the text says it in the section's place, the rest
//! is written, and a database that cannot be read fails the run (`error: …` on stderr, exit 1).

use crate::cli;
use crate::support;

use cli::run;
use std::path::{Path, PathBuf};
use support::{BufferRow, Device, ErrorRow, Graph, Op, ReportBuilder, Schema, TempDir, damage_table};

const OOM: &str = "Out of Memory: Not enough space to allocate 3276800 B L1 buffer across 4 banks, where each bank needs to store 819200 B, but bank size is 1382720 B (allocated: 1000000 B, free: 382720 B, largest free block: 300000 B)";

/// One L1 failure with its own snapshot, and the `buffers` table's pages damaged on disk (as a
/// bad sector or a cut copy leaves them): everything else of the report reads.
fn damaged_buffers(dir: &Path) -> PathBuf {
    let graph = Graph::failed_conv2d().to_json();
    ReportBuilder::new(Schema::V2)
        .device(Device::wormhole(0))
        .operation(Op::new(11, "ttnn.add").buffers(vec![BufferRow::l1(1_000_000, 200_000)]))
        .operation(Op::new(12, "ttnn.conv2d").graph(graph).buffers(vec![BufferRow::l1(1_000_000, 200_000)]))
        .error(ErrorRow::new(12, "ttnn.conv2d", "RuntimeError", OOM))
        .write_to(dir);
    let db = dir.join("db.sqlite");
    damage_table(&db, "buffers");
    db
}

/// `explain --json` on a report whose database cannot all be read: it exits 1 and still writes
/// the whole document; its first operation's entry and stderr.
fn first_entry_of_a_failed_run(dir: &Path) -> (serde_json::Value, String) {
    let o = run(&["explain", "--json", dir.to_str().unwrap()], None);
    let stderr = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(o.status.code(), Some(1), "{stderr}");
    let mut document: serde_json::Value = serde_json::from_slice(&o.stdout).expect("the whole document is written");
    (document["operations"][0].take(), stderr)
}

#[test]
fn an_unreadable_memory_section_is_said_in_the_json_and_fails_the_run() {
    let dir = TempDir::new("unreadable-json");
    let db = damaged_buffers(dir.path());
    let before = std::fs::read(&db).unwrap();
    let (entry, stderr) = first_entry_of_a_failed_run(dir.path());
    assert_eq!(entry["operation_id"], 12);
    assert_eq!(entry["allocation_failure"]["kind"], "bank_out_of_memory");
    assert_eq!(entry["memory"], serde_json::Value::Null);
    assert_eq!(entry["fixes"], serde_json::json!([]));
    let unavailable = entry["unavailable"].as_array().expect("the entry says what it could not give");
    assert_eq!(unavailable.len(), 1, "{unavailable:?}");
    assert_eq!(unavailable[0]["section"], "memory");
    let reason = unavailable[0]["error"].as_str().unwrap();
    assert!(reason.starts_with("cannot read ") && reason.contains("malformed"), "{reason}");
    let expected =
        format!("error: operation 12 ttnn.conv2d: Memory at the failure unavailable: {reason}: {}\n", db.display());
    assert_eq!(stderr, expected);
    assert_eq!(std::fs::read(&db).unwrap(), before, "the report is left as it was");
}

#[test]
fn an_unreadable_memory_section_is_said_in_its_place_in_the_text() {
    let dir = TempDir::new("unreadable-text");
    let db = damaged_buffers(dir.path());
    let o = run(&["explain", "--color", "never", dir.path().to_str().unwrap()], None);
    assert_eq!(o.status.code(), Some(1));
    let text = String::from_utf8(o.stdout).unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    let line = text.lines().find(|l| l.starts_with("  Memory at the failure unavailable: ")).expect(&text);
    assert!(text.starts_with("1 operation with an error\n"), "{text}");
    assert!(text.contains("\nOperation 12 ttnn.conv2d: Out of memory\n"), "{text}");
    assert_eq!(stderr, format!("error: operation 12 ttnn.conv2d: {}: {}\n", line.trim_start(), db.display()));
}

#[test]
fn an_invalid_graph_is_said_in_the_entry_and_the_rest_is_a_partial_answer() {
    let dir = TempDir::new("invalid-graph-json");
    ReportBuilder::new(Schema::V2)
        .operation(Op::new(3, "ttnn.linear").graph("[{\"node_type\": "))
        .error(ErrorRow::new(3, "ttnn.linear", "RuntimeError", OOM))
        .write_to(dir.path());
    let o = run(&["explain", "--json", dir.path().to_str().unwrap()], None);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(String::from_utf8_lossy(&o.stderr), "");
    let document: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let entry = &document["operations"][0];
    assert_eq!(entry["failed_device_operations"], serde_json::json!([]));
    let sections: Vec<&str> =
        entry["unavailable"].as_array().unwrap().iter().map(|u| u["section"].as_str().unwrap()).collect();
    assert_eq!(sections[0], "failed_device_operations");
    for u in entry["unavailable"].as_array().unwrap() {
        assert!(u["error"].as_str().unwrap().starts_with("invalid captured graph JSON: "), "{u}");
    }
}

/// Stack traces that cannot be read: the entry is written without the model's line and says why
/// (`source`), in its place in the text, and the run fails (exit 1).
#[test]
fn unreadable_stack_traces_are_said_and_fail_the_run() {
    let dir = TempDir::new("unreadable-traces");
    ReportBuilder::new(Schema::V2)
        .device(Device::wormhole(0))
        .operation(
            Op::new(12, "ttnn.conv2d")
                .stack_trace("  File \"/home/me/model.py\", line 12, in forward\n")
                .buffers(vec![BufferRow::l1(1_000_000, 200_000)]),
        )
        .error(ErrorRow::new(12, "ttnn.conv2d", "RuntimeError", OOM))
        .write_to(dir.path());
    let db = dir.path().join("db.sqlite");
    damage_table(&db, "stack_traces");
    let o = run(&["explain", "--json", dir.path().to_str().unwrap()], None);
    assert_eq!(o.status.code(), Some(1), "{}", String::from_utf8_lossy(&o.stderr));
    let document: serde_json::Value = serde_json::from_slice(&o.stdout).expect("the whole document is written");
    let entry = &document["operations"][0];
    assert_eq!(entry["allocation_failure"]["kind"], "bank_out_of_memory");
    assert!(!entry["memory"].is_null(), "the memory section is still given: {entry}");
    let unavailable = entry["unavailable"].as_array().unwrap();
    assert_eq!(unavailable.len(), 1, "{unavailable:?}");
    assert_eq!(unavailable[0]["section"], "source");
    let reason = unavailable[0]["error"].as_str().unwrap();
    assert!(reason.starts_with("cannot read ") && reason.contains("malformed"), "{reason}");
    let o = run(&["explain", "--color", "never", dir.path().to_str().unwrap()], None);
    assert_eq!(o.status.code(), Some(1));
    let text = String::from_utf8(o.stdout).unwrap();
    let line = format!("  The model's line (stack traces) unavailable: {reason}");
    assert!(text.contains("\nOperation 12 ttnn.conv2d: Out of memory\n"), "{text}");
    assert!(text.lines().any(|l| l == line), "{line:?} in {text}");
    assert_eq!(
        String::from_utf8_lossy(&o.stderr),
        format!("error: operation 12 ttnn.conv2d: {}: {}\n", line.trim_start(), db.display())
    );
}

/// A run whose second operation has a long captured graph (sixty temporary buffers) and leaves
/// nothing live; the third fails where freeing the first one's output, never used again, would
/// make room. The second graph's overflow chain is then cut on disk (its first overflow page
/// points past the file's end): the memory at the failure reads, the fix's replay through the
/// second operation does not.
fn unreadable_replay(dir: &Path) -> PathBuf {
    use support::BufferType;
    use support::sim::{Era, Options, Sim, SimOp};
    let mut sim = Sim::new(Era::DecoratorWithErrors, Options::default(), 1);
    sim.weight("w", 0, BufferType::L1, 100_000);
    sim.run(SimOp::new("ttnn.embedding", "EmbeddingsDeviceOperation").input("w").output("a", BufferType::L1, 400_000));
    let long = (0..60)
        .fold(SimOp::new("ttnn.reshard", "ReshardDeviceOperation").input("w"), |op, _| op.temp(BufferType::L1, 2048));
    sim.run(long);
    sim.fail(SimOp::new("ttnn.matmul", "MatmulDeviceOperation").input("w").output("c", BufferType::L1, 1_000_000));
    sim.write_to(dir);
    let db = dir.join("db.sqlite");
    let conn = rusqlite::Connection::open(&db).unwrap();
    let page_size: u64 = conn.query_row("PRAGMA page_size", [], |r| r.get(0)).unwrap();
    let first_overflow: u64 = conn
        .query_row(
            "SELECT pageno FROM dbstat WHERE name = 'captured_graph' AND pagetype = 'overflow' ORDER BY path LIMIT 1",
            [],
            |r| r.get(0),
        )
        .expect("the long graph spills onto overflow pages");
    drop(conn);
    let mut bytes = std::fs::read(&db).unwrap();
    let start = ((first_overflow - 1) * page_size) as usize;
    bytes[start..start + 4].copy_from_slice(&0x00ff_ffffu32.to_be_bytes());
    std::fs::write(&db, bytes).unwrap();
    db
}

#[test]
fn an_unreadable_replay_keeps_the_memory_and_says_the_fixes_are_unavailable() {
    let dir = TempDir::new("unreadable-replay");
    let db = unreadable_replay(dir.path());
    let (entry, stderr) = first_entry_of_a_failed_run(dir.path());
    assert_eq!(entry["operation_id"], 3);
    assert_eq!(entry["memory"]["buffer_type"], "L1", "the memory at the failure is kept");
    assert_eq!(entry["fixes"], serde_json::json!([]));
    let unavailable = entry["unavailable"].as_array().expect("the entry says what it could not give");
    assert_eq!(unavailable.len(), 1, "{unavailable:?}");
    assert_eq!(unavailable[0]["section"], "fixes");
    let reason = unavailable[0]["error"].as_str().unwrap();
    assert!(reason.starts_with("cannot read the run's records") && reason.contains("malformed"), "{reason}");
    assert_eq!(stderr, format!("error: operation 3 ttnn.matmul: Fixes unavailable: {reason}: {}\n", db.display()));
    let text = run(&["explain", "--color", "never", dir.path().to_str().unwrap()], None);
    let text = String::from_utf8(text.stdout).unwrap();
    let fixes = text.find(&format!("\n  Fixes unavailable: {reason}\n")).expect(&text);
    assert!(text[..fixes].contains("\n  At the failure (after-failure snapshot"), "the memory is said before: {text}");
}
