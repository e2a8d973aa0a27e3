//! Replaying captured graphs over a set of live buffers (docs/rules/memory.md §3.2–§3.3): allocations add,
//! frees remove, keyed by (device, buffer type, address); the failure point of a failed
//! operation's graph and the unwinding after it.

use super::inputs::{GraphBuffer, allocated_per_bank};
use super::live_index::LiveIndex;
use super::notes::{MemoryNote, Tally};
use crate::analysis::graph::nodes::{GraphNode, NodeType};
use crate::analysis::messages::failure::BufferType;
use std::collections::HashMap;

/// The failure point F (docs/rules/memory.md §3.3): scanning back from the last node, the first node that
/// is not a capture end, a free, a buffer or tensor node, a circular-buffer deallocation, an
/// aborted end, or part of a whole `Tensor::deallocate` scope (ttnn 0.81 frees the failed
/// operation's outputs inside one while unwinding). None when every node is skipped.
pub(crate) fn failure_point(nodes: &[GraphNode]) -> Option<usize> {
    // Below this position no `Tensor::deallocate` start is left unmatched.
    let mut no_start_below = usize::MAX;
    let mut i = nodes.len();
    while i > 0 {
        i -= 1;
        let n = &nodes[i];
        if n.is(NodeType::FunctionEnd) && is_tensor_deallocate(n.name()) {
            // The whole scope, back to its start (just the end when it has none).
            match (i < no_start_below).then(|| scope_start(nodes, i)).flatten() {
                Some(start) => i = start,
                None => no_start_below = no_start_below.min(i),
            }
            continue;
        }
        let skipped = matches!(
            n.node_type(),
            Some(
                NodeType::CaptureEnd
                    | NodeType::BufferDeallocate
                    | NodeType::Buffer
                    | NodeType::Tensor
                    | NodeType::CircularBufferDeallocateAll
            )
        ) || (n.is(NodeType::FunctionEnd) && n.aborted());
        if !skipped {
            return Some(i);
        }
    }
    None
}

/// The start of the `Tensor::deallocate` scope the end at `end` closes, nested ones counted.
fn scope_start(nodes: &[GraphNode], end: usize) -> Option<usize> {
    let mut depth = 0usize;
    for j in (0..end).rev() {
        let n = &nodes[j];
        if !is_tensor_deallocate(n.name()) {
            continue;
        }
        if n.is(NodeType::FunctionEnd) {
            depth += 1;
        } else if n.is(NodeType::FunctionStart) {
            if depth == 0 {
                return Some(j);
            }
            depth -= 1;
        }
    }
    None
}

/// True for the scope ttnn 0.81 frees a tensor's buffers in: `Tensor::deallocate` (with or
/// without a namespace).
fn is_tensor_deallocate(name: &str) -> bool {
    name == "Tensor::deallocate" || name.ends_with("::Tensor::deallocate")
}

/// Whether two buffer types can name the same buffer: equal, or the same class when either
/// came from the `type` string (`L1` stands for L1 and L1_SMALL, `DRAM` for DRAM and TRACE).
fn types_match(a: Option<BufferType>, a_exact: bool, b: Option<BufferType>, b_exact: bool) -> bool {
    let class = |t: BufferType| match t {
        BufferType::L1 | BufferType::L1Small => 1,
        BufferType::Dram | BufferType::Trace => 0,
        BufferType::SystemMemory => 2,
    };
    match (a, b) {
        (Some(a), Some(b)) if a_exact && b_exact => a == b,
        (Some(a), Some(b)) => class(a) == class(b),
        _ => true,
    }
}

impl GraphBuffer {
    /// The buffer of a `buffer_allocate` or `buffer_deallocate` node at `address`.
    pub(crate) fn of_node(node: &GraphNode, address: u64) -> Self {
        Self { layout: node.layout_shared(), ..Self::key_of(node, address) }
    }

    /// What a free or a lookup compares: the buffer of a node without its layout (no copy).
    pub(crate) fn key_of(node: &GraphNode, address: u64) -> Self {
        Self {
            device_id: node.device_id(),
            buffer_type: node.buffer_type(),
            exact_type: node.buffer_type_code(),
            address,
            max_size_per_bank: node.max_size_per_bank(),
            size: node.size(),
            num_cores: node.num_cores(),
            layout: None,
        }
    }

    /// Bytes per bank (docs/rules/memory.md §3): `max_size_per_bank`, else `ceil(size / banks)` with banks
    /// = `num_cores` when > 0, else `banks`, padded as the allocator pads it
    /// ([`allocated_per_bank`]). None when neither is known or the size is 0.
    pub(crate) fn per_bank(&self, banks: u64) -> Option<u64> {
        let per_bank = match self.max_size_per_bank {
            Some(bytes) => bytes,
            None => {
                let banks = self.num_cores.filter(|&c| c > 0).unwrap_or(banks).max(1);
                self.size?.div_ceil(banks)
            }
        };
        (per_bank > 0).then(|| allocated_per_bank(self.buffer_type, per_bank))
    }

