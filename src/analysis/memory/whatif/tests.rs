//! The replay on small runs whose truth is plain: ten 128 B buffers fill L1 from the top, the
//! eleventh operation cannot place its output; each fix moves what it should and nothing else.

use super::*;
use crate::analysis::graph::nodes::{GraphNode, NodeFields, NodeType};
use crate::analysis::memory::{DeviceFacts, SnapshotRow};
use crate::analysis::messages::failure::BufferType;

const A: u64 = 1024;
const END: u64 = 2304;
/// Every buffer's size: ten fill L1.
const U: u64 = 128;

/// Where the k-th buffer lies: top-down from the end.
fn at(k: u64) -> u64 {
    END - U * k
}
const D: u64 = 0;

fn regions() -> Regions {
    Regions { l1: Some((A, END)), l1_small: Some((END, END)), dram: Some((64, 64 + 100_000)) }
}

fn view() -> DeviceView {
    DeviceView { device_id: D, aliases: vec![1], facts: None, graph_id: None }
}

fn row(address: u64, size: u64, t: BufferType) -> SnapshotRow {
    SnapshotRow {
        device_id: D,
        address: Some(address as i64),
        size_per_bank: Some(size as i64),
        buffer_type: Some(t),
        layout: None,
    }
}

fn alloc(id: u64, address: u64, size: u64, t: BufferType, tensor: Option<u64>) -> Vec<GraphNode> {
    let mut nodes = vec![GraphNode::from(NodeFields {
        id,
        node_type: Some(NodeType::BufferAllocate),
        address: Some(address),
        max_size_per_bank: Some(size),
        size: Some(size * 10),
        page_size: Some(size),
        buffer_type: Some(t),
        buffer_type_code: true,
        device_id: Some(1),
        connections: vec![id + 1],
        ..NodeFields::default()
    })];
    if let Some(tensor) = tensor {
        nodes.push(GraphNode::from(NodeFields {
            id: id + 1,
            node_type: Some(NodeType::Tensor),
            tensor_id: Some(tensor),
            ..NodeFields::default()
        }));
    }
    nodes
}

fn free(id: u64, address: u64, t: BufferType) -> GraphNode {
    GraphNode::from(NodeFields {
        id,
        node_type: Some(NodeType::BufferDeallocate),
        address: Some(address),
        buffer_type: Some(t),
        buffer_type_code: true,
        device_id: Some(1),
        ..NodeFields::default()
    })
}

/// Ten operations each allocate a 128 B L1 buffer (tensor k at `at(k)`), in their graphs and
/// snapshots; operation 11 asks for 128 B more and fails.
fn filled(plan: Plan) -> WhatIfReplay {
    let mut run = WhatIfReplay::new(view(), regions(), plan);
    let mut live: Vec<SnapshotRow> = Vec::new();
    for k in 1..=10u64 {
        live.push(row(at(k), U, BufferType::L1));
        let graph = alloc(10, at(k), U, BufferType::L1, Some(k));
        let rows = live.clone();
        run.operation(&OperationRecord {
            operation_id: k,
            graph: &graph,
            through: None,
            snapshot: Some(&rows),
            failed: false,
        });
    }
    run.operation(&OperationRecord {
        operation_id: 11,
        graph: &[],
        through: None,
        snapshot: Some(&live),
        failed: true,
    });
    run
}

fn request() -> Request {
    Request::Allocation { place: (D, BufferType::L1), size_per_bank: U, size: Some((10 * U, U)) }
}

fn plan() -> Plan {
    Plan { dram_banks: 12, l1_banks: 10, ..Plan::default() }
}

#[test]
fn with_no_fix_the_replay_reproduces_the_run_and_the_refusal() {
    let a = filled(plan()).answer(11, vec![], request(), &[], None);
    assert_eq!(a.replay_check, ReplayCheck::Exact);
    assert_eq!(a.outcome, Outcome::DoesNotFit);
    assert_eq!(a.largest_free_block, Some(0));
}

#[test]
fn freeing_a_holder_after_an_operation_opens_its_place() {
    let mut p = plan();
    // Tensor 4 freed after operation 6: operation 7 takes its hole, and operations 8–10 go one
    // buffer lower each, leaving the bottom 128 B free.
    p.free_after.push((6, (D, BufferType::L1), at(4)));
    let a = filled(p).answer(11, vec![Fix::Free { tensor: 4, after: Some(6) }], request(), &[], None);
    assert_eq!(a.replay_check, ReplayCheck::Exact, "the check replays the run as recorded");
    assert_eq!((a.outcome, a.address), (Outcome::Fits, Some(A)));
    assert_eq!(a.cb_room, Some(0));
    assert_eq!(answer_sentence(&a, false), "the 128 B-per-bank request fits at 1024.");
}

