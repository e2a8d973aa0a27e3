//! docs/rules/memory.md §2: the failure's buffer type, device and region.

use super::*;

#[test]
fn buffer_type_is_the_message_s_and_l1_for_circular_buffers() {
    let mut i = inputs(v2_failure("DRAM", 100, 1000), G::default());
    assert_eq!(failure_place(&i), Some((0, BufferType::Dram)));
    i.failure = Some(v2_failure("L1_SMALL", 100, 1000));
    assert_eq!(failure_place(&i), Some((0, BufferType::L1Small)));
    i.failure = parse_allocation_failure(
        "Statically allocated circular buffers in program 3 clash with L1 buffers on core range [0-0 - 1-1]. L1 buffer allocated at 5000 and static circular buffer region ends at 6000",
    );
    assert_eq!(failure_place(&i), Some((0, BufferType::L1)));
    // TRACE, SYSTEM_MEMORY and unknown tokens have no memory section.
    for token in ["TRACE", "SYSTEM_MEMORY", "Banana"] {
        i.failure = Some(v2_failure(token, 100, 1000));
        assert_eq!(failure_place(&i), None, "{token}");
        assert_eq!(memory_at_failure(&i), None, "{token}");
    }
}

#[test]
fn device_from_the_last_allocation_at_or_before_the_failure_point() {
    let graph = G::default()
        .start("ttnn.add")
        .alloc(1, BufferType::L1, 5000, 100)
        .cb(2, 1000, 100)
        .start("BinaryNgDeviceOperation")
        .aborted("BinaryNgDeviceOperation")
        .free(3, BufferType::L1, 5000, 100)
        .aborted("ttnn.add")
        .capture_end();
    let mut i = inputs(l1_failure(100, 0, 0, 0), graph);
    i.devices = vec![device(0), device(1), device(2), device(3)];
    // F is the start of BinaryNgDeviceOperation; the circular buffer on device 2 is the last
    // allocation before it; the free on device 3 is part of the unwinding.
    assert_eq!(failure_place(&i), Some((2, BufferType::L1)));
}

#[test]
fn device_from_the_first_input_then_the_only_device_then_zero() {
    let graph = G::default().start("ttnn.add").start("BinaryNgDeviceOperation");
    let mut i = inputs(l1_failure(100, 0, 0, 0), graph);
    i.input_tensor_ids = vec![7, 8];
    i.tensors = vec![
        TensorFacts { tensor_id: 8, device_id: Some(5), ..TensorFacts::default() },
        TensorFacts { tensor_id: 7, device_id: Some(4), ..TensorFacts::default() },
    ];
    assert_eq!(failure_place(&i).unwrap().0, 4);
    i.tensors.clear();
    i.devices = vec![device(6)];
    assert_eq!(failure_place(&i).unwrap().0, 6);
    i.devices = vec![device(6), device(9)];
    assert_eq!(failure_place(&i).unwrap().0, 0);
}

#[test]
fn regions_from_devices_and_the_message() {
    let d = device(0);
    let l1 = place::region(BufferType::L1, Some(&d), Some(1), Some(5));
    assert_eq!((l1.start, l1.end, l1.source), (Some(1000), Some(10000), Some(RegionSource::Devices)));
    let small = place::region(BufferType::L1Small, Some(&d), None, None);
    assert_eq!((small.start, small.end), (Some(10000), Some(12000)));
    // DRAM: from the base when one is recorded, else from 0.
    let dram = place::region(BufferType::Dram, Some(&d), Some(1 << 30), None);
    assert_eq!((dram.start, dram.end, dram.source), (Some(0), Some(1 << 30), Some(RegionSource::Message)));
    let based = place::region(BufferType::Dram, None, Some(1 << 30), Some(1_048_640));
    assert_eq!((based.start, based.end), (Some(1_048_640), Some(1_048_640 + (1 << 30))));
    assert_eq!(place::region(BufferType::Dram, Some(&d), None, Some(64)), Region::default());
    assert_eq!(place::region(BufferType::L1, None, Some(1), None), Region::default());
    // An era without address_at_first_l1_cb_buffer: unknown.
    let old = DeviceFacts { l1_start: None, ..device(0) };
    assert_eq!(place::region(BufferType::L1, Some(&old), None, None), Region::default());
    assert_eq!(place::region(BufferType::L1Small, Some(&old), None, None), Region::default());
}

