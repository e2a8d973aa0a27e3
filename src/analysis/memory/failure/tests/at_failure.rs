//! docs/rules/memory.md §5–§7 end to end: the map and its check, the reason from the map, the fit, the
//! circular buffers; the any-operation picture; and that no input makes the rules panic.

use super::*;
use crate::analysis::messages::reason::Reason;
use proptest::prelude::*;

/// L1 `[1000, 10000)`: 1000–2000 free, 2000–4000 stale tensor 81, 4000–4500 free, 4500–10000
/// held by the input tensor 3 (5500).
fn fragmented(failure: AllocationFailure) -> FailureInputs {
    let g = G::default().start("ttnn.matmul").start("MatmulDeviceOperation").aborted("MatmulDeviceOperation");
    let mut i = inputs(failure, g);
    i.own_snapshot = vec![row(0, BufferType::L1, 2000, 2000), row(0, BufferType::L1, 4500, 5500)].into();
    i.input_tensor_ids = vec![3];
    i.tensors = vec![
        tensor(81, 2000, &[(4, "ttnn.matmul", true), (6, "ttnn.add", false)]),
        tensor(3, 4500, &[(8, "ttnn.conv2d", true), (10, "ttnn.matmul", false)]),
    ];
    i
}

#[test]
fn the_map_checks_exact_and_the_advice_frees_the_stale_tensor() {
    let m = memory_at_failure(&fragmented(l1_failure(3000, 7500, 1500, 1000))).unwrap();
    assert_eq!(m.map.used_per_bank, 7500);
    let blocks: Vec<(u64, u64)> = m.map.free_blocks.iter().map(|b| (b.address, b.size)).collect();
    assert_eq!(blocks, [(1000, 1000), (4000, 500)]);
    assert_eq!(m.map.largest_free_block, Some(1000));
    assert_eq!(m.check.status, CheckStatus::Exact);
    assert_eq!((m.check.allocated, m.check.free, m.check.largest_free_block), (Some(7500), Some(1500), Some(1000)));
    assert_eq!(m.reason, None);
    let fit = m.fit.clone().unwrap();
    assert_eq!((fit.free, fit.freed_per_bank, fit.needed_per_bank), (vec![2000], 2000, 3000));
    assert_eq!(fit.block, Block { address: 1000, size: 3500 });
    assert_eq!(
        advice_sentence(&m, false),
        "Freeing tensor 81 (2 KiB per bank, produced by operation 4 ttnn.matmul, last used at operation 6) before operation 10 opens a 3 KiB block at 1000: the 3 KiB request fits."
    );
}

#[test]
fn a_v2_message_gets_its_reason_from_the_map() {
    let m = memory_at_failure(&fragmented(v2_failure("L1", 1200, 9000))).unwrap();
    assert_eq!(m.check.status, CheckStatus::Unchecked);
    let e = m.reason.clone().unwrap();
    // 1500 free, largest 1000 < 1200 ≤ 1500.
    assert_eq!(e.reason, Reason::Fragmented);
    assert_eq!(
        reason_sentence(&m).unwrap(),
        "From the map: Fragmented. 1 KiB free per bank, but no single block holds 1 KiB; the largest is 1,000 B. An interleaved L1 buffer can use only the part of that free space inside the interleaved region."
    );
    let m = memory_at_failure(&fragmented(v2_failure("L1", 2000, 9000))).unwrap();
    assert_eq!(m.reason.unwrap().reason, Reason::NotEnoughFreeSpace);
    let m = memory_at_failure(&fragmented(v2_failure("L1", 900, 9000))).unwrap();
    assert_eq!(m.reason.unwrap().reason, Reason::FreeBlockCouldHoldIt);
    let m = memory_at_failure(&fragmented(v2_failure("L1", 9500, 9000))).unwrap();
    assert_eq!(m.reason.as_ref().unwrap().reason, Reason::LargerThanEmptyBank);
    assert_eq!(m.fit, Err(NoFit::LargerThanRegion { size: 9000 }));
    assert_eq!(reason_sentence(&m), None);
}