#[test]
fn freeing_after_the_last_operation_before_the_failure_gives_the_exact_hole() {
    let mut p = plan();
    p.free_after.push((10, (D, BufferType::L1), at(5)));
    let a = filled(p).answer(11, vec![], request(), &[], None);
    assert_eq!((a.outcome, a.address), (Outcome::Fits, Some(at(5))));
    assert_eq!(a.cb_room, Some(0), "the lowest L1 buffer is at the region's start");
}

#[test]
fn the_output_in_dram_is_placed_bottom_up_from_the_dram_base() {
    let p = Plan { output_to_dram: true, ..plan() };
    let a = filled(p).answer(11, vec![Fix::OutputToDram], request(), &[], None);
    assert_eq!(a.buffer_type, BufferType::Dram);
    // 1280 B in pages of 128 over 12 banks: one page per bank.
    assert_eq!((a.outcome, a.address, a.size_per_bank), (Outcome::Fits, Some(64), Some(128)));
    assert_eq!(answer_sentence(&a, false), "the 128 B-per-bank DRAM request fits at 64.");
}

#[test]
fn a_tensor_moved_to_dram_leaves_its_l1_place_to_the_next_allocations() {
    // Tensor 1 (the first, at the top) lives in DRAM: everything after it moves up by 128 B.
    let p = Plan {
        to_dram: vec![DramMove {
            tensor_id: Some(1),
            operation_id: Some(1),
            place: (D, BufferType::L1),
            address: at(1),
        }],
        ..plan()
    };
    let a = filled(p).answer(11, vec![], request(), &[], None);
    assert_eq!((a.outcome, a.address), (Outcome::Fits, Some(A)));
}

#[test]
fn a_free_that_does_not_help_says_what_is_in_the_way() {
    // Nothing freed: the inputs (tensors 1 and 2) are pinned, the cheapest window frees one.
    let inputs = [((D, BufferType::L1), at(1)), ((D, BufferType::L1), at(2))];
    let a = filled(plan()).answer(11, vec![], request(), &inputs, None);
    assert_eq!(a.outcome, Outcome::DoesNotFit);
    assert_eq!(a.in_the_way.len(), 1);
    let w = &a.in_the_way[0];
    assert_eq!((w.address, w.recorded_address, w.operation_id, w.tensor_id), (at(3), at(3), Some(3), Some(3)));
    assert_eq!(
        answer_sentence(&a, false),
        "the 128 B-per-bank request does not fit: the largest free block is 0 B; in the way: tensor 3 at 1920 (128 B per bank)."
    );
}

#[test]
fn a_larger_l1_small_shrinks_l1_and_an_earlier_allocation_fails() {
    // L1_SMALL of 150 B (160 B with rounding) takes the top of L1: the tenth buffer no longer fits.
    let p = Plan { l1_small_size: Some(150), ..plan() };
    let a = filled(p).answer(11, vec![], request(), &[], None);
    assert_eq!(a.outcome, Outcome::DoesNotFit);
    assert!(matches!(a.notes.last(), Some(WhatIfNote::EarlierFailure { operation_id: Some(9), .. })), "{:?}", a.notes);
    assert_eq!(
        answer_sentence(&a, false),
        "the run would fail earlier: operation 9 could not place its 128 B L1 buffer (largest free block 96 B)."
    );
}

#[test]
fn buffers_freed_and_allocated_outside_any_graph_come_from_the_snapshots() {
    // Operation 2's graph allocates nothing; its snapshot shows a new buffer and one gone.
    let mut run = WhatIfReplay::new(view(), regions(), plan());
    let g1 = [alloc(1, at(1), U, BufferType::L1, Some(1)), alloc(3, at(2), U, BufferType::L1, Some(2))].concat();
    let s1 = [row(at(1), U, BufferType::L1), row(at(2), U, BufferType::L1)];
    run.operation(&OperationRecord { operation_id: 1, graph: &g1, through: None, snapshot: Some(&s1), failed: false });
    let s2 = [row(at(1), U, BufferType::L1), row(at(3), U, BufferType::L1)];
    run.operation(&OperationRecord { operation_id: 2, graph: &[], through: None, snapshot: Some(&s2), failed: false });
    // The outside free comes first, so the policy reuses the freed place; the run used the next.
    let a = run.answer(3, vec![], request(), &[], None);
    match a.replay_check {
        ReplayCheck::Differs { first, count } => {
            assert_eq!(
                (first.operation_id, first.recorded, first.model, count),
                (Some(2), Some(at(3)), Some(at(2)), 1)
            );
        }
        ReplayCheck::Exact => panic!("the outside allocation is not where the policy puts it"),
    }
    assert!(answer_sentence(&a, false).ends_with(
        "(A model, not a reproduction: replayed without a fix, the L1 buffer tt-metal placed at 1920 at operation 2 lands at 2048.)"
    ));
}

