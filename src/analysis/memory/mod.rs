//! The memory at the moment of a failure, and after any operation (docs/rules/memory.md, beyond the
//! reference): which buffers were live, who held them, the map of the region and its check
//! against the allocator's own figures, what would make the request fit, and the circular
//! buffers in the way. Pure: the report layer gathers [`FailureInputs`] / [`OperationInputs`].

mod at_failure;
mod cb;
mod fit;
mod graph_index;
mod graph_ties;
mod graph_walk;
mod graph_walker;
pub(crate) mod holders;
mod inputs;
pub mod late;
mod live;
mod live_index;
mod map;
mod mesh;
mod model;
mod notes;
pub mod peak;
mod place;
mod snapshot_diff;
mod text;
pub mod usage;
pub mod usage_series;
pub mod whatif;

pub(crate) use graph_ties::{output_places, producers_to_tie, tie_outputs};
pub(crate) use graph_walk::drop_freed_since;
pub(crate) use graph_walk::failure_point;
pub use graph_walker::GraphWalker;
pub(crate) use inputs::valid_buffer;
pub use inputs::{
    DeviceFacts, EarlierSnapshot, FailureInputs, GraphBuffer, OperationInputs, SnapshotRow, TensorFacts, TensorUse,
};
pub(crate) use mesh::other_devices_with_buffers;
pub use mesh::{MeshShape, mesh_shape};
pub(crate) use mesh::{chip_alias, chip_row, figures_on_one_chip, named_device, other_ids, tensors_on_the_chip};
pub use model::{
    Basis, Block, Check, CheckStatus, CircularBuffer, CircularBufferClash, Fit, LiveBuffer, MemoryAtFailure, MemoryMap,
    NoFit, OperationMemory, Origin, Region, RegionSource,
};
pub use notes::MemoryNote;
pub use text::{
    advice_sentence, basis_sentence, check_sentence, clash_facts, failure_lines, failure_lines_with_fixes,
    fullness_sentence, holders_sentence, operation_lines, reason_sentence,
};

pub use at_failure::{FoundLive, found_live, live_addresses, memory_at_failure, memory_at_failure_with};
pub(crate) use at_failure::{
    failure_mark_place, failure_place, found_device, found_place, needs_earlier_snapshot, place_devices,
};

use crate::analysis::graph::nodes::{GraphNode, NodeType};
use crate::analysis::messages::failure::BufferType;
use graph_walk::GraphWalk;
use holders::Holders;
use live::snapshot_buffers;
use map::build_map;
use notes::Tally;
use place::region;
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
        graph.iter().filter(|n| n.is(NodeType::BufferAllocate)).filter_map(|n| n.device_id).collect();
    let only_device = places.iter().all(|(d, _)| *d == device);
    let found = match allocating.iter().copied().collect::<Vec<_>>().as_slice() {
        [found] if *found != device && only_device => *found,
        _ => return (Cow::Borrowed(graph), None),
    };
    let mut renamed = graph.to_vec();
    for n in renamed.iter_mut().filter(|n| n.device_id == Some(found)) {
        n.device_id = Some(device);
    }
    (Cow::Owned(renamed), Some(MemoryNote::MeshDevice { found, chosen: device }))
}

#[cfg(test)]
mod tests;
