//! The late-tensor rules on small hand-built passes (the simulation checks them end to end).

use super::*;
use crate::analysis::memory::usage::MemoryUsage;
use crate::analysis::memory::{TensorFacts, TensorUse};
use crate::analysis::messages::failure::BufferType;
use BufferType::L1;

fn used(operation_id: u64, name: &str, output: bool) -> TensorUse {
    TensorUse { operation_id, operation_name: name.into(), output }
}

fn tensor(id: u64, address: u64, uses: Vec<TensorUse>) -> TensorFacts {
    TensorFacts {
        tensor_id: id,
        device_id: Some(0),
        address: Some(address),
        buffer_type: Some(L1),
        shape: Some("Shape([1, 1, 32, 64])".into()),
        uses,
        ..TensorFacts::default()
    }
}

/// Snapshots of device 0: per operation, the (address, size) of its L1 buffers.
fn pass(snapshots: &[(u64, &[(u64, u64)])]) -> MemoryUsage {
    let mut usage = MemoryUsage::with_runs();
    for &(op, buffers) in snapshots {
        for &(address, size) in buffers {
            usage.add(op, 0, Some(L1), (Some(address as i64), Some(size as i64)));
        }
    }
    usage.flush();
    usage
}

#[test]
fn a_tensor_kept_after_its_last_reader_until_a_deallocate_is_late_over_that_span() {
    // Tensor 1 (at 1000, 64 B) produced by 1, read by 2, freed by the deallocate at 5.
    // Tensor 2 (at 2000, 32 B) produced by 2, read by 3 and freed by it.
    let usage = pass(&[(1, &[(1000, 64)]), (2, &[(1000, 64), (2000, 32)]), (3, &[(1000, 64)]), (4, &[(1000, 64)])]);
    let tensors = [
        tensor(
            1,
            1000,
            vec![used(1, "ttnn.add", true), used(2, "ttnn.matmul", false), used(5, "ttnn.deallocate", false)],
        ),
        tensor(2, 2000, vec![used(2, "ttnn.matmul", true), used(3, "ttnn.relu", false)]),
    ];
    let found = find_late(&usage, &tensors, &[], 4);
    assert_eq!(found.late.len(), 1);
    let t = &found.late[0];
    assert_eq!((t.tensor_id, t.last_use_operation_id, t.held_until_operation_id), (1, 2, 4));
    assert_eq!((t.producer_operation_id, t.last_use_operation_name.as_str()), (Some(1), "ttnn.matmul"));
    // The peak (96 B at 2) is not in the span 3..=4: no saving.
    assert_eq!(t.peak_saving_per_bank, 0);
    assert_eq!(
        found.summary,
        vec![LateSummary {
            device_id: 0,
            buffer_type: L1,
            peak_per_bank: 96,
            peak_if_all_freed_per_bank: 96,
            count: 1
        }]
    );
    assert_eq!(
        suggestion(t),
        "ttnn.deallocate(…) after operation 2 — tensor 1 (64 B per bank, [1, 1, 32, 64]) is last used by operation 2 ttnn.matmul and held until operation 4; freeing it there does not lower the L1 peak."
    );
    assert_eq!(late_heading(&found.summary[0]), "freeing the one at its last use leaves the peak at 96 B");
    assert_eq!(late_row(t), "L1 peak unchanged · tensor 1, 64 B per bank · free after operation 2");
}

#[test]
fn a_buffer_live_at_the_end_is_held_until_the_first_error_after_it() {
    let usage = pass(&[(1, &[(1000, 64)]), (2, &[(1000, 64), (3000, 128)]), (3, &[(1000, 64), (3000, 128)])]);
    let tensors = [
        tensor(1, 1000, vec![used(1, "ttnn.add", false)]),
        tensor(3, 3000, vec![used(2, "ttnn.relu", true), used(4, "ttnn.matmul", false)]),
    ];
    let mut found = find_late(&usage, &tensors, &[4, 9], 9);
    assert_eq!(found.late.len(), 1, "tensor 3 is read by the failed operation 4: not late");
    let t = &mut found.late[0];
    assert_eq!((t.tensor_id, t.last_use_operation_id, t.held_until_operation_id), (1, 1, 4));
    // The peak (192 B at 2 and 3) drops by 64 B when tensor 1 goes after operation 1.
    assert_eq!(t.peak_saving_per_bank, 64);
    t.source = Some("block.py:139".into());
    assert_eq!(
        suggestion(t),
        "ttnn.deallocate(…) after block.py:139 — tensor 1 (64 B per bank, [1, 1, 32, 64]) is last used by operation 1 ttnn.add and held until operation 4; freeing it there lowers the L1 peak by 64 B."
    );
    assert_eq!(late_heading(&found.summary[0]), "freeing the one at its last use lowers the peak from 192 B to 128 B");
    assert_eq!(late_row(t), "L1 peak −64 B · tensor 1, 64 B per bank · free after block.py:139");
}

#[test]
fn a_buffer_no_tensor_names_or_never_read_is_not_late() {
    let usage = pass(&[(1, &[(1000, 64), (2000, 64)]), (2, &[(1000, 64), (2000, 64)])]);
    let tensors = [tensor(5, 2000, vec![used(1, "ttnn.add", true)])];
    let found = find_late(&usage, &tensors, &[], 4);
    assert!(found.late.is_empty());
    assert_eq!(late_heading(&found.summary[0]), "no tensor is held past its last use");
}

#[test]
fn usage_without_runs_finds_nothing() {
    let mut usage = MemoryUsage::default();
    usage.add(1, 0, Some(L1), (Some(64), Some(64)));
    usage.flush();
    assert_eq!(find_late(&usage, &[], &[], 1), LateFindings::default());
}

/// `free-late` frees before a failure the late tensors of its buffer type on a device it is named
/// by, last used before it: not a later one, not another type, not another chip.
#[test]
fn the_tensors_free_late_frees_before_a_failure() {
    let tensor = |device_id, buffer_type, last_use| LateTensor {
        device_id,
        buffer_type,
        address: 1024,
        size_per_bank: 2048,
        tensor_id: last_use,
        shape: None,
        producer_operation_id: None,
        last_use_operation_id: last_use,
        last_use_operation_name: "ttnn.add".into(),
        held_until_operation_id: 9,
        source: None,
        peak_saving_per_bank: 0,
    };
    let late = [
        tensor(0, BufferType::L1, 3),
        tensor(1, BufferType::L1, 4),
        tensor(0, BufferType::L1, 9),
        tensor(0, BufferType::Dram, 2),
        tensor(2, BufferType::L1, 1),
    ];
    let f = LateAtFailure {
        operation_id: 9,
        device_id: 0,
        buffer_type: BufferType::L1,
        needed_per_bank: 4096,
        held: 2,
        freed: 0,
        answer: None,
    };
    // Device 0 named by 0 and 1 (one chip opened as a mesh): the tensors of 3 and 4.
    let findings = LateFindings { late: late.to_vec(), ..LateFindings::default() };
    assert_eq!(findings.freed_before(&f, |d| d <= 1), 2);
    assert_eq!(findings.freed_before(&f, |d| d == 0), 1);
}