#[test]
fn graph_frees_and_a_failed_operation_s_own_buffers() {
    // Operation 1 allocates a temporary and an output, frees the temporary; operation 2 fails
    // after allocating one buffer of its own; its snapshot (after the unwinding) lacks it.
    let mut run = WhatIfReplay::new(view(), regions(), plan());
    let mut g1 = alloc(1, at(1), U, BufferType::L1, None);
    g1.extend(alloc(3, at(2), U, BufferType::L1, Some(7)));
    g1.push(free(5, at(1), BufferType::L1));
    let s1 = [row(at(2), U, BufferType::L1)];
    run.operation(&OperationRecord { operation_id: 1, graph: &g1, through: None, snapshot: Some(&s1), failed: false });
    let g2 = alloc(1, at(1), U, BufferType::L1, Some(8));
    run.operation(&OperationRecord {
        operation_id: 2,
        graph: &g2,
        through: Some(0),
        snapshot: Some(&s1),
        failed: true,
    });
    let big = Request::Allocation { place: (D, BufferType::L1), size_per_bank: 9 * U, size: None };
    let a = run.answer(2, vec![], big, &[], None);
    assert_eq!(a.replay_check, ReplayCheck::Exact);
    assert_eq!((a.outcome, a.largest_free_block), (Outcome::DoesNotFit, Some(8 * U)));
    // Its own buffer at the top cannot be freed before it runs; tensor 7 can.
    assert_eq!(a.in_the_way.iter().map(|w| w.tensor_id).collect::<Vec<_>>(), vec![Some(7)]);
}

#[test]
fn circular_buffers_fit_once_the_lowest_buffer_moves_to_dram_and_not_before() {
    let clash = Request::CircularBuffers { region_end: A + 50, beyond_l1: false };
    let a = filled(plan()).answer(11, vec![], clash, &[], None);
    assert_eq!(a.replay_check, ReplayCheck::Exact);
    assert_eq!(a.outcome, Outcome::DoesNotFit);
    assert_eq!(
        answer_sentence(&a, false),
        "the circular buffers clash with 1 L1 buffer: tensor 10 at 1024 (128 B per bank)."
    );
    let p = Plan {
        to_dram: vec![DramMove {
            tensor_id: Some(10),
            operation_id: Some(10),
            place: (D, BufferType::L1),
            address: at(10),
        }],
        ..plan()
    };
    let a = filled(p).answer(11, vec![], clash, &[], None);
    assert_eq!((a.outcome, a.cb_room), (Outcome::Fits, Some(U)));
    let beyond = Request::CircularBuffers { region_end: 5000, beyond_l1: true };
    let a = filled(plan()).answer(11, vec![], beyond, &[], None);
    assert_eq!(a.outcome, Outcome::DoesNotFit);
    assert!(
        answer_sentence(&a, false).starts_with("the circular buffers end beyond L1: no change to L1 buffers helps")
    );
}

