//! `ttnn-tui whatif` against real tt-metal (issue 20 §3): every folder of `fixtures/rerun/` is a
//! real failure of `fixtures/real/` recorded again with one fix applied (`fixtures/rerun/README.md`),
//! and its `rerun.json` says what tt-metal then did with the request. The replay of the original
//! with the same fix must say the same: the outcome, and where the request landed. Replayed with
//! no fix, every real fixture's recorded allocations land where tt-metal put them.

use crate::cli;
use crate::real_support;
use crate::support;

use cli::run;
use real_support::{SCENARIOS, fixtures, int};
use serde_json::Value;
use std::path::{Path, PathBuf};
use support::folder_bytes;

fn reruns() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures").join("rerun")
}

/// Every re-run folder and its rerun.json.
fn every_rerun() -> Vec<(String, Value)> {
    let mut out: Vec<(String, Value)> = std::fs::read_dir(reruns())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("rerun.json").is_file())
        .map(|p| {
            let text = std::fs::read_to_string(p.join("rerun.json")).unwrap();
            (p.file_name().unwrap().to_string_lossy().into_owned(), serde_json::from_str(&text).unwrap())
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// `whatif ORIGINAL --operation N ARGS… --json`, the original's folder left as it was.
fn whatif(original: &str, operation: u64, args: &[&str]) -> Value {
    let dir = fixtures().join(original);
    let before = folder_bytes(&dir);
    let mut all = vec!["whatif", original, "--operation"];
    let operation = operation.to_string();
    all.push(&operation);
    all.extend_from_slice(args);
    all.push("--json");
    let o = run(&all, Some(&fixtures()));
    assert_eq!(o.status.code(), Some(0), "{all:?}: {}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(folder_bytes(&dir), before, "the report folder changed: {}", dir.display());
    serde_json::from_slice(&o.stdout).expect("valid JSON")
}

#[test]
fn whatif_says_what_every_real_rerun_did() {
    let all = every_rerun();
    assert!(all.len() >= 19, "the re-runs of fixtures/rerun/");
    for (name, rerun) in &all {
        assert_eq!(rerun["schema"], "ttnn-tui-rerun/1", "{name}");
        let original = rerun["original"].as_str().unwrap();
        let args: Vec<&str> = rerun["whatif"].as_array().unwrap().iter().map(|a| a.as_str().unwrap()).collect();
        let id = int(&rerun["operation_id"]).unwrap();
        let answer = whatif(original, id, &args);
        let request = &rerun["request"];
        let context = format!("{name}: {}", serde_json::to_string_pretty(&answer).unwrap());
        assert_eq!(answer["replay_check"], "exact", "{context}");
        assert_eq!(answer["outcome"], rerun["outcome"], "{context}");
        let circular = request["kind"] == "circular_buffers";
        assert_eq!(answer["check"], if circular { "circular_buffers" } else { "allocation" }, "{context}");
        if !circular && rerun["outcome"] == "fits" {
            assert_eq!(answer["address"], request["address"], "where the request landed: {context}");
            assert_eq!(answer["buffer_type"], request["buffer_type"], "{context}");
        }
        if !rerun["largest_free_block"].is_null() {
            assert_eq!(answer["largest_free_block"], rerun["largest_free_block"], "{context}");
        }
        // A re-run that placed the request and then failed on its circular buffers is said as
        // "fits, but …"; one that ran on is not.
        let sentence = answer["sentence"].as_str().unwrap();
        let then_clash = rerun["then"]["kind"] == "circular_buffers_clash";
        assert_eq!(sentence.contains("of circular buffers at operation"), then_clash, "{context}");
    }
}

#[test]
fn every_rerun_names_a_real_fixture_and_stays_small() {
    for (name, rerun) in every_rerun() {
        let original = rerun["original"].as_str().unwrap();
        assert!(SCENARIOS.contains(&original), "{name}: {original}");
        assert!(name.starts_with(&format!("{original}__")), "{name}");
        let dir = reruns().join(&name);
        let size: u64 = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().metadata().unwrap().len()).sum();
        assert!(size < 1_000_000, "{name}: {size} bytes");
    }
}

/// Every allocation failure of every real fixture — meshes and submeshes too — replays exactly
/// with no fix from its checkpoint, and from the first operation. Two submeshes share chips
/// while each has an allocator of its own (mesh_submeshes: tables 0 and 1; mesh_submesh_1x1: a
/// 1×1 submesh beside its parent on chip 0): their buffers are not one chip's. And
/// mesh_submeshes' graphs name its submeshes 1 and 2 where its tables say 0 and 1
/// (fixtures/real/README.md): replayed from the first operation, the graphs' 2 is followed.
#[test]
fn every_failure_of_every_real_fixture_replays_exactly() {
    let mut replayed = 0;
    let mut names: Vec<String> = std::fs::read_dir(fixtures())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("db.sqlite").exists())
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    names.sort();
    for name in &names {
        let out = run(&["explain", "--json", &fixtures().join(name).to_string_lossy()], None);
        let json: Value = serde_json::from_slice(&out.stdout).unwrap();
        for entry in json["operations"].as_array().unwrap().iter().filter(|e| !e["allocation_failure"].is_null()) {
            let id = int(&entry["operation_id"]).unwrap();
            for args in [&[][..], &["--from-start"][..]] {
                let answer = whatif(name, id, args);
                assert_eq!(answer["replay_check"], "exact", "{name} operation {id} {args:?}: {answer}");
                replayed += 1;
            }
        }
    }
    assert!(names.iter().any(|n| n == "mesh_submeshes") && names.iter().any(|n| n == "mesh_submesh_1x1"));
    assert!(replayed >= 36, "only {replayed} replays");
}

/// Replayed from the first operation with no fix, every real fixture reproduces tt-metal: each
/// recorded allocation where it was, and the request refused as it was.
#[test]
fn the_replay_reproduces_every_real_fixture() {
    for scenario in SCENARIOS {
        let truth = real_support::truth(scenario);
        let (id, _) = real_support::failed_operation(&truth);
        let answer = whatif(scenario, id, &["--from-start"]);
        assert_eq!(answer["replay_check"], "exact", "{scenario}: {answer}");
        assert_eq!(answer["outcome"], "does_not_fit", "{scenario}: {answer}");
        assert_eq!(answer["fixes"], Value::Array(vec![]), "{scenario}");
    }
}

/// The advice explain gives is the fix a re-run recorded: where the two meet, the same outcome
/// and address (memory.md §9.2).
#[test]
fn explain_advice_says_what_the_reruns_did() {
    for (scenario, line) in [
        ("l1_fragmented", "  Freeing tensor 5 after operation 15: the 256 KiB request fits at 1105920."),
        ("a_l1_add_oom", "  Placing the output in DRAM: the 684 KiB DRAM request fits at 1048640."),
        (
            "l1_small_oom",
            "  Opening the device with l1_small_size=4096 (at least the request rounded up to 32 B; the operation may need several L1_SMALL buffers): the 4 KiB L1_SMALL request fits at 1495040.",
        ),
        (
            "small_model",
            "  Freeing the 4 tensors held past their last use right after it (tensors 17, 20, 11 and 3): the 1.25 MiB request fits at 155648.",
        ),
        (
            "stale_chain",
            "  Freeing the 6 tensors held past their last use right after it (tensors 7, 24, 21, 18, 15 and 11): the 1 MiB request fits at 112640, but ttnn.add used 12 KiB of circular buffers at operation 2 and only 7 KiB would be left below it.",
        ),
        (
            "cb_clash_own_output",
            "  Placing the output in DRAM and keeping tensor 35 in DRAM: the circular buffers, up to 118112, fit below the lowest L1 buffer, at 122880.",
        ),
        (
            "c_cb_clash",
            "  Keeping tensor 32 in DRAM: the circular buffers, up to 118112, fit below the lowest L1 buffer, at 188416.",
        ),
    ] {
        let o = run(&["explain", scenario], Some(&fixtures()));
        let text = String::from_utf8(o.stdout).unwrap();
        assert!(text.lines().any(|l| l == line), "{scenario}: {line:?} in\n{text}");
    }
}

/// Every recorded release replays exactly too — 0.66's live writer, 0.80's importer, and 0.75,
/// which records no message for the failed operation: its run's log (`--log`) gives the request.
#[test]
fn the_replay_reproduces_every_release() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures").join("releases");
    let mut replayed = 0;
    for version in ["0.66.0", "0.75.0", "0.80.0"] {
        for scenario in ["a_l1_add_oom", "c_cb_clash", "dram_oom", "l1_fragmented", "small_model"] {
            let dir = root.join(version).join(scenario);
            let log = dir.join("run.log");
            let before = folder_bytes(&dir);
            let (dir_s, log_s) = (dir.to_str().unwrap(), log.to_str().unwrap());
            let mut args = vec!["whatif", dir_s, "--from-start", "--json"];
            if version == "0.75.0" {
                args.extend(["--log", log_s]);
            }
            let o = run(&args, None);
            assert_eq!(o.status.code(), Some(0), "{version}/{scenario}: {}", String::from_utf8_lossy(&o.stderr));
            assert_eq!(folder_bytes(&dir), before, "{version}/{scenario}: the folder changed");
            let answer: Value = serde_json::from_slice(&o.stdout).unwrap();
            assert_eq!(answer["replay_check"], "exact", "{version}/{scenario}: {answer}");
            assert_eq!(answer["outcome"], "does_not_fit", "{version}/{scenario}: {answer}");
            replayed += 1;
        }
    }
    assert_eq!(replayed, 15);
}

