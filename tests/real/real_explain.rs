//! `ttnn-tui explain` on the real TT-NN 0.81.1 reports of `fixtures/real/`: for every fixture,
//! the failure (kind, figures, reason, failing operation, message) and the memory at the failure
//! (live buffers with their addresses and sizes, tensors, producers, last uses, inputs, stale
//! flags, free blocks, check, circular buffers) against what the recording script saw
//! (`truth.json`), plus insta snapshots of the text and the JSON. Every run leaves the report
//! folder byte-identical.
//!
//! Tests marked `needs memrules` wait for the memory rules for real reports (mesh ids, the DRAM
//! region's base) that another branch adds.

use crate::cli;
use crate::real_support;
use crate::support;

use cli::run;
use real_support::*;
use serde_json::Value;
use support::folder_bytes;

/// Runs `explain SCENARIO ARGS…` from `fixtures/real/`, checks it succeeded and left the report
/// folder as it was, and returns what it printed.
pub(crate) fn explain(scenario: &str, args: &[&str]) -> String {
    let dir = folder(scenario);
    let before = folder_bytes(&dir);
    let mut all = vec!["explain", scenario];
    all.extend_from_slice(args);
    let o = run(&all, Some(&fixtures()));
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(folder_bytes(&dir), before, "the report folder changed: {}", dir.display());
    String::from_utf8(o.stdout).expect("utf-8")
}

/// The JSON document, and the entry of the operation that failed.
fn explain_json(scenario: &str) -> (Value, Value) {
    let doc: Value = serde_json::from_str(&explain(scenario, &["--json"])).expect("valid JSON");
    let (id, _) = failed_operation(&truth(scenario));
    let ops = doc["operations"].as_array().expect("operations");
    assert_eq!(ops.len(), 1, "one operation with an error in {scenario}");
    assert_eq!(doc["unattached_errors"], Value::Array(vec![]), "{scenario}");
    let entry = ops.iter().find(|o| int(&o["operation_id"]) == Some(id)).expect("the failed operation").clone();
    (doc, entry)
}

/// The failure as the script caught it: operation, message, kind, every figure, reason.
fn check_failure(scenario: &str) {
    let truth = truth(scenario);
    let f = failure(&truth);
    let (id, name) = failed_operation(&truth);
    let (_, entry) = explain_json(scenario);
    assert_eq!(entry["operation_name"], name.as_str());
    assert_eq!(entry["message"], f["message"], "the message as stored");
    let af = &entry["allocation_failure"];
    assert_eq!(af["kind"], f["kind"]);
    // Every figure the script parsed; the figures of kind 5 (docs/rules/reference.md §13.3), which none of
    // these messages is, are null.
    let figures = af["figures"].as_object().expect("figures");
    for (key, value) in f["figures"].as_object().expect("the script's figures") {
        assert_eq!(&figures[key], value, "figure {key}");
    }
    for key in ["circular_buffer_size_bytes", "l1_buffer_size_bytes"] {
        assert_eq!(figures[key], serde_json::Value::Null, "{key}");
    }
    assert_eq!(figures.len(), f["figures"].as_object().unwrap().len() + 2, "no other figure");
    assert_eq!(af["reason"], f["expected_reason"]);
    assert_eq!(af["beyond_reference"], f["cb_wording"] == "dataflow", "dataflow wording is beyond the reference");
    let text = explain(scenario, &[]);
    let header = format!("Operation {id} {name}: {}", af["kind_label"].as_str().unwrap());
    assert!(text.lines().any(|l| l == header), "{header:?} in\n{text}");
    let summary = format!("  {}", af["summary"].as_str().unwrap());
    assert!(text.lines().any(|l| l.starts_with(&summary)), "{summary:?} in\n{text}");
}

