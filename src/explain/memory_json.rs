//! The `memory` object of an operation entry (memory.md §8): every key always present, null
//! where the case has no value; addresses are numbers whatever `--hex` says. The field order of
//! each struct is the key order of the document.

use crate::analysis::format::bare_shape;
use crate::analysis::memory::{
    Block, CircularBuffer, CircularBufferClash, Fit, LiveBuffer, MemoryAtFailure, OperationMemory,
};
use crate::analysis::messages::reason::Reason;
use serde::Serialize;

/// The MEMORY object of memory.md §8, borrowing from the memory at a failure.
#[derive(Debug, Serialize)]
pub struct MemoryJson<'a> {
    device_id: u64,
    buffer_type: &'static str,
    mesh: Option<MeshJson<'a>>,
    basis: &'static str,
    snapshot_operation_id: Option<u64>,
    region: RegionJson,
    live_buffers: Vec<LiveBufferJson<'a>>,
    used_per_bank: u64,
    free_blocks: Vec<BlockJson>,
    largest_free_block: Option<u64>,
    check: CheckJson,
    reason: Option<Reason>,
    reason_label: Option<&'static str>,
    fit: Option<FitJson<'a>>,
    circular_buffers: Option<ClashJson<'a>>,
}

/// One picture of the memory when an unrecorded operation started (behaviour.md §13.5): the
/// MEMORY object's keys that a snapshot has.
#[derive(Debug, Serialize)]
pub(crate) struct StartJson<'a> {
    device_id: u64,
    buffer_type: &'static str,
    snapshot_operation_id: Option<u64>,
    region: RegionJson,
    live_buffers: Vec<LiveBufferJson<'a>>,
    used_per_bank: u64,
    free_blocks: Vec<BlockJson>,
    largest_free_block: Option<u64>,
}

/// The memory when an unrecorded operation started, for one device and buffer type.
pub(crate) fn start_json(m: &OperationMemory) -> StartJson<'_> {
    let region = &m.map.region;
    StartJson {
        device_id: m.device_id,
        buffer_type: m.buffer_type.token(),
        snapshot_operation_id: m.snapshot_operation_id,
        region: RegionJson { start: region.start, end: region.end, source: region.source.map(|s| s.as_str()) },
        live_buffers: m.live_buffers.iter().map(live_buffer_json).collect(),
        used_per_bank: m.map.used_per_bank,
        free_blocks: m.map.free_blocks.iter().map(block_json).collect(),
        largest_free_block: m.map.largest_free_block,
    }
}

/// `{"shape": [rows, cols], "chips": n}` (memory.md §8).
#[derive(Debug, Serialize)]
struct MeshJson<'a> {
    shape: &'a [u64],
    chips: u64,
}

#[derive(Debug, Serialize)]
struct RegionJson {
    start: Option<u64>,
    end: Option<u64>,
    source: Option<&'static str>,
}

#[derive(Debug, Serialize)]
struct LiveBufferJson<'a> {
    address: u64,
    size_per_bank: u64,
    layout: Option<&'a str>,
    origin: Option<&'static str>,
    device_operation: Option<&'a str>,
    tensor_id: Option<u64>,
    shape: Option<&'a str>,
    dtype: Option<&'a str>,
    producer_operation_id: Option<u64>,
    producer_operation_name: Option<&'a str>,
    last_use_operation_id: Option<u64>,
    input_of_failed_operation: bool,
    stale: bool,
}

#[derive(Debug, Serialize)]
struct BlockJson {
    address: u64,
    size: u64,
}

#[derive(Debug, Serialize)]
struct CheckJson {
    status: &'static str,
    allocated: Option<u64>,
    free: Option<u64>,
    largest_free_block: Option<u64>,
}

#[derive(Debug, Serialize)]
struct FitJson<'a> {
    needed_per_bank: u64,
    free: &'a [u64],
    freed_per_bank: u64,
    block: BlockJson,
}

#[derive(Debug, Serialize)]
struct ClashJson<'a> {
    region_end: u64,
    lowest_l1_address: Option<u64>,
    clashing: &'a [u64],
    circular_buffers: Vec<CircularBufferJson<'a>>,
}

#[derive(Debug, Serialize)]
struct CircularBufferJson<'a> {
    address: u64,
    size: u64,
    core_range: Option<&'a str>,
    device_operation: Option<&'a str>,
}

/// The MEMORY object of memory.md §8 for the memory at a failure.
pub fn memory_json(m: &MemoryAtFailure) -> MemoryJson<'_> {
    let region = &m.map.region;
    MemoryJson {
        device_id: m.device_id,
        buffer_type: m.buffer_type.token(),
        mesh: m.mesh.as_ref().map(|mesh| MeshJson { shape: &mesh.dims, chips: mesh.chips() }),
        basis: m.basis.as_str(),
        snapshot_operation_id: m.snapshot_operation_id,
        region: RegionJson { start: region.start, end: region.end, source: region.source.map(|s| s.as_str()) },
        live_buffers: m.live_buffers.iter().map(live_buffer_json).collect(),
        used_per_bank: m.map.used_per_bank,
        free_blocks: m.map.free_blocks.iter().map(block_json).collect(),
        largest_free_block: m.map.largest_free_block,
        check: CheckJson {
            status: m.check.status.as_str(),
            allocated: m.check.allocated,
            free: m.check.free,
            largest_free_block: m.check.largest_free_block,
        },
        reason: m.reason.as_ref().map(|e| e.reason),
        reason_label: m.reason.as_ref().map(|e| e.reason.label()),
        fit: m.fit.as_ref().ok().map(fit_json),
        circular_buffers: m.circular_buffers.as_ref().map(clash_json),
    }
}

fn live_buffer_json(b: &LiveBuffer) -> LiveBufferJson<'_> {
    LiveBufferJson {
        address: b.address,
        size_per_bank: b.size_per_bank,
        layout: b.layout.as_deref(),
        origin: b.origin.map(|o| o.as_str()),
        device_operation: b.device_operation.as_deref(),
        tensor_id: b.tensor_id,
        shape: b.shape.as_deref().map(bare_shape),
        dtype: b.dtype.as_deref(),
        producer_operation_id: b.producer_operation_id,
        producer_operation_name: b.producer_operation_name.as_deref(),
        last_use_operation_id: b.last_use_operation_id,
        input_of_failed_operation: b.input_of_operation,
        stale: b.stale,
    }
}

fn block_json(b: &Block) -> BlockJson {
    BlockJson { address: b.address, size: b.size }
}

fn fit_json(f: &Fit) -> FitJson<'_> {
    FitJson {
        needed_per_bank: f.needed_per_bank,
        free: &f.free,
        freed_per_bank: f.freed_per_bank,
        block: block_json(&f.block),
    }
}

fn clash_json(c: &CircularBufferClash) -> ClashJson<'_> {
    ClashJson {
        region_end: c.region_end,
        lowest_l1_address: c.lowest_l1_address,
        clashing: &c.clashing,
        circular_buffers: c.circular_buffers.iter().map(circular_buffer_json).collect(),
    }
}

fn circular_buffer_json(b: &CircularBuffer) -> CircularBufferJson<'_> {
    CircularBufferJson {
        address: b.address,
        size: b.size,
        core_range: b.core_range.as_deref(),
        device_operation: b.device_operation.as_deref(),
    }
}
