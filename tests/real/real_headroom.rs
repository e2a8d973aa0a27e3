//! `ttnn-tui headroom` and the true peak against real tt-metal (issue 31 §3): every folder of
//! `fixtures/headroom/` is a passing run recorded with the rig, and its `headroom.json` says what
//! real re-runs with an extra interleaved L1 tensor of F bytes per bank did: the largest F that
//! still passed, and the first failure one alignment step above it.

use crate::cli::run;
use crate::support::folder_bytes;
use serde_json::Value;
use std::path::{Path, PathBuf};

fn headroom_fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures").join("headroom")
}

/// Every measured run and its headroom.json.
fn measured() -> Vec<(String, Value)> {
    let mut out: Vec<(String, Value)> = std::fs::read_dir(headroom_fixtures())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("headroom.json").is_file())
        .map(|p| {
            let text = std::fs::read_to_string(p.join("headroom.json")).unwrap();
            (p.file_name().unwrap().to_string_lossy().into_owned(), serde_json::from_str(&text).unwrap())
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// `ARGS… REPORT` on a measured run, its folder left as it was: (exit code, stdout).
fn on(name: &str, args: &[&str]) -> (i32, String) {
    let dir = headroom_fixtures().join(name);
    let before = folder_bytes(&dir);
    let path = dir.to_string_lossy().into_owned();
    let mut all = args.to_vec();
    all.push(&path);
    let out = run(&all, None);
    assert_eq!(folder_bytes(&dir), before, "{name}: the report is untouched");
    (out.status.code().unwrap(), String::from_utf8(out.stdout).unwrap())
}

fn l1_entry(name: &str) -> Value {
    let (code, out) = on(name, &["headroom", "--json"]);
    assert_eq!(code, 0, "{name}");
    let doc: Value = serde_json::from_str(&out).unwrap();
    doc["headroom"].as_array().unwrap().iter().find(|e| e["buffer_type"] == "L1").cloned().unwrap()
}

/// The runs whose programs all record their circular buffers: the replay sees every limit.
const SEEN: [&str; 7] =
    ["hr_add_l1", "hr_blackhole", "hr_cb_only", "hr_fragmented", "hr_partial_shard", "hr_sharded", "hr_tensors"];

#[test]
fn headroom_is_the_largest_real_filler_and_the_first_failure_the_real_one() {
    let runs = measured();
    let mut limits = std::collections::BTreeSet::new();
    for (name, real) in runs.iter().filter(|(n, _)| SEEN.contains(&n.as_str())) {
        let e = l1_entry(name);
        let f = &real["first_failure"];
        assert_eq!(e["per_bank"], real["headroom_per_bank"], "{name}: the real headroom, to the byte");
        assert_eq!(e["alignment"], real["alignment"], "{name}: the allocator's step");
        assert_eq!(e["bank_size"], real["l1_bank_size"], "{name}");
        assert_eq!(e["replay_check"], "exact", "{name}");
        assert_eq!(e["first_failure"]["operation_id"], f["operation_id"], "{name}: what fails first");
        assert_eq!(e["first_failure"]["operation_name"], f["operation_name"], "{name}");
        assert_eq!(e["first_failure"]["kind"], f["kind"], "{name}");
        assert_eq!(e["first_failure"]["reason"], f["reason"], "{name}");
        assert_eq!(real["recorded_checks_agree"], true, "{name}: the recorder saw the same ends");
        limits.insert((f["kind"].to_string(), f["reason"].to_string(), real["mock"].to_string()));
    }
    assert_eq!(runs.iter().filter(|(n, _)| SEEN.contains(&n.as_str())).count(), 7, "every run measured");
    assert!(limits.len() >= 4, "runs whose limits differ: {limits:?}");
}

#[test]
fn the_lines_say_the_headroom_and_what_fails_first() {
    let (code, out) = on("hr_add_l1", &["headroom"]);
    assert_eq!(code, 0);
    assert_eq!(
        out,
        "L1 headroom on device 0: 453 KiB per bank (33 % of the 1.33 MiB bank); above it, operation 7 ttnn.add fails first: its circular buffers clash with an L1 buffer.\n"
    );
    let (_, out) = on("hr_fragmented", &["headroom"]);
    assert_eq!(
        out,
        "L1 headroom on device 0: 81 KiB per bank (5 % of the 1.33 MiB bank); above it, operation 14 ttnn.empty fails first: out of memory: enough is free in all, but no block holds its buffer.\n"
    );
}

#[test]
fn min_is_a_ci_gate() {
    // hr_tensors: 475808 B per bank.
    assert_eq!(on("hr_tensors", &["headroom", "--min", "L1=475808"]).0, 0);
    let (code, out) = on("hr_tensors", &["headroom", "--min", "L1=512KiB", "--min", "DRAM=1"]);
    assert_eq!(code, 1);
    assert_eq!(
        out,
        "L1 headroom on device 0: 465 KiB per bank (34 % of the 1.33 MiB bank); above it, operation 9 ttnn.empty fails first: out of memory: not enough free space. Below the minimum of 512 KiB per bank.\n"
    );
    let bad = run(
        &["headroom", "--min", "L1=lots", "fixtures/headroom/hr_tensors"],
        Some(Path::new(env!("CARGO_MANIFEST_DIR"))),
    );
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("cannot read --min \"L1=lots\""));
    let missing = run(&["headroom", "/no/such/report"], None);
    assert_eq!(missing.status.code(), Some(2));
}

#[test]
fn a_run_that_failed_has_no_headroom_on_its_failing_type() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/real/a_l1_add_oom");
    let out = run(&["headroom", &dir.to_string_lossy()], None);
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "L1 headroom on device 0: 0 B per bank: the run failed here; operation 11 ttnn.add failed: out of memory: not enough free space.\n"
    );
}

