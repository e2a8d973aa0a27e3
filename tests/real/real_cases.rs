//! The real ttnn 0.81.1 reports of issue 21 (`fixtures/real/`, README "truth.json additions"):
//! meshes named with their shape and chips (docs/rules/memory.md §2, §8), an input whose `tensors.address`
//! is NULL, a buffer freed by an operation that wrote no `buffers` rows, the model's line from a
//! report with stack traces, and `tensor_lifetime` against the late list — each against what the
//! recording script saw (`truth.json`).

use crate::cli;
use crate::real_explain::explain;
use crate::real_support;

use cli::run;
use real_support::*;
use serde_json::Value;
use std::path::Path;

/// The entry of the failed operation (the report's only one with an error).
fn entry(scenario: &str) -> Value {
    let doc: Value = serde_json::from_str(&explain(scenario, &["--json"])).unwrap();
    let ops = doc["operations"].as_array().unwrap();
    assert_eq!(ops.len(), 1, "{scenario}");
    let expected = int(&failure(&truth(scenario))["expected_operation_id"]);
    assert_eq!(int(&ops[0]["operation_id"]), expected, "{scenario}");
    ops[0].clone()
}

/// The addresses of the live buffers, ascending.
fn addresses(memory: &Value) -> Vec<u64> {
    let mut v: Vec<u64> =
        memory["live_buffers"].as_array().unwrap().iter().map(|b| int(&b["address"]).unwrap()).collect();
    v.sort_unstable();
    v
}

fn truth_addresses(truth: &Value) -> Vec<u64> {
    let mut v: Vec<u64> = truth["memory_at_failure"]["live_buffers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| int(&b["address"]).unwrap())
        .collect();
    v.sort_unstable();
    v
}

/// docs/rules/memory.md §2: the mesh named by its shape and chips, the failure holding on each chip, the
/// other mesh devices with live buffers said in a note (by the report's ids).
fn check_mesh(scenario: &str) {
    let truth = truth(scenario);
    let mesh = &truth["mesh"];
    let m = entry(scenario)["memory"].clone();
    let shape: Vec<u64> = mesh["shape"].as_array().unwrap().iter().map(|d| int(d).unwrap()).collect();
    let chips = int(&mesh["num_chips"]).unwrap();
    assert_eq!(m["mesh"], serde_json::json!({"shape": shape, "chips": chips}));
    let device = int(&mesh["report_device_id"]).unwrap();
    assert_eq!(int(&m["device_id"]), Some(device));
    assert_eq!(addresses(&m), truth_addresses(&truth));
    assert_eq!(m["check"]["status"], truth["memory_at_failure"]["expected_check_status"]);
    let text = explain(scenario, &[]);
    let shape_text = format!("{}×{}", shape[0], shape[1]);
    let place = match chips {
        1 => format!(" on mesh device {device} ({shape_text}, 1 chip) hold "),
        n => format!(" on mesh device {device} ({shape_text}, {n} chips; the same on each) hold "),
    };
    assert!(text.contains(&place), "{place:?} in\n{text}");
    // The other mesh devices, by the ids the report's tables give them.
    let others: Vec<String> = mesh["others_with_live_buffers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|ttnn_id| {
            let d = mesh["mesh_devices"].as_array().unwrap().iter().find(|d| &d["mesh_device_id"] == ttnn_id).unwrap();
            int(&d["report_device_id"]).unwrap().to_string()
        })
        .collect();
    let note = match others.as_slice() {
        [] => None,
        [one] => Some(format!(
            "  Note: mesh device {one} also has live buffers at the failure; they may share these chips, and this mesh's allocator does not see them\n"
        )),
        many => Some(format!(
            "  Note: mesh devices {} also have live buffers at the failure; they may share these chips, and this mesh's allocator does not see them\n",
            many.join(", ")
        )),
    };
    assert_eq!(note.as_ref().is_some_and(|n| text.contains(n.as_str())), note.is_some(), "{note:?} in\n{text}");
    assert_eq!(
        text.contains("also has live buffers") || text.contains("also have live buffers"),
        note.is_some(),
        "{text}"
    );
}

