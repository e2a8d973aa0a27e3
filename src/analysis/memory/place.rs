//! The failure's place (docs/rules/memory.md §2): its buffer type, its device and the region the
//! allocator places that type in.

use super::failure::picture::{Region, RegionSource};
use super::graph_walk::failure_point;
pub(crate) use super::inputs::default_banks;
use super::inputs::{DeviceFacts, FailureInputs, GraphBuffer, TensorFacts};
use crate::analysis::graph::nodes::{GraphNode, NodeType};
use crate::analysis::messages::failure::{AllocationFailure, BufferType, FailureKind};
use std::borrow::Cow;
use std::ops::Range;

/// The buffer type of a failure: the message's L1, DRAM or L1_SMALL; L1 for circular buffers.
/// None for any other type (no memory section).
pub(crate) fn failure_buffer_type(failure: &AllocationFailure) -> Option<BufferType> {
    match failure.kind {
        FailureKind::CircularBuffersBeyondL1 | FailureKind::CircularBuffersClash => Some(BufferType::L1),
        _ => {
            failure.figures.buffer_type.filter(|t| matches!(t, BufferType::L1 | BufferType::Dram | BufferType::L1Small))
        }
    }
}

/// The failure's device as §2 finds it before the mesh-id rule: that of the last buffer or
/// circular-buffer allocation at or before the failure point in N's graph; else that of N's first
/// input tensor; else the only `devices` row's; none when nothing names one (read as 0).
pub(crate) fn failure_device(
    graph: &[GraphNode],
    first_input: Option<&TensorFacts>,
    devices: &[DeviceFacts],
) -> Option<u64> {
    let through = failure_point(graph).map_or(0, |f| f + 1);
    graph[..through]
        .iter()
        .rev()
        .filter(|n| n.is(NodeType::BufferAllocate) || n.is(NodeType::CircularBufferAllocate))
        .find_map(|n| n.device_id())
        .or_else(|| first_input.and_then(|t| t.device_id))
        .or(if let [only] = devices { Some(only.device_id) } else { None })
}

/// The region of a buffer type on a device (docs/rules/memory.md §2), the one formula every view
/// uses (the memory at a failure, the what-if's allocators, the chart's ceiling): L1 `[A, A+B)`
/// and L1_SMALL `[A+B, W)` from the device's row, DRAM `[b, b + bank size)` with the bank size
/// given (a failure message's) and b the DRAM base (0 when none is recorded); unknown otherwise.
/// A region of size 0 (L1_SMALL of a device opened without it) is known.
pub(crate) fn region(
    buffer_type: BufferType,
    device: Option<&DeviceFacts>,
    message_bank_size: Option<u64>,
    dram_base: Option<u64>,
) -> Region {
    let from_devices = |start: u64, end: u64| Region {
        start: Some(start),
        end: Some(end.max(start)),
        source: Some(RegionSource::Devices),
    };
    match buffer_type {
        BufferType::L1 => match device {
            Some(d) if d.l1_bank_size > 0 => match d.l1_start {
                Some(a) => from_devices(a, a.saturating_add(d.l1_bank_size)),
                None => Region::default(),
            },
            _ => Region::default(),
        },
        BufferType::L1Small => match device.and_then(|d| Some((d.l1_start?, d))) {
            Some((a, d)) if d.l1_bank_size > 0 && d.worker_l1_size > 0 => {
                from_devices(a.saturating_add(d.l1_bank_size), d.worker_l1_size)
            }
            _ => Region::default(),
        },
        BufferType::Dram => match message_bank_size {
            Some(size) => {
                let base = dram_base.unwrap_or(0);
                Region { start: Some(base), end: Some(base.saturating_add(size)), source: Some(RegionSource::Message) }
            }
            None => Region::default(),
        },
        _ => Region::default(),
    }
}

