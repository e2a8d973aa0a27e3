//! `explain --late` on the real TT-NN 0.81.1 report `fixtures/real/small_model`: the tensors the
//! recording script kept past their last use (its `truth.json`) are exactly those the report
//! shows held past their last use — the four stale ones held until the failed operation, and
//! the weight `ttnn.deallocate` freed three operations after its last use held until just before.

use crate::cli;
use crate::real_support;
use crate::support;

use cli::run;
use real_support::*;
use serde_json::Value;
use support::folder_bytes;

/// (tensor, address, last use, held until) of every tensor the script saw kept past its last use.
fn truth_late(truth: &Value) -> Vec<(u64, u64, u64, u64)> {
    let (failed, _) = failed_operation(truth);
    let mut out: Vec<(u64, u64, u64, u64)> = truth["tensors"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| {
            let last = int(&t["last_use_operation_id"])?;
            let held_until = match int(&t["deallocate_operation_id"]) {
                Some(freed) => freed - 1,
                None if t["live_at_failure"] == Value::Bool(true) => failed,
                None => return None,
            };
            (held_until > last).then(|| (int(&t["tensor_id"]).unwrap(), int(&t["address"]).unwrap(), last, held_until))
        })
        .collect();
    out.sort_unstable();
    out
}

#[test]
fn small_model_lists_what_the_script_kept_past_its_last_use() {
    let truth = truth("small_model");
    let dir = folder("small_model");
    let before = folder_bytes(&dir);
    let o = run(&["explain", "--late", "--json", "small_model"], Some(&fixtures()));
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(folder_bytes(&dir), before, "the report folder changed");
    let doc: Value = serde_json::from_slice(&o.stdout).unwrap();
    let mut found: Vec<(u64, u64, u64, u64)> = doc["late"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            let u = |k: &str| e[k].as_u64().unwrap();
            (u("tensor_id"), u("address"), u("last_use_operation_id"), u("held_until_operation_id"))
        })
        .collect();
    found.sort_unstable();
    let expected = truth_late(&truth);
    assert_eq!(expected.len(), 5, "four stale at the failure and one freed late: {expected:?}");
    assert_eq!(found, expected);
    // The stale ones at the failure are the truth's stale tensors.
    let stale: Vec<u64> = truth["tensors"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["stale"] == Value::Bool(true))
        .map(|t| int(&t["tensor_id"]).unwrap())
        .collect();
    let (failed, _) = failed_operation(&truth);
    let mut held_to_failure: Vec<u64> = found.iter().filter(|f| f.3 == failed).map(|f| f.0).collect();
    held_to_failure.sort_unstable();
    let mut stale = stale;
    stale.sort_unstable();
    assert_eq!(held_to_failure, stale);
    // One chip by two ids (`devices` rows 0 and 1, every buffers row 1): the JSON keeps the
    // tables' id, the text names the chip as the script opened it, device 0 (issue 30 §4.5).
    let ids: Vec<&Value> = doc["late_summary"].as_array().unwrap().iter().map(|s| &s["device_id"]).collect();
    assert!(!ids.is_empty() && ids.iter().all(|&d| *d == 1), "{ids:?}");
    // No Python stack traces in these reports: no source line, said as the operation.
    assert!(doc["late"].as_array().unwrap().iter().all(|e| e["source"].is_null()));
}

#[test]
fn small_model_text_heads_the_l1_list_with_what_freeing_all_would_do() {
    let o = run(&["explain", "--late", "small_model"], Some(&fixtures()));
    let text = String::from_utf8(o.stdout).unwrap();
    let tail: Vec<&str> = text.lines().skip_while(|l| !l.starts_with("Held past")).collect();
    assert_eq!(
        tail[..2],
        [
            "Held past their last use, L1 on device 0: freeing all 5 at their last use lowers the peak from 160 KiB to 128 KiB",
            "  ttnn.deallocate(…) after operation 1 — tensor 3 (32 KiB per bank, [1, 1, 1024, 1024]) is last used by operation 1 ttnn.matmul and held until operation 8; freeing it there lowers the L1 peak by 32 KiB.",
        ]
    );
    assert_eq!(tail.len(), 7, "{text}");
    // Replayed: where the real re-run with all five freed at their last use placed the request
    // (fixtures/rerun/small_model__free_late).
    assert_eq!(
        tail[6],
        "At operation 8 ttnn.matmul: freeing all 5 at their last use: the 1.25 MiB-per-bank request fits at 155648."
    );
    // The allocator's own block table says so: free the stale tensors' blocks and merge.
    let truth = truth("small_model");
    let stale: Vec<u64> = truth["memory_at_failure"]["live_buffers"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|b| b["stale"] == Value::Bool(true))
        .map(|b| int(&b["address"]).unwrap())
        .collect();
    let mut largest = 0;
    let mut run = 0;
    for b in truth["memory_at_failure"]["allocator"]["blocks"].as_array().unwrap() {
        let free = b["allocated"] == Value::Bool(false) || stale.contains(&int(&b["address"]).unwrap());
        run = if free { run + int(&b["size"]).unwrap() } else { 0 };
        largest = largest.max(run);
    }
    assert_eq!(stale.len(), 4);
    assert!(largest >= int(&failure(&truth)["figures"]["bytes_per_bank"]).unwrap(), "{largest}");
}