#[test]
fn the_request_fits_but_the_circular_buffers_the_operation_used_before_do_not() {
    let mut p = plan();
    p.free_after.push((10, (D, BufferType::L1), at(10)));
    let hint = CircularBufferUse { operation_id: 5, operation_name: "ttnn.matmul".into(), used: 12, same_name: true };
    let a = filled(p.clone()).answer(11, vec![], request(), &[], Some(hint.clone()));
    // The operation's outcome, not the request's (docs/rules/memory.md §9.3).
    assert_eq!(
        (a.outcome, a.fails_on, a.request_fits),
        (Outcome::DoesNotFit, Some(FailsOn::CircularBuffers), Some(true))
    );
    assert_eq!((a.address, a.cb_room, a.cb_hint), (Some(A), Some(0), Some(12)));
    assert_eq!(
        answer_sentence(&a, false),
        "the 128 B-per-bank request fits at 1024, but ttnn.matmul used 12 B of circular buffers at operation 5 and only 0 B would be left below it: the operation would fail on its circular buffers."
    );
    // Another operation's circular buffers are a weaker hint: the outcome is unknown.
    let other = CircularBufferUse { operation_name: "ttnn.add".into(), same_name: false, ..hint };
    let failed = FailedOperation {
        operation_id: 11,
        operation_name: "ttnn.matmul",
        inputs: &[],
        cb_hint: Some(other),
        more_after: None,
    };
    let a = filled(p).answer_for(failed, vec![], request());
    assert_eq!((a.outcome, a.fails_on, a.request_fits, a.cb_hint), (Outcome::Unknown, None, Some(true), None));
    assert_eq!(
        answer_sentence(&a, false),
        "the 128 B-per-bank request fits at 1024, but ttnn.add used 12 B of circular buffers at operation 5 and only 0 B would be left below it: ttnn.matmul records none of its own, so whether they fit is unknown."
    );
}

/// 0.75 records nothing of the failed operation: a clash "past an L1 buffer at A" with no
/// recorded buffer at A is the operation's own allocation there (issue 28 §2). It is placed
/// before any fix is judged: moving the holder alone still clashes; with the output in DRAM too,
/// the circular buffers fit.
#[test]
fn an_unrecorded_own_allocation_at_the_clash_address_stays_until_the_output_moves() {
    let clash = Request::CircularBuffers { region_end: A + 50, beyond_l1: false };
    let holder = DramMove { tensor_id: Some(10), operation_id: Some(10), place: (D, BufferType::L1), address: at(10) };
    let moved = Plan { to_dram: vec![holder.clone()], ..plan() };
    let mut run = filled(moved);
    run.own_allocation_at(A + 16);
    let a = run.answer(11, vec![Fix::ToDram { tensor: 10 }], clash, &[], None);
    assert_eq!((a.outcome, a.fails_on), (Outcome::DoesNotFit, Some(FailsOn::CircularBuffers)));
    assert_eq!(
        answer_sentence(&a, false),
        "the circular buffers still clash with 1 L1 buffer: the operation's own buffer at 1040 (not recorded)."
    );
    let both = Plan { to_dram: vec![holder], output_to_dram: true, output_to_dram_operation: Some(11), ..plan() };
    let mut run = filled(both);
    run.own_allocation_at(A + 16);
    let a = run.answer(11, vec![Fix::ToDram { tensor: 10 }, Fix::OutputToDram], clash, &[], None);
    assert_eq!((a.outcome, a.fails_on), (Outcome::Fits, None));
}

#[test]
fn an_l1_node_inside_the_l1_small_region_is_replayed_as_l1_small() {
    // The region: L1 [A, END), L1_SMALL [END, END + 512). Operation 1's graph says "type": "L1"
    // (no buffer_type code) for a 48 B buffer at END + 256 and for a 128 B one in L1; its snapshot
    // shows the first as L1_SMALL, 32 B-aligned. Read as the memory section reads it, that is one
    // L1_SMALL buffer, not an L1 buffer freed outside the graph and an L1_SMALL one allocated.
    let facts = DeviceFacts {
        device_id: D,
        l1_start: Some(A),
        l1_bank_size: END - A,
        worker_l1_size: END + 512,
        l1_num_banks: 10,
    };
    let mut seq = Sequence::new(DeviceView { facts: Some(facts), ..view() });
    let by_string = |mut nodes: Vec<GraphNode>| {
        nodes[0].edit(|n| n.buffer_type_code = false);
        nodes
    };
    let graph = [
        by_string(alloc(1, END + 256, 48, BufferType::L1, None)),
        by_string(alloc(3, at(1), U, BufferType::L1, Some(1))),
    ]
    .concat();
    let rows = [row(END + 256, 48, BufferType::L1Small), row(at(1), U, BufferType::L1)];
    let steps = seq.operation(&OperationRecord {
        operation_id: 1,
        graph: &graph,
        through: None,
        snapshot: Some(&rows),
        failed: false,
    });
    assert_eq!(steps, [Step::Alloc { id: 0, pinned: false }, Step::Alloc { id: 1, pinned: false }, Step::End(1)]);
    let placed: Vec<_> = seq.buffers.iter().map(|b| (b.place, b.address, b.size_per_bank)).collect();
    assert_eq!(placed, [((D, BufferType::L1Small), END + 256, 64), ((D, BufferType::L1), at(1), U)]);
}
