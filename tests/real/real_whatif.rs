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

/// The outcome is the operation's (docs/rules/memory.md §9.3): `fits` only when the re-run ran on; a
/// re-run that placed the request and then failed on its circular buffers is `request.fits`
/// with an outcome that is not `fits`, said "the request fits at A, but …". A re-run the fix
/// broke (an input freed before the operation read it) is a fix `whatif` refuses.
#[test]
fn whatif_says_what_every_real_rerun_did() {
    let all = every_rerun();
    assert!(all.len() >= 21, "the re-runs of fixtures/rerun/");
    for (name, rerun) in &all {
        assert_eq!(rerun["schema"], "ttnn-tui-rerun/1", "{name}");
        let original = rerun["original"].as_str().unwrap();
        let args: Vec<&str> = rerun["whatif"].as_array().unwrap().iter().map(|a| a.as_str().unwrap()).collect();
        let id = int(&rerun["operation_id"]).unwrap();
        if rerun["outcome"] == "other_failure" {
            let refused = refusal(original, id, &args);
            assert!(refused.contains("is an input of the failed operation"), "{name}: {refused}");
            continue;
        }
        let answer = whatif(original, id, &args);
        let request = &rerun["request"];
        let context = format!("{name}: {}", serde_json::to_string_pretty(&answer).unwrap());
        assert_eq!(answer["replay_check"], "exact", "{context}");
        let circular = request["kind"] == "circular_buffers";
        assert_eq!(answer["check"], if circular { "circular_buffers" } else { "allocation" }, "{context}");
        let then_clash = rerun["then"]["kind"] == "circular_buffers_clash";
        if !rerun["then"].is_null() {
            // The request was placed, then the operation failed on what it allocates next:
            // its circular buffers, or (conv2d) its next L1_SMALL buffer.
            assert_ne!(answer["outcome"], "fits", "the operation failed after its request: {context}");
        } else {
            assert_eq!(answer["outcome"], rerun["outcome"], "{context}");
        }
        if !circular {
            let placed = rerun["outcome"] == "fits";
            assert_eq!(answer["request"]["fits"], placed, "{context}");
            if placed {
                assert_eq!(answer["address"], request["address"], "where the request landed: {context}");
                assert_eq!(answer["request"]["address"], request["address"], "{context}");
                assert_eq!(answer["buffer_type"], request["buffer_type"], "{context}");
            }
        }
        if circular && !request["address"].is_null() {
            // A circular-buffer check gives where the failed operation's own output lands.
            assert_eq!(answer["output"]["address"], request["address"], "where the output landed: {context}");
            assert_eq!(answer["output"]["buffer_type"], request["buffer_type"], "{context}");
        }
        if !rerun["largest_free_block"].is_null() {
            assert_eq!(answer["largest_free_block"], rerun["largest_free_block"], "{context}");
        }
        let sentence = answer["sentence"].as_str().unwrap();
        // A request placed and then its circular buffers clashing is said "fits at A, but …"
        // about circular buffers: an earlier operation's, or none recorded and too little room.
        let but_circular = sentence.contains(", but ") && sentence.contains("circular buffers");
        assert_eq!(but_circular, then_clash, "{context}");
    }
}

