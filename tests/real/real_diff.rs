//! `ttnn-tui diff BEFORE AFTER` (docs/rules/interfaces.md §1) on real pairs: a failure of `fixtures/real/`
//! and the same script run again with a fix by real tt-metal (`fixtures/rerun/`, whose truth.json
//! says which operations the fix inserted), and reports of other ttnn releases
//! (`fixtures/releases/`). The failures gone, new and kept are what the re-runs recorded; each
//! side's peaks are that side's own `explain --peak --json`; the alignment pairs exactly the
//! operations the re-run's script says are the original's.

use crate::cli;
use crate::real_support;
use crate::support;

use cli::run;
use serde_json::{Value, json};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use support::folder_bytes;
use ttnn_tui::analysis::compare::Alignment;
use ttnn_tui::report::{MemoryReport, ReportSource};

fn fixture(relative: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures").join(relative)
}

fn path(relative: &str) -> String {
    fixture(relative).to_str().unwrap().to_string()
}

/// `diff` from the repository root (paths as the user types them), exit 0 and nothing on stderr.
fn diff(before: &str, after: &str, json: bool) -> String {
    let (b, a) = (format!("fixtures/{before}"), format!("fixtures/{after}"));
    let mut args = vec!["diff", b.as_str(), a.as_str()];
    if json {
        args.push("--json");
    }
    let o = run(&args, Some(Path::new(env!("CARGO_MANIFEST_DIR"))));
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(String::from_utf8_lossy(&o.stderr), "");
    String::from_utf8(o.stdout).unwrap()
}

fn diff_json(before: &str, after: &str) -> Value {
    serde_json::from_str(&diff(before, after, true)).unwrap()
}

/// A side's own `explain --json`, with what `--peak` and `--late` add.
fn explain_json(report: &str) -> Value {
    let o = run(&["explain", "--json", "--peak", "--late", &path(report)], None);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).unwrap()
}

/// The text up to the first new failure's block, and that block.
fn split_next(text: &str) -> (&str, Option<&str>) {
    match text.split_once("\nNext to fix, the first new failure:\n") {
        Some((head, next)) => (head, Some(next)),
        None => (text, None),
    }
}

/// The pair issue 24 names: freeing every late tensor lets the matmul's output fit, and then its
/// circular buffers clash with it (`stale_chain__free_late`'s `then`).
#[test]
fn a_failure_gone_and_a_new_one_further_on() {
    let text = diff("real/stale_chain", "rerun/stale_chain__free_late", false);
    let (head, next) = split_next(&text);
    assert_eq!(
        head,
        "Out of memory in ttnn.matmul (operation 5) is gone; new: Circular buffers clash with L1 buffers in ttnn.matmul (operation 11).\n\
         Before: fixtures/real/stale_chain/db.sqlite, 5 operations. After: fixtures/rerun/stale_chain__free_late/db.sqlite, 11 operations.\n\
         Gone: Out of memory in ttnn.matmul (operation 5)\n\
         \x20 Requested 64 MiB L1 across 64 banks (1 MiB per bank, bank size 1.33 MiB); free 949 KiB, largest free block 949 KiB\n\
         \x20 Not enough free space.\n\
         New: Circular buffers clash with L1 buffers in ttnn.matmul (operation 11)\n\
         \x20 Circular buffers on [0-0 - 7-7] end at 118112, past an L1 buffer at 112640\n\
         \x20 Overlaps an L1 buffer.\n\
         5 operations aligned (5 before, 11 after); the runs part at operation 2 ttnn.deallocate, which only the after run has.\n\
         L1 per bank on device 0 after the 5 aligned operations with a figure in both runs: less after 4, more after none, the same after 1; the largest change is after operation 5 ttnn.matmul (now operation 11): 412 KiB before, 330 KiB after.\n\
         Peak L1 use on device 0: 412 KiB per bank before (operation 4 ttnn.softmax), 382 KiB per bank after (operation 1 ttnn.matmul): 30 KiB lower.\n\
         Held past their last use: 6 tensors before, 2 tensors after.\n\
         \x20 Before, L1 on device 0: freeing all 6 at their last use lowers the peak from 412 KiB to 382 KiB.\n\
         \x20 After, L1 on device 0: freeing all 2 at their last use leaves the peak at 382 KiB.\n"
    );
    // `BEFORE --compare AFTER` off a terminal prints the same.
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let o = run(&["fixtures/real/stale_chain", "--compare", "fixtures/rerun/stale_chain__free_late"], Some(root));
    assert_eq!((o.status.code(), String::from_utf8(o.stdout).unwrap()), (Some(0), text.clone()));
    // The first new failure, explained in full: explain's own block of that operation (without
    // the footnote explain's whole output ends with, on what beyond TT-NN Visualizer means).
    let o = run(&["explain", &path("rerun/stale_chain__free_late"), "--operation", "11"], None);
    let explained = String::from_utf8(o.stdout).unwrap();
    let (block, footnote) = explained.trim_end().rsplit_once('\n').unwrap();
    assert!(footnote.starts_with("Beyond TT-NN Visualizer (operation 11): "), "{explained}");
    assert_eq!(next, Some(format!("{block}\n").as_str()));

    let value = diff_json("real/stale_chain", "rerun/stale_chain__free_late");
    assert_eq!(
        value["failures"],
        json!({
            "gone": [{"operation_id": 5, "operation_name": "ttnn.matmul", "kind": "bank_out_of_memory",
                      "summary": "Requested 64 MiB L1 across 64 banks (1 MiB per bank, bank size 1.33 MiB); free 949 KiB, largest free block 949 KiB",
                      "reason": "not_enough_free_space"}],
            "new": [{"operation_id": 11, "operation_name": "ttnn.matmul", "kind": "circular_buffers_clash",
                     "summary": "Circular buffers on [0-0 - 7-7] end at 118112, past an L1 buffer at 112640",
                     "reason": "overlaps_l1_buffer"}],
            "kept": []
        })
    );
    assert_eq!(
        value["aligned"],
        json!({"pairs": 5, "parted_at": {"before_operation_id": null, "after_operation_id": 2}})
    );
    assert_eq!(value["late"], json!({"before": 6, "after": 2}));
    assert_eq!(
        (&value["before"], &value["after"]["operations"]),
        (&json!({"path": "fixtures/real/stale_chain/db.sqlite", "operations": 5, "schema_version": "3.5"}), &json!(11))
    );
    // `next` is explain --json's entry of the new failure, key for key.
    let explained = explain_json("rerun/stale_chain__free_late");
    assert_eq!(value["next"], explained["operations"][0]);
    assert_eq!(value["next"]["operation_id"], 11);
}