#[test]
fn unrecorded_dataflow_buffers_are_said_and_the_headroom_is_then_a_bound() {
    // The small model's matmul, relu and softmax record no dataflow buffers: real tt-metal failed
    // at 1034912 B (softmax's dataflow buffers clash); the replay cannot see them.
    let real = measured().into_iter().find(|(n, _)| n == "hr_small_model").unwrap().1;
    let e = l1_entry("hr_small_model");
    assert!(e["per_bank"].as_u64().unwrap() >= real["headroom_per_bank"].as_u64().unwrap());
    let (_, out) = on("hr_small_model", &["headroom"]);
    assert!(out.contains(
        "  Operations 4 ttnn.matmul, 7 ttnn.relu, 8 ttnn.softmax use dataflow buffers that no graph records: this headroom leaves them out and may be less.\n"
    ));
}

#[test]
fn the_true_peak_leaves_exactly_the_real_headroom_where_nothing_is_fragmented() {
    // A filler just below the tightest operation's room passes it: the room at the true peak is
    // the real headroom when the limit is bytes, not a block.
    for (name, real) in measured().iter().filter(|(n, _)| SEEN.contains(&n.as_str())) {
        let (_, out) = on(name, &["explain", "--peak", "--json"]);
        let doc: Value = serde_json::from_str(&out).unwrap();
        let tight = &doc["memory_report"]["tightest"][0];
        let room = tight["room_per_bank"].as_u64().unwrap();
        let headroom = real["headroom_per_bank"].as_u64().unwrap();
        if name == "hr_fragmented" {
            assert!(room > headroom, "{name}: fragmentation costs more than bytes");
        } else {
            assert_eq!(room, headroom, "{name}");
            assert_eq!(tight["operation_id"], real["first_failure"]["operation_id"], "{name}");
        }
    }
    let (_, out) = on("hr_add_l1", &["explain", "--peak"]);
    assert!(out.contains(
        "True peak L1 use on device 0: 908 KiB per bank inside operation 7 ttnn.add (66.73% of the 1.33 MiB bank; 453 KiB left): circular buffers 12 KiB · its own buffers 128 KiB · live and used later 768 KiB · held past their last use 0 B\n"
    ));
}

