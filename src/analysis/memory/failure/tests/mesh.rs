//! docs/rules/memory.md §2 "Mesh ids": a single chip opened as a mesh (ttnn 0.81) names the chip 0 in some
//! records and the mesh 1 in others; the device with `buffers` rows is the one read.

use super::*;

/// ttnn 0.81's L1 failure before any program compiled: `devices` has one row (0), `buffers`
/// rows say 0, graph buffer nodes say 1 (the mesh).
fn l1_on_the_mesh() -> FailureInputs {
    let g = G::default()
        .start("ttnn.add")
        .start("BinaryNgDeviceOperation")
        .alloc(1, BufferType::L1, 8000, 500)
        .tensor(77)
        .start("tt::tt_metal::create_device_tensor")
        .aborted("tt::tt_metal::create_device_tensor")
        .start("Tensor::deallocate")
        .free(1, BufferType::L1, 8000, 500)
        .end("Tensor::deallocate")
        .aborted("BinaryNgDeviceOperation")
        .aborted("ttnn.add")
        .capture_end();
    let mut i = inputs(l1_failure(2000, 900, 8100, 7000), g);
    i.earlier_snapshot = Some(EarlierSnapshot { operation_id: 9, rows: vec![row(0, BufferType::L1, 9600, 400)] });
    i.devices_with_rows = vec![0];
    i
}

#[test]
fn the_graph_s_mesh_id_is_read_as_the_device_with_rows() {
    let i = l1_on_the_mesh();
    assert_eq!(found_place(&i), Some((1, BufferType::L1)));
    assert_eq!(failure_place(&i), Some((0, BufferType::L1)));
    let m = memory_at_failure(&i).unwrap();
    assert_eq!((m.device_id, m.basis), (0, Basis::EarlierSnapshotAndGraph));
    // N's output, allocated on "device 1" and freed while unwinding, is device 0's.
    assert_eq!(addresses(&m), [(8000, 500), (9600, 400)]);
    assert!(m.live_buffers.iter().find(|b| b.address == 8000).unwrap().is_this_operation());
    assert_eq!(m.check.status, CheckStatus::Exact);
    // A single chip is one device to the user (issue 30 §4.5): no note, named device 0.
    assert_eq!((m.notes.as_slice(), m.named_device()), (&[][..], 0));
    assert_eq!(
        MemoryNote::MeshDevice { found: 1, chosen: 0 }.text(false),
        "device 1 has no buffers rows up to this operation; read as device 0, the only device that has them (a single chip opened as a mesh)"
    );
    assert_eq!(live_addresses(&i).len(), 2);
}

#[test]
fn a_circular_buffer_clash_reads_the_mesh_s_rows() {
    // After a program compiled: `devices` rows 0 and 1, `buffers` rows say 1, circular-buffer
    // nodes say 0.
    let failure = parse_allocation_failure(
        "Statically allocated circular buffers in program 3 clash with L1 buffers on core range [0-0 - 7-7]. L1 buffer allocated at 9000 and static circular buffer region ends at 9500",
    );
    let g = G::default().start("ttnn.softmax").start("SoftmaxDeviceOperation").cb_reset().cb(0, 1000, 8500);
    let mut i = inputs(failure.unwrap(), g);
    i.devices = vec![device(0), device(1)];
    i.own_snapshot = vec![row(1, BufferType::L1, 9000, 1000)].into();
    let m = memory_at_failure(&i).unwrap();
    assert_eq!((m.device_id, m.basis), (1, Basis::AfterFailureSnapshot));
    let clash = m.circular_buffers.clone().unwrap();
    assert_eq!((clash.clashing, clash.circular_buffers.len()), (vec![9000], 1));
    // The tables' id 1 stays the JSON's; text names the single chip device 0, without a note.
    assert_eq!((m.notes.as_slice(), m.named_device()), (&[][..], 0));
    assert!(basis_sentence(&m, false).contains("1 live L1 buffer on device 0 holds"), "{}", basis_sentence(&m, false));
}

