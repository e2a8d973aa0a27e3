//! The live buffers at the failure (memory.md §3.4–§3.5): the basis that applies, the buffers of
//! the failure's (device, buffer type) it gives, and which of them the failed operation allocated.

use super::inputs::{FailureInputs, GraphBuffer, SnapshotRow};
use super::model::Basis;
use super::notes::{MemoryNote, Tally};
use super::replay::{Replay, failure_point, free_addresses};
use crate::analysis::failure::BufferType;
use crate::analysis::graph::{GraphNode, NodeType};

/// A live buffer before its holder is known.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Placed {
    /// Bank-relative address.
    pub(crate) address: u64,
    /// Bytes per bank.
    pub(crate) size: u64,
    /// Layout name.
    pub(crate) layout: Option<String>,
    /// For a buffer the operation allocated: its `buffer_allocate` node's position in the graph.
    pub(crate) allocated_at: Option<usize>,
}

/// The live buffers of one (device, buffer type) and how they were found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LiveSet {
    /// The basis that applied.
    pub(crate) basis: Basis,
    /// S0's operation, when used.
    pub(crate) snapshot_operation_id: Option<u64>,
    /// The buffers.
    pub(crate) buffers: Vec<Placed>,
    /// What was set aside.
    pub(crate) notes: Vec<MemoryNote>,
}

/// The name of a `buffer_layout` code (formats.md §1.7); unknown codes are written as numbers.
pub(crate) fn layout_name(code: i64) -> String {
    match code {
        0 => "INTERLEAVED".into(),
        1 => "SINGLE_BANK".into(),
        2 => "HEIGHT_SHARDED".into(),
        3 => "WIDTH_SHARDED".into(),
        4 => "BLOCK_SHARDED".into(),
        5 => "ND_SHARDED".into(),
        other => other.to_string(),
    }
}

/// The valid rows of (device, buffer type) as buffers; rows of the device with a missing, zero or
/// negative address or size are counted in `bad`.
pub(crate) fn snapshot_buffers(
    rows: &[SnapshotRow],
    device: u64,
    buffer_type: BufferType,
    bad: &mut Tally,
) -> Vec<Placed> {
    let mut out = Vec::new();
    for row in rows.iter().filter(|r| r.device_id == device && r.buffer_type == Some(buffer_type)) {
        let valid = |v: Option<i64>| v.and_then(|v| u64::try_from(v).ok()).filter(|&v| v > 0);
        match (valid(row.address), valid(row.size_per_bank)) {
            (Some(address), Some(size)) => {
                out.push(Placed { address, size, layout: row.layout.map(layout_name), allocated_at: None })
            }
            _ => bad.bump(),
        }
    }
    out
}

/// Snapshot rows as graph buffers, to replay graphs over (valid rows only).
fn rows_as_graph_buffers(rows: &[SnapshotRow]) -> Vec<GraphBuffer> {
    rows.iter()
        .filter_map(|r| {
            let address = u64::try_from(r.address?).ok().filter(|&a| a > 0)?;
            let size = u64::try_from(r.size_per_bank?).ok().filter(|&s| s > 0)?;
            Some(GraphBuffer {
                device_id: Some(r.device_id),
                buffer_type: r.buffer_type,
                exact_type: true,
                address,
                max_size_per_bank: Some(size),
                layout: r.layout.map(layout_name),
                ..GraphBuffer::default()
            })
        })
        .collect()
}

/// The buffers of (device, buffer type) a replay left live.
fn replayed(replay: &Replay, device: u64, buffer_type: BufferType, banks: u64, bad: &mut Tally) -> Vec<Placed> {
    let mut out = Vec::new();
    for (b, at) in replay.live.iter().filter(|(b, _)| b.is_of(device, buffer_type)) {
        match b.per_bank(banks) {
            Some(size) => out.push(Placed { address: b.address, size, layout: b.layout.clone(), allocated_at: *at }),
            None => bad.bump(),
        }
    }
    out
}