#[test]
fn mesh_n300_is_a_1x2_mesh() {
    check_mesh("mesh_n300");
}

#[test]
fn mesh_t3k_is_a_2x4_mesh() {
    check_mesh("mesh_t3k");
}

#[test]
fn mesh_submeshes_fails_on_one_with_its_sibling_holding_buffers() {
    check_mesh("mesh_submeshes");
}

#[test]
fn mesh_submesh_1x1_fails_beside_its_parent() {
    check_mesh("mesh_submesh_1x1");
}

/// The failed operation's input has `tensors.address` NULL, its address only in `device_tensors`
/// under the chip id while everything else carries the mesh id: its tensor, producer and input
/// flag are named, as the script knew them.
#[test]
fn an_input_with_a_null_address_is_named() {
    let truth = truth("null_address_input");
    let m = entry("null_address_input")["memory"].clone();
    assert_eq!(addresses(&m), truth_addresses(&truth));
    for b in m["live_buffers"].as_array().unwrap() {
        let seen = live_buffer_at(&truth, int(&b["address"]).unwrap()).unwrap();
        for key in ["tensor_id", "producer_operation_id", "input_of_failed_operation", "stale"] {
            assert_eq!(b[key], seen[key], "{key} at {}", b["address"]);
        }
    }
    let input = m["live_buffers"].as_array().unwrap().iter().find(|b| b["address"] == 1400832).unwrap();
    assert_eq!((input["tensor_id"].as_u64(), input["input_of_failed_operation"].as_bool()), (Some(11), Some(true)));
    let text = explain("null_address_input", &[]);
    assert!(!text.contains("no tensor recorded"), "{text}");
}

/// `ttnn.empty`, `ttnn.deallocate` of it (no `buffers` rows after it: nothing is live), then an
/// allocation that fails: the deallocate's graph frees the buffer, so the picture is empty and
/// matches the allocator (`allocated: 0 B`), not over-counted.
#[test]
fn a_buffer_freed_by_an_operation_without_rows_is_gone() {
    let truth = truth("empty_dealloc_oom");
    let entry = entry("empty_dealloc_oom");
    let m = &entry["memory"];
    assert_eq!(m["check"]["status"], truth["memory_at_failure"]["expected_check_status"]);
    assert_eq!(m["check"]["status"], "exact");
    assert_eq!(addresses(m), truth_addresses(&truth));
    assert_eq!(entry["allocation_failure"]["reason"], failure(&truth)["expected_reason"]);
    let text = explain("empty_dealloc_oom", &[]);
    assert!(text.contains("\n  At the failure (snapshot after operation 1 + this operation's graph): 0 live L1 buffers on device 0 hold 0 B per bank of the 105824–1499136 region (1.33 MiB)\n  The picture matches the allocator's figures (allocated 0 B, largest free block 1.33 MiB).\n"), "{text}");
    assert!(text.contains("\n  Note: 1 buffer of the snapshot after operation 1 freed by the graphs of the operations after it, which wrote no buffers rows (nothing left live), left out\n"), "{text}");
}

/// With Python stack traces on, the list and the advice name the model's lines, and the
/// importer's `tensor_lifetime` agrees with the late list.
#[test]
fn tensor_lifetime_agrees_with_the_late_list() {
    let text = explain("small_model_lifetime", &["--late"]);
    assert!(
        text.starts_with(
            "1 operation with an error\nOperation 7 ttnn.matmul (record_fixtures.py:316): Out of memory\n"
        ),
        "{text}"
    );
    assert!(!text.contains("records no stack traces"), "{text}");
    assert!(text.contains("\n  ttnn.deallocate(…) after record_fixtures.py:310 — tensor 17 "), "{text}");
    assert!(
        text.ends_with(
            "\nThe report's tensor_lifetime table agrees on the 5 tensors: producer, last use, deallocation and line.\n"
        ),
        "{text}"
    );
}

