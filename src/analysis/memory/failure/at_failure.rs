//! The memory at N's failure (docs/rules/memory.md §2–§7): its place — with the mesh-id rule of ttnn 0.81
//! single chips — the live buffers, who holds them, the map and its check, the fit, the circular
//! buffers in the way.

use super::cb;
use super::fit;
use super::holders::Holders;
use super::live::{LiveSet, live_at_failure, unwinds};
use super::map::{build_map, check};
use super::picture::{Fit, LiveBuffer, MemoryAtFailure, MemoryMap, NoFit, Region};
use crate::analysis::memory::inputs::FailureInputs;
use crate::analysis::memory::mesh;
use crate::analysis::memory::mesh::{chip_alias, other_ids, tensors_on_the_chip};
use crate::analysis::memory::notes::MemoryNote;
use crate::analysis::memory::place::{
    default_banks, dram_base, failure_buffer_type, failure_device, l1_small_by_address, region,
};
use crate::analysis::messages::failure::{AllocationFailure, BufferType, FailureKind, Figures};
use crate::analysis::messages::reason::{Explanation, explain};
use std::borrow::Cow;

/// The device §2 finds for N's error before the mesh-id rule: from N's graph, its first input
/// tensor (looked up in `inputs.tensors`) and the devices; none when nothing names one. The
/// report looks up which devices have rows.
pub(crate) fn found_device(inputs: &FailureInputs) -> Option<u64> {
    let first = inputs.input_tensor_ids.first().and_then(|id| inputs.tensors.iter().find(|t| t.tensor_id == *id));
    failure_device(&inputs.graph, first, &inputs.devices)
}

/// The device §2 finds for N's failure before the mesh-id rule (0 when nothing names one), and
/// its buffer type; none when the failure is not one of L1, DRAM or L1_SMALL.
pub(crate) fn found_place(inputs: &FailureInputs) -> Option<(u64, BufferType)> {
    let buffer_type = failure_buffer_type(inputs.failure.as_ref()?)?;
    Some((found_device(inputs).unwrap_or(0), buffer_type))
}

/// The mesh-id rule (docs/rules/memory.md §2): when the device found has no `buffers` row up to N (N's own
/// rows or `inputs.devices_with_rows`) but exactly one other device does, that device.
fn mesh_device(inputs: &FailureInputs, found: u64) -> Option<u64> {
    let mut with_rows: Vec<u64> =
        inputs.own_snapshot.iter().map(|r| r.device_id).chain(inputs.devices_with_rows.iter().copied()).collect();
    with_rows.sort_unstable();
    with_rows.dedup();
    match with_rows.as_slice() {
        [only] if *only != found => Some(*only),
        _ => None,
    }
}

/// The failure's place (docs/rules/memory.md §2): its device, after the mesh-id rule, and buffer type.
/// The report reads the earlier snapshot of this device.
pub(crate) fn failure_place(inputs: &FailureInputs) -> Option<(u64, BufferType)> {
    let (found, buffer_type) = found_place(inputs)?;
    Some((mesh_device(inputs, found).unwrap_or(found), buffer_type))
}

/// Where an operation's error is marked on the memory over the run: the failure's place when it
/// has one (the same device and type as the memory at the failure); otherwise the device §2 finds
/// (after the mesh-id rule) and the type the message names — L1 for a circular buffer larger than
/// its L1 buffer; none where nothing names one (marked on every line).
pub(crate) fn failure_mark_place(inputs: &FailureInputs) -> (Option<u64>, Option<BufferType>) {
    if let Some((device, buffer_type)) = failure_place(inputs) {
        return (Some(device), Some(buffer_type));
    }
    let device = found_device(inputs).map(|found| mesh_device(inputs, found).unwrap_or(found));
    let buffer_type = inputs.failure.as_ref().and_then(|f| match f.kind {
        FailureKind::CircularBufferExceedsItsBuffer => Some(BufferType::L1),
        _ => f.figures.buffer_type,
    });
    (device, buffer_type)
}

/// The devices whose records are read as the failure's device (docs/rules/memory.md §2): the device of
/// its place and, under the mesh-id rule, the device found as well, or on a single chip opened
/// as a mesh its other id (where `device_tensors` may place a tensor); empty without a place.
pub(crate) fn place_devices(inputs: &FailureInputs) -> Vec<u64> {
    let Some((found, _)) = found_place(inputs) else { return Vec::new() };
    match mesh_device(inputs, found) {
        Some(chosen) => vec![chosen, found],
        None => {
            let others = other_ids(&snapshot_places(inputs), found);
            [found].into_iter().chain(chip_alias(&inputs.devices, found, &others)).collect()
        }
    }
}

/// The (device, buffer type) of N's own and the earlier snapshot's rows.
fn snapshot_places(inputs: &FailureInputs) -> Vec<(u64, BufferType)> {
    let earlier = inputs.earlier_snapshot.iter().flat_map(|s| s.rows.iter());
    inputs.own_snapshot.iter().chain(earlier).filter_map(|r| Some((r.device_id, r.buffer_type?))).collect()
}

