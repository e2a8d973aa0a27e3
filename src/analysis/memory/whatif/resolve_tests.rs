//! The fixes resolved against plain records, no SQLite: a failure of operation 10 (`ttnn.matmul`)
//! on device 0 with two live L1 tensors — 81, made by operation 4 and last read by 6, and 3, the
//! operation's input.

use super::resolve::{FixFacts, Resolved, buffers_to_check, resolve, tensors_named};
use super::*;
use crate::analysis::memory::late::{LateFindings, LateTensor};
use crate::analysis::memory::{
    DeviceFacts, FailureInputs, MemoryAtFailure, SnapshotRow, TensorFacts, TensorUse, memory_at_failure,
};
use crate::analysis::messages::failure::{BufferType, parse_allocation_failure};
use crate::analysis::model::Operation;

const L1: BufferType = BufferType::L1;

fn operations() -> Vec<Operation> {
    (1..=10)
        .map(|id| Operation {
            id,
            name: if id == 10 { "ttnn.matmul".into() } else { format!("op{id}").into() },
            duration: None,
            rank: 0,
            error: (id == 10).then_some(0),
            recorded: true,
        })
        .collect()
}

fn tensor(id: u64, address: u64, uses: &[(u64, &str, bool)]) -> TensorFacts {
    TensorFacts {
        tensor_id: id,
        device_id: Some(0),
        address: Some(address),
        buffer_type: Some(L1),
        shape: Some(format!("Shape([{id}])")),
        uses: uses
            .iter()
            .map(|&(op, name, output)| TensorUse { operation_id: op, operation_name: name.into(), output })
            .collect(),
        ..TensorFacts::default()
    }
}

pub(super) fn tensors() -> Vec<TensorFacts> {
    vec![
        tensor(81, 2000, &[(4, "op4", true), (6, "op6", false)]),
        tensor(3, 4500, &[(2, "op2", true), (10, "ttnn.matmul", false)]),
    ]
}

fn row(address: i64, size: i64) -> SnapshotRow {
    SnapshotRow {
        device_id: 0,
        address: Some(address),
        size_per_bank: Some(size),
        buffer_type: Some(L1),
        layout: Some(0),
    }
}

/// The memory at the failure: L1 `[1000, 10000)`, 81 at 2000 and the input 3 at 4500.
pub(super) fn memory() -> MemoryAtFailure {
    let failure = parse_allocation_failure(
        "Out of Memory: Not enough space to allocate 30000 B L1 buffer across 10 banks, where each bank needs to store 3000 B, but bank size is 9000 B (allocated: 7500 B, free: 1500 B, largest free block: 1000 B)",
    );
    let inputs = FailureInputs {
        operation_id: 10,
        failure,
        devices: vec![DeviceFacts {
            device_id: 0,
            l1_start: Some(1000),
            l1_bank_size: 9000,
            worker_l1_size: 12000,
            l1_num_banks: 10,
        }],
        own_snapshot: vec![row(2000, 2000), row(4500, 5500)].into(),
        input_tensor_ids: vec![3],
        tensors: tensors(),
        ..FailureInputs::default()
    };
    memory_at_failure(&inputs).expect("a memory picture")
}

fn view() -> DeviceView {
    DeviceView { device_id: 0, aliases: Vec::new(), facts: None, graph_id: None }
}

/// The fixes resolved with the tensors' records, the buffers said live after operations, and
/// the late list.
fn resolved(fixes: &[Fix], live_after: &[(u64, u64, bool)], late: Option<&LateFindings>) -> Resolved {
    let (operations, tensors) = (operations(), tensors());
    let facts = FixFacts { operations: &operations, index: 9, tensors: &tensors, live_after, late, dram_banks: 12 };
    resolve(fixes, &facts, &memory(), &view())
}

fn refused(fixes: &[Fix], live_after: &[(u64, u64, bool)]) -> Vec<String> {
    resolved(fixes, live_after, None).notes.iter().map(note_text).collect()
}

