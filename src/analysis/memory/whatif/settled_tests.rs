//! An advice replay stopped once settled (`WhatIfReplay::advice_settled`, docs/rules/memory.md
//! §9.2) says what the replay given every operation says: the outcome, the address and the
//! sentence; only the count of differences from the model grows after it.

use super::*;
use crate::analysis::graph::nodes::{GraphNode, NodeFields, NodeType};
use crate::analysis::memory::SnapshotRow;
use crate::analysis::messages::failure::BufferType;

const A: u64 = 1024;
const END: u64 = 2304;
const U: u64 = 128;
const D: u64 = 0;

fn regions() -> Regions {
    Regions { l1: Some((A, END)), l1_small: Some((END, END)), dram: Some((64, 64 + 100_000)) }
}

fn view() -> DeviceView {
    DeviceView { device_id: D, aliases: Vec::new(), facts: None, graph_id: None }
}

fn row(address: u64) -> SnapshotRow {
    SnapshotRow {
        device_id: D,
        address: Some(address as i64),
        size_per_bank: Some(U as i64),
        buffer_type: Some(BufferType::L1),
        layout: None,
    }
}

fn alloc(address: u64) -> Vec<GraphNode> {
    vec![GraphNode::from(NodeFields {
        id: 1,
        node_type: Some(NodeType::BufferAllocate),
        address: Some(address),
        max_size_per_bank: Some(U),
        buffer_type: Some(BufferType::L1),
        buffer_type_code: true,
        ..NodeFields::default()
    })]
}

/// Operation k (1 to 9) allocates a 128 B L1 buffer bottom-up from A — where tt-metal's top-down
/// policy would not put it: the run as recorded differs from the model from the first one on.
fn record(k: u64, live: &[SnapshotRow], failed: bool) -> (Vec<GraphNode>, Vec<SnapshotRow>) {
    let graph = if failed { Vec::new() } else { alloc(A + U * (k - 1)) };
    let mut rows = live.to_vec();
    if !failed {
        rows.push(row(A + U * (k - 1)));
    }
    (graph, rows)
}

fn give(run: &mut WhatIfReplay, k: u64, live: &mut Vec<SnapshotRow>, failed: bool) {
    let (graph, rows) = record(k, live, failed);
    run.operation(&OperationRecord { operation_id: k, graph: &graph, through: None, snapshot: Some(&rows), failed });
    *live = rows;
}

#[test]
fn a_replay_stopped_once_settled_says_what_the_whole_replay_says() {
    // 900 B reserved before the first operation: the fixed run cannot place operation 4's buffer.
    let plan = Plan { reserve: vec![(BufferType::L1, 900)], dram_banks: 12, l1_banks: 10, ..Plan::default() };
    let mut run = WhatIfReplay::new(view(), regions(), plan);
    run.start(Vec::new(), None);
    let mut live = Vec::new();
    let mut settled_at = None;
    for k in 1..=9 {
        give(&mut run, k, &mut live, false);
        if settled_at.is_none() && run.advice_settled() {
            settled_at = Some((k, run.clone(), live.clone()));
        }
    }
    let (k, mut stopped, mut stopped_live) = settled_at.expect("the fixed run fails before operation 10");
    assert!(k < 9, "settled at {k}");
    give(&mut run, 10, &mut live, true);
    give(&mut stopped, 10, &mut stopped_live, true);
    let request = Request::Allocation { place: (D, BufferType::L1), size_per_bank: U, size: Some((10 * U, U)) };
    let fixes = vec![Fix::Reserve { buffer_type: BufferType::L1, bytes: 900 }];
    let whole = run.answer(10, fixes.clone(), request, &[], None);
    let early = stopped.answer(10, fixes, request, &[], None);
    assert_eq!((early.outcome, early.address, &early.after), (whole.outcome, whole.address, &whole.after));
    assert_eq!(answer_sentence(&early, false), answer_sentence(&whole, false));
    assert!(
        answer_sentence(&whole, false).contains("A model, not a reproduction"),
        "{}",
        answer_sentence(&whole, false)
    );
    let count = |a: &Answer| match a.replay_check {
        ReplayCheck::Differs { count, .. } => count,
        ReplayCheck::Exact => 0,
    };
    assert!(count(&early) < count(&whole), "{} {}", count(&early), count(&whole));
}