/// The inputs as the rules read them: under the mesh-id rule, the graph nodes, replayed buffers
/// and tensor placements (`tensors` and `device_tensors` rows) of the device found are taken as
/// the chosen device's, with the note saying so; and on a single chip opened as a mesh, a
/// `device_tensors` row under the chip's other id is the failure device's (a tensor whose
/// `tensors.address` is NULL: docs/rules/memory.md §2, §4); a graph allocation typed `L1` by its `type`
/// string alone, inside the L1_SMALL region, is L1_SMALL.
fn as_placed(inputs: &FailureInputs) -> (Cow<'_, FailureInputs>, Option<MemoryNote>) {
    let Some((found, _)) = found_place(inputs) else { return (Cow::Borrowed(inputs), None) };
    let chosen = mesh_device(inputs, found);
    let device = chosen.unwrap_or(found);
    let places = snapshot_places(inputs);
    let on_the_chip = match tensors_on_the_chip(&inputs.tensors, &places, &inputs.devices, device) {
        Cow::Owned(tensors) => Some(tensors),
        Cow::Borrowed(_) => None,
    };
    let retyped = match l1_small_by_address(&inputs.graph, &inputs.devices) {
        Cow::Owned(graph) => Some(graph),
        Cow::Borrowed(_) => None,
    };
    if chosen.is_none() && on_the_chip.is_none() && retyped.is_none() {
        return (Cow::Borrowed(inputs), None);
    }
    let mut placed = inputs.clone();
    if let Some(tensors) = on_the_chip {
        placed.tensors = tensors;
    }
    if let Some(graph) = retyped {
        placed.graph = std::sync::Arc::new(graph);
    }
    let Some(chosen) = chosen else { return (Cow::Owned(placed), None) };
    let rename = |id: &mut Option<u64>| {
        if *id == Some(found) {
            *id = Some(chosen);
        }
    };
    for n in std::sync::Arc::make_mut(&mut placed.graph).iter_mut().filter(|n| n.device_id() == Some(found)) {
        n.set_device_id(Some(chosen));
    }
    placed.replayed_before.iter_mut().flatten().for_each(|b| rename(&mut b.device_id));
    for tensor in &mut placed.tensors {
        rename(&mut tensor.device_id);
        for (device, _) in &mut tensor.device_addresses {
            if *device == found {
                *device = chosen;
            }
        }
    }
    (Cow::Owned(placed), Some(MemoryNote::MeshDevice { found, chosen }))
}

/// Whether the rules would read the earlier snapshot S0 of `device` (docs/rules/memory.md §3.4): always
/// when N has no `buffers` row for it; otherwise only to size a buffer the unwinding freed.
pub(crate) fn needs_earlier_snapshot(inputs: &FailureInputs, device: u64) -> bool {
    !inputs.own_snapshot.iter().any(|r| r.device_id == device) || unwinds(&inputs.graph)
}

/// The addresses of the buffers live at the failure, so that the report can read the tensors
/// that may hold them; empty when there is no basis.
pub fn live_addresses(inputs: &FailureInputs) -> Vec<u64> {
    found_live(inputs).map_or_else(Vec::new, |f| f.addresses())
}

/// The buffers live at the failure, found for the live addresses and kept for the picture
/// ([`memory_at_failure_with`]), with what they were found for: the device found and the one
/// chosen by the mesh-id rule (the tensors read in between may change them), the place and the
/// banks. A failure's graph may allocate 300 000 buffers: they are walked once.
#[derive(Debug, Clone)]
pub struct FoundLive {
    key: LiveKey,
    live: LiveSet,
}

/// What a live set was found for: (device found, device chosen, place, banks).
type LiveKey = (u64, Option<u64>, (u64, BufferType), u64);

impl FoundLive {
    /// The addresses of its buffers.
    pub fn addresses(&self) -> Vec<u64> {
        self.live.buffers.iter().map(|b| b.address).collect()
    }

    /// The addresses of its buffers, those live before the failed operation (whose holder is the
    /// most recent tenant of the address) apart from those its graph allocated (docs/rules/memory.md §4).
    pub fn addresses_by_origin(&self) -> (Vec<u64>, Vec<u64>) {
        let (own, earlier): (Vec<_>, Vec<_>) = self.live.buffers.iter().partition(|b| b.allocated_at.is_some());
        (earlier.iter().map(|b| b.address).collect(), own.iter().map(|b| b.address).collect())
    }
}

/// The buffers live at the failure and what they were found for; none without a basis.
pub fn found_live(inputs: &FailureInputs) -> Option<FoundLive> {
    let (placed, _) = as_placed(inputs);
    let (device, buffer_type) = failure_place(&placed)?;
    let key = live_key(inputs, &placed, (device, buffer_type))?;
    Some(FoundLive { key, live: live_at_failure(&placed, device, buffer_type, key.3)? })
}

