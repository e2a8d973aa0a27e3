//! The `memory` object of an operation entry (docs/rules/memory.md §8): every key always present, null
//! where the case has no value; addresses are numbers whatever `--hex` says. The field order of
//! each struct is the key order of the document.

use crate::analysis::format::bare_shape;
use crate::analysis::memory::{
    Block, CircularBuffer, CircularBufferClash, Fit, LiveBuffer, MemoryAtFailure, OperationMemory,
};
use crate::analysis::messages::reason::Reason;
use crate::analysis::shared_text::SharedText;
use serde::Serialize;

/// The MEMORY object of docs/rules/memory.md §8: the memory at a failure. Its two long lists
/// are vectors, or made an entry at a time as they are written ([`MemoryAnswer::written`]).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MemoryAnswer<L = Vec<LiveBufferAnswer>, F = Vec<BlockAnswer>> {
    /// The device the failure is placed on.
    pub device_id: u64,
    /// The buffer type that failed.
    pub buffer_type: &'static str,
    mesh: Option<MeshAnswer>,
    basis: &'static str,
    snapshot_operation_id: Option<u64>,
    region: RegionAnswer,
    /// The buffers live at the failure, biggest first.
    pub live_buffers: L,
    used_per_bank: u64,
    /// The free blocks of the region, in address order.
    pub free_blocks: F,
    largest_free_block: Option<u64>,
    check: CheckAnswer,
    reason: Option<Reason>,
    reason_label: Option<&'static str>,
    fit: Option<FitAnswer>,
    circular_buffers: Option<ClashAnswer>,
}

/// One picture of the memory after an operation (tab 4's), or when an unrecorded operation
/// started (docs/rules/reference.md §13.5): the MEMORY object's keys that a snapshot has.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SnapshotAnswer {
    /// The device shown.
    pub device_id: u64,
    /// The buffer type shown.
    pub buffer_type: &'static str,
    snapshot_operation_id: Option<u64>,
    region: RegionAnswer,
    /// Its buffers, biggest first.
    pub live_buffers: Vec<LiveBufferAnswer>,
    used_per_bank: u64,
    /// The free blocks of the region, in address order.
    pub free_blocks: Vec<BlockAnswer>,
    largest_free_block: Option<u64>,
}

impl SnapshotAnswer {
    /// The picture of one device and buffer type.
    pub fn new(m: &OperationMemory) -> Self {
        let region = &m.map.region;
        Self {
            device_id: m.device_id,
            buffer_type: m.buffer_type.token(),
            snapshot_operation_id: m.snapshot_operation_id,
            region: RegionAnswer { start: region.start, end: region.end, source: region.source.map(|s| s.as_str()) },
            live_buffers: m.live_buffers.iter().map(LiveBufferAnswer::new).collect(),
            used_per_bank: m.map.used_per_bank,
            free_blocks: m.map.free_blocks.iter().map(BlockAnswer::new).collect(),
            largest_free_block: m.map.largest_free_block,
        }
    }
}

/// `{"shape": [rows, cols], "chips": n}` (docs/rules/memory.md §8).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
struct MeshAnswer {
    shape: Vec<u64>,
    chips: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
struct RegionAnswer {
    start: Option<u64>,
    end: Option<u64>,
    source: Option<&'static str>,
}

/// One live buffer, with the tensor that holds it when known.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LiveBufferAnswer {
    address: u64,
    size_per_bank: u64,
    layout: Option<SharedText>,
    origin: Option<&'static str>,
    device_operation: Option<SharedText>,
    tensor_id: Option<u64>,
    shape: Option<String>,
    dtype: Option<SharedText>,
    producer_operation_id: Option<u64>,
    producer_operation_name: Option<SharedText>,
    last_use_operation_id: Option<u64>,
    input_of_failed_operation: bool,
    stale: bool,
}

impl LiveBufferAnswer {
    fn new(b: &LiveBuffer) -> Self {
        Self {
            address: b.address,
            size_per_bank: b.size_per_bank,
            layout: b.layout.clone(),
            origin: b.origin.map(|o| o.as_str()),
            device_operation: b.device_operation.clone(),
            tensor_id: b.tensor_id,
            shape: b.shape.as_deref().map(|s| bare_shape(s).to_string()),
            dtype: b.dtype.clone(),
            producer_operation_id: b.producer_operation_id,
            producer_operation_name: b.producer_operation_name.clone(),
            last_use_operation_id: b.last_use_operation_id,
            input_of_failed_operation: b.input_of_operation,
            stale: b.stale,
        }
    }
}