#[test]
fn without_a_region_there_are_no_free_blocks_no_check_and_no_fit() {
    let mut i = inputs(l1_failure(500, 300, 8700, 8700), G::default().start("ttnn.add"));
    i.devices.clear();
    i.own_snapshot = vec![row(0, BufferType::L1, 9000, 300)].into();
    let m = memory_at_failure(&i).unwrap();
    assert_eq!((m.map.region, m.map.largest_free_block, m.map.free_blocks.len()), (Region::default(), None, 0));
    assert_eq!(m.map.used_per_bank, 300);
    assert_eq!(m.check.status, CheckStatus::Unchecked);
    assert_eq!(m.fit, Err(NoFit::RegionUnknown));
}

#[test]
fn graph_sizes_per_bank() {
    let node = |per_bank: Option<u64>, size: Option<u64>, cores: Option<u64>| GraphBuffer {
        max_size_per_bank: per_bank,
        size,
        num_cores: cores,
        address: 64,
        ..GraphBuffer::default()
    };
    // max_size_per_bank wins; else the size over the cores of a sharded buffer; else over the
    // banks given.
    assert_eq!(node(Some(2048), Some(1), Some(3)).per_bank(12), Some(2048));
    assert_eq!(node(None, Some(1000), Some(3)).per_bank(12), Some(334));
    assert_eq!(node(None, Some(1000), Some(0)).per_bank(12), Some(84));
    assert_eq!(node(None, None, None).per_bank(12), None);
    assert_eq!(node(Some(0), None, None).per_bank(12), None);
    // L1_SMALL padded as the allocator pads it (32 B); the others as recorded.
    let typed =
        |buffer_type, per_bank| GraphBuffer { buffer_type: Some(buffer_type), ..node(Some(per_bank), None, None) };
    assert_eq!(typed(BufferType::L1Small, 368).per_bank(12), Some(384));
    assert_eq!(typed(BufferType::L1Small, 4).per_bank(12), Some(32));
    assert_eq!(typed(BufferType::L1, 304).per_bank(12), Some(304));
    assert_eq!(typed(BufferType::L1, 2048).per_bank(12), Some(2048));
    assert_eq!(typed(BufferType::Dram, 1000).per_bank(12), Some(1000));
    let row = |buffer_type, size| SnapshotRow {
        address: Some(1497152),
        size_per_bank: Some(size),
        buffer_type: Some(buffer_type),
        ..SnapshotRow::default()
    };
    assert_eq!(row(BufferType::L1Small, 304).valid(), Some((1497152, 320)));
    assert_eq!(row(BufferType::Dram, 1088).valid(), Some((1497152, 1088)));
    // The banks: the message's count, else the device's L1 banks (L1, L1_SMALL), else 12.
    let d = device(0);
    assert_eq!(place::default_banks(BufferType::L1, Some(48), Some(&d)), 48);
    assert_eq!(place::default_banks(BufferType::L1Small, None, Some(&d)), 10);
    assert_eq!(place::default_banks(BufferType::Dram, None, Some(&d)), 12);
    assert_eq!(place::default_banks(BufferType::L1, None, None), 1);
}

/// What ttnn 0.81 writes for a DRAM failure on a Wormhole (docs/rules/memory.md §1): DRAM placed bottom-up
/// from 1048640, five buffers of 178958336 B per bank, bank size 1072693184 B.
fn dram_inputs(rows: &[i64]) -> FailureInputs {
    let failure = parse_allocation_failure(
        "Out of Memory: Not enough space to allocate 2147483648 B DRAM buffer across 12 banks, where each bank needs to store 178958336 B, but bank size is 1072693184 B (allocated: 894791680 B, free: 177901504 B, largest free block: 177901504 B)",
    )
    .unwrap();
    let rows: Vec<(BufferType, i64, i64)> = rows.iter().map(|&a| (BufferType::Dram, a, 178_958_336)).collect();
    FailureInputs { earlier_snapshot: earlier(5, &rows), ..inputs(failure, G::default()) }
}

