//! ttnn releases that record no message for a failed operation, and the log beside a report
//! (docs/rules/reference.md §13.5), on simulated runs: the same script recorded as ttnn 0.67–0.78 record it
//! (no `operations` row, no graph, no message for the failed operation) and as the importer of
//! 0.79 and later records it, each with the run's log.

use crate::cli;
use crate::support;

use std::sync::Arc;
use support::sim::{Era, Options, Sim, SimOp, Truth};
use support::{BufferType, ReadOnly, TempDir};
use ttnn_tui::explain::{ExplainOptions, collect, render_json, render_text, scan_log};
use ttnn_tui::report::{FailureMemory, LogBeside, MemoryReport, resolve_report};

const L1: BufferType = BufferType::L1;

/// A weight, two operations leaving a stale tensor, then `ttnn.add` whose output does not fit
/// (it allocates nothing before it fails, so the last snapshot is the memory at the failure).
fn model(era: Era) -> (Sim, u64) {
    let mut sim = Sim::new(era, Options::default(), 1);
    sim.weight("w", 0, L1, 262_144);
    sim.run(SimOp::new("ttnn.to_layout", "TilizeDeviceOperation").input("w").output("x", L1, 393_216));
    sim.run(SimOp::new("ttnn.relu", "UnaryDeviceOperation").input("x").output("y", L1, 327_680));
    let failed = sim.fail(SimOp::new("ttnn.add", "BinaryNgDeviceOperation").input("y").output("z", L1, 524_288));
    (sim, failed)
}

/// The written report, opened; dropping it checks the folder was left as it was.
fn open(sim: &Sim) -> ReadOnly<MemoryReport> {
    let dir = TempDir::new("releases");
    sim.write_to(dir.path());
    let report = ReadOnly::read(dir.path(), || MemoryReport::open(&resolve_report(Some(dir.path())).unwrap(), 0));
    report.unwrap().owning(dir)
}

fn log_of(sim: &Sim, failed: u64) -> Arc<LogBeside> {
    let text = sim.log("test_model", failed, "ttnn.add");
    let findings = scan_log(text.as_bytes()).unwrap();
    Arc::new(LogBeside { path: "run.log".into(), findings })
}

fn text(report: &MemoryReport) -> String {
    let options = ExplainOptions::default();
    render_text(report, &collect(report, None, &options).unwrap(), &options)
}

fn json(report: &MemoryReport) -> serde_json::Value {
    let options = ExplainOptions::default();
    serde_json::from_str(&render_json(report, &collect(report, None, &options).unwrap(), &options)).unwrap()
}

/// docs/rules/reference.md §13.5: the `incomplete_operation` row at id 0 is the operation after the last
/// recorded one, listed with its error, never "operation 0".
#[test]
fn the_unrecorded_operation_follows_the_last_recorded_one() {
    let (sim, failed) = model(Era::ImporterWithoutMessage);
    let report = open(&sim);
    let ids: Vec<(u64, &str, bool)> = report.operations.iter().map(|o| (o.id, o.name.as_ref(), o.recorded)).collect();
    assert_eq!(ids, [(1, "ttnn.to_layout", true), (2, "ttnn.relu", true), (3, "ttnn.add", false)]);
    assert_eq!(failed, 3);
    let error = report.error_of(2).unwrap();
    assert_eq!(
        (error.error_type.as_str(), error.operation_id, error.attached),
        ("incomplete_operation", Some(0), true)
    );
    assert_eq!(report.unattached_errors().count(), 0);
    // The memory when it started: the snapshot after operation 2, inputs from nothing recorded.
    let start = report.pictures().at_start(2).unwrap();
    assert_eq!(start.len(), 1);
    assert_eq!((start[0].snapshot_operation_id, start[0].buffer_type.token()), (Some(2), "L1"));
    let truth = sim.truth.clone().unwrap();
    let mut live: Vec<(u64, u64)> = start[0].live_buffers.iter().map(|b| (b.address, b.size_per_bank)).collect();
    live.sort_unstable();
    assert_eq!(live, truth.live.iter().map(|b| (b.address, b.size)).collect::<Vec<_>>());
    assert!(report.pictures().at_start(1).unwrap().is_empty());
}

