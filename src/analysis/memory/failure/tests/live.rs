//! docs/rules/memory.md §3: the failure point, the unwinding, the four bases and `origin`.

use super::*;

#[test]
fn the_failure_point_skips_the_unwinding_and_aborted_ends() {
    let g = G::default()
        .start("ttnn.matmul")
        .start("MatmulDeviceOperation")
        .alloc(0, BufferType::L1, 8000, 500)
        .tensor(77)
        .cb_reset()
        .aborted("MatmulDeviceOperation")
        .free(0, BufferType::L1, 8000, 500)
        .aborted("ttnn.matmul")
        .capture_end();
    // Skipped from the end: capture_end, aborted end, free, aborted end, the CB reset, the tensor;
    // F is the buffer_allocate.
    assert_eq!(graph_walk::failure_point(&g.0), Some(3));
    let plain = G::default().start("ttnn.matmul").end("ttnn.matmul").capture_end();
    assert_eq!(graph_walk::failure_point(&plain.0), Some(1));
    assert_eq!(graph_walk::failure_point(&G::default().capture_end().0), None);
}

/// N allocated 8000 (tensor 77) inside MatmulDeviceOperation and freed it while unwinding; a
/// second buffer it freed was live before it (sized by S0); a third free is DRAM.
fn unwound_graph() -> G {
    G::default()
        .start("ttnn.matmul")
        .start("MatmulDeviceOperation")
        .alloc(0, BufferType::L1, 8000, 500)
        .tensor(77)
        .aborted("MatmulDeviceOperation")
        .free(0, BufferType::L1, 8000, 500)
        .push(NodeType::BufferDeallocate, |n| {
            n.device_id = Some(0);
            n.buffer_type = Some(BufferType::L1);
            n.buffer_type_code = true;
            n.address = Some(6000);
            n.size = Some(99_999);
        })
        .free(0, BufferType::Dram, 9000, 100)
        .aborted("ttnn.matmul")
        .capture_end()
}

#[test]
fn after_failure_snapshot_adds_the_unwinding_to_n_s_rows() {
    let mut i = inputs(l1_failure(2000, 0, 0, 0), unwound_graph());
    // N's rows: taken after the unwinding; a DRAM buffer at 9000 on device 0 stays in DRAM.
    i.own_snapshot =
        vec![row(0, BufferType::L1, 9500, 400), row(0, BufferType::Dram, 9000, 100), row(1, BufferType::L1, 2000, 50)]
            .into();
    i.earlier_snapshot = earlier(9, &[(BufferType::L1, 6000, 700)]);
    let m = memory_at_failure(&i).unwrap();
    assert_eq!(m.basis, Basis::AfterFailureSnapshot);
    assert_eq!(m.snapshot_operation_id, None);
    // 8000 sized by its allocation (500), 6000 by S0's row (700), 9500 from the row.
    assert_eq!(addresses(&m), [(6000, 700), (8000, 500), (9500, 400)]);
    let own: Vec<u64> = m.live_buffers.iter().filter(|b| b.is_this_operation()).map(|b| b.address).collect();
    assert_eq!(own, [8000]);
}

#[test]
fn the_earlier_snapshot_is_read_only_when_needed() {
    let mut i = inputs(l1_failure(2000, 0, 0, 0), unwound_graph());
    assert!(needs_earlier_snapshot(&i, 0));
    i.own_snapshot = vec![row(0, BufferType::L1, 9500, 400)].into();
    // N's own rows, but an unwinding to size.
    assert!(needs_earlier_snapshot(&i, 0));
    i.graph = G::default().start("ttnn.add").alloc(0, BufferType::L1, 8000, 500).aborted("ttnn.add").0.into();
    assert!(!needs_earlier_snapshot(&i, 0));
    assert!(needs_earlier_snapshot(&i, 1));
}

#[test]
fn unwound_sizes_fall_back_to_the_free_itself() {
    let mut i = inputs(l1_failure(2000, 0, 0, 0), unwound_graph());
    i.own_snapshot = vec![row(0, BufferType::L1, 9500, 400)].into();
    // No S0: 6000's free gives size 99 999 across the message's 10 banks.
    let m = memory_at_failure(&i).unwrap();
    assert!(addresses(&m).contains(&(6000, 10_000)));
}