#[test]
fn the_dram_region_starts_at_the_lowest_dram_address_recorded() {
    let at = |k: i64| 1_048_640 + k * 178_958_336;
    let m = memory_at_failure(&dram_inputs(&[at(0), at(1), at(2), at(3), at(4)])).unwrap();
    assert_eq!(m.map.region.bounds(), Some((1_048_640, 1_073_741_824)));
    // No invented free block below the base: the one block is the allocator's.
    let blocks: Vec<(u64, u64)> = m.map.free_blocks.iter().map(|b| (b.address, b.size)).collect();
    assert_eq!(blocks, [(895_840_320, 177_901_504)]);
    assert_eq!((m.map.used_per_bank, m.check.status), (894_791_680, CheckStatus::Exact));
    // The first buffer freed since: the report's look over `buffers` still knows the base.
    let mut i = dram_inputs(&[at(1), at(2), at(3), at(4)]);
    assert_eq!(memory_at_failure(&i).unwrap().map.region.start, Some(at(1) as u64));
    i.lowest_dram_address = Some(1_048_640);
    assert_eq!(memory_at_failure(&i).unwrap().map.region.bounds(), Some((1_048_640, 1_073_741_824)));
    // A graph allocation counts too; nothing recorded: from 0.
    i.lowest_dram_address = None;
    i.graph = G::default().start("ttnn.empty").alloc(0, BufferType::Dram, 2_000_000, 64).0.into();
    assert_eq!(memory_at_failure(&i).unwrap().map.region.start, Some(2_000_000));
    let none = memory_at_failure(&dram_inputs(&[])).unwrap();
    assert_eq!(none.map.region.bounds(), Some((0, 1_072_693_184)));
}

#[test]
fn a_region_of_size_0_is_known_and_checked() {
    // A device opened without l1_small_size: L1_SMALL is [A+B, W) with W = A+B.
    let failure = parse_allocation_failure(
        "Out of Memory: Not enough space to allocate 2048 B L1_SMALL buffer across 1 banks, where each bank needs to store 2048 B, but bank size is 0 B (allocated: 0 B, free: 0 B, largest free block: 0 B)",
    )
    .unwrap();
    let mut i = inputs(failure, G::default().start("ttnn.conv2d"));
    i.devices = vec![DeviceFacts { worker_l1_size: 10_000, ..device(0) }];
    i.own_snapshot = vec![row(0, BufferType::L1, 9000, 1000)].into();
    let m = memory_at_failure(&i).unwrap();
    assert_eq!((m.buffer_type, m.map.region.bounds()), (BufferType::L1Small, Some((10_000, 10_000))));
    assert_eq!((m.map.free_blocks.len(), m.map.largest_free_block), (0, Some(0)));
    assert_eq!(m.check.status, CheckStatus::Exact);
    assert_eq!(m.fit, Err(NoFit::LargerThanRegion { size: 0 }));
}

/// Issue 27 §2: conv2d allocates its config tensors in L1_SMALL inside the failing operation and
/// keeps them after the exception; a graph that labels them by the `type` string alone says
/// `"type": "L1"`. Inside the L1_SMALL region `[A+B, W)` they are L1_SMALL: the failing
/// operation's own (`this_operation`), not earlier holders; an `L1` node below it stays L1.
#[test]
fn l1_small_allocations_labelled_l1_are_told_by_their_address_and_are_this_operation_s() {
    let typed_l1 = |g: G, address: u64| {
        g.push(NodeType::Buffer, |_| {}).push(NodeType::BufferAllocate, |n| {
            n.device_id = Some(0);
            n.buffer_type = Some(BufferType::L1);
            n.buffer_type_code = false;
            n.address = Some(address);
            n.max_size_per_bank = Some(368);
        })
    };
    let graph = typed_l1(typed_l1(G::default().start("Conv2dDeviceOperation"), 11616), 5000)
        .aborted("Conv2dDeviceOperation")
        .capture_end();
    let mut i = inputs(v2_failure("L1_SMALL", 400, 2000), graph);
    i.own_snapshot = vec![row(0, BufferType::L1Small, 11616, 368), row(0, BufferType::L1, 5000, 368)].into();
    let m = memory_at_failure(&i).unwrap();
    assert_eq!(m.buffer_type, BufferType::L1Small);
    let b = &m.live_buffers[0];
    assert_eq!((m.live_buffers.len(), b.address, b.size_per_bank), (1, 11616, 384));
    assert_eq!((b.origin, b.device_operation.as_deref()), (Some(Origin::ThisOperation), Some("Conv2dDeviceOperation")));
    let retyped = l1_small_by_address(&i.graph, &i.devices);
    let types: Vec<_> =
        retyped.iter().filter(|n| n.is(NodeType::BufferAllocate)).map(|n| (n.address(), n.buffer_type())).collect();
    assert_eq!(types, [(Some(11616), Some(BufferType::L1Small)), (Some(5000), Some(BufferType::L1))]);
}
