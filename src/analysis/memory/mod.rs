//! The memory at the moment of a failure, and after any operation (memory.md, beyond the
//! reference): which buffers were live, who held them, the map of the region and its check
//! against the allocator's own figures, what would make the request fit, and the circular
//! buffers in the way. Pure: the report layer gathers [`FailureInputs`] / [`OperationInputs`].

mod cb;
mod fit;
mod graph_index;
mod holders;
mod inputs;
mod live;
mod live_index;
mod map;
mod model;
mod notes;
mod place;
mod replay;
mod text;

pub use inputs::{
    DeviceFacts, EarlierSnapshot, FailureInputs, GraphBuffer, OperationInputs, SnapshotRow, TensorFacts, TensorUse,
};
pub use model::{
    Basis, Block, Check, CheckStatus, CircularBuffer, CircularBufferClash, Fit, LiveBuffer, MemoryAtFailure, MemoryMap,
    NoFit, OperationMemory, Origin, Region, RegionSource,
};
pub use notes::MemoryNote;
pub use replay::GraphReplayer;
pub use text::{
    advice_sentence, basis_sentence, check_sentence, failure_lines, holders_sentence, operation_lines, reason_sentence,
};

use crate::analysis::failure::{AllocationFailure, BufferType, FailureKind, Figures};
use crate::analysis::reason::explain;
use holders::Holders;
use live::{live_at_failure, snapshot_buffers};
use map::{build_map, check};
use notes::Tally;
use place::{default_banks, failure_buffer_type, failure_device, region};
use replay::Replay;

/// The failure's place (memory.md §2): its device and buffer type, from N's graph, its first
/// input tensor (looked up in `inputs.tensors`) and the devices; none when the failure is not
/// one of L1, DRAM or L1_SMALL. The report reads the earlier snapshot of this device.
pub(crate) fn failure_place(inputs: &FailureInputs) -> Option<(u64, BufferType)> {
    let failure = inputs.failure.as_ref()?;
    let buffer_type = failure_buffer_type(failure)?;
    let first = inputs.input_tensor_ids.first().and_then(|id| inputs.tensors.iter().find(|t| t.tensor_id == *id));
    Some((failure_device(&inputs.graph, first, &inputs.devices), buffer_type))
}

/// Whether the rules would read the earlier snapshot S0 of `device` (memory.md §3.4): always
/// when N has no `buffers` row for it; otherwise only to size a buffer the unwinding freed.
pub(crate) fn needs_earlier_snapshot(inputs: &FailureInputs, device: u64) -> bool {
    !inputs.own_snapshot.iter().any(|r| r.device_id == device) || live::unwinds(&inputs.graph)
}

/// The addresses of the buffers live at the failure, so that the report can read the tensors
/// that may hold them; empty when there is no basis.
pub fn live_addresses(inputs: &FailureInputs) -> Vec<u64> {
    let Some((device, buffer_type)) = failure_place(inputs) else { return Vec::new() };
    let banks = banks_of(inputs, device, buffer_type);
    live_at_failure(inputs, device, buffer_type, banks)
        .map_or_else(Vec::new, |l| l.buffers.iter().map(|b| b.address).collect())
}

fn banks_of(inputs: &FailureInputs, device: u64, buffer_type: BufferType) -> u64 {
    let figures = inputs.failure.as_ref().map(|f| f.figures.banks).unwrap_or_default();
    default_banks(buffer_type, figures, inputs.devices.iter().find(|d| d.device_id == device))
}