/// The README's recording recipe, re-recorded with stack traces on (`fixtures/snippet/`): the
/// failure names the model's line, and nothing says the report has no stack traces.
#[test]
fn the_recipe_s_report_names_the_model_s_line() {
    let o = run(&["explain", "fixtures/snippet"], Some(std::path::Path::new(env!("CARGO_MANIFEST_DIR"))));
    let text = String::from_utf8(o.stdout).unwrap();
    assert!(
        text.starts_with("1 operation with an error\nOperation 11 ttnn.add (record_report.py:78): Out of memory\n"),
        "{text}"
    );
    assert!(!text.contains("records no stack traces"), "{text}");
}

/// The failures of `fixtures/rerun/` (real re-runs that failed again), each holder against what
/// the recording script saw (`truth.json`): tensor, producer, last use, input flag, stale flag.
fn rerun_holders_are_the_script_s(rerun: &str) -> Value {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures").join("rerun").join(rerun);
    let truth: Value = serde_json::from_str(&std::fs::read_to_string(dir.join("truth.json")).unwrap()).unwrap();
    let o = run(&["explain", "db.sqlite", "--json"], Some(&dir));
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let doc: Value = serde_json::from_slice(&o.stdout).unwrap();
    let id = int(&truth["failure"]["operation_id"]);
    let op = doc["operations"].as_array().unwrap().iter().find(|o| int(&o["operation_id"]) == id).unwrap().clone();
    let m = &op["memory"];
    for seen in truth["memory_at_failure"]["live_buffers"].as_array().unwrap() {
        let b = m["live_buffers"].as_array().unwrap().iter().find(|b| b["address"] == seen["address"]);
        let b = b.unwrap_or_else(|| panic!("{rerun}: no live buffer at {}", seen["address"]));
        for key in ["tensor_id", "producer_operation_id", "last_use_operation_id", "input_of_failed_operation", "stale"]
        {
            assert_eq!(b[key], seen[key], "{rerun}: {key} at {}", seen["address"]);
        }
    }
    op
}

/// Issue 27 §2: after `--free-late` freed the stale chain, the failed matmul's input `s` has
/// `tensors.address` NULL and its place only in `device_tensors`, under the chip id (0) while the
/// buffers carry the mesh id (1): it is still tensor 29, produced by the softmax, an input.
#[test]
fn an_input_placed_only_in_device_tensors_after_a_freed_chain_is_named() {
    let op = rerun_holders_are_the_script_s("stale_chain__free_late");
    let s = op["memory"]["live_buffers"].as_array().unwrap().iter().find(|b| b["address"] == 1161216).unwrap();
    assert_eq!((s["tensor_id"].as_u64(), s["producer_operation_name"].as_str()), (Some(29), Some("ttnn.softmax")));
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/rerun/stale_chain__free_late");
    let text = String::from_utf8(run(&["explain", "db.sqlite"], Some(&dir)).stdout).unwrap();
    let holders = "  Largest holders: tensor 31 1 MiB (ttnn.matmul, op 11; this operation, tt::tt_metal::create_device_tensor) · tensor 3 320 KiB (not produced by a recorded operation; input) · tensor 29 10 KiB (ttnn.softmax, op 9; input)";
    assert!(text.lines().any(|l| l == holders), "{holders:?} in\n{text}");
}

/// Every re-run that failed again names its holders as the script knew them.
#[test]
fn every_rerun_that_failed_names_its_holders() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures").join("rerun");
    let mut failed = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let Ok(text) = std::fs::read_to_string(path.join("truth.json")) else { continue };
        let truth: Value = serde_json::from_str(&text).unwrap();
        if truth["memory_at_failure"]["live_buffers"].is_array() {
            rerun_holders_are_the_script_s(path.file_name().unwrap().to_str().unwrap());
            failed += 1;
        }
    }
    assert!(failed >= 5, "{failed} re-runs failed again");
}
