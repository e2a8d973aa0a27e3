//! The device a what-if replay follows (docs/rules/memory.md §1–§2, §9.3): one chip named by two
//! ids ([`crate::analysis::memory::mesh::chip_alias`]), the id the captured graphs give it when
//! the tables give it another, banks that do not move in lockstep, and the checkpoint's buffers.
//! Pure: `report/` reads the rows these rules look at.

use super::sequence::{DeviceView, Recorded};
use crate::analysis::graph::nodes::{GraphNode, NodeType};
use crate::analysis::memory::failure::picture::MemoryAtFailure;
use crate::analysis::memory::inputs::{DeviceFacts, SnapshotRow, TensorFacts};
use crate::analysis::memory::mesh::chip_alias;
use crate::analysis::messages::failure::BufferType;

/// The most live tensors whose records [`addresses_differ`] reads.
const LOCKSTEP_TENSORS: usize = 256;

/// The device a replay of a failure on `device` follows: its `devices` row (`row`), the other id
/// a single chip names it by — one chip's `devices` rows (`devices`), and no record read beside
/// it showing another id holding buffers at the same time (`others`) — and the graphs' id for it
/// ([`graph_id`]).
pub(crate) fn device_view(
    device: u64,
    row: Option<DeviceFacts>,
    devices: &[DeviceFacts],
    others: &[u64],
    graph_id: Option<u64>,
) -> DeviceView {
    let aliases = chip_alias(devices, device, others).into_iter().collect();
    DeviceView { device_id: device, aliases, facts: row, graph_id }
}

/// The other id of a single chip (0 or 1) holding buffers in one snapshot with `device`: where a
/// snapshot around the failure holds both 0 and 1 (`holders`: the ids holding valid buffers in
/// each), they are two mesh devices with allocators of their own (submeshes sharing chips).
pub(crate) fn both_ids_held(device: u64, holders: &[Vec<u64>]) -> Vec<u64> {
    let both = holders.iter().any(|ids| ids.contains(&0) && ids.contains(&1));
    match device {
        0 | 1 if both => vec![1 - device],
        _ => Vec::new(),
    }
}

/// The ids holding valid buffers in a snapshot, each once.
pub(crate) fn ids_holding_buffers(rows: &[SnapshotRow]) -> Vec<u64> {
    let mut ids: Vec<u64> = rows.iter().filter(|r| r.valid().is_some()).map(|r| r.device_id).collect();
    ids.sort_unstable();
    ids.dedup();
    ids
}

/// The tensors a graph names with their device (tensor, device), in node order.
pub(crate) fn graph_tensors(graph: &[GraphNode]) -> Vec<(u64, u64)> {
    graph.iter().filter(|n| n.is(NodeType::Tensor)).filter_map(|n| Some((n.tensor_id()?, n.device_id()?))).collect()
}

/// The id the captured graphs name `device` by, when it is another: the failed operation's graph
/// names its tensors on one device (`named`, [`graph_tensors`]), and the `tensors` table (`facts`)
/// puts those tensors on `device` (docs/rules/memory.md §2: submeshes whose parent holds nothing
/// are 1 and 2 in the graphs, 0 and 1 in the tables). None when they agree or nothing says.
pub(crate) fn graph_id(device: u64, named: &[(u64, u64)], facts: &[TensorFacts]) -> Option<u64> {
    let mut graph_ids: Vec<u64> = named
        .iter()
        .filter(|(t, _)| facts.iter().any(|f| f.tensor_id == *t && f.device_id == Some(device)))
        .map(|(_, g)| *g)
        .collect();
    graph_ids.sort_unstable();
    graph_ids.dedup();
    match graph_ids.as_slice() {
        [g] if *g != device => Some(*g),
        _ => None,
    }
}

/// The live tensors of the failure whose records [`addresses_differ`] compares: none unless the
/// followed device has another id (only a mesh can show banks out of lockstep).
pub(crate) fn lockstep_tensors(m: &MemoryAtFailure, view: &DeviceView) -> Vec<u64> {
    if view.aliases.is_empty() {
        return Vec::new();
    }
    m.live_buffers.iter().filter_map(|b| b.tensor_id).take(LOCKSTEP_TENSORS).collect()
}