#[test]
fn earlier_snapshot_and_graph_replays_s0_through_the_failure_point() {
    let g = G::default()
        .start("ttnn.add")
        .alloc(0, BufferType::L1, 7000, 300)
        .tensor(5)
        .free(0, BufferType::L1, 9000, 1000)
        .free(0, BufferType::Dram, 4000, 100)
        .free(0, BufferType::L1, 3333, 10)
        .start("BinaryNgDeviceOperation")
        .aborted("BinaryNgDeviceOperation")
        .free(0, BufferType::L1, 7000, 300)
        .aborted("ttnn.add")
        .capture_end();
    let mut i = inputs(l1_failure(2000, 0, 0, 0), g);
    i.earlier_snapshot =
        earlier(8, &[(BufferType::L1, 9000, 1000), (BufferType::L1, 4000, 200), (BufferType::Dram, 4000, 100)]);
    let m = memory_at_failure(&i).unwrap();
    assert_eq!((m.basis, m.snapshot_operation_id), (Basis::EarlierSnapshotAndGraph, Some(8)));
    // 9000 freed before F; the DRAM free leaves L1's 4000; 7000 is N's, live at F.
    assert_eq!(addresses(&m), [(4000, 200), (7000, 300)]);
    assert!(m.live_buffers.iter().find(|b| b.address == 7000).unwrap().is_this_operation());
    assert_eq!(m.notes, [MemoryNote::UnknownFrees { count: 1, address: 3333 }]);
}

#[test]
fn a_free_without_address_uses_the_allocation_it_connects_to() {
    let mut g = G::default().start("ttnn.add").alloc(0, BufferType::L1, 7000, 300);
    let buffer = 1;
    g = g.push(NodeType::BufferDeallocate, |n| {
        n.buffer_type = Some(BufferType::L1);
        n.connections = vec![buffer];
    });
    let g = g.start("BinaryNgDeviceOperation").aborted("BinaryNgDeviceOperation").capture_end();
    let mut i = inputs(l1_failure(2000, 0, 0, 0), g);
    i.earlier_snapshot = earlier(8, &[(BufferType::L1, 4000, 200)]);
    let m = memory_at_failure(&i).unwrap();
    assert_eq!(addresses(&m), [(4000, 200)]);
    assert!(m.notes.is_empty());
}

#[test]
fn a_type_only_l1_free_matches_l1_small_and_never_dram() {
    let g = G::default()
        .start("ttnn.add")
        .push(NodeType::BufferDeallocate, |n| {
            n.device_id = Some(0);
            n.buffer_type = Some(BufferType::L1);
            n.address = Some(10500);
            n.size = Some(100);
        })
        .start("BinaryNgDeviceOperation");
    let mut i = inputs(v2_failure("L1_SMALL", 100, 2000), g);
    i.earlier_snapshot = earlier(
        3,
        &[(BufferType::L1Small, 10500, 100), (BufferType::Dram, 10500, 100), (BufferType::L1Small, 11000, 64)],
    );
    let m = memory_at_failure(&i).unwrap();
    assert_eq!(m.buffer_type, BufferType::L1Small);
    assert_eq!(addresses(&m), [(11000, 64)]);
}

#[test]
fn earlier_snapshot_alone_when_n_has_no_graph() {
    let mut i = inputs(l1_failure(2000, 5000, 4000, 3000), G::default());
    i.earlier_snapshot = Some(EarlierSnapshot {
        operation_id: 7,
        rows: vec![row(0, BufferType::L1, 9000, 1000), row(1, BufferType::L1, 5000, 10)],
    });
    let m = memory_at_failure(&i).unwrap();
    assert_eq!((m.basis, m.snapshot_operation_id), (Basis::EarlierSnapshot, Some(7)));
    assert_eq!(addresses(&m), [(9000, 1000)]);
    // N's own allocations are unknown: the allocator saw more.
    assert_eq!(m.check.status, CheckStatus::UnderCounted);
}

#[test]
fn graph_only_replays_the_earlier_graphs_then_n_s() {
    let g = G::default().start("ttnn.add").alloc(0, BufferType::L1, 6000, 100).start("BinaryNgDeviceOperation");
    let mut i = inputs(l1_failure(2000, 0, 0, 0), g);
    // Without the pass, there is no picture to give.
    assert_eq!(memory_at_failure(&i), None);
    let mut replayer = GraphWalker::new(&[device(0)]);
    replayer.apply(1, &G::default().alloc(0, BufferType::L1, 9000, 1000).alloc(0, BufferType::L1, 8000, 500).0);
    replayer.apply(2, &G::default().free(0, BufferType::L1, 8000, 500).free(0, BufferType::L1, 1234, 5).0);
    i.replayed_before = Some(replayer.live());
    let m = memory_at_failure(&i).unwrap();
    assert_eq!((m.basis, m.snapshot_operation_id), (Basis::GraphOnly, None));
    assert_eq!(addresses(&m), [(6000, 100), (9000, 1000)]);
    assert_eq!(replayer.notes(), [MemoryNote::UnknownFrees { count: 1, address: 1234 }]);
    assert_eq!(replayer.used_per_bank(), [(0, BufferType::L1, 1000)]);
}