    /// True when this buffer may be the one a free of `other` names.
    pub(crate) fn same_buffer(&self, other: &GraphBuffer) -> bool {
        self.address == other.address
            && (self.device_id.is_none() || other.device_id.is_none() || self.device_id == other.device_id)
            && types_match(self.buffer_type, self.exact_type, other.buffer_type, other.exact_type)
    }

    /// True when the buffer counts for (device, buffer type): a node without a device id counts
    /// for any device; its type is `buffer_type` when present, else `type`.
    pub(crate) fn is_of(&self, device: u64, buffer_type: BufferType) -> bool {
        self.device_id.is_none_or(|d| d == device) && self.buffer_type == Some(buffer_type)
    }
}

/// The address a free names: its own, else that of the allocation it connects to (directly or
/// through their shared `buffer` node), within one graph.
pub(crate) fn free_addresses(nodes: &[GraphNode]) -> Vec<Option<u64>> {
    let frees = FreeAddresses::of(nodes);
    nodes.iter().map(|n| frees.of_node(n)).collect()
}

/// [`free_addresses`] node by node: the allocations' addresses by the nodes they connect to,
/// gathered only when some free names no address of its own.
pub(crate) struct FreeAddresses {
    by_node: HashMap<u64, u64>,
}

impl FreeAddresses {
    /// The lookups of one graph's frees.
    pub(crate) fn of(nodes: &[GraphNode]) -> Self {
        let mut by_node: HashMap<u64, u64> = HashMap::new();
        let frees = nodes.iter().filter(|n| n.is(NodeType::BufferDeallocate));
        let connected = if frees.clone().any(|n| n.address().is_none()) { nodes } else { &[] };
        for n in connected.iter().filter(|n| n.is(NodeType::BufferAllocate)) {
            if let Some(address) = n.address() {
                by_node.insert(n.id(), address);
                for c in n.connections() {
                    by_node.insert(c, address);
                }
            }
        }
        Self { by_node }
    }

    /// The address a node of the graph frees; none for a node that is not a free.
    pub(crate) fn of_node(&self, n: &GraphNode) -> Option<u64> {
        if !n.is(NodeType::BufferDeallocate) {
            return None;
        }
        n.address().or_else(|| n.connections().find_map(|c| self.by_node.get(&c).copied()))
    }
}

/// Carries the earlier snapshot S0 of `device` (docs/rules/memory.md §3.1) over the operations between it
/// and N that wrote no `buffers` rows for it: an operation that leaves nothing live writes no rows
/// (a snapshot of nothing), so its graph is replayed on S0 — a buffer of S0 it frees is gone
/// (`ttnn.empty`, `ttnn.deallocate`, then a failure: the deallocate's graph frees the buffer).
/// A node on a device S0 has no rows for is read as `device` (mesh ids, §2). Returns how many of
/// S0's rows were taken out.
pub(crate) fn drop_freed_since(
    rows: &mut Vec<super::inputs::SnapshotRow>,
    device: u64,
    graphs: &[Vec<GraphNode>],
) -> usize {
    let with_rows: Vec<u64> = rows.iter().map(|r| r.device_id).collect();
    let on_device = |n: &GraphNode| n.device_id().is_none_or(|d| d == device || !with_rows.contains(&d));
    let mut dropped = 0;
    for graph in graphs {
        // Buffers the graph allocated itself: its frees of them leave S0 alone.
        let mut own: Vec<GraphBuffer> = Vec::new();
        for (node, address) in graph.iter().zip(free_addresses(graph)) {
            if node.is(NodeType::BufferAllocate) && on_device(node) {
                own.extend(node.address().map(|a| GraphBuffer::key_of(node, a)));
                continue;
            }
            let Some(address) = address.filter(|_| on_device(node)) else { continue };
            let freed = GraphBuffer::key_of(node, address);
            if let Some(k) = own.iter().rposition(|b| b.address == address) {
                own.remove(k);
                continue;
            }
            let of_s0 = |r: &super::inputs::SnapshotRow| {
                r.device_id == device
                    && r.address == i64::try_from(address).ok()
                    && types_match(r.buffer_type, true, freed.buffer_type, freed.exact_type)
            };
            if let Some(k) = rows.iter().position(of_s0) {
                rows.remove(k);
                dropped += 1;
            }
        }
    }
    dropped
}