/// A freed tensor lets the request fit: the failure is gone, nothing new; the inserted
/// `ttnn.deallocate` is where the runs part.
#[test]
fn a_failure_gone_with_a_deallocate_added() {
    let text = diff("real/a_l1_add_oom", "rerun/a_l1_add_oom__free_fill5", false);
    let (head, next) = split_next(&text);
    assert!(next.is_none(), "{text}");
    let lines: Vec<&str> = head.lines().collect();
    assert_eq!(lines[0], "Out of memory in ttnn.add (operation 11) is gone; no new failure.");
    assert_eq!(
        lines[5],
        "11 operations aligned (11 before, 12 after); the runs part at operation 11 ttnn.deallocate, which only the after run has."
    );
    // The run's tables name its one chip device 0, the re-run's (a later recording) device 1:
    // the text pairs their lines and names the chip device 0 on both sides, as the script
    // knows it (issue 30 §4.5); the JSON keeps each side's own device ids.
    assert_eq!(
        lines[7],
        "Peak L1 use on device 0: 1.25 MiB per bank before (operation 10 ttnn.empty), 1.25 MiB per bank after (operation 10 ttnn.empty): the same."
    );
    assert!(!head.contains("none after") && !head.contains("none before"), "{text}");
    let value = diff_json("real/a_l1_add_oom", "rerun/a_l1_add_oom__free_fill5");
    let l1_peaks: Vec<(&Value, &Value)> = value["peaks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["buffer_type"] == "L1")
        .map(|p| (&p["device_id"], &p["before_per_bank"]))
        .collect();
    assert_eq!(l1_peaks.iter().map(|(d, _)| d.as_u64().unwrap()).collect::<Vec<_>>(), [0, 1], "{value}");
    assert_eq!(value["failures"]["gone"][0]["operation_id"], 11);
    assert_eq!((value["failures"]["new"].as_array().unwrap().len(), &value["next"]), (0, &Value::Null));
    assert_eq!(
        value["aligned"],
        json!({"pairs": 11, "parted_at": {"before_operation_id": null, "after_operation_id": 11}})
    );
}

/// The re-run still fails on the same operation (now one id further on): kept.
#[test]
fn a_failure_kept() {
    let text = diff("real/l1_fragmented", "rerun/l1_fragmented__free_fill9", false);
    assert!(
        text.starts_with(
            "No failure is gone or new; still there: Out of memory in ttnn.add (operation 16, now 17).\n\
             Before: fixtures/real/l1_fragmented/db.sqlite, 16 operations. After: fixtures/rerun/l1_fragmented__free_fill9/db.sqlite, 17 operations.\n\
             Still there: Out of memory in ttnn.add (operation 16, now 17)\n\
             \x20 Requested 16 MiB L1 across 64 banks (256 KiB per bank, bank size 1.33 MiB); free 593 KiB, largest free block 209 KiB\n\
             \x20 Fragmented.\n"
        ),
        "{text}"
    );
    let value = diff_json("real/l1_fragmented", "rerun/l1_fragmented__free_fill9");
    let kept = &value["failures"]["kept"][0];
    assert_eq!((&kept["before"]["operation_id"], &kept["after"]["operation_id"]), (&json!(16), &json!(17)));
    assert_eq!(kept["before"]["kind"], "bank_out_of_memory");
    assert_eq!(kept["after"]["reason"], "fragmented");
}

/// The same pair the other way round: the failure is new; and two runs that both fit.
#[test]
fn only_new_and_neither() {
    let text = diff("rerun/a_l1_add_oom__free_fill5", "real/a_l1_add_oom", false);
    assert!(text.starts_with("No failure is gone; new: Out of memory in ttnn.add (operation 11).\n"), "{text}");
    assert!(text.contains("\nNext to fix, the first new failure:\nOperation 11 ttnn.add: Out of memory\n"), "{text}");
    let text = diff("rerun/small_model__free_late", "rerun/small_model__output_to_dram", false);
    assert!(text.starts_with("Neither run has a failure.\n"), "{text}");
    let value = diff_json("rerun/small_model__free_late", "rerun/small_model__output_to_dram");
    assert_eq!(value["failures"], json!({"gone": [], "new": [], "kept": []}));
    assert_eq!(value["next"], Value::Null);
}

/// Each side's peaks are exactly what `explain --peak --json` gives on that side alone, and the
/// late counts what `explain --late --json` lists there.
#[test]
fn peaks_and_late_tensors_are_each_sides_own() {
    for (before, after) in [
        ("real/stale_chain", "rerun/stale_chain__free_late"),
        ("real/a_l1_add_oom", "rerun/a_l1_add_oom__free_fill5"),
        ("real/l1_fragmented", "rerun/l1_fragmented__free_fill9"),
        ("real/small_model", "rerun/small_model__output_to_dram"),
        ("real/dram_oom", "rerun/dram_oom__free_big2"),
        ("releases/0.66.0/small_model", "rerun/small_model__free_late"),
    ] {
        let value = diff_json(before, after);
        for (side, report) in [("before", before), ("after", after)] {
            let own = explain_json(report);
            let own_peaks: BTreeSet<(u64, String, u64, u64)> = own["memory_report"]["peak"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| {
                    let id = |k: &str| p[k].as_u64().unwrap();
                    (
                        id("device_id"),
                        p["buffer_type"].as_str().unwrap().to_string(),
                        id("used_per_bank"),
                        id("operation_id"),
                    )
                })
                .collect();
            let ours: BTreeSet<(u64, String, u64, u64)> = value["peaks"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|p| !p[format!("{side}_per_bank")].is_null())
                .map(|p| {
                    let id = |k: String| p[k].as_u64().unwrap();
                    let kind = p["buffer_type"].as_str().unwrap().to_string();
                    (id("device_id".into()), kind, id(format!("{side}_per_bank")), id(format!("{side}_operation_id")))
                })
                .collect();
            assert!(!own_peaks.is_empty(), "{report}");
            assert_eq!(ours, own_peaks, "{before} → {after}, {side}");
            assert_eq!(value["late"][side], own["late"].as_array().unwrap().len(), "{before} → {after}, {side}");
        }
    }
}

/// The operations a re-run's script says are the original's (truth.json: `original_seq`, and the
/// `ttnn.deallocate` calls the fix inserted) are exactly the pairs of the alignment, on every
/// re-run.
#[test]
fn the_alignment_pairs_what_the_rerun_says() {
    let mut checked = 0;
    for entry in std::fs::read_dir(fixture("rerun")).unwrap() {
        let folder = entry.unwrap().path();
        let Ok(text) = std::fs::read_to_string(folder.join("truth.json")) else { continue };
        let rerun: Value = serde_json::from_str(&text).unwrap();
        let name = folder.file_name().unwrap().to_string_lossy().into_owned();
        let original = name.split("__").next().unwrap();
        let truth = real_support::truth(original);
        let id_of_seq = |seq: &Value| {
            truth["operations"]
                .as_array()
                .unwrap()
                .iter()
                .find(|o| &o["seq"] == seq)
                .and_then(|o| o["operation_id"].as_u64())
        };
        let expected: BTreeSet<(u64, u64)> = rerun["operations"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|o| Some((id_of_seq(&o["original_seq"])?, o["operation_id"].as_u64()?)))
            .collect();
        let open = |dir: &Path| {
            MemoryReport::open(&ReportSource::File { folder: dir.into(), database: dir.join("db.sqlite") }, 0).unwrap()
        };
        let (before, after) = (open(&real_support::folder(original)), open(&folder));
        let names = |r: &MemoryReport| r.operations.iter().map(|o| o.name.clone()).collect::<Vec<_>>();
        let alignment = Alignment::new(&names(&before), &names(&after));
        let paired: BTreeSet<(u64, u64)> =
            alignment.paired().map(|(i, j)| (before.operations[i].id, after.operations[j].id)).collect();
        assert_eq!(paired, expected, "{name}");
        checked += 1;
    }
    assert_eq!(checked, 28);
}

/// Any two releases: ttnn 0.66 (three leading `ttnn.from_torch` recorded as operations) against
/// 0.81 with the fix; ttnn 0.75, which records no message for the failed operation, against 0.81.
#[test]
fn across_releases() {
    let text = diff("releases/0.66.0/small_model", "rerun/small_model__free_late", false);
    assert!(text.starts_with("Out of memory in ttnn.matmul (operation 11) is gone; no new failure.\n"), "{text}");
    assert!(
        text.contains("\n8 operations aligned (11 before, 12 after); the runs part at operation 1 ttnn.from_torch, which only the before run has.\n"),
        "{text}"
    );
    let value = diff_json("releases/0.66.0/small_model", "rerun/small_model__free_late");
    assert_eq!(value["before"]["schema_version"], Value::Null);
    let text = diff("releases/0.75.0/a_l1_add_oom", "real/a_l1_add_oom", false);
    assert!(
        text.starts_with("No failure is gone or new; still there: Out of memory in ttnn.add (operation 11).\n"),
        "{text}"
    );
    assert!(text.contains("\n11 operations aligned (11 before, 11 after); the runs do not part.\n"), "{text}");
}

/// Exit 2 when one run cannot be read, with what, where and what to do; the reports are never
/// written.
#[test]
fn a_run_that_cannot_be_read() {
    let missing = path("rerun/no_such_run");
    for (args, side) in [(vec!["diff", missing.as_str(), ""], "BEFORE"), (vec!["diff", "", missing.as_str()], "AFTER")]
    {
        let good = path("real/a_l1_add_oom");
        let args: Vec<&str> = args.iter().map(|a| if a.is_empty() { good.as_str() } else { a }).collect();
        let before = folder_bytes(&fixture("real/a_l1_add_oom"));
        let o = run(&args, None);
        assert_eq!(folder_bytes(&fixture("real/a_l1_add_oom")), before);
        assert_eq!(o.status.code(), Some(2));
        assert_eq!(o.stdout, b"");
        assert_eq!(
            String::from_utf8(o.stderr).unwrap(),
            format!(
                "error: the {side} report cannot be read: no such file or folder: {missing}; diff compares two TT-NN report folders (or their db.sqlite files)\n"
            )
        );
    }
    // A text file is not a report either; options about one report are usage errors.
    let readme = path("rerun/README.md");
    let o = run(&["diff", &path("real/a_l1_add_oom"), &readme], None);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&o.stderr)
            .starts_with("error: the AFTER report cannot be read: this is not a TT-NN memory report")
    );
    // `diff` takes no --demo (its help does not list it, issue 30 §4.6); given before `diff`, it
    // is refused with diff's usage.
    let o = run(&["diff", "--demo", "a", "b"], None);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).starts_with("error: unexpected argument '--demo' found"));
    let o = run(&["--demo", "diff", "a", "b"], None);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&o.stderr),
        "error: the argument '--demo' cannot be used with 'diff'\n\nUsage: ttnn-tui diff [OPTIONS] <BEFORE> <AFTER>\n\nFor more information, try '--help'.\n"
    );
}
