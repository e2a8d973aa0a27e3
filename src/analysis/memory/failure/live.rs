//! The live buffers at the failure (docs/rules/memory.md §3.4–§3.5): the basis that applies, the buffers of
//! the failure's (device, buffer type) it gives, and which of them the failed operation allocated.

use super::picture::Basis;
use crate::analysis::graph::nodes::{GraphNode, NodeType};
use crate::analysis::int_hash::{IntMap, IntSet};
use crate::analysis::memory::graph_walk::{FreeAddresses, GraphWalk, failure_point};
use crate::analysis::memory::inputs::{FailureInputs, GraphBuffer, SnapshotRow};
use crate::analysis::memory::live_index::Entry;
use crate::analysis::memory::notes::{MemoryNote, Tally};
use crate::analysis::messages::failure::BufferType;
use crate::analysis::shared_text::SharedText;
use std::sync::LazyLock;

/// A live buffer before its holder is known.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Placed {
    /// Bank-relative address.
    pub(crate) address: u64,
    /// Bytes per bank.
    pub(crate) size: u64,
    /// Layout name, shared.
    pub(crate) layout: Option<SharedText>,
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

/// The names of the `buffer_layout` codes 0 to 5 (docs/rules/formats.md §1.7), made once and
/// shared by every buffer (a snapshot may hold 150 000 rows).
static LAYOUT_NAMES: LazyLock<[SharedText; 6]> = LazyLock::new(|| {
    ["INTERLEAVED", "SINGLE_BANK", "HEIGHT_SHARDED", "WIDTH_SHARDED", "BLOCK_SHARDED", "ND_SHARDED"]
        .map(SharedText::from)
});

/// The name of a `buffer_layout` code (docs/rules/formats.md §1.7); unknown codes are written as numbers.
pub(crate) fn layout_name(code: i64) -> SharedText {
    match usize::try_from(code).ok().and_then(|c| LAYOUT_NAMES.get(c)) {
        Some(name) => name.clone(),
        None => SharedText::from(code.to_string()),
    }
}

/// The valid rows of (device, buffer type) as buffers; rows of it that break the valid-row rule
/// ([`crate::analysis::memory::inputs::valid_buffer`]) are counted in `bad`.
pub(crate) fn snapshot_buffers(
    rows: &[SnapshotRow],
    device: u64,
    buffer_type: BufferType,
    bad: &mut Tally,
) -> Vec<Placed> {
    let mut out = Vec::new();
    for row in rows.iter().filter(|r| r.device_id == device && r.buffer_type == Some(buffer_type)) {
        match row.valid() {
            Some((address, size)) => {
                out.push(Placed { address, size, layout: row.layout.map(layout_name), allocated_at: None })
            }
            None => bad.bump(),
        }
    }
    out
}