/// A fix that cannot act on the run is refused with why and what to do (exit 1, the report
/// untouched), never replayed as if it did nothing; a fix given twice is one fix.
#[test]
fn a_fix_that_cannot_act_on_the_run_is_refused() {
    let dir = fixtures().join("a_l1_add_oom");
    let path = "fixtures/real/a_l1_add_oom";
    let db = format!("{path}/db.sqlite");
    let before = folder_bytes(&dir);
    for (args, why) in [
        (
            &["--free", "8@11"][..],
            "free 8@11: operation 11 is the failed one: free tensor 8 after an operation before it (free 8@10)",
        ),
        (&["--free", "999"][..], "free 999: tensor 999 is not in the report"),
        (&["--to-dram", "999"][..], "to-dram 999: tensor 999 is not in the report"),
        (&["--free", "8@1"][..], "free 8@1: tensor 8 is made by operation 3, after operation 1"),
        (&["--free-buffer", "12345@10"][..], "free-buffer 12345@10: no buffer is live at 12345 after operation 10"),
        (
            &["--free-buffer", "1105920@99"][..],
            "free-buffer 1105920@99: operation 99 is not in the report before the failed operation 11",
        ),
    ] {
        let mut all = vec!["whatif", path, "--operation", "11"];
        all.extend_from_slice(args);
        let o = run(&all, Some(Path::new(env!("CARGO_MANIFEST_DIR"))));
        assert_eq!(o.status.code(), Some(1), "{all:?}");
        assert_eq!(String::from_utf8_lossy(&o.stderr), format!("error: {why}: {db}\n"), "{all:?}");
        assert!(o.stdout.is_empty(), "{all:?}");
    }
    assert_eq!(folder_bytes(&dir), before);
    let twice = whatif("a_l1_add_oom", 11, &["--free", "2@10", "--free", "2@10"]);
    assert_eq!(twice, whatif("a_l1_add_oom", 11, &["--free", "2@10"]));
    assert_eq!(twice["fixes"], serde_json::json!(["free 2@10"]));
}