/// `(address, size_per_bank)` of the memory's live buffers, ascending by address.
fn live(memory: &Value) -> Vec<(u64, u64)> {
    let mut v: Vec<(u64, u64)> = memory["live_buffers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| (int(&b["address"]).unwrap(), int(&b["size_per_bank"]).unwrap()))
        .collect();
    v.sort_unstable();
    v
}

/// The memory at the failure against the allocator's block table and the script's bookkeeping.
fn check_memory(scenario: &str) {
    let truth = truth(scenario);
    let f = failure(&truth);
    let (_, entry) = explain_json(scenario);
    let m = &entry["memory"];
    assert_eq!(m["buffer_type"], f["buffer_type"]);
    let (start, end) = allocator_region(&truth);
    let region = (int(&m["region"]["start"]).unwrap(), int(&m["region"]["end"]).unwrap());
    if end == start {
        // A 0 B region (L1_SMALL of a device opened without l1_small_size): tt-metal names the
        // L1 base as its base; docs/rules/memory.md §2 puts it at the top of L1. Both are empty.
        assert_eq!(region.0, region.1, "an empty region");
    } else {
        assert_eq!(region, (start, end), "the region");
    }
    let (allocated, free) = allocator_blocks(&truth);
    // What the failing operation had allocated when tt-metal threw is live at the failure, and
    // unwound by the time the script read the allocator (a circular-buffer clash with its own
    // output, docs/rules/memory.md §3).
    let own: Vec<u64> = truth["memory_at_failure"]["this_operation"]["known_addresses"]
        .as_array()
        .map(|a| a.iter().filter_map(int).collect())
        .unwrap_or_default();
    let earlier: Vec<(u64, u64)> = live(m).into_iter().filter(|(a, _)| !own.contains(a)).collect();
    assert_eq!(earlier, allocated, "the live buffers are the allocator's allocated blocks");
    let mine: Vec<u64> = m["live_buffers"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|b| b["origin"] == "this_operation")
        .map(|b| int(&b["address"]).unwrap())
        .collect();
    assert_eq!(mine, own, "the failing operation's own buffers");
    let free_blocks: Vec<(u64, u64)> = m["free_blocks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| (int(&b["address"]).unwrap(), int(&b["size"]).unwrap()))
        .collect();
    let view = &truth["memory_at_failure"]["allocator"];
    if own.is_empty() {
        assert_eq!(free_blocks, free, "the free blocks are the allocator's");
        assert_eq!(int(&m["used_per_bank"]), int(&view["allocated_per_bank"]));
        assert_eq!(int(&m["largest_free_block"]), int(&view["largest_free_block"]));
    } else {
        // The allocator's free blocks once the failing operation's own buffers are counted too.
        let own_sized: Vec<(u64, u64)> = live(m).into_iter().filter(|(a, _)| own.contains(a)).collect();
        let own_bytes: u64 = own_sized.iter().map(|(_, s)| s).sum();
        assert_eq!(int(&m["used_per_bank"]), int(&view["allocated_per_bank"]).map(|a| a + own_bytes));
        let total = |blocks: &[(u64, u64)]| blocks.iter().map(|(_, s)| s).sum::<u64>();
        assert_eq!(total(&free_blocks) + own_bytes, total(&free), "free space and own buffers add up");
        for (a, s) in own_sized {
            assert!(free.iter().any(|(fa, fs)| *fa <= a && a + s <= fa + fs), "own buffer {a} lies in a freed block");
        }
    }
    for b in m["live_buffers"].as_array().unwrap().iter().filter(|b| b["origin"] != "this_operation") {
        let address = int(&b["address"]).unwrap();
        let seen = live_buffer_at(&truth, address).unwrap_or_else(|| panic!("the script holds {address}"));
        for key in [
            "tensor_id",
            "layout",
            "producer_operation_id",
            "last_use_operation_id",
            "input_of_failed_operation",
            "stale",
        ] {
            assert_eq!(b[key], seen[key], "{key} of the buffer at {address} ({})", seen["label"]);
        }
        assert_eq!(b["origin"], "earlier", "nothing of the failing operation is left at {address}");
    }
    let mut inputs: Vec<u64> = m["live_buffers"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|b| b["input_of_failed_operation"] == true)
        .map(|b| int(&b["address"]).unwrap())
        .collect();
    inputs.sort_unstable();
    assert_eq!(inputs, input_addresses(&truth), "the failed operation's inputs");
    let status = if f["kind"].as_str().unwrap().starts_with("bank_out_of_memory") {
        truth["memory_at_failure"]["expected_check_status"].clone()
    } else {
        Value::from("unchecked")
    };
    assert_eq!(m["check"]["status"], status);
    let cb = &truth["memory_at_failure"]["circular_buffers"];
    if !cb.is_null() {
        for key in ["region_end", "lowest_l1_address", "clashing"] {
            assert_eq!(m["circular_buffers"][key], cb[key], "circular_buffers.{key}");
        }
    }
    check_fit(&truth, m);
    let text = explain(scenario, &[]);
    let label = match f["buffer_type"].as_str().unwrap() {
        "L1_SMALL" => "L1 Small",
        other => other,
    };
    let live_count = allocated.len() + own.len();
    let buffers = if live_count == 1 { "buffer" } else { "buffers" };
    let line = format!(": {live_count} live {label} {buffers} on device ");
    assert!(text.contains(&line), "{line:?} in\n{text}");
}

/// The advice holds in the allocator's own map: the buffers it frees are allocated blocks that
/// are not inputs of the failed operation, and once they are free the allocator's free blocks and
/// theirs merge into the advised block, which holds the request.
fn check_fit(truth: &Value, m: &Value) {
    let fit = &m["fit"];
    if fit.is_null() {
        return;
    }
    let need = int(&failure(truth)["figures"]["bytes_per_bank"]).expect("a per-bank figure");
    assert_eq!(int(&fit["needed_per_bank"]), Some(need));
    let (allocated, free) = allocator_blocks(truth);
    let freed: Vec<u64> = fit["free"].as_array().unwrap().iter().map(|a| int(a).unwrap()).collect();
    let inputs = input_addresses(truth);
    let mut freed_blocks: Blocks = Vec::new();
    for address in &freed {
        let block = allocated.iter().find(|(a, _)| a == address).unwrap_or_else(|| panic!("{address} is allocated"));
        assert!(!inputs.contains(address), "{address} is an input of the failed operation");
        freed_blocks.push(*block);
    }
    assert_eq!(int(&fit["freed_per_bank"]), Some(freed_blocks.iter().map(|(_, s)| s).sum()));
    let mut gaps: Blocks = free.iter().chain(&freed_blocks).copied().collect();
    gaps.sort_unstable();
    let merged = gaps.into_iter().fold(Blocks::new(), |mut acc, (a, s)| {
        match acc.last_mut() {
            Some((la, ls)) if *la + *ls == a => *ls += s,
            _ => acc.push((a, s)),
        }
        acc
    });
    let block = (int(&fit["block"]["address"]).unwrap(), int(&fit["block"]["size"]).unwrap());
    assert!(merged.contains(&block), "the advised block {block:?} among {merged:?}");
    assert!(block.1 >= need, "the advised block {block:?} holds {need}");
}

/// The text and the JSON as insta snapshots; the message, checked against the truth above, is
/// left out of the JSON snapshot (it is a 60-line backtrace).
fn snapshots(scenario: &str) {
    insta::assert_snapshot!(format!("real_{scenario}_text"), explain(scenario, &[]));
    let (mut doc, _) = explain_json(scenario);
    for op in doc["operations"].as_array_mut().unwrap() {
        op["message"] = Value::from("(checked against truth.json)");
    }
    insta::assert_snapshot!(format!("real_{scenario}_json"), serde_json::to_string_pretty(&doc).unwrap());
}

macro_rules! real_fixture {
    ($($scenario:ident),*) => {$(
        mod $scenario {
            #[test]
            fn failure_is_what_the_script_caught() {
                super::check_failure(stringify!($scenario));
            }
            #[test]
            fn memory_at_the_failure_is_what_the_allocator_held() {
                super::check_memory(stringify!($scenario));
            }
            #[test]
            fn text_and_json_snapshots() {
                super::snapshots(stringify!($scenario));
            }
        }
    )*};
}

crate::each_real_scenario!(real_fixture);

/// Every folder under `fixtures/real/` is a scenario tested here or a case of `real_cases.rs`,
/// holds a report and its truth, and stays under 1 MB; the truth was written by the rig for it.
#[test]
fn every_fixture_is_tested_small_and_complete() {
    let mut found: Vec<String> = std::fs::read_dir(fixtures())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    found.sort();
    let mut expected: Vec<&str> = SCENARIOS.iter().chain(&CASES).copied().collect();
    expected.sort_unstable();
    assert_eq!(found, expected);
    for scenario in expected {
        let dir = folder(scenario);
        let size: u64 = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().metadata().unwrap().len()).sum();
        assert!(size < 1_000_000, "{scenario}: {size} bytes");
        for file in ["db.sqlite", "config.json", "truth.json"] {
            assert!(dir.join(file).is_file(), "{scenario}/{file}");
        }
        let truth = truth(scenario);
        assert_eq!((truth["schema"].as_str(), truth["scenario"].as_str()), (Some("realttnn-truth/1"), Some(scenario)));
        assert_eq!(truth["unexpected_error"], Value::Null, "{scenario}");
    }
}