#[test]
fn no_snapshot_and_no_graph_is_no_memory_section() {
    let mut i = inputs(l1_failure(2000, 0, 0, 0), G::default());
    i.replayed_before = Some(Vec::new());
    assert_eq!(memory_at_failure(&i), None);
    assert!(live_addresses(&i).is_empty());
    // Graphs without a single allocation tell nothing either.
    i.graph =
        G::default().start("ttnn.add").start("BinaryNgDeviceOperation").aborted("BinaryNgDeviceOperation").0.into();
    assert_eq!(memory_at_failure(&i), None);
}

#[test]
fn bad_rows_are_set_aside_with_a_note() {
    let mut i = inputs(l1_failure(2000, 0, 0, 0), G::default().start("ttnn.add"));
    i.own_snapshot = vec![
        row(0, BufferType::L1, 9000, 1000),
        SnapshotRow { address: None, ..row(0, BufferType::L1, 0, 100) },
        row(0, BufferType::L1, -64, 100),
        row(0, BufferType::L1, 0, 100),
        row(0, BufferType::L1, 5000, 0),
        SnapshotRow { size_per_bank: None, ..row(0, BufferType::L1, 5000, 0) },
    ]
    .into();
    let m = memory_at_failure(&i).unwrap();
    assert_eq!(addresses(&m), [(9000, 1000)]);
    assert_eq!(m.notes, [MemoryNote::BadBuffers { count: 5, source: "buffers rows" }]);
}

/// ttnn 0.81 (docs/rules/memory.md §1): N's output is allocated, the next allocation throws inside
/// `create_device_tensor`, and the output is freed inside a `Tensor::deallocate` scope before
/// the aborted end of the device operation.
fn deallocate_scope_graph() -> G {
    G::default()
        .start("ttnn.add")
        .start("BinaryNgDeviceOperation")
        .alloc(0, BufferType::L1, 8000, 500)
        .tensor(77)
        .start("tt::tt_metal::create_device_tensor")
        .aborted("tt::tt_metal::create_device_tensor")
        .start("Tensor::deallocate")
        .tensor(77)
        .free(0, BufferType::L1, 8000, 500)
        .end("Tensor::deallocate")
        .aborted("BinaryNgDeviceOperation")
        .aborted("ttnn.add")
        .capture_end()
}

#[test]
fn the_failure_point_skips_whole_tensor_deallocate_scopes() {
    let g = deallocate_scope_graph();
    // F is the start of create_device_tensor; the scope's free is part of the unwinding.
    assert_eq!(graph_walk::failure_point(&g.0), Some(5));
    assert!(crate::analysis::memory::failure::live::unwinds(&g.0));
    let mut i = inputs(l1_failure(2000, 0, 0, 0), g);
    i.earlier_snapshot = earlier(9, &[(BufferType::L1, 9500, 400)]);
    let m = memory_at_failure(&i).unwrap();
    assert_eq!(m.basis, Basis::EarlierSnapshotAndGraph);
    assert_eq!(addresses(&m), [(8000, 500), (9500, 400)]);
    let own = m.live_buffers.iter().find(|b| b.address == 8000).unwrap();
    assert!(own.is_this_operation());
    assert_eq!((own.tensor_id, own.device_operation.as_deref()), (Some(77), Some("BinaryNgDeviceOperation")));
    // A scope end without its start skips only itself.
    let lone = G::default().start("ttnn.add").alloc(0, BufferType::L1, 8000, 500).end("Tensor::deallocate");
    assert_eq!(graph_walk::failure_point(&lone.0), Some(2));
}

#[test]
fn after_failure_snapshot_keeps_n_s_buffers_the_writer_never_freed() {
    // N allocated 8000 before F; the writer recorded no free for it while unwinding, and its
    // snapshot (after the unwinding) no longer has it: it was live at F all the same.
    let g = G::default()
        .start("ttnn.add")
        .start("BinaryNgDeviceOperation")
        .alloc(0, BufferType::L1, 8000, 500)
        .tensor(77)
        .alloc(0, BufferType::L1, 7000, 300)
        .free(0, BufferType::L1, 7000, 300)
        .start("tt::tt_metal::create_device_tensor")
        .aborted("tt::tt_metal::create_device_tensor")
        .aborted("BinaryNgDeviceOperation")
        .aborted("ttnn.add")
        .capture_end();
    let mut i = inputs(l1_failure(2000, 0, 0, 0), g);
    i.own_snapshot = vec![row(0, BufferType::L1, 9500, 400)].into();
    let m = memory_at_failure(&i).unwrap();
    assert_eq!(m.basis, Basis::AfterFailureSnapshot);
    // 7000 was freed before F: not live.
    assert_eq!(addresses(&m), [(8000, 500), (9500, 400)]);
    let own: Vec<u64> = m.live_buffers.iter().filter(|b| b.is_this_operation()).map(|b| b.address).collect();
    assert_eq!(own, [8000]);
    assert!(m.notes.is_empty());
}
