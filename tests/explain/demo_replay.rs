//! The demo's memory history is allocator-consistent (docs/rules/memory.md §9.1): replayed from its first
//! operation with no fix, every allocation the demo records lands where tt-metal's policy puts
//! it, so the advice `explain --demo` replays is a reproduction, not a model.
//!
//! Some failures carry messages no history can reproduce (a reference vector from another
//! device, a request refused although a free block holds it, a picture that misses what the
//! allocator held): for those, the only difference the replay may find is the failed request
//! itself — tt-metal refused it, the policy places it — or, for operation 16, the buffers that
//! lie outside the 8 KiB bank its message gives.

use crate::cli;
use crate::support;

use cli::run;
use serde_json::Value;
use std::path::Path;
use support::{TempDir, folder_bytes};
use ttnn_tui::analysis::memory::whatif::{Mismatch, ReplayCheck};
use ttnn_tui::analysis::messages::failure::BufferType;
use ttnn_tui::report::{MemoryReport, ReportSource, WhatIfOptions};

/// The demo's failures whose message the replay cannot reproduce, and why.
const NOT_REPRODUCIBLE: [(u64, &str); 5] = [
    (
        16,
        "a reference vector from an 8 KiB DRAM bank: the run's DRAM buffers lie outside it, and its largest free block holds the request",
    ),
    (18, "a free block already holds the request: tt-metal refused it for a reason the report does not show"),
    (21, "a reference vector (after dependencies): its largest free block holds the request"),
    (
        30,
        "a message without figures: the picture has room for the request, refused for a reason the report does not show",
    ),
    (32, "the picture misses 843 MiB the allocator held: in it, the request fits"),
];

/// Every allocation failure of the demo with its replay check (no fix, from the first operation).
fn replay_checks() -> Vec<(u64, ReplayCheck)> {
    let report = MemoryReport::open(&ReportSource::Demo, 0).expect("the demo opens");
    let options = WhatIfOptions { late: None, from_start: true };
    let mut out = Vec::new();
    for (index, op) in report.operations.iter().enumerate() {
        if report.error_of(index).and_then(|e| e.failure.as_ref()).is_none() {
            continue;
        }
        if report.replays().failure_memory(index).expect("the memory at the failure").is_none() {
            continue;
        }
        let w = report.replays().what_if(index, &[], &options).expect("the replay answers");
        out.push((op.id, w.answer.replay_check));
    }
    out
}

#[test]
fn every_recorded_allocation_lands_where_the_policy_puts_it() {
    let checks = replay_checks();
    let ids: Vec<u64> = checks.iter().map(|(id, _)| *id).collect();
    assert_eq!(ids, [7, 8, 10, 13, 16, 18, 21, 24, 28, 30, 32], "the demo's allocation failures");
    for (id, check) in checks {
        let why = NOT_REPRODUCIBLE.iter().find(|(n, _)| *n == id).map(|(_, why)| *why);
        match (why, check) {
            (None, check) => assert_eq!(check, ReplayCheck::Exact, "operation {id}"),
            (Some(_), ReplayCheck::Differs { first, count }) if id == 16 => {
                // A DRAM buffer live before the first operation that does not fit in the
                // message's 8 KiB bank.
                let Mismatch { operation_id, buffer_type, model, .. } = first;
                assert_eq!(
                    (operation_id, buffer_type, model),
                    (Some(1), BufferType::Dram, None),
                    "{first:?} ({count})"
                );
            }
            (Some(why), ReplayCheck::Differs { first, count }) => {
                let Mismatch { operation_id, recorded, model, .. } = first;
                assert_eq!(
                    (operation_id, recorded, count),
                    (Some(id), None, 1),
                    "operation {id} ({why}): only the refused request may differ, not {first:?} ({count} differ)"
                );
                assert!(model.is_some(), "operation {id}: the policy places the request ({why})");
            }
            (Some(why), ReplayCheck::Exact) => panic!("operation {id} replays exactly: drop it from the list ({why})"),
        }
    }
}

/// `explain --demo` marks an answer as a model only for those failures, and says why.
#[test]
fn explain_demo_calls_an_answer_a_model_only_where_the_message_cannot_be_reproduced() {
    let o = run(&["explain", "--demo", "--color", "never"], None);
    let text = String::from_utf8(o.stdout).unwrap();
    let mut operation = None;
    let mut marked = Vec::new();
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("Operation ") {
            operation = rest.split(' ').next().and_then(|id| id.parse::<u64>().ok());
        } else if line.starts_with("Unattached error") {
            operation = None;
        }
        if let Some((_, why)) = line.split_once("(A model, not a reproduction: ") {
            let id = operation.expect("a marked line belongs to an operation");
            let reason =
                if id == 16 { "before the first operation does not fit.)" } else { "the failed request fits at" };
            assert!(why.contains(reason), "operation {id}: {line}");
            marked.push(id);
        }
    }
    marked.dedup();
    let listed: Vec<u64> = NOT_REPRODUCIBLE.iter().map(|(id, _)| *id).collect();
    assert!(marked.iter().all(|id| listed.contains(id)), "marked as a model: {marked:?}\n{text}");
}

/// The conv2d that never completed (operation 40), as the run's log would give it: an L1
/// request the snapshot after operation 39 cannot hold, with that snapshot's figures.
const OPERATION_40_LOG: &str = "\
2026-03-18 14:05:01.000 | DEBUG    | ttnn.decorators:call_wrapper:895 - Started ttnn.conv2d
E       RuntimeError: TT_FATAL @ /home/user/tt-metal/tt_metal/impl/allocator/bank_manager.cpp:486: false
E       info:
E       Out of Memory: Not enough space to allocate 65536000 B L1 buffer across 64 banks, where each bank needs to store 1024000 B, but bank size is 1364928 B (allocated: 546560 B, free: 818368 B, largest free block: 818368 B)
";

/// The operations after the last recorded failure replay exactly too: operation 40's message,
/// from a log beside the demo's folder, is replayed from the snapshot after operation 33 (a
/// fix freeing a DRAM buffer there, which the L1 request does not see, moves the start there)
/// through operation 39, from the first operation
/// (through operation 32, which wrote no `buffers` rows: no snapshot, not an empty one), and
/// from a fix after operation 32 (no checkpoint: the replay starts after operation 31).
#[test]
fn the_operations_after_the_last_failure_replay_exactly() {
    for (extra, replayed_after) in [(&[][..], Value::from(33)), (&["--from-start"][..], Value::Null)] {
        operation_40_replays_exactly("1024@33", extra, replayed_after);
    }
    operation_40_replays_exactly("1024@32", &[], Value::from(31));
}

fn operation_40_replays_exactly(free: &str, extra: &[&str], replayed_after: Value) {
    let demo = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/demo");
    let tmp = TempDir::new("demo-log");
    let log = tmp.path().join("run.log");
    std::fs::write(&log, OPERATION_40_LOG).unwrap();
    let before = folder_bytes(&demo);
    let (demo_s, log_s) = (demo.to_str().unwrap(), log.to_str().unwrap());
    let mut args = vec!["whatif", demo_s, "--log", log_s, "--operation", "40", "--free-buffer", free, "--json"];
    args.extend_from_slice(extra);
    let o = run(&args, None);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(folder_bytes(&demo), before, "the demo's folder changed");
    let answer: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(answer["replayed_after"], replayed_after, "{answer}");
    assert_eq!(answer["replay_check"], "exact", "{answer}");
    assert_eq!(
        (&answer["outcome"], &answer["largest_free_block"]),
        (&Value::from("does_not_fit"), &Value::from(818368))
    );
}