#[test]
fn a_tensor_is_freed_after_its_last_use_and_the_replay_starts_there() {
    let r = resolved(&[Fix::Free { tensor: 81, after: None }], &[], None);
    assert_eq!(r.plan.free_after, vec![(6, (0, L1), 2000)]);
    assert_eq!((r.plan.dram_banks, r.plan.l1_banks), (12, 64));
    assert_eq!((r.starts.clone(), r.checkpoint(Some(9))), (vec![Some(9), Some(6)], Some(6)));
    assert!(r.notes.is_empty());
}

#[test]
fn a_free_the_run_cannot_act_on_says_why() {
    let said = refused(
        &[
            Fix::Free { tensor: 3, after: None },
            Fix::Free { tensor: 99, after: None },
            Fix::Free { tensor: 81, after: Some(12) },
            Fix::Free { tensor: 81, after: Some(3) },
        ],
        &[],
    );
    assert_eq!(
        said,
        [
            "free 3: tensor 3 is an input of the failed operation 10 ttnn.matmul: it stays live until the operation reads it, so freeing it makes no room; keeping it in DRAM can (--to-dram 3)",
            "free 99: tensor 99 is not in the report",
            "free 81@12: operation 10 is the failed one: free tensor 81 after an operation before it (free 81@9)",
            "free 81@3: tensor 81 is made by operation 4, after operation 3",
        ]
    );
}

#[test]
fn a_buffer_is_freed_in_every_type_only_where_its_snapshot_holds_it() {
    let fixes = [Fix::FreeBuffer { address: 2000, after: 6 }, Fix::FreeBuffer { address: 2000, after: 12 }];
    assert_eq!(buffers_to_check(&fixes, &operations(), 9), vec![(6, 2000)]);
    let r = resolved(&fixes[..1], &[(6, 2000, true)], None);
    let freed = [(6, (0, L1), 2000), (6, (0, BufferType::L1Small), 2000), (6, (0, BufferType::Dram), 2000)];
    assert_eq!((r.plan.free_after, r.starts), (freed.to_vec(), vec![Some(9), Some(6)]));
    assert_eq!(
        refused(&fixes, &[(6, 2000, false)]),
        [
            "free-buffer 2000@6: no buffer is live at 2000 after operation 6",
            "free-buffer 2000@12: operation 12 is not in the report before the failed operation 10",
        ]
    );
}

#[test]
fn free_late_frees_the_followed_device_s_tensors_last_used_before_the_failure() {
    let late = |device_id, address, last_use| LateTensor {
        device_id,
        buffer_type: L1,
        address,
        size_per_bank: 100,
        tensor_id: address,
        shape: None,
        producer_operation_id: None,
        last_use_operation_id: last_use,
        last_use_operation_name: String::new(),
        held_until_operation_id: 10,
        source: None,
        peak_saving_per_bank: 0,
    };
    let findings =
        LateFindings { late: vec![late(0, 2000, 6), late(1, 3000, 5), late(0, 4000, 10)], ..LateFindings::default() };
    let r = resolved(&[Fix::FreeLate], &[], Some(&findings));
    assert_eq!((r.plan.free_after, r.starts), (vec![(6, (0, L1), 2000)], vec![Some(9), Some(6)]));
}

#[test]
fn a_tensor_moved_to_dram_is_moved_by_its_producer_and_device_changes_start_at_the_first_operation() {
    let r = resolved(&[Fix::ToDram { tensor: 81 }], &[], None);
    let moved = DramMove { tensor_id: Some(81), operation_id: Some(4), place: (0, L1), address: 2000 };
    assert_eq!((r.plan.to_dram, r.starts), (vec![moved], vec![Some(9), Some(3)]));
    let r = resolved(&[Fix::L1SmallSize { bytes: 4096 }, Fix::OutputToDram], &[], None);
    assert_eq!(
        (r.plan.l1_small_size, r.plan.output_to_dram, r.plan.output_to_dram_operation),
        (Some(4096), true, None)
    );
    assert_eq!(r.checkpoint(Some(9)), None);
    assert_eq!(
        tensors_named(&[Fix::ToDram { tensor: 81 }, Fix::FreeLate, Fix::Free { tensor: 3, after: None }]),
        [81, 3]
    );
}