/// The live buffers of (device, buffer type) at N's failure point, by the first basis of
/// memory.md §3.4 that applies; none when no basis does. `banks` spreads graph sizes that give
/// no per-bank figure.
pub(crate) fn live_at_failure(
    inputs: &FailureInputs,
    device: u64,
    buffer_type: BufferType,
    banks: u64,
) -> Option<LiveSet> {
    let graph = &inputs.graph;
    let failure = failure_point(graph);
    let earlier = inputs.earlier_snapshot.as_ref();
    let mut bad = Tally::default();
    let mut notes = Vec::new();
    // What N allocated and still held at F: replayed from nothing.
    let mut own = Replay::default();
    own.run(graph, failure);
    let (basis, buffers) = if inputs.own_snapshot.iter().any(|r| r.device_id == device) {
        let mut buffers = snapshot_buffers(&inputs.own_snapshot, device, buffer_type, &mut bad);
        let unwound = unwinding(graph, failure, device, buffer_type, banks, earlier.map(|e| e.rows.as_slice()));
        notes.extend(unwound.1);
        for mut b in unwound.0 {
            if !buffers.iter().any(|x| x.address == b.address) {
                b.allocated_at = own
                    .live
                    .iter()
                    .find(|(o, _)| o.address == b.address && o.is_of(device, buffer_type))
                    .and_then(|(_, at)| *at);
                buffers.push(b);
            }
        }
        // A row at an address N allocated before F and still held is N's own buffer.
        for b in &mut buffers {
            if b.allocated_at.is_none() {
                b.allocated_at = own
                    .live
                    .iter()
                    .find(|(o, _)| o.address == b.address && o.is_of(device, buffer_type))
                    .and_then(|(_, at)| *at);
            }
        }
        (Basis::AfterFailureSnapshot, buffers)
    } else if let Some(s0) = earlier.filter(|_| !graph.is_empty()) {
        let mut replay = Replay::new(rows_as_graph_buffers(&s0.rows));
        replay.run(graph, failure);
        notes.extend(replay.notes());
        snapshot_buffers(&s0.rows, device, buffer_type, &mut bad);
        (Basis::EarlierSnapshotAndGraph, replayed(&replay, device, buffer_type, banks, &mut bad))
    } else if let Some(s0) = earlier {
        (Basis::EarlierSnapshot, snapshot_buffers(&s0.rows, device, buffer_type, &mut bad))
    } else {
        let before = inputs.replayed_before.as_ref()?;
        // Graphs that never allocated a buffer say nothing about memory: no basis.
        if before.is_empty() && !graph.iter().any(|n| n.is(NodeType::BufferAllocate)) {
            return None;
        }
        let mut replay = Replay::new(before.clone());
        replay.run(graph, failure);
        notes.extend(replay.notes());
        (Basis::GraphOnly, replayed(&replay, device, buffer_type, banks, &mut bad))
    };
    let source = if basis == Basis::AfterFailureSnapshot || basis == Basis::EarlierSnapshot {
        "buffers rows"
    } else {
        "graph allocations"
    };
    notes.extend(bad.note(|count, _| MemoryNote::BadBuffers { count, source }));
    let snapshot_operation_id = match basis {
        Basis::EarlierSnapshotAndGraph | Basis::EarlierSnapshot => earlier.map(|e| e.operation_id),
        _ => None,
    };
    Some(LiveSet { basis, snapshot_operation_id, buffers, notes })
}

/// True when N's graph frees buffers after its failure point (an unwinding to add).
pub(crate) fn unwinds(graph: &[GraphNode]) -> bool {
    let start = failure_point(graph).map_or(0, |f| f + 1);
    graph[start..].iter().any(|n| n.is(NodeType::BufferDeallocate))
}

/// The buffers of (device, buffer type) freed after the failure point (the unwinding U), with
/// their sizes: from their allocation in N's graph, else from S0's row at that address, else
/// from the free itself.
fn unwinding(
    graph: &[GraphNode],
    failure: Option<usize>,
    device: u64,
    buffer_type: BufferType,
    banks: u64,
    earlier: Option<&[SnapshotRow]>,
) -> (Vec<Placed>, Vec<MemoryNote>) {
    let addresses = free_addresses(graph);
    let start = failure.map_or(0, |f| f + 1);
    let mut out: Vec<Placed> = Vec::new();
    let (mut without_address, mut bad) = (Tally::default(), Tally::default());
    for (i, node) in graph.iter().enumerate().skip(start).filter(|(_, n)| n.is(NodeType::BufferDeallocate)) {
        let Some(address) = addresses[i] else {
            without_address.bump();
            continue;
        };
        let freed = GraphBuffer::of_node(node, address);
        if !freed.is_of(device, buffer_type) || out.iter().any(|b| b.address == address) {
            continue;
        }
        let allocation = graph[..i]
            .iter()
            .rev()
            .filter(|n| n.is(NodeType::BufferAllocate) && n.address == Some(address))
            .map(|n| GraphBuffer::of_node(n, address))
            .find(|b| b.same_buffer(&freed));
        let from_row = || {
            let rows = earlier?;
            let row = rows.iter().find(|r| {
                r.device_id == device && r.buffer_type == Some(buffer_type) && r.address == i64::try_from(address).ok()
            })?;
            u64::try_from(row.size_per_bank?).ok().filter(|&s| s > 0)
        };
        let size =
            allocation.as_ref().and_then(|a| a.per_bank(banks)).or_else(from_row).or_else(|| freed.per_bank(banks));
        match size {
            Some(size) => {
                let layout = allocation.and_then(|a| a.layout).or(freed.layout);
                out.push(Placed { address, size, layout, allocated_at: None });
            }
            None => bad.add(address),
        }
    }
    let notes = [
        without_address.note(|count, _| MemoryNote::FreesWithoutAddress { count }),
        bad.note(|count, _| MemoryNote::BadBuffers { count, source: "graph allocations" }),
    ];
    (out, notes.into_iter().flatten().collect())
}