/// A set of live buffers that graphs are replayed over, with what had to be set aside.
#[derive(Debug, Clone, Default)]
pub(crate) struct GraphWalk {
    /// Live buffers, each with the position of its allocation in the graph being replayed
    /// (none for buffers live before it).
    pub(crate) live: LiveIndex,
    /// Whether allocations keep their layout (a replay across graphs); otherwise it is read
    /// from the graph being replayed when needed ([`super::live_index::Entry::layout`]).
    keep_layouts: bool,
    unknown_frees: Tally,
    frees_without_address: Tally,
    bad_allocations: Tally,
}

impl GraphWalk {
    /// Starts from live buffers.
    pub fn new(live: Vec<GraphBuffer>) -> Self {
        let mut set = LiveIndex::default();
        set.extend(live);
        Self { live: set, ..Self::default() }
    }

    /// Starts from `live` for a replay across graphs: allocations keep their layouts.
    pub(crate) fn across_graphs(live: LiveIndex) -> Self {
        Self { live, keep_layouts: true, ..Self::default() }
    }

    /// Replays the nodes of one graph up to and including position `through` (all when none):
    /// one hash lookup per allocation and per free.
    pub(crate) fn run(&mut self, nodes: &[GraphNode], through: Option<usize>) {
        let frees = FreeAddresses::of(nodes);
        let last = through.map_or(nodes.len(), |f| (f + 1).min(nodes.len()));
        for (i, node) in nodes[..last].iter().enumerate() {
            if node.is(NodeType::BufferAllocate) {
                match node.address().filter(|&a| a > 0) {
                    Some(address) => {
                        let buffer = if self.keep_layouts {
                            GraphBuffer::of_node(node, address)
                        } else {
                            GraphBuffer::key_of(node, address)
                        };
                        self.live.insert(buffer, Some(i));
                    }
                    None => self.bad_allocations.bump(),
                }
            } else if node.is(NodeType::BufferDeallocate) {
                match frees.of_node(node) {
                    Some(address) => {
                        if !self.live.remove_newest(&GraphBuffer::key_of(node, address)) {
                            self.unknown_frees.add(address);
                        }
                    }
                    None => self.frees_without_address.bump(),
                }
            }
        }
    }

    /// The notes of what was set aside so far.
    pub(crate) fn notes(&self) -> Vec<MemoryNote> {
        [
            self.bad_allocations.note(|count, _| MemoryNote::BadBuffers { count, source: "graph allocations" }),
            self.unknown_frees.note(|count, address| MemoryNote::UnknownFrees { count, address }),
            self.frees_without_address.note(|count, _| MemoryNote::FreesWithoutAddress { count }),
        ]
        .into_iter()
        .flatten()
        .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::graph::nodes::NodeFields;
    use crate::analysis::memory::SnapshotRow;

    fn node(node_type: NodeType, device: u64, address: u64) -> GraphNode {
        GraphNode::from(NodeFields {
            node_type: Some(node_type),
            device_id: Some(device),
            address: Some(address),
            buffer_type: Some(BufferType::L1),
            buffer_type_code: true,
            ..NodeFields::default()
        })
    }

    fn row(device_id: u64, address: i64) -> SnapshotRow {
        SnapshotRow {
            device_id,
            address: Some(address),
            size_per_bank: Some(131072),
            buffer_type: Some(BufferType::L1),
            layout: None,
        }
    }

    /// `empty_dealloc_oom` (ttnn 0.81): the snapshot after `ttnn.empty` holds its buffer on
    /// device 0; the deallocate's graph frees it on the mesh id 1 and writes no rows.
    #[test]
    fn a_buffer_freed_by_an_operation_without_rows_leaves_the_snapshot() {
        let mut rows = vec![row(0, 1368064), row(0, 1236992)];
        let deallocate = vec![node(NodeType::BufferDeallocate, 1, 1368064)];
        assert_eq!(drop_freed_since(&mut rows, 0, &[deallocate]), 1);
        assert_eq!(rows, vec![row(0, 1236992)]);
        // A buffer the graph allocated and freed itself is not S0's; another device's free
        // (one S0 has rows for) is not this device's; a DRAM free is not an L1 buffer's.
        let mut rows = vec![row(0, 1236992), row(2, 4096)];
        let temp = vec![
            node(NodeType::BufferAllocate, 0, 1236992),
            node(NodeType::BufferDeallocate, 0, 1236992),
            node(NodeType::BufferDeallocate, 2, 1236992),
            GraphNode::from(NodeFields {
                buffer_type: Some(BufferType::Dram),
                ..node(NodeType::BufferDeallocate, 0, 1236992).fields()
            }),
        ];
        assert_eq!(drop_freed_since(&mut rows, 0, &[temp]), 0);
        assert_eq!(rows.len(), 2);
    }
}