/// What the live set of `inputs` (placed as `placed`, at `place`) is found for.
fn live_key(inputs: &FailureInputs, placed: &FailureInputs, place: (u64, BufferType)) -> Option<LiveKey> {
    let (found, _) = found_place(inputs)?;
    Some((found, mesh_device(inputs, found), place, banks_of(placed, place.0, place.1)))
}

fn banks_of(inputs: &FailureInputs, device: u64, buffer_type: BufferType) -> u64 {
    let figures = inputs.failure.as_ref().map(|f| f.figures.banks).unwrap_or_default();
    default_banks(buffer_type, figures, inputs.devices.iter().find(|d| d.device_id == device))
}

/// The memory at N's failure (docs/rules/memory.md §2–§7); none when N has no allocation failure of L1,
/// DRAM or L1_SMALL, or when no basis applies (§3.4). Never panics, whatever the inputs.
pub fn memory_at_failure(inputs: &FailureInputs) -> Option<MemoryAtFailure> {
    memory_at_failure_with(inputs, None)
}

/// [`memory_at_failure`], with the live buffers found before the tensors were read: taken when
/// they were found for the same devices, place and banks, else found again.
pub fn memory_at_failure_with(inputs: &FailureInputs, found: Option<FoundLive>) -> Option<MemoryAtFailure> {
    let original = inputs;
    let (inputs, mesh_note) = as_placed(inputs);
    let inputs = inputs.as_ref();
    let failure = inputs.failure.as_ref()?;
    let (device, buffer_type) = failure_place(inputs)?;
    let device_row = inputs.devices.iter().find(|d| d.device_id == device);
    let key = live_key(original, inputs, (device, buffer_type))?;
    let live = match found.filter(|f| f.key == key) {
        Some(found) => found.live,
        None => live_at_failure(inputs, device, buffer_type, key.3)?,
    };
    let holders = Holders::new(
        inputs.operation_id,
        (device, buffer_type),
        &inputs.graph,
        &inputs.input_tensor_ids,
        &inputs.tensors,
    );
    let live_buffers = holders.hold_all(&live.buffers);
    let base = (buffer_type == BufferType::Dram).then(|| dram_base(inputs, device)).flatten();
    let region = region(buffer_type, device_row, failure.figures.bank_size, base);
    let spans: Vec<(u64, u64)> = live_buffers.iter().map(|b| (b.address, b.size_per_bank)).collect();
    let (map, map_notes) = build_map(&spans, region);
    let check = check(&map, &failure.figures, live_buffers.len());
    let circular = matches!(failure.kind, FailureKind::CircularBuffersBeyondL1 | FailureKind::CircularBuffersClash);
    let needed_per_bank = if circular { None } else { failure.figures.per_bank };
    let fit = fit_at_failure(failure, region, &live_buffers, buffer_type);
    let circular_buffers =
        if circular { cb::circular_buffer_clash(&inputs.graph, &failure.figures, &live_buffers) } else { None };
    let single_chip = mesh::single_chip(&inputs.devices, device, &mesh::other_devices_with_buffers(inputs, device));
    // A single chip is one device to the user: which id its tables use is no news to them.
    let mut notes: Vec<MemoryNote> = mesh_note.filter(|_| !single_chip).into_iter().collect();
    notes.extend(live.notes);
    notes.extend(map_notes);
    Some(MemoryAtFailure {
        operation_id: inputs.operation_id,
        kind: failure.kind,
        device_id: device,
        buffer_type,
        mesh: None,
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
        single_chip,
    })
}

/// What would make N's request fit (docs/rules/memory.md §6): none for circular buffers, without a region
/// or a request, or for a request larger than the whole bank; else the cheapest buffers to free
/// (L1 and L1_SMALL allocate top-down, DRAM bottom-up).
fn fit_at_failure(
    failure: &AllocationFailure,
    region: Region,
    live_buffers: &[LiveBuffer],
    buffer_type: BufferType,
) -> Result<Fit, NoFit> {
    if matches!(failure.kind, FailureKind::CircularBuffersBeyondL1 | FailureKind::CircularBuffersClash) {
        return Err(NoFit::CircularBuffers);
    }
    let bank_size = failure.figures.bank_size;
    match (region.bounds(), failure.figures.per_bank) {
        (None, _) => Err(NoFit::RegionUnknown),
        (_, None) => Err(NoFit::NoRequest),
        (Some(_), Some(need)) if bank_size.is_some_and(|bank| bank < need) => {
            Err(NoFit::LargerThanRegion { size: bank_size.unwrap_or(0) })
        }
        (Some(bounds), Some(need)) => fit::fit(live_buffers, bounds, need, buffer_type != BufferType::Dram),
    }
}

/// The reason of docs/rules/reference.md §5.3 from the map's figures, for a message without free figures
/// (V0–V2): free = region size − used, largest = the largest free block; need and bank size from
/// the message. Without a region only the message's own figures count.
fn map_reason(failure: &AllocationFailure, map: &MemoryMap) -> Option<Explanation> {
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