/// The DRAM base of a device (docs/rules/memory.md §2): the lowest DRAM address recorded for it up to N —
/// in N's and S0's rows, N's graph allocations, the graphs replayed before N, and what the report
/// found in `buffers` beyond them (`lowest_dram_address`); none when none is recorded. The
/// allocator's first buffer sits at its base.
pub(crate) fn dram_base(inputs: &FailureInputs, device: u64) -> Option<u64> {
    let dram = BufferType::Dram;
    let earlier = inputs.earlier_snapshot.iter().flat_map(|e| e.rows.iter());
    let rows = inputs
        .own_snapshot
        .iter()
        .chain(earlier)
        .filter(|r| r.device_id == device && r.buffer_type == Some(dram))
        .filter_map(|r| Some(r.valid()?.0));
    let graph = inputs.graph.iter().filter(|n| n.is(NodeType::BufferAllocate)).filter_map(|n| {
        let b = GraphBuffer::key_of(n, n.address().filter(|&a| a > 0)?);
        b.is_of(device, dram).then_some(b.address)
    });
    let replayed = inputs.replayed_before.iter().flatten().filter(|b| b.is_of(device, dram)).map(|b| b.address);
    rows.chain(graph).chain(replayed).chain(inputs.lowest_dram_address).min()
}

/// The L1_SMALL region `[A+B, W)` of a `devices` row (docs/rules/memory.md §1); none when the
/// report's era lacks A.
pub(crate) fn l1_small_region(row: &DeviceFacts) -> Option<Range<u64>> {
    Some(row.l1_start?.checked_add(row.l1_bank_size)?..row.worker_l1_size)
}

/// The buffer type a graph buffer node is read as, by memory section and replay alike: a node
/// whose type came from the `type` string alone says `L1` for L1_SMALL too (ttnn labels
/// L1_SMALL allocations `"type": "L1"`), so one at an address inside its device's L1_SMALL
/// region (`l1_small`) is L1_SMALL; every other node keeps the type it gives.
pub(crate) fn graph_buffer_type(node: &GraphNode, l1_small: Option<&Range<u64>>) -> Option<BufferType> {
    let retyped = may_be_l1_small(node) && node.address().zip(l1_small).is_some_and(|(a, range)| range.contains(&a));
    if retyped { Some(BufferType::L1Small) } else { node.buffer_type() }
}

/// Whether [`graph_buffer_type`] may read a node as L1_SMALL: an allocation or a free typed `L1`
/// by the `type` string alone.
fn may_be_l1_small(node: &GraphNode) -> bool {
    !node.buffer_type_code()
        && node.buffer_type() == Some(BufferType::L1)
        && (node.is(NodeType::BufferAllocate) || node.is(NodeType::BufferDeallocate))
}

/// The graph with every node read by [`graph_buffer_type`] against its device's L1_SMALL region.
/// A device without a `devices` row is read by the only row, or the first of two alike ones (a
/// single chip opened as a mesh). Borrowed when no node is retyped.
pub(crate) fn l1_small_by_address<'a>(graph: &'a [GraphNode], devices: &[DeviceFacts]) -> Cow<'a, [GraphNode]> {
    let l1_small = |node: &GraphNode| {
        let row = match node.device_id() {
            Some(device) => super::mesh::chip_row(devices, device)?,
            None => devices.first().filter(|_| super::mesh::one_chip(devices))?,
        };
        l1_small_region(row)
    };
    // The region is looked up only for a node it may retype (a failure's graph: 900 000 nodes).
    let read = |node: &GraphNode| match may_be_l1_small(node) {
        true => graph_buffer_type(node, l1_small(node).as_ref()),
        false => node.buffer_type(),
    };
    if !graph.iter().any(|n| read(n) != n.buffer_type()) {
        return Cow::Borrowed(graph);
    }
    let mut out = graph.to_vec();
    for node in out.iter_mut() {
        node.set_buffer_type(read(node));
    }
    Cow::Owned(out)
}
