//! The report written by the README's recording snippet (`docs/record_report.py`), run for real on
//! the mock device (`fixtures/snippet/README.md`): `explain` finds the failure the run died of.

use crate::cli;

use cli::run;
use std::path::Path;

#[test]
fn the_snippet_report_explains_the_failure_the_run_died_of() {
    let o = run(&["explain", "fixtures/snippet", "--json"], Some(Path::new(env!("CARGO_MANIFEST_DIR"))));
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let operations = v["operations"].as_array().unwrap();
    assert_eq!(operations.len(), 1);
    let op = &operations[0];
    assert_eq!((op["operation_id"].as_u64(), op["operation_name"].as_str()), (Some(11), Some("ttnn.add")));
    assert_eq!(op["failed_device_operations"], serde_json::json!(["BinaryNgDeviceOperation"]));
    let failure = &op["allocation_failure"];
    assert_eq!(
        failure["summary"],
        "Requested 8 MiB L1 across 64 banks (128 KiB per bank, bank size 1.33 MiB); free 81 KiB, largest free block 81 KiB"
    );
    assert_eq!(failure["reason"], "not_enough_free_space");
    assert_eq!(
        failure["reason_detail"],
        "Short by 47 KiB per bank: needs 128 KiB, 81 KiB free. An interleaved L1 buffer can use only the part of that free space inside the interleaved region, so it may be short by more."
    );
    // The ten L1 tensors the model filled L1 with are what held the memory at the failure.
    assert_eq!(op["memory"]["buffer_type"], "L1");
    assert_eq!(op["memory"]["live_buffers"].as_array().unwrap().len(), 10);
    assert_eq!(v["unattached_errors"], serde_json::json!([]));
}

/// The same run's log (its stdout and stderr, `fixtures/snippet/run.log`): `explain --log` finds
/// the same failure, on ttnn's own `Started ttnn.add` line's operation, with the same explanation
/// as the report's.
#[test]
fn the_runs_log_gives_the_same_failure_as_its_report() {
    let here = Some(Path::new(env!("CARGO_MANIFEST_DIR")));
    let log = run(&["explain", "--log", "fixtures/snippet/run.log", "--json"], here);
    assert_eq!(log.status.code(), Some(0));
    let log: serde_json::Value = serde_json::from_slice(&log.stdout).unwrap();
    let report = run(&["explain", "fixtures/snippet", "--json"], here);
    let report: serde_json::Value = serde_json::from_slice(&report.stdout).unwrap();
    let failures = log["failures"].as_array().unwrap();
    assert_eq!(failures.len(), 1);
    let f = &failures[0];
    assert_eq!((f["line"].as_u64(), f["operation_name"].as_str()), (Some(39), Some("ttnn.add")));
    assert_eq!(f["allocation_failure"], report["operations"][0]["allocation_failure"]);
}
