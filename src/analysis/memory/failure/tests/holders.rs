//! docs/rules/memory.md §4: who holds each buffer.

use super::*;

/// Operation 10 fails; S0 (operation 9) holds 9000 and 8000 in L1 and 9000 in DRAM.
fn holders_case(tensors: Vec<TensorFacts>) -> MemoryAtFailure {
    let g = G::default()
        .start("ttnn.matmul")
        .start("MatmulDeviceOperation")
        .alloc(0, BufferType::L1, 7000, 300)
        .tensor(55)
        .alloc(0, BufferType::L1, 6000, 200)
        .aborted("MatmulDeviceOperation")
        .aborted("ttnn.matmul");
    let mut i = inputs(l1_failure(2000, 0, 0, 0), g);
    i.input_tensor_ids = vec![3];
    i.earlier_snapshot =
        earlier(9, &[(BufferType::L1, 9000, 1000), (BufferType::L1, 8000, 500), (BufferType::Dram, 9000, 64)]);
    i.tensors = tensors;
    memory_at_failure(&i).unwrap()
}

fn at(m: &MemoryAtFailure, address: u64) -> &LiveBuffer {
    m.live_buffers.iter().find(|b| b.address == address).unwrap()
}

#[test]
fn the_most_recent_tenant_of_an_address_holds_it() {
    let m = holders_case(vec![
        // Old tenant of 9000, first seen at 2.
        tensor(1, 9000, &[(2, "ttnn.add", true), (8, "ttnn.relu", false)]),
        // The newer tenant: first seen at 5.
        tensor(2, 9000, &[(5, "ttnn.matmul", true), (6, "ttnn.softmax", false), (12, "ttnn.add", false)]),
        // Never seen by an operation ≤ 10: dropped.
        tensor(4, 9000, &[(11, "ttnn.add", true)]),
        // A DRAM tensor at the same address: another address space.
        TensorFacts { buffer_type: Some(BufferType::Dram), ..tensor(6, 9000, &[(9, "ttnn.add", true)]) },
    ]);
    let b = at(&m, 9000);
    assert_eq!(b.tensor_id, Some(2));
    assert_eq!((b.producer_operation_id, b.producer_operation_name.as_deref()), (Some(5), Some("ttnn.matmul")));
    // The last use before N (12 is after).
    assert_eq!(b.last_use_operation_id, Some(6));
    assert!(b.stale && !b.input_of_operation);
    assert_eq!((b.shape.as_deref(), b.dtype.as_deref()), (Some("Shape([2])"), Some("DataType::BFLOAT16")));
}

#[test]
fn ties_go_to_the_greatest_tensor_id_and_deallocated_tenants_are_dropped() {
    let m = holders_case(vec![
        tensor(20, 9000, &[(4, "ttnn.add", true)]),
        tensor(21, 9000, &[(4, "ttnn.mul", true)]),
        // Freed by ttnn.deallocate before N: whatever sits there now is another buffer.
        tensor(30, 8000, &[(7, "ttnn.add", true), (8, "ttnn.deallocate", false)]),
        tensor(31, 8000, &[(3, "ttnn.add", true), (9, "ttnn::deallocate", false), (9, "ttnn.relu", false)]),
    ]);
    assert_eq!(at(&m, 9000).tensor_id, Some(21));
    let b = at(&m, 8000);
    assert_eq!(b.tensor_id, None);
    assert_eq!((b.producer_operation_id, b.last_use_operation_id, b.stale), (None, None, false));
}

#[test]
fn a_tensor_found_through_device_tensors_and_an_untyped_one() {
    let on_two = TensorFacts {
        device_id: Some(1),
        address: Some(1),
        device_addresses: vec![(1, 1), (0, 9000)],
        ..tensor(40, 1, &[(2, "ttnn.add", true)])
    };
    let untyped = TensorFacts { buffer_type: None, ..tensor(41, 8000, &[(3, "ttnn.add", true)]) };
    let m = holders_case(vec![on_two, untyped]);
    assert_eq!(at(&m, 9000).tensor_id, Some(40));
    assert_eq!(at(&m, 8000).tensor_id, Some(41));
}

#[test]
fn the_operation_s_buffers_are_named_by_its_graph_never_by_address() {
    let m = holders_case(vec![
        tensor(55, 1, &[]),
        // A tensor freed long ago at 6000: not the holder of the operation's buffer there.
        tensor(60, 6000, &[(1, "ttnn.add", true)]),
    ]);
    let b = at(&m, 7000);
    assert_eq!((b.origin, b.tensor_id), (Some(Origin::ThisOperation), Some(55)));
    assert_eq!(b.device_operation.as_deref(), Some("MatmulDeviceOperation"));
    let b = at(&m, 6000);
    assert_eq!((b.origin, b.tensor_id), (Some(Origin::ThisOperation), None));
    assert_eq!(at(&m, 9000).origin, Some(Origin::Earlier));
    assert_eq!(at(&m, 9000).device_operation, None);
}

#[test]
fn inputs_are_never_stale_and_the_last_use_skips_deallocations() {
    let m = holders_case(vec![
        tensor(3, 9000, &[(1, "ttnn.from_torch", true), (4, "ttnn.add", false), (10, "ttnn.matmul", false)]),
        tensor(8, 8000, &[(6, "ttnn.deallocate", false), (2, "ttnn.add", false)]),
    ]);
    let b = at(&m, 9000);
    assert!(b.input_of_operation && !b.stale);
    assert_eq!(b.last_use_operation_id, Some(4));
    // Only ever an input: no producer. Its deallocation at 6 dropped it as a tenant.
    assert_eq!(at(&m, 8000).tensor_id, None);
}

#[test]
fn live_buffers_are_listed_biggest_first_then_by_address() {
    let m = holders_case(Vec::new());
    let order: Vec<u64> = m.live_buffers.iter().map(|b| b.address).collect();
    assert_eq!(order, [9000, 8000, 7000, 6000]);
}

#[test]
fn a_tensor_found_at_a_place_matters_only_if_seen_by_the_operation_and_not_freed_before_it() {
    use crate::analysis::memory::failure::holders::may_matter_at;
    // Seen by operation 10 or before, never freed: a possible tenant.
    assert!(may_matter_at(10, Some(10), None, false));
    assert!(may_matter_at(10, Some(3), Some(10), false));
    // First seen after it, or never linked: it cannot hold memory at 10.
    assert!(!may_matter_at(10, Some(11), None, false));
    assert!(!may_matter_at(10, None, None, true));
    // Freed before 10: kept only as one of several outputs of its producer, which its graph may tie.
    assert!(!may_matter_at(10, Some(3), Some(9), false));
    assert!(may_matter_at(10, Some(3), Some(9), true));
}