/// The memory at N's failure (memory.md §2–§7); none when N has no allocation failure of L1,
/// DRAM or L1_SMALL, or when no basis applies (§3.4). Never panics, whatever the inputs.
pub fn memory_at_failure(inputs: &FailureInputs) -> Option<MemoryAtFailure> {
    let failure = inputs.failure.as_ref()?;
    let (device, buffer_type) = failure_place(inputs)?;
    let device_row = inputs.devices.iter().find(|d| d.device_id == device);
    let live = live_at_failure(inputs, device, buffer_type, banks_of(inputs, device, buffer_type))?;
    let holders = Holders::new(
        inputs.operation_id,
        (device, buffer_type),
        &inputs.graph,
        &inputs.input_tensor_ids,
        &inputs.tensors,
    );
    let live_buffers = holders.hold_all(&live.buffers);
    let region = region(buffer_type, device_row, failure.figures.bank_size);
    let spans: Vec<(u64, u64)> = live_buffers.iter().map(|b| (b.address, b.size_per_bank)).collect();
    let (map, map_notes) = build_map(&spans, region);
    let check = check(&map, &failure.figures, live_buffers.len());
    let circular = matches!(failure.kind, FailureKind::CircularBuffersBeyondL1 | FailureKind::CircularBuffersClash);
    let needed_per_bank = if circular { None } else { failure.figures.per_bank };
    let fit = if circular {
        Err(NoFit::CircularBuffers)
    } else {
        match (region.bounds(), needed_per_bank) {
            (None, _) => Err(NoFit::RegionUnknown),
            (_, None) => Err(NoFit::NoRequest),
            (Some(_), Some(need)) if failure.figures.bank_size.is_some_and(|bank| bank < need) => {
                Err(NoFit::LargerThanRegion { size: failure.figures.bank_size.unwrap_or(0) })
            }
            (Some(bounds), Some(need)) => fit::fit(&live_buffers, bounds, need, buffer_type != BufferType::Dram),
        }
    };
    let circular_buffers =
        if circular { cb::circular_buffer_clash(&inputs.graph, &failure.figures, &live_buffers) } else { None };
    let mut notes = live.notes;
    notes.extend(map_notes);
    Some(MemoryAtFailure {
        operation_id: inputs.operation_id,
        kind: failure.kind,
        device_id: device,
        buffer_type,
        basis: live.basis,
        snapshot_operation_id: live.snapshot_operation_id,
        live_buffers,
        reason: if circular { None } else { map_reason(failure, &map) },
        check,
        map,
        needed_per_bank,
        fit,
        circular_buffers,
        notes,
    })
}

/// The reason of behaviour.md §5.3 from the map's figures, for a message without free figures
/// (V0–V2): free = region size − used, largest = the largest free block; need and bank size from
/// the message. Without a region only the message's own figures count.
fn map_reason(failure: &AllocationFailure, map: &MemoryMap) -> Option<crate::analysis::reason::Explanation> {
    let f = &failure.figures;
    if f.free.is_some() && f.largest_free_block.is_some() {
        return None;
    }
    let figures = match map.region.bounds() {
        Some((start, end)) => Figures {
            free: Some((end - start).saturating_sub(map.used_per_bank)),
            largest_free_block: map.largest_free_block,
            ..f.clone()
        },
        None => f.clone(),
    };
    explain(&AllocationFailure { figures, ..failure.clone() }, false)
}

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
    let mut bad = Tally::default();
    let mut placed = snapshot_buffers(&inputs.snapshot, device, buffer_type, &mut bad);
    // What the operation allocated and still held at its end is its own.
    let mut own = Replay::default();
    own.run(&inputs.graph, None);
    for p in &mut placed {
        p.allocated_at = own.live.find_of(p.address, device, buffer_type).and_then(|e| e.allocated_at);
    }
    let mut holders =
        Holders::new(inputs.operation_id, chosen, &inputs.graph, &inputs.input_tensor_ids, &inputs.tensors);
    holders.own_by_address = true;
    let live_buffers = holders.hold_all(&placed);
    let region = region(buffer_type, inputs.devices.iter().find(|d| d.device_id == device), None);
    let spans: Vec<(u64, u64)> = live_buffers.iter().map(|b| (b.address, b.size_per_bank)).collect();
    let (map, map_notes) = build_map(&spans, region);
    let mut notes: Vec<MemoryNote> =
        bad.note(|count, _| MemoryNote::BadBuffers { count, source: "buffers rows" }).into_iter().collect();
    notes.extend(map_notes);
    Some(OperationMemory {
        operation_id: inputs.operation_id,
        places,
        device_id: device,
        buffer_type,
        live_buffers,
        map,
        notes,
    })
}

#[cfg(test)]
mod tests;