#[test]
fn under_over_counted_and_contradiction() {
    let status = |f| memory_at_failure(&fragmented(f)).unwrap().check.status;
    assert_eq!(status(l1_failure(3000, 9000, 0, 0)), CheckStatus::UnderCounted);
    assert_eq!(status(l1_failure(3000, 6000, 3000, 1000)), CheckStatus::OverCounted);
    assert_eq!(status(l1_failure(3000, 7500, 1500, 1400)), CheckStatus::Contradiction);
}

#[test]
fn inputs_are_pinned() {
    // Only the input can make room for 6000: no advice.
    let m = memory_at_failure(&fragmented(l1_failure(6000, 7500, 1500, 1000))).unwrap();
    assert_eq!(m.fit, Err(NoFit::Pinned));
    assert_eq!(
        advice_sentence(&m, false),
        "No buffer can be freed right before operation 10 to make room: every 6 KiB window overlaps an input of operation 10 or a buffer it allocated."
    );
}

#[test]
fn a_dram_window_is_the_lowest() {
    let mut i = inputs(v2_failure("DRAM", 100, 1000), G::default().start("ttnn.add"));
    i.own_snapshot = vec![row(0, BufferType::Dram, 300, 100), row(0, BufferType::Dram, 700, 100)].into();
    let m = memory_at_failure(&i).unwrap();
    assert_eq!(m.map.region.source, Some(RegionSource::Message));
    // DRAM starts at the lowest DRAM address recorded (300): [300, 1300).
    assert_eq!(m.map.region.bounds(), Some((300, 1300)));
    let fit = m.fit.unwrap();
    assert!(fit.free.is_empty());
    assert_eq!(fit.block, Block { address: 400, size: 300 });
}

/// Kind 4: the program's circular buffers end at 3000; L1 buffers live at 2500 (N's own) and
/// 2800 lie below; 4000 does not.
#[test]
fn circular_buffers_and_the_l1_buffers_in_their_way() {
    let g = G::default()
        .start("ttnn.softmax")
        .cb(0, 1000, 64)
        .start("SoftmaxDeviceOperation")
        .alloc(0, BufferType::L1, 2500, 300)
        .cb_reset()
        .cb(0, 1000, 1500)
        .push(NodeType::CircularBufferAllocate, |n| {
            n.address = Some(2500);
            n.size = Some(300);
            n.globally_allocated = true;
        })
        .cb(0, 2500, 500)
        .aborted("SoftmaxDeviceOperation")
        .aborted("ttnn.softmax")
        .capture_end();
    let failure = parse_allocation_failure("Statically allocated circular buffers in program 5 clash with L1 buffers on core range [0-0 - 7-7]. L1 buffer allocated at 2500 and static circular buffer region ends at 3000").unwrap();
    let mut i = inputs(failure, g);
    i.own_snapshot =
        vec![row(0, BufferType::L1, 2500, 300), row(0, BufferType::L1, 2800, 200), row(0, BufferType::L1, 4000, 100)]
            .into();
    let m = memory_at_failure(&i).unwrap();
    let c = m.circular_buffers.clone().unwrap();
    assert_eq!((c.region_end, c.lowest_l1_address, c.clashing.clone()), (3000, Some(2500), vec![2500, 2800]));
    let cbs: Vec<(u64, u64)> = c.circular_buffers.iter().map(|b| (b.address, b.size)).collect();
    assert_eq!(cbs, [(1000, 1500), (2500, 500)]);
    assert_eq!(c.circular_buffers[0].device_operation.as_deref(), Some("SoftmaxDeviceOperation"));
    assert_eq!(
        (m.check.status, m.fit.clone(), m.needed_per_bank, m.reason.clone()),
        (CheckStatus::Unchecked, Err(NoFit::CircularBuffers), None, None)
    );
    assert_eq!(
        advice_sentence(&m, true),
        "The circular buffers (2 circular buffers, 2 KiB per core in all) need L1 up to 0xBB8; 2 live L1 buffers lie below it: a buffer at 0x9C4 (300 B, this operation), a buffer at 0xAF0 (200 B). Move them to DRAM or free them before operation 10 for the circular buffers to fit."
    );
}