/// Snapshot rows as graph buffers, to replay graphs over (valid rows only).
fn rows_as_graph_buffers(rows: &[SnapshotRow]) -> Vec<GraphBuffer> {
    rows.iter()
        .filter_map(|r| {
            let (address, size) = r.valid()?;
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

/// The buffers of (device, buffer type) a replay of `graph` left live.
fn replayed(replay: &GraphWalk, graph: &[GraphNode], place: Place, bad: &mut Tally) -> Vec<Placed> {
    let Place { device, buffer_type, banks } = place;
    let mut out = Vec::new();
    for e in replay.live.iter().filter(|e| e.buffer.is_of(device, buffer_type)) {
        match placed(e, banks, graph) {
            Some(buffer) => out.push(buffer),
            None => bad.bump(),
        }
    }
    out
}

/// A live buffer of a replay as placed in the map; none when its graph node gives no size.
fn placed(e: &Entry, banks: u64, graph: &[GraphNode]) -> Option<Placed> {
    let size = e.buffer.per_bank(banks)?;
    Some(Placed { address: e.buffer.address, size, layout: e.layout(graph), allocated_at: e.allocated_at })
}

/// The live buffers of (device, buffer type) at N's failure point, by the first basis of
/// docs/rules/memory.md §3.4 that applies; none when no basis does. `banks` spreads graph sizes that give
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
    let place = Place { device, buffer_type, banks };
    let (basis, buffers) = if inputs.own_snapshot.iter().any(|r| r.device_id == device) {
        let (buffers, own_notes) = after_failure(inputs, place, failure, &mut bad);
        notes.extend(own_notes);
        (Basis::AfterFailureSnapshot, buffers)
    } else if let Some(s0) = earlier.filter(|_| !graph.is_empty()) {
        let mut replay = GraphWalk::new(rows_as_graph_buffers(&s0.rows));
        replay.run(graph, failure);
        notes.extend(replay.notes());
        snapshot_buffers(&s0.rows, device, buffer_type, &mut bad);
        (Basis::EarlierSnapshotAndGraph, replayed(&replay, graph, place, &mut bad))
    } else if let Some(s0) = earlier {
        (Basis::EarlierSnapshot, snapshot_buffers(&s0.rows, device, buffer_type, &mut bad))
    } else {
        let before = inputs.replayed_before.as_ref()?;
        // Graphs that never allocated a buffer say nothing about memory: no basis.
        if before.is_empty() && !graph.iter().any(|n| n.is(NodeType::BufferAllocate)) {
            return None;
        }
        let mut replay = GraphWalk::new(before.clone());
        replay.run(graph, failure);
        notes.extend(replay.notes());
        (Basis::GraphOnly, replayed(&replay, graph, place, &mut bad))
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

/// The failure's (device, buffer type) and the banks graph sizes are spread over.
#[derive(Debug, Clone, Copy)]
struct Place {
    device: u64,
    buffer_type: BufferType,
    banks: u64,
}

/// The `after_failure_snapshot` basis (docs/rules/memory.md §3.4): N's rows (taken after the unwinding),
/// the buffers the unwinding freed, and the buffers N's graph allocated before F and did not
/// free before F — live at F even when the writer recorded no free for them while unwinding.
/// Each address once, the rows first; bad rows are counted in `bad`.
fn after_failure(
    inputs: &FailureInputs,
    place: Place,
    failure: Option<usize>,
    bad: &mut Tally,
) -> (Vec<Placed>, Vec<MemoryNote>) {
    let Place { device, buffer_type, banks } = place;
    let graph = &inputs.graph;
    // What N allocated and still held at F: replayed from nothing.
    let mut own = GraphWalk::default();
    own.run(graph, failure);
    let mut buffers = snapshot_buffers(&inputs.own_snapshot, device, buffer_type, bad);
    let mut seen: IntSet<u64> = buffers.iter().map(|b| b.address).collect();
    let earlier = inputs.earlier_snapshot.as_ref().map(|e| e.rows.as_slice());
    let (unwound, mut notes) = unwinding(graph, failure, place, earlier);
    buffers.extend(unwound.into_iter().filter(|b| seen.insert(b.address)));
    let mut no_size = Tally::default();
    for e in own.live.iter().filter(|e| e.buffer.is_of(device, buffer_type)) {
        if !seen.insert(e.buffer.address) {
            continue;
        }
        match placed(e, banks, graph) {
            Some(buffer) => buffers.push(buffer),
            None => no_size.add(e.buffer.address),
        }
    }
    notes.extend(no_size.note(|count, _| MemoryNote::BadBuffers { count, source: "graph allocations" }));
    // A row or an unwound buffer at an address N allocated before F and still held is N's own.
    mark_own(&mut buffers, &own, device, buffer_type);
    (buffers, notes)
}

/// Where N allocated the buffers it still holds (`own`: N's graph replayed from nothing): each
/// buffer not yet known as N's own, at an address `own` holds for (device, buffer type), gets the
/// index of the node that allocated it. The one lookup of `allocated_at` for every view.
pub(crate) fn mark_own(buffers: &mut [Placed], own: &GraphWalk, device: u64, buffer_type: BufferType) {
    for b in buffers.iter_mut().filter(|b| b.allocated_at.is_none()) {
        b.allocated_at = own.live.find_of(b.address, device, buffer_type).and_then(|e| e.allocated_at);
    }
}

/// True when N's graph frees buffers after its failure point (an unwinding to add).
pub(crate) fn unwinds(graph: &[GraphNode]) -> bool {
    let start = failure_point(graph).map_or(0, |f| f + 1);
    graph[start..].iter().any(|n| n.is(NodeType::BufferDeallocate))
}

/// The indexes of a graph's `buffer_allocate` nodes at the addresses of `wanted`, by address,
/// ascending (the unwinding asks for the few addresses freed after the failure point, among a
/// graph's 300 000 allocations).
fn allocations_by_address(graph: &[GraphNode], wanted: &IntSet<u64>) -> IntMap<u64, Vec<usize>> {
    let mut allocations: IntMap<u64, Vec<usize>> = IntMap::default();
    for (i, n) in graph.iter().enumerate().filter(|(_, n)| n.is(NodeType::BufferAllocate)) {
        if let Some(address) = n.address().filter(|a| wanted.contains(a)) {
            allocations.entry(address).or_default().push(i);
        }
    }
    allocations
}

/// The size per bank of the first valid snapshot row at each address of (device, buffer type).
fn row_sizes(rows: &[SnapshotRow], device: u64, buffer_type: BufferType) -> IntMap<u64, u64> {
    let mut sizes: IntMap<u64, u64> = IntMap::default();
    for r in rows.iter().filter(|r| r.device_id == device && r.buffer_type == Some(buffer_type)) {
        if let Some((address, size)) = r.valid() {
            sizes.entry(address).or_insert(size);
        }
    }
    sizes
}

/// The buffers of (device, buffer type) freed after the failure point (the unwinding U), with
/// their sizes: from their allocation in N's graph, else from S0's row at that address, else
/// from the free itself. Linear: allocations are looked up by address.
fn unwinding(
    graph: &[GraphNode],
    failure: Option<usize>,
    place: Place,
    earlier: Option<&[SnapshotRow]>,
) -> (Vec<Placed>, Vec<MemoryNote>) {
    let Place { device, buffer_type, banks } = place;
    let frees = FreeAddresses::of(graph);
    let start = failure.map_or(0, |f| f + 1);
    let freed: IntSet<u64> = graph.iter().skip(start).filter_map(|n| frees.of_node(n)).collect();
    let allocations = allocations_by_address(graph, &freed);
    let row_sizes = row_sizes(earlier.unwrap_or_default(), device, buffer_type);
    let mut out: Vec<Placed> = Vec::new();
    let mut seen: IntSet<u64> = IntSet::default();
    let (mut without_address, mut bad) = (Tally::default(), Tally::default());
    for (i, node) in graph.iter().enumerate().skip(start).filter(|(_, n)| n.is(NodeType::BufferDeallocate)) {
        let Some(address) = frees.of_node(node) else {
            without_address.bump();
            continue;
        };
        let freed = GraphBuffer::of_node(node, address);
        if !freed.is_of(device, buffer_type) || seen.contains(&address) {
            continue;
        }
        let before: &[usize] = allocations.get(&address).map_or(&[], Vec::as_slice);
        let allocation = before[..before.partition_point(|&p| p < i)]
            .iter()
            .rev()
            .map(|&p| &graph[p])
            .find(|n| GraphBuffer::key_of(n, address).same_buffer(&freed))
            .map(|n| GraphBuffer::of_node(n, address));
        let size = allocation
            .as_ref()
            .and_then(|a| a.per_bank(banks))
            .or_else(|| row_sizes.get(&address).copied())
            .or_else(|| freed.per_bank(banks));
        match size {
            Some(size) => {
                seen.insert(address);
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