/// A free block: its address and size per bank.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BlockAnswer {
    address: u64,
    size: u64,
}

impl BlockAnswer {
    fn new(b: &Block) -> Self {
        Self { address: b.address, size: b.size }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
struct CheckAnswer {
    status: &'static str,
    allocated: Option<u64>,
    free: Option<u64>,
    largest_free_block: Option<u64>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
struct FitAnswer {
    needed_per_bank: u64,
    free: Vec<u64>,
    freed_per_bank: u64,
    block: BlockAnswer,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
struct ClashAnswer {
    region_end: u64,
    lowest_l1_address: Option<u64>,
    clashing: Vec<u64>,
    circular_buffers: Vec<CircularBufferAnswer>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
struct CircularBufferAnswer {
    address: u64,
    size: u64,
    core_range: Option<String>,
    device_operation: Option<String>,
}

/// A list of answers made one at a time as it is written, each from an item of the picture.
pub struct EachOf<'m, T, A>(&'m [T], fn(&T) -> A);

impl<T, A: Serialize> Serialize for EachOf<'_, T, A> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.iter().map(self.1))
    }
}

/// [`MemoryAnswer`] as it is written: its lists made an entry at a time (150 000 live buffers'
/// answers are never held at once).
pub type WrittenMemory<'m> = MemoryAnswer<EachOf<'m, LiveBuffer, LiveBufferAnswer>, EachOf<'m, Block, BlockAnswer>>;

impl MemoryAnswer {
    /// The MEMORY object of docs/rules/memory.md §8 for the memory at a failure.
    pub fn new(m: &MemoryAtFailure) -> Self {
        let live = m.live_buffers.iter().map(LiveBufferAnswer::new).collect();
        MemoryAnswer::with_lists(m, live, m.map.free_blocks.iter().map(BlockAnswer::new).collect())
    }

    /// [`Self::new`] as JSON writes it: the same keys and values, its lists made as they are
    /// serialised.
    pub fn written(m: &MemoryAtFailure) -> WrittenMemory<'_> {
        let live = EachOf(m.live_buffers.as_slice(), LiveBufferAnswer::new as fn(&LiveBuffer) -> LiveBufferAnswer);
        MemoryAnswer::with_lists(m, live, EachOf(m.map.free_blocks.as_slice(), BlockAnswer::new))
    }
}

impl<L, F> MemoryAnswer<L, F> {
    /// The answer of `m` with its two lists given.
    fn with_lists(m: &MemoryAtFailure, live_buffers: L, free_blocks: F) -> Self {
        let region = &m.map.region;
        Self {
            device_id: m.device_id,
            buffer_type: m.buffer_type.token(),
            mesh: m.mesh.as_ref().map(|mesh| MeshAnswer { shape: mesh.dims.clone(), chips: mesh.chips() }),
            basis: m.basis.as_str(),
            snapshot_operation_id: m.snapshot_operation_id,
            region: RegionAnswer { start: region.start, end: region.end, source: region.source.map(|s| s.as_str()) },
            live_buffers,
            used_per_bank: m.map.used_per_bank,
            free_blocks,
            largest_free_block: m.map.largest_free_block,
            check: CheckAnswer {
                status: m.check.status.as_str(),
                allocated: m.check.allocated,
                free: m.check.free,
                largest_free_block: m.check.largest_free_block,
            },
            reason: m.reason.as_ref().map(|e| e.reason),
            reason_label: m.reason.as_ref().map(|e| e.reason.label()),
            fit: m.fit.as_ref().ok().map(fit_answer),
            circular_buffers: m.circular_buffers.as_ref().map(clash_answer),
        }
    }
}

fn fit_answer(f: &Fit) -> FitAnswer {
    FitAnswer {
        needed_per_bank: f.needed_per_bank,
        free: f.free.clone(),
        freed_per_bank: f.freed_per_bank,
        block: BlockAnswer::new(&f.block),
    }
}

fn clash_answer(c: &CircularBufferClash) -> ClashAnswer {
    ClashAnswer {
        region_end: c.region_end,
        lowest_l1_address: c.lowest_l1_address,
        clashing: c.clashing.clone(),
        circular_buffers: c.circular_buffers.iter().map(circular_buffer_answer).collect(),
    }
}

fn circular_buffer_answer(b: &CircularBuffer) -> CircularBufferAnswer {
    CircularBufferAnswer {
        address: b.address,
        size: b.size,
        core_range: b.core_range.clone(),
        device_operation: b.device_operation.clone(),
    }
}