/// A live tensor of the failure whose buffer lies at different addresses on the chips the
/// followed device names (`places`: each tensor's `device_tensors` rows, (device, address)):
/// banks then do not move in lockstep (a per-chip or hybrid allocator,
/// `TT_METAL_ALLOCATOR_MODE_HYBRID`), which the replay does not model (docs/rules/memory.md §9.3).
pub(crate) fn addresses_differ(view: &DeviceView, mut places: Vec<(u64, Vec<(u64, u64)>)>) -> Option<String> {
    places.sort_unstable();
    for (tensor, places) in places {
        let mut on: Vec<(u64, u64)> = places.into_iter().filter(|&(d, _)| view.names_device(d)).collect();
        on.sort_unstable();
        if let (Some(&(d0, a0)), Some(&(d1, a1))) = (on.first(), on.iter().find(|&&(_, a)| a != on[0].1)) {
            return Some(format!("tensor {tensor} lies at {a0} on device {d0} and at {a1} on device {d1}"));
        }
    }
    None
}

/// A snapshot's rows of the followed device as the buffers live at a checkpoint (valid rows of
/// L1, L1_SMALL and DRAM; no tensor: none is recorded).
pub(crate) fn checkpoint_buffers(rows: &[SnapshotRow], view: &DeviceView) -> Vec<Recorded> {
    rows.iter()
        .filter(|r| view.names_device(r.device_id))
        .filter_map(|r| {
            let (address, size_per_bank) = r.valid()?;
            let t = r.buffer_type.filter(|t| matches!(t, BufferType::L1 | BufferType::L1Small | BufferType::Dram))?;
            Some(Recorded {
                place: (view.device_id, t),
                address,
                size_per_bank,
                size: None,
                tensor_id: None,
                operation_id: None,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chip(device_id: u64) -> DeviceFacts {
        DeviceFacts { device_id, l1_start: Some(1000), l1_bank_size: 9000, worker_l1_size: 12000, l1_num_banks: 64 }
    }

    fn row(device_id: u64, address: i64, buffer_type: Option<BufferType>) -> SnapshotRow {
        SnapshotRow { device_id, address: Some(address), size_per_bank: Some(64), buffer_type, layout: None }
    }

    #[test]
    fn a_single_chip_is_followed_by_both_ids_unless_a_snapshot_holds_both() {
        let devices = [chip(0), chip(1)];
        let aliases = |device, holders: &[Vec<u64>]| {
            device_view(device, None, &devices, &both_ids_held(device, holders), None).aliases
        };
        assert_eq!(aliases(0, &[vec![0], vec![0]]), vec![1]);
        assert_eq!(aliases(1, &[vec![1], vec![0]]), vec![0]);
        assert_eq!(aliases(0, &[vec![0], vec![0, 1]]), Vec::<u64>::new());
        assert_eq!(aliases(2, &[vec![2]]), Vec::<u64>::new());
        let two = [chip(0), DeviceFacts { l1_num_banks: 56, ..chip(1) }];
        assert_eq!(device_view(0, None, &two, &[], None).aliases, Vec::<u64>::new());
        assert_eq!(ids_holding_buffers(&[row(1, 64, None), row(0, 0, None), row(1, 128, None)]), vec![1]);
    }

    #[test]
    fn the_graphs_id_is_the_one_they_give_the_tables_device_s_tensors() {
        let facts = [TensorFacts { tensor_id: 5, device_id: Some(0), ..TensorFacts::default() }];
        assert_eq!(graph_id(0, &[(5, 1), (6, 2)], &facts), Some(1));
        assert_eq!(graph_id(0, &[(5, 0)], &facts), None);
        assert_eq!(graph_id(1, &[(5, 1)], &facts), None);
    }

    #[test]
    fn banks_out_of_lockstep_are_told_by_a_tensor_at_two_addresses() {
        let view = DeviceView { device_id: 0, aliases: vec![1], facts: None, graph_id: None };
        let apart = vec![(8, vec![(0, 100), (1, 100)]), (7, vec![(1, 200), (0, 100), (2, 300)])];
        assert_eq!(
            addresses_differ(&view, apart),
            Some("tensor 7 lies at 100 on device 0 and at 200 on device 1".into())
        );
        assert_eq!(addresses_differ(&view, vec![(7, vec![(0, 100), (2, 300)])]), None);
    }

    #[test]
    fn the_checkpoint_holds_the_followed_device_s_valid_rows_of_the_allocators_types() {
        let view = DeviceView { device_id: 0, aliases: vec![1], facts: None, graph_id: None };
        let rows = [
            row(1, 2048, Some(BufferType::L1)),
            row(0, 0, Some(BufferType::L1)),
            row(0, 4096, Some(BufferType::SystemMemory)),
            row(2, 4096, Some(BufferType::Dram)),
            row(0, 8192, None),
        ];
        let live = checkpoint_buffers(&rows, &view);
        let at = Recorded {
            place: (0, BufferType::L1),
            address: 2048,
            size_per_bank: 64,
            size: None,
            tensor_id: None,
            operation_id: None,
        };
        assert_eq!(live, vec![at]);
    }
}