/// Issue 30 §4.3: three circular buffers of 4 KiB read as such, not as "of 12 KiB" (their sum);
/// buffers of different sizes give their sum, said as one.
#[test]
fn circular_buffers_alike_give_their_size_and_unlike_their_sum() {
    use crate::analysis::memory::failure::picture::CircularBuffer;
    use crate::analysis::memory::failure::sentences::circular_buffer_sizes;
    let cb = |address, size| CircularBuffer { address, size, core_range: None, device_operation: None };
    let alike = [cb(0, 4096), cb(4096, 4096), cb(8192, 4096)];
    assert_eq!(circular_buffer_sizes(&alike).as_deref(), Some("3 circular buffers of 4 KiB per core"));
    let unlike = [cb(0, 4096), cb(4096, 8192)];
    assert_eq!(circular_buffer_sizes(&unlike).as_deref(), Some("2 circular buffers, 12 KiB per core in all"));
    assert_eq!(circular_buffer_sizes(&alike[..1]).as_deref(), Some("1 circular buffer of 4 KiB per core"));
    assert_eq!(circular_buffer_sizes(&[]), None);
}

#[test]
fn any_operation_s_picture_of_its_own_snapshot() {
    let g = G::default().start("ttnn.add").alloc(0, BufferType::L1, 7000, 300).tensor(55).end("ttnn.add");
    let inputs = OperationInputs {
        operation_id: 10,
        graph: g.0,
        snapshot: vec![
            row(0, BufferType::L1, 7000, 300),
            row(0, BufferType::L1, 9000, 1000),
            row(0, BufferType::Dram, 64, 32),
            row(1, BufferType::L1, 5000, 10),
        ],
        devices: vec![device(0)],
        input_tensor_ids: vec![3],
        tensors: vec![
            tensor(3, 9000, &[(2, "ttnn.add", true), (10, "ttnn.add", false)]),
            tensor(55, 7000, &[(10, "ttnn.add", true)]),
        ],
    };
    let m = operation_memory(&inputs, None).unwrap();
    assert_eq!(m.places, [(0, BufferType::Dram), (0, BufferType::L1), (1, BufferType::L1)]);
    assert_eq!((m.device_id, m.buffer_type), (0, BufferType::L1));
    assert_eq!(m.map.used_per_bank, 1300);
    assert_eq!(m.map.largest_free_block, Some(6000));
    let own = &m.live_buffers[1];
    assert_eq!(
        (own.address, own.tensor_id, own.origin, own.producer_operation_id),
        (7000, Some(55), Some(Origin::ThisOperation), Some(10))
    );
    assert!(m.live_buffers[0].input_of_operation);
    let dram = operation_memory(&inputs, Some((0, BufferType::Dram))).unwrap();
    assert_eq!((dram.live_buffers.len(), dram.map.largest_free_block), (1, None));
    assert_eq!(operation_memory(&inputs, Some((7, BufferType::L1))).unwrap().buffer_type, BufferType::L1);
    assert_eq!(operation_memory(&OperationInputs::default(), None), None);
}