/// Two `devices` rows of different chips: the mesh-id rule still reads the device with rows,
/// and says so, naming each by the tables' id.
#[test]
fn two_chips_keep_the_note_and_their_ids() {
    let mut i = l1_on_the_mesh();
    let mut other = device(1);
    other.l1_bank_size = 4000;
    i.devices = vec![device(0), other];
    let m = memory_at_failure(&i).unwrap();
    assert_eq!((m.device_id, m.named_device()), (0, 0));
    assert_eq!(m.notes, [MemoryNote::MeshDevice { found: 1, chosen: 0 }]);
    i.own_snapshot = vec![row(1, BufferType::L1, 9600, 400)].into();
    i.earlier_snapshot = None;
    i.devices_with_rows = vec![1];
    i.devices = vec![device(0), device(1), device(2)];
    let m = memory_at_failure(&i).unwrap();
    assert_eq!((m.device_id, m.named_device()), (1, 1));
}

#[test]
fn no_other_reading_without_exactly_one_other_device_with_rows() {
    let mut i = l1_on_the_mesh();
    // The device found has rows of its own: it stays.
    i.devices_with_rows = vec![0, 1];
    assert_eq!(failure_place(&i), Some((1, BufferType::L1)));
    // Two other devices have rows: which one is not known.
    i.devices_with_rows = vec![0, 2];
    assert_eq!(failure_place(&i), Some((1, BufferType::L1)));
    // None has: nothing to read instead.
    i.devices_with_rows.clear();
    assert_eq!(failure_place(&i), Some((1, BufferType::L1)));
    assert!(memory_at_failure(&i).unwrap().notes.is_empty());
}

#[test]
fn an_operation_s_picture_reads_its_graph_on_the_mesh_as_the_snapshot_s_device() {
    let g = G::default().start("ttnn.add").start("BinaryNgDeviceOperation").alloc(1, BufferType::L1, 8000, 500);
    let g = g.tensor(77).end("BinaryNgDeviceOperation").end("ttnn.add").capture_end();
    let inputs = OperationInputs {
        operation_id: 4,
        graph: g.0,
        snapshot: vec![row(0, BufferType::L1, 8000, 500), row(0, BufferType::L1, 9500, 400)],
        devices: vec![device(0)],
        ..OperationInputs::default()
    };
    let m = operation_memory(&inputs, None).unwrap();
    let own: Vec<(u64, Option<u64>)> =
        m.live_buffers.iter().filter(|b| b.is_this_operation()).map(|b| (b.address, b.tensor_id)).collect();
    assert_eq!(own, [(8000, Some(77))]);
    assert_eq!((m.notes.as_slice(), m.named_device()), (&[][..], 0));
}

#[test]
fn a_tensor_recorded_on_the_device_found_holds_the_chosen_device_s_buffer() {
    // The earlier snapshot's buffer at 9600 is on device 0; the tensor at that address is
    // recorded only in `device_tensors`, on the mesh id 1 the graph names.
    let mut i = l1_on_the_mesh();
    let mut t = tensor(55, 0, &[(3, "ttnn.relu", true)]);
    (t.device_id, t.address, t.device_addresses) = (None, None, vec![(1, 9600)]);
    i.tensors = vec![t];
    assert_eq!(place_devices(&i), [0, 1], "the tensors of both devices are looked up");
    let m = memory_at_failure(&i).unwrap();
    let held = m.live_buffers.iter().find(|b| b.address == 9600).unwrap();
    assert_eq!((held.tensor_id, held.producer_operation_id), (Some(55), Some(3)));
}

#[test]
fn the_over_time_mark_is_the_failure_s_place_after_the_mesh_id_rule() {
    let i = l1_on_the_mesh();
    assert_eq!(failure_mark_place(&i), (Some(0), Some(BufferType::L1)));
    // A circular buffer larger than its L1 buffer has no memory section: marked on L1 of the
    // device the graph names, read as the device with rows.
    let mut larger = i.clone();
    larger.failure = parse_allocation_failure(crate::analysis::messages::messages_r::G01);
    assert_eq!(failure_place(&larger), None);
    assert_eq!(failure_mark_place(&larger), (Some(0), Some(BufferType::L1)));
    // An error that is no allocation failure: the device only.
    let mut other = i;
    other.failure = None;
    assert_eq!(failure_mark_place(&other), (Some(0), None));
    other.graph = Default::default();
    other.devices = vec![device(0), device(1)];
    assert_eq!(failure_mark_place(&other), (None, None), "nothing names a device");
}
