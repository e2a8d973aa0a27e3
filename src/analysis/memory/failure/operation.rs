//! The post-operation picture of any operation (docs/rules/memory.md §4–§5): its own `buffers` rows
//! for one (device, buffer type), who holds them and the map of the region, with the mesh-id rule
//! of §2 for a single chip opened as a mesh.

use super::holders::Holders;
use super::live::{self, snapshot_buffers};
use super::map::build_map;
use super::picture::OperationMemory;
use crate::analysis::graph::nodes::{GraphNode, NodeType};
use crate::analysis::memory::graph_walk::GraphWalk;
use crate::analysis::memory::inputs::OperationInputs;
use crate::analysis::memory::mesh::{self, tensors_on_the_chip};
use crate::analysis::memory::notes::{MemoryNote, Tally};
use crate::analysis::memory::place::{self, region};
use crate::analysis::messages::failure::BufferType;
use std::borrow::Cow;
use std::collections::BTreeSet;

/// The post-operation picture of any operation (its own `buffers` rows) for one (device, buffer
/// type) of its snapshot — `place`, else L1 of the lowest device, else the first — with the same
/// holders (§4, N = the operation) and map (§5), no check and no fit. None when the operation has
/// no valid `buffers` row.
pub fn operation_memory(inputs: &OperationInputs, place: Option<(u64, BufferType)>) -> Option<OperationMemory> {
    let mut places: Vec<(u64, BufferType)> =
        inputs.snapshot.iter().filter_map(|r| Some((r.device_id, r.buffer_type?))).collect();
    places.sort_by_key(|(d, t)| (*d, *t as u8));
    places.dedup();
    let chosen = place
        .filter(|p| places.contains(p))
        .or_else(|| places.iter().find(|(_, t)| *t == BufferType::L1).copied())
        .or_else(|| places.first().copied())?;
    let (device, buffer_type) = chosen;
    let retyped = place::l1_small_by_address(&inputs.graph, &inputs.devices);
    let (graph, mesh_note) = graph_on_the_mesh(&retyped, &places, device);
    let mut bad = Tally::default();
    let mut placed = snapshot_buffers(&inputs.snapshot, device, buffer_type, &mut bad);
    // What the operation allocated and still held at its end is its own.
    let mut own = GraphWalk::default();
    own.run(&graph, None);
    live::mark_own(&mut placed, &own, device, buffer_type);
    let tensors = tensors_on_the_chip(&inputs.tensors, &places, &inputs.devices, device);
    let mut holders = Holders::new(inputs.operation_id, chosen, &graph, &inputs.input_tensor_ids, &tensors);
    holders.own_by_address = true;
    let live_buffers = holders.hold_all(&placed);
    let region = region(buffer_type, inputs.devices.iter().find(|d| d.device_id == device), None, None);
    let spans: Vec<(u64, u64)> = live_buffers.iter().map(|b| (b.address, b.size_per_bank)).collect();
    let (map, map_notes) = build_map(&spans, region);
    let others: Vec<u64> = places.iter().map(|(d, _)| *d).filter(|&d| d != device).collect();
    let single_chip = mesh::single_chip(&inputs.devices, device, &others);
    // A single chip is one device to the user: which id its tables use is no news to them.
    let mut notes: Vec<MemoryNote> = mesh_note.filter(|_| !single_chip).into_iter().collect();
    notes.extend(bad.note(|count, _| MemoryNote::BadBuffers { count, source: "buffers rows" }));
    notes.extend(map_notes);
    Some(OperationMemory {
        operation_id: inputs.operation_id,
        snapshot_operation_id: None,
        places,
        device_id: device,
        buffer_type,
        live_buffers,
        map,
        notes,
        single_chip,
    })
}

/// The mesh-id rule (docs/rules/memory.md §2) for an operation's picture: when the snapshot holds one
/// device only and the graph allocates on exactly one other device, the graph's nodes of that
/// device are the snapshot's (a single chip opened as a mesh, ttnn 0.81); with the note.
fn graph_on_the_mesh<'a>(
    graph: &'a [GraphNode],
    places: &[(u64, BufferType)],
    device: u64,
) -> (Cow<'a, [GraphNode]>, Option<MemoryNote>) {
    let allocating: BTreeSet<u64> =
        graph.iter().filter(|n| n.is(NodeType::BufferAllocate)).filter_map(|n| n.device_id()).collect();
    let only_device = places.iter().all(|(d, _)| *d == device);
    let found = match allocating.iter().copied().collect::<Vec<_>>().as_slice() {
        [found] if *found != device && only_device => *found,
        _ => return (Cow::Borrowed(graph), None),
    };
    let mut renamed = graph.to_vec();
    for n in renamed.iter_mut().filter(|n| n.device_id() == Some(found)) {
        n.set_device_id(Some(device));
    }
    (Cow::Owned(renamed), Some(MemoryNote::MeshDevice { found, chosen: device }))
}
