//! A long operation taken on two threads (`WhatIfReplay::apart`): its graph's events found
//! beside the sequence that takes them, then the run as recorded and the run with the fixes
//! each on a thread of its own. The answer, the sequence and every step are those of one thread.

use super::sequence::{DeviceView, OperationRecord, Sequence};
use super::*;
use crate::analysis::graph::nodes::{GraphNode, NodeFields, NodeType};
use crate::analysis::memory::SnapshotRow;
use crate::analysis::messages::failure::BufferType;

const D: u64 = 0;
const PAGE: u64 = 2048;
/// The DRAM region: from 64 to 4 GiB.
const DRAM: (u64, u64) = (64, 1 << 32);

fn view() -> DeviceView {
    DeviceView { device_id: D, aliases: vec![], facts: None, graph_id: None }
}

fn regions() -> Regions {
    Regions { l1: None, l1_small: None, dram: Some(DRAM) }
}

fn node(id: u64, node_type: NodeType, address: u64, tensor: bool) -> GraphNode {
    GraphNode::from(NodeFields {
        id,
        node_type: Some(node_type),
        address: Some(address),
        max_size_per_bank: Some(PAGE),
        size: Some(PAGE * 12),
        page_size: Some(PAGE),
        buffer_type: Some(BufferType::Dram),
        buffer_type_code: true,
        device_id: Some(D),
        connections: if tensor { vec![id + 1] } else { vec![] },
        ..NodeFields::default()
    })
}

/// A graph of `n` DRAM allocations of one page per bank, bottom-up, every third freed again
/// at once and every thousandth a page past where tt-metal's policy would put it (so the run
/// as recorded differs from the model now and then); the failure point is its last node.
fn long_graph(n: u64) -> Vec<GraphNode> {
    let mut nodes = Vec::new();
    let mut next = DRAM.0 + 100 * PAGE;
    for k in 0..n {
        let id = nodes.len() as u64;
        if k % 1000 == 999 {
            next += PAGE;
        }
        nodes.push(node(id, NodeType::BufferAllocate, next, true));
        nodes.push(GraphNode::from(NodeFields {
            id: id + 1,
            node_type: Some(NodeType::Tensor),
            tensor_id: Some(10_000 + k),
            ..NodeFields::default()
        }));
        if k % 3 == 2 {
            nodes.push(node(id + 2, NodeType::BufferDeallocate, next, false));
        } else {
            next += PAGE;
        }
    }
    nodes
}

/// The live buffers before the failed operation: ten pages at the bottom of DRAM.
fn checkpoint() -> Vec<SnapshotRow> {
    (0..10)
        .map(|k| SnapshotRow {
            device_id: D,
            address: Some((DRAM.0 + k * PAGE) as i64),
            size_per_bank: Some(PAGE as i64),
            buffer_type: Some(BufferType::Dram),
            layout: None,
        })
        .collect()
}

fn record<'a>(graph: &'a [GraphNode]) -> OperationRecord<'a> {
    OperationRecord { operation_id: 2, graph, through: Some(graph.len() - 1), snapshot: None, failed: true }
}

/// The replay of the checkpoint and the failed operation on `threads`, with the first checkpoint
/// buffer freed after operation 1, and its answer for a request of 4 GiB per bank.
fn answered(graph: &[GraphNode], threads: usize) -> (Vec<sequence::Recorded>, Answer) {
    let plan = Plan { free_after: vec![(1, (D, BufferType::Dram), DRAM.0)], dram_banks: 12, ..Plan::default() };
    let mut run = WhatIfReplay::new(view(), regions(), plan).apart(threads);
    let live = checkpoint_buffers(&checkpoint(), &view());
    run.start(live, Some(1));
    run.operation(&record(graph));
    let buffers = run.sequence().buffers.clone();
    let request = Request::Allocation { place: (D, BufferType::Dram), size_per_bank: 1 << 32, size: None };
    (buffers, run.answer(2, vec![Fix::FreeBuffer { address: DRAM.0, after: 1 }], request, &[], None))
}

#[test]
fn a_long_graph_gives_the_same_steps_when_its_events_are_found_beside() {
    let graph = long_graph(40_000);
    let mut steps = Vec::new();
    for apart in [false, true] {
        let mut seq = Sequence::new(view());
        seq.start(checkpoint_buffers(&checkpoint(), &view()));
        steps.push((seq.operation_on(&record(&graph), apart), seq.buffers, seq.unknown_frees));
    }
    assert_eq!(steps[0].0.len(), 40_000 + 40_000 / 3, "every allocation and free is a step");
    assert_eq!(steps[0], steps[1]);
}

#[test]
fn a_long_operation_replayed_on_two_threads_answers_as_on_one() {
    let graph = long_graph(70_000);
    let (one, on_one) = answered(&graph, 1);
    let (two, on_two) = answered(&graph, 2);
    assert_eq!(one.len(), 10 + 70_000);
    assert_eq!(one, two);
    assert!(matches!(on_one.replay_check, ReplayCheck::Differs { count, .. } if count >= 70), "{on_one:?}");
    assert_eq!(on_one.outcome, Outcome::DoesNotFit);
    assert_eq!(on_one, on_two);
}