/// On one chip the lines name it device 0, as `--peak`'s after-operation line does, whatever ids
/// its tables use (hr_add_l1: `devices` rows 0 and 1, `buffers` and graphs 1; issue 30 §4.5); the
/// JSON keeps the tables' id.
#[test]
fn explain_on_a_run_without_errors_says_its_headroom_and_tightest_operation() {
    let (code, out) = on("hr_add_l1", &["explain"]);
    assert_eq!(code, 0);
    assert_eq!(
        out,
        "No errors recorded in this report (7 operations).\n\
         L1 headroom on device 0: 453 KiB per bank (33 % of the 1.33 MiB bank); above it, operation 7 ttnn.add fails first: its circular buffers clash with an L1 buffer.\n\
         True peak L1 use on device 0: 908 KiB per bank inside operation 7 ttnn.add (66.73% of the 1.33 MiB bank; 453 KiB left): circular buffers 12 KiB · its own buffers 128 KiB · live and used later 768 KiB · held past their last use 0 B\n"
    );
    assert_eq!(l1_entry("hr_add_l1")["device_id"], 1, "the JSON keeps the tables' id");
}

/// `explain --json` on a run without errors (issue 31 §4): `memory_report` gains the headroom —
/// `headroom --json`'s entries — and the true peaks and tightest operations as `--peak --json`
/// gives them; `operations` stays empty. On `hr_partial_shard` the room at the tightest
/// operation's peak, on its busiest core, is the real headroom (`headroom.json`: 725664).
#[test]
fn explain_json_on_a_run_without_errors_gives_its_headroom_and_true_peaks() {
    let json = |args: &[&str]| -> Value { serde_json::from_str(&on("hr_partial_shard", args).1).unwrap() };
    let doc = json(&["explain", "--json"]);
    let report = &doc["memory_report"];
    let entry = serde_json::json!({
        "device_id": 1, "buffer_type": "L1", "per_bank": 725664, "bank_size": 1393312, "alignment": 32,
        "replay_check": "exact",
        "first_failure": {"operation_id": 4, "operation_name": "ttnn.add", "kind": "circular_buffers_clash",
                          "reason": "overlaps_l1_buffer"}
    });
    assert_eq!(report["headroom"], serde_json::json!([entry]));
    let tightest = serde_json::json!({
        "operation_id": 4, "device_id": 1, "buffer_type": "L1", "peak_per_bank": 667648, "after_per_bank": 655360,
        "core": [0, 0], "bank_size": 1393312, "room_per_bank": 725664,
        "composition": {"circular_buffers": 12288, "own": 131072, "live": 524288, "stale": 0}
    });
    assert_eq!(report["true_peak"], serde_json::json!([tightest]));
    assert_eq!(report["tightest"][0], tightest);
    assert_eq!(report["tightest"].as_array().unwrap().len(), 4, "one per operation using L1, at most 5");
    assert_eq!(doc["operations"], serde_json::json!([]));
    // One definition: the same entries as `headroom --json`, the same peaks as `--peak --json`.
    assert_eq!(report["headroom"], json(&["headroom", "--json"])["headroom"]);
    let peak = json(&["explain", "--peak", "--json"]);
    assert_eq!(
        (&report["true_peak"], &report["tightest"]),
        (&peak["memory_report"]["true_peak"], &peak["memory_report"]["tightest"])
    );
    assert!(peak["memory_report"]["headroom"].is_array(), "with --peak too");
    let keys: Vec<&String> = report.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["path", "rank", "operations", "errors", "schema_version", "headroom", "true_peak", "tightest"]);
    // A run with errors has none of it (the demo's JSON is unchanged: tests/explain).
    let failed =
        run(&["explain", "--json", "a_l1_add_oom"], Some(&Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/real")));
    let failed: Value = serde_json::from_slice(&failed.stdout).unwrap();
    assert!(failed["memory_report"].get("headroom").is_none() && failed["memory_report"].get("tightest").is_none());
}

#[test]
fn whatif_takes_the_reservation_as_a_fix() {
    // a_l1_add_oom failed with a largest free block of 82592 B (tt-metal's message): 64 KiB
    // reserved before the first operation leaves every later tensor 64 KiB lower, and that block
    // 65536 B smaller.
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/real/a_l1_add_oom");
    let out = run(&["whatif", &dir.to_string_lossy(), "--reserve", "L1=64KiB", "--json"], None);
    let answer: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(answer["fixes"], serde_json::json!(["reserve L1=65536"]));
    assert_eq!(answer["outcome"], "does_not_fit");
    assert_eq!(answer["largest_free_block"], 82_592 - 65_536);
    assert_eq!(answer["replay_check"], "exact");
}