#[test]
fn without_the_log_it_says_why_there_is_no_message_and_how_to_add_it() {
    let (sim, _) = model(Era::ImporterWithoutMessage);
    let report = open(&sim);
    assert_eq!(
        text(&report),
        "1 operation with an error
This report records no stack traces, so no line of the model is named: turn Python stack traces on when recording (README, \"Recording a report\"), or give the run's log with --log, whose traceback has the line.
Operation 3 ttnn.add (not recorded): incomplete_operation
  Operation 'ttnn.add' started but never completed (likely crashed)
  This ttnn release records no allocator message for a failed operation: give the run's log with --log to add it.
  When operation 3 started (the snapshot after operation 2): 3 live L1 buffers on device 0 hold 960 KiB per bank of the 101440–1466368 region (1.3 MiB); largest free block 373 KiB
  Largest holders: tensor 2 384 KiB (ttnn.to_layout, op 1; last used op 2, stale) · tensor 3 320 KiB (ttnn.relu, op 2; input) · tensor 1 256 KiB (not produced by a recorded operation; last used op 1, stale)
"
    );
    let v = json(&report);
    let entry = &v["operations"][0];
    assert_eq!((entry["operation_id"].as_u64(), entry["recorded"].as_bool()), (Some(3), Some(false)));
    assert_eq!(entry["memory"], serde_json::Value::Null);
    assert!(entry.get("log").is_none());
    let start = &entry["memory_at_start"][0];
    assert_eq!((start["snapshot_operation_id"].as_u64(), start["buffer_type"].as_str()), (Some(2), Some("L1")));
    assert_eq!(start["live_buffers"].as_array().unwrap().len(), 3);
}

fn found(report: &MemoryReport, index: usize) -> Box<ttnn_tui::analysis::memory::MemoryAtFailure> {
    match report.pictures().at_failure(index, None).unwrap() {
        FailureMemory::Found(m) => m,
        other => panic!("no memory section: {other:?}"),
    }
}

/// (address, size, tensor, producer, last use, input, stale) of the live buffers, by address.
type Holder = (u64, u64, Option<u64>, Option<u64>, Option<u64>, bool, bool);

fn holders(m: &ttnn_tui::analysis::memory::MemoryAtFailure) -> Vec<Holder> {
    let mut v: Vec<Holder> = m
        .live_buffers
        .iter()
        .map(|b| {
            let input = b.input_of_operation;
            (b.address, b.size_per_bank, b.tensor_id, b.producer_operation_id, b.last_use_operation_id, input, b.stale)
        })
        .collect();
    v.sort_unstable();
    v
}

fn truth_holders(t: &Truth) -> Vec<Holder> {
    t.live.iter().map(|b| (b.address, b.size, b.tensor, b.producer, b.last_use, b.input, b.stale)).collect()
}

/// The log's failure joins the unrecorded operation, which is then explained as if the report
/// had recorded the message: the memory at the failure is what the simulation held.
#[test]
fn with_the_log_the_failure_is_explained_as_if_recorded() {
    let (sim, failed) = model(Era::ImporterWithoutMessage);
    let truth = sim.truth.clone().unwrap();
    let mut report = open(&sim);
    report.join_log(log_of(&sim, failed));
    let error = report.error_of(2).unwrap();
    assert!(error.failure.is_some());
    assert!(error.message.starts_with("Out of Memory: Not enough space to allocate 33554432 B L1 buffer"));
    let m = found(&report, 2);
    assert_eq!((m.basis.as_str(), m.snapshot_operation_id), ("earlier_snapshot", Some(2)));
    assert_eq!(holders(&m), truth_holders(&truth));
    assert_eq!(m.check.status.as_str(), "exact");
    assert_eq!(m.fit.as_ref().ok().map(|f| f.free.clone()), truth.to_free);
    assert_eq!(
        text(&report),
        "1 operation with an error
Operation 3 ttnn.add (not recorded): Out of memory
  Requested 32 MiB L1 across 64 banks (512 KiB per bank, bank size 1.3 MiB); free 373 KiB, largest free block 373 KiB
  Not enough free space. Short by 139 KiB per bank: needs 512 KiB, 373 KiB free. An interleaved L1 buffer can use only the part of that free space inside the interleaved region, so it may be short by more.
  The message is the log's (this ttnn release records no allocator message for a failed operation): line 30 of run.log (also on line 41), at model/block.py:103, test test_model.
  At the failure (snapshot after operation 2; this operation's own allocations are not recorded): 3 live L1 buffers on device 0 hold 960 KiB per bank of the 101440–1466368 region (1.3 MiB)
  The picture matches the allocator's figures (allocated 960 KiB, largest free block 373 KiB).
  Largest holders: tensor 2 384 KiB (ttnn.to_layout, op 1; last used op 2, stale) · tensor 3 320 KiB (ttnn.relu, op 2; input) · tensor 1 256 KiB (not produced by a recorded operation; last used op 1, stale)
  Freeing tensors 2 and 1 after operation 2: the 512 KiB-per-bank request fits at 942080.\n  Freeing the 2 tensors held past their last use, each right after it (tensors 2 and 1): the 512 KiB-per-bank request fits at 942080.\n  Keeping tensor 3, an input of the operation, in DRAM: the 512 KiB-per-bank request fits at 286720.\n  Placing the output in DRAM: the 2.67 MiB-per-bank DRAM request fits at 32.\n  Freeing tensor 2 right after its last use, operation 2: the 512 KiB-per-bank request still does not fit: the largest free block would be 384 KiB; in the way: tensor 1 at 1204224 (256 KiB per bank).
"
    );
    let v = json(&report);
    let entry = &v["operations"][0];
    assert_eq!(entry["recorded"], false);
    assert_eq!(
        entry["log"],
        serde_json::json!({"path": "run.log", "line": 30, "also_at": [41], "source": "model/block.py:103", "test": "test_model"})
    );
    assert_eq!(entry["message"].as_str(), Some(error.message.as_str()));
    assert_eq!(entry["memory"]["check"]["status"], "exact");
    assert!(entry.get("memory_at_start").is_none());
    assert_eq!(v["log_failures"], serde_json::json!([]));
}

/// The joined answer equals the one the importer of later releases records for the same run,
/// on what does not depend on the release: kind, figures, reason, holders, check, fit.
#[test]
fn the_joined_answer_equals_the_recorded_one() {
    let (old, failed) = model(Era::ImporterWithoutMessage);
    let (new, _) = model(Era::Importer);
    let mut joined = open(&old);
    joined.join_log(log_of(&old, failed));
    let recorded = open(&new);
    let (a, b) = (json(&joined), json(&recorded));
    let (a, b) = (&a["operations"][0], &b["operations"][0]);
    assert_eq!(a["operation_id"], b["operation_id"]);
    assert_eq!(a["allocation_failure"], b["allocation_failure"]);
    for key in ["live_buffers", "used_per_bank", "free_blocks", "check", "reason", "fit", "region"] {
        assert_eq!(a["memory"][key], b["memory"][key], "{key}");
    }
    // What the release recorded differs: the basis, the failed device operation.
    assert_eq!(
        (a["memory"]["basis"].as_str(), b["memory"]["basis"].as_str()),
        (Some("earlier_snapshot"), Some("after_failure_snapshot"))
    );
    assert_eq!(b["failed_device_operations"], serde_json::json!(["BinaryNgDeviceOperation"]));
}

/// A report that records the message: the log adds where it was seen, nothing else.
#[test]
fn beside_a_recorded_failure_the_log_adds_only_its_place() {
    let (sim, failed) = model(Era::Importer);
    let mut report = open(&sim);
    let before = json(&report);
    report.join_log(log_of(&sim, failed));
    let mut after = json(&report);
    let log = after["operations"][0].as_object_mut().unwrap().remove("log").unwrap();
    assert_eq!(log["line"], 30);
    assert_eq!(log["source"], "model/block.py:103");
    after.as_object_mut().unwrap().remove("log_failures");
    assert_eq!(after, before);
    let printed = text(&report);
    assert!(
        printed.contains(
            "\n  In the log: line 30 of run.log (also on line 41), at model/block.py:103, test test_model.\n"
        ),
        "{printed}"
    );
}

/// A failure of the log that no operation takes is listed after the report's, as in log mode.
#[test]
fn failures_no_operation_takes_are_listed_after_the_report_s() {
    let (sim, failed) = model(Era::ImporterWithoutMessage);
    let mut report = open(&sim);
    // Another run's log: its failure is of ttnn.matmul.
    let text_of_log = sim.log("test_other", failed, "ttnn.matmul");
    let findings = scan_log(text_of_log.as_bytes()).unwrap();
    report.join_log(Arc::new(LogBeside { path: "other.log".into(), findings }));
    let printed = text(&report);
    assert!(printed.contains("  This ttnn release records no allocator message for a failed operation, and the log other.log has no allocation failure of ttnn.add.\n"), "{printed}");
    assert!(printed.contains("\n1 allocation failure in the log other.log joined no operation of this report:\n\nLine 30: ttnn.matmul at model/block.py:103: Out of memory\n"), "{printed}");
    let v = json(&report);
    assert_eq!(v["operations"][0]["log"], serde_json::Value::Null);
    let unjoined = v["log_failures"].as_array().unwrap();
    assert_eq!((unjoined.len(), unjoined[0]["operation_name"].as_str()), (1, Some("ttnn.matmul")));
}

/// A report folder under `generated/ttnn/reports/` of a fresh working folder, where `ttnn-tui`
/// with no REPORT finds it, and the run's log beside the working folder.
fn working_folder(sim: &Sim, failed: u64) -> TempDir {
    let dir = TempDir::new("releases-cli");
    let report = dir.path().join("generated/ttnn/reports/my_run");
    std::fs::create_dir_all(&report).unwrap();
    sim.write_to(&report);
    std::fs::write(dir.path().join("run.log"), sim.log("test_model", failed, "ttnn.add")).unwrap();
    dir
}

#[test]
fn explain_a_report_with_its_log_from_a_file_or_standard_input() {
    let (sim, failed) = model(Era::ImporterWithoutMessage);
    let dir = working_folder(&sim, failed);
    let report = "generated/ttnn/reports/my_run";
    let o = cli::run(&["explain", report, "--log", "run.log", "--json"], Some(dir.path()));
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["operations"][0]["log"]["path"], "run.log");
    assert_eq!(v["operations"][0]["allocation_failure"]["kind"], "bank_out_of_memory");
    // `-` reads the log from standard input.
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_ttnn-tui"))
        .args(["explain", report, "--log", "-"])
        .current_dir(dir.path())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child.stdin.take().unwrap().write_all(sim.log("test_model", failed, "ttnn.add").as_bytes()).unwrap();
    let o = child.wait_with_output().unwrap();
    let printed = String::from_utf8(o.stdout).unwrap();
    assert!(printed.contains("\n  The message is the log's (this ttnn release records no allocator message for a failed operation): line 30 of - (also on line 41), at model/block.py:103, test test_model.\n"), "{printed}");
    // A log that cannot be read is a usage error, as for `explain --log`.
    let o = cli::run(&["explain", report, "--log", "missing.log"], Some(dir.path()));
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).starts_with("error: cannot read the log ("), "{o:?}");
}