/// `whatif ORIGINAL --operation N ARGS…` refused: exit 1, nothing on stdout, the folder as it
/// was; the one-line error.
fn refusal(original: &str, operation: u64, args: &[&str]) -> String {
    let dir = fixtures().join(original);
    let before = folder_bytes(&dir);
    let operation = operation.to_string();
    let mut all = vec!["whatif", original, "--operation", &operation];
    all.extend_from_slice(args);
    let o = run(&all, Some(&fixtures()));
    assert_eq!(o.status.code(), Some(1), "{all:?}: {}", String::from_utf8_lossy(&o.stdout));
    assert!(o.stdout.is_empty(), "{all:?}");
    assert_eq!(folder_bytes(&dir), before);
    String::from_utf8_lossy(&o.stderr).into_owned()
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
/// and address (docs/rules/memory.md §9.2), ranked frees before moves; no line says `fits` where the re-run
/// failed (stale_chain__free_late placed the output, then failed on its dataflow buffers).
#[test]
fn explain_advice_says_what_the_reruns_did() {
    for (scenario, line) in [
        ("l1_fragmented", "  Freeing tensor 5 after operation 15: the 256 KiB-per-bank request fits at 1105920."),
        ("a_l1_add_oom", "  Placing the output in DRAM: the 684 KiB-per-bank DRAM request fits at 1048640."),
        (
            "a_l1_add_oom",
            "  Keeping tensor 2, an input of the operation, in DRAM: the 128 KiB-per-bank request fits at 188416.",
        ),
        (
            "sharded_add_oom",
            "  Keeping tensor 26, an input of the operation, in DRAM: the 128 KiB-per-bank request fits at 188416.",
        ),
        (
            "l1_small_oom",
            "  Opening the device with l1_small_size=4096 (at least what the operation's L1_SMALL buffers the report shows need, each aligned to 32 B; the operation may need more): the 4 KiB-per-bank L1_SMALL request fits at 1495040.",
        ),
        (
            "small_model",
            "  Freeing the 4 tensors held past their last use, each right after it (tensors 17, 20, 11 and 1 more): the 1.25 MiB-per-bank request fits at 155648.",
        ),
        ("small_model", "  Placing the output in DRAM: the 6.67 MiB-per-bank DRAM request fits at 8040512."),
        (
            "stale_chain",
            "  Freeing the 6 tensors held past their last use, each right after it (tensors 7, 24, 21 and 3 more): the 1 MiB-per-bank request fits at 112640, but ttnn.add used 12 KiB of circular buffers at operation 2 and only 7 KiB would be left below it: ttnn.matmul records none of its own, so whether they fit is unknown.",
        ),
        ("stale_chain", "  Placing the output in DRAM: the 5.33 MiB-per-bank DRAM request fits at 1048640."),
        (
            "cb_clash_own_output",
            "  Keeping tensor 35 in DRAM: the circular buffers still clash with 1 L1 buffer: tensor 43 at 114688 (8 KiB per bank).",
        ),
        (
            "cb_clash_own_output",
            "  Placing the output in DRAM: the circular buffers still clash with 1 L1 buffer: tensor 35 at 114688 (8 KiB per bank).",
        ),
        (
            "c_cb_clash",
            "  Freeing tensor 32 after operation 13: the circular buffers, up to 118112, fit below the lowest L1 buffer, at 188416.",
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

/// The advice in the order it is said, and at most five lines of it in the text; JSON has
/// every candidate replayed (docs/rules/memory.md §9.2): a_l1_add_oom's free first, then the moves, the
/// output in DRAM last.
#[test]
fn advice_is_ranked_and_the_text_says_five_lines() {
    let o = run(&["explain", "a_l1_add_oom"], Some(&fixtures()));
    let text = String::from_utf8(o.stdout).unwrap();
    let said: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("  Freeing") || l.starts_with("  Keeping") || l.starts_with("  Placing"))
        .collect();
    assert_eq!(
        said,
        [
            "  Freeing tensor 8 after operation 10: the 128 KiB-per-bank request fits at 1105920.",
            "  Keeping tensor 8 in DRAM: the 128 KiB-per-bank request fits at 188416.",
            "  Keeping tensor 5, an input of the operation, in DRAM: the 128 KiB-per-bank request fits at 188416.",
            "  Keeping tensor 2, an input of the operation, in DRAM: the 128 KiB-per-bank request fits at 188416.",
            "  Placing the output in DRAM: the 684 KiB-per-bank DRAM request fits at 1048640.",
        ]
    );
    let o = run(&["explain", "stale_chain"], Some(&fixtures()));
    let text = String::from_utf8(o.stdout).unwrap();
    let json: Value =
        serde_json::from_slice(&run(&["explain", "--json", "stale_chain"], Some(&fixtures())).stdout).unwrap();
    let fixes = json["operations"][0]["fixes"].as_array().expect("fixes").clone();
    let in_text = fixes.iter().filter(|f| text.contains(f["sentence"].as_str().unwrap())).count();
    assert!(fixes.len() > 5, "{fixes:?}");
    assert_eq!(in_text, 5);
    let late = fixes.iter().find(|f| f["fix"].as_str().unwrap().matches("free ").count() == 6).unwrap();
    assert_eq!((late["outcome"].as_str(), late["address"].as_u64()), (Some("unknown"), Some(112_640)));
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
    let twice = whatif("a_l1_add_oom", 11, &["--free", "8@10", "--free", "8@10"]);
    assert_eq!(twice, whatif("a_l1_add_oom", 11, &["--free", "8@10"]));
    assert_eq!(twice["fixes"], serde_json::json!(["free 8@10"]));
}

/// An input of the failed operation freed at, before or after it is refused, never replayed,
/// with the fix that can (issue 28 §1): real tt-metal, given `ttnn.deallocate(fill0)` after
/// operation 10, fails the add with "Input Tensor A is not allocated"
/// (fixtures/rerun/a_l1_add_oom__free_fill0_input); the input in DRAM fits where the re-run
/// says (a_l1_add_oom__fill0_to_dram, sharded_add_oom__a_to_dram).
#[test]
fn freeing_an_input_of_the_failed_operation_is_refused_with_the_fix_that_can() {
    let why = |t: u64| {
        format!(
            "tensor {t} is an input of the failed operation 11 ttnn.add: it stays live until the operation reads it, so freeing it makes no room; keeping it in DRAM can (--to-dram {t})"
        )
    };
    for (scenario, fix, t) in [
        ("a_l1_add_oom", "2", 2),
        ("a_l1_add_oom", "2@10", 2),
        ("a_l1_add_oom", "5@1", 5),
        ("sharded_add_oom", "26@10", 26),
        ("sharded_add_oom", "29", 29),
    ] {
        let refused = refusal(scenario, 11, &["--free", fix]);
        assert_eq!(refused, format!("error: free {fix}: {}: {scenario}/db.sqlite\n", why(t)), "{scenario} {fix}");
    }
    let moved = whatif("sharded_add_oom", 11, &["--to-dram", "26"]);
    assert_eq!((moved["outcome"].as_str(), moved["address"].as_u64()), (Some("fits"), Some(188_416)));
    assert_eq!(moved["request"], serde_json::json!({"fits": true, "address": 188416}));
    assert_eq!(moved["fails_on"], Value::Null);
}

/// Each fix says where to change the model (issue 28 §7): a free at a tensor's last use names
/// `ttnn.deallocate(…)` after that operation's line, and `whatif` names the line of the
/// operation a free follows (small_model_lifetime records its stack traces).
#[test]
fn each_fix_names_the_line_of_the_model_to_change() {
    let o = run(&["explain", "small_model_lifetime"], Some(&fixtures()));
    let text = String::from_utf8(o.stdout).unwrap();
    let line = "  Freeing tensor 17 right after its last use, operation 4 (ttnn.deallocate(…) after record_fixtures.py:310): the 1.25 MiB-per-bank request still does not fit: the largest free block would be 1.17 MiB.";
    assert!(text.lines().any(|l| l == line), "{line:?} in\n{text}");
    let answer = whatif("small_model_lifetime", 7, &["--free", "17@4"]);
    assert_eq!(
        answer["sentence"],
        "Freeing tensor 17 after operation 4 (record_fixtures.py:310): the 1.25 MiB-per-bank request still does not fit: the largest free block would be 1.17 MiB."
    );
}

/// conv2d allocates several L1_SMALL buffers and a report of its failure shows only the first
/// (issue 28 §3, `fixtures/conv2d/`): explain's `l1_small_size` is at least that one, 32 B-aligned,
/// and says the operation may need more; its replay places the request where real tt-metal did
/// (1499104, 32 B below the end of worker L1) and answers `unknown`, never `fits` — the real
/// re-run at that size failed on the next L1_SMALL buffer. No output in DRAM for a conv2d. (Its
/// self-check differs: the input lies in DRAM past something the report does not record.)
#[test]
fn a_conv2d_l1_small_failure_says_the_operation_may_need_more() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures").join("conv2d");
    let rerun: Value =
        serde_json::from_slice(&std::fs::read(root.join("conv2d_l1_small_oom__l1_small_32/rerun.json")).unwrap())
            .unwrap();
    assert_eq!(
        (&rerun["outcome"], &rerun["request"]["address"]),
        (&serde_json::json!("fits"), &serde_json::json!(1499104))
    );
    assert_eq!(rerun["then"]["kind"], "bank_out_of_memory");
    let dir = root.join("conv2d_l1_small_oom");
    let before = folder_bytes(&dir);
    let path = dir.to_str().unwrap();
    let text = String::from_utf8(run(&["explain", path], None).stdout).unwrap();
    let advice: Vec<&str> = text.lines().filter(|l| l.starts_with("  Opening") || l.starts_with("  Placing")).collect();
    assert_eq!(
        advice,
        [
            "  Opening the device with l1_small_size=32 (at least what the operation's L1_SMALL buffers the report shows need, each aligned to 32 B; the operation may need more): the 16 B-per-bank L1_SMALL request fits at 1499104, but ttnn.conv2d allocates more L1_SMALL buffers after this one, which the report does not show: whether they fit is unknown. (A model, not a reproduction: replayed without a fix, the DRAM buffer tt-metal placed at 1051392 at operation 1 lands at 1048640.)"
        ]
    );
    let o = run(&["whatif", path, "--l1-small-size", "32", "--json"], None);
    let answer: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        (&answer["outcome"], &answer["replay_check"]),
        (&serde_json::json!("unknown"), &serde_json::json!("differs"))
    );
    assert_eq!(answer["request"], serde_json::json!({"fits": true, "address": 1499104}));
    assert_eq!(answer["request"]["address"], rerun["request"]["address"]);
    assert_eq!(folder_bytes(&dir), before);
}

/// 0.75 records nothing of the failed operation; its log says the circular buffers run past an
/// L1 buffer at 106496, where the report records none: the add's own output (issue 28 §2). The
/// replay places it there before judging any fix, so moving or freeing the recorded holder alone
/// still clashes — as real tt-metal did (fixtures/rerun/cb_clash_own_output__low_to_dram, and
/// __output_to_dram for the other half) — and only both together fit
/// (cb_clash_own_output__low_and_output_to_dram).
#[test]
fn a_release_without_the_failed_operation_keeps_its_own_output_where_the_log_says() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/releases/0.75.0/cb_clash_own_output");
    let before = folder_bytes(&dir);
    let (path, log) = (dir.to_str().unwrap().to_string(), dir.join("run.log").to_str().unwrap().to_string());
    let text = String::from_utf8(run(&["explain", &path, "--log", &log], None).stdout).unwrap();
    let advice: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("  Freeing") || l.starts_with("  Keeping") || l.starts_with("  Placing"))
        .collect();
    assert_eq!(
        advice,
        [
            "  Freeing tensor 35 after operation 14 and placing the output in DRAM: the circular buffers, up to 117824, fit below the lowest L1 buffer, at 122880.",
            "  Freeing tensor 35 after operation 14: the circular buffers still clash with 1 L1 buffer: the operation's own buffer at 106496 (not recorded).",
            "  Keeping tensor 35 in DRAM: the circular buffers still clash with 1 L1 buffer: the operation's own buffer at 106496 (not recorded).",
            "  Placing the output in DRAM: the circular buffers still clash with 1 L1 buffer: tensor 35 at 114688 (8 KiB per bank).",
        ]
    );
    let o = run(&["whatif", &path, "--log", &log, "--to-dram", "35", "--json"], None);
    let answer: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        (&answer["outcome"], &answer["fails_on"]),
        (&serde_json::json!("does_not_fit"), &serde_json::json!("circular_buffers"))
    );
    assert_eq!(answer["replay_check"], "exact");
    assert_eq!(folder_bytes(&dir), before);
}