fn arbitrary_node() -> impl Strategy<Value = GraphNode> {
    let kinds = prop::sample::select(vec![
        NodeType::FunctionStart,
        NodeType::FunctionEnd,
        NodeType::BufferAllocate,
        NodeType::BufferDeallocate,
        NodeType::CircularBufferAllocate,
        NodeType::CircularBufferDeallocateAll,
        NodeType::Tensor,
        NodeType::Buffer,
        NodeType::CaptureEnd,
    ]);
    let small = || prop::option::of(0u64..20_000);
    (
        kinds,
        small(),
        small(),
        small(),
        prop::option::of(0u64..3),
        any::<bool>(),
        prop::collection::vec(0u64..12, 0..3),
        0u64..12,
    )
        .prop_map(|(kind, address, size, per_bank, device, aborted, connections, id)| {
            GraphNode::from(NodeFields {
                id,
                node_type: Some(kind),
                name: if aborted { "A".into() } else { "B".into() },
                aborted,
                address,
                size,
                max_size_per_bank: per_bank,
                device_id: device,
                buffer_type: Some(if aborted { BufferType::L1 } else { BufferType::Dram }),
                tensor_id: size,
                connections,
                ..NodeFields::default()
            })
        })
}

fn arbitrary_row() -> impl Strategy<Value = SnapshotRow> {
    (0u64..3, prop::option::of(-5i64..20_000), prop::option::of(-5i64..20_000), any::<bool>()).prop_map(
        |(device_id, address, size_per_bank, l1)| SnapshotRow {
            device_id,
            address,
            size_per_bank,
            buffer_type: Some(if l1 { BufferType::L1 } else { BufferType::Dram }),
            layout: address,
        },
    )
}

proptest! {
    /// Whatever the records say, the rules give a picture or none, never a panic, and a map
    /// whose free blocks and used bytes fit inside its region.
    #[test]
    fn no_input_makes_the_rules_panic(
        graph in prop::collection::vec(arbitrary_node(), 0..24),
        own in prop::collection::vec(arbitrary_row(), 0..12),
        earlier in prop::collection::vec(arbitrary_row(), 0..12),
        kind in 0usize..3,
        need in 0u64..20_000,
    ) {
        let failure = match kind {
            0 => l1_failure(need, 5000, 4000, 3000),
            1 => v2_failure("DRAM", need, 15_000),
            _ => parse_allocation_failure("Statically allocated circular buffers on core range [0-0 - 1-1] grow to 12000 B which is beyond max L1 size of 11000 B").unwrap(),
        };
        let mut i = inputs(failure, G(graph));
        i.own_snapshot = own.into();
        i.earlier_snapshot = (!earlier.is_empty()).then_some(EarlierSnapshot { operation_id: 3, rows: earlier });
        i.replayed_before = Some(Vec::new());
        i.tensors = vec![tensor(1, 5000, &[(2, "ttnn.add", true)])];
        if let Some(m) = memory_at_failure(&i) {
            let (start, end) = m.map.region.bounds().unwrap_or((0, u64::MAX));
            prop_assert!(m.map.used_per_bank <= end - start);
            let free: u64 = m.map.free_blocks.iter().map(|b| b.size).sum();
            prop_assert!(m.map.region.bounds().is_none() || free + m.map.used_per_bank == end - start);
            if m.check.status == CheckStatus::Exact {
                prop_assert!(m.map.used_per_bank.abs_diff(5000) <= m.check.tolerance);
            }
            let _ = failure_lines(&m, true);
        }
    }
}

#[test]
fn an_under_counted_picture_qualifies_its_advice() {
    let m = memory_at_failure(&fragmented(l1_failure(3000, 9000, 0, 0))).unwrap();
    assert_eq!(m.check.status, CheckStatus::UnderCounted);
    assert_eq!(
        advice_sentence(&m, false),
        "Freeing tensor 81 (2 KiB per bank, produced by operation 4 ttnn.matmul, last used at operation 6) before operation 10 opens a 3 KiB block at 1000: the 3 KiB request fits, as far as the picture shows (it misses 1 KiB the allocator held)."
    );
    let m = memory_at_failure(&fragmented(l1_failure(900, 9000, 0, 0))).unwrap();
    assert_eq!(
        advice_sentence(&m, false),
        "No advice: a free block of 1,000 B at 1000 would hold the 900 B request in the picture, but the picture misses 1 KiB the allocator held."
    );
}