/// issue 22 §4.1: `ttnn-tui --help` names `--log`, and `ttnn-tui --log x.log` opens the newest
/// report with the log beside it (printed here: the output is not a terminal), or explains the
/// log alone when there is no report.
#[test]
fn the_log_from_the_top_level() {
    let help = cli::run(&["--help"], None);
    let help = String::from_utf8(help.stdout).unwrap();
    assert!(help.contains("--log <PATH>"), "{help}");
    let (sim, failed) = model(Era::ImporterWithoutMessage);
    let dir = working_folder(&sim, failed);
    let o = cli::run(&["--log", "run.log"], Some(dir.path()));
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let printed = String::from_utf8(o.stdout).unwrap();
    assert!(
        printed.starts_with("1 operation with an error\nOperation 3 ttnn.add (not recorded): Out of memory\n"),
        "{printed}"
    );
    std::fs::remove_dir_all(dir.path().join("generated")).unwrap();
    let o = cli::run(&["--log", "run.log"], Some(dir.path()));
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let printed = String::from_utf8(o.stdout).unwrap();
    assert!(printed.starts_with("1 allocation failure in this log ("), "{printed}");
    assert!(printed.contains("\nLine 30: ttnn.add at model/block.py:103: Out of memory\n"), "{printed}");
}
