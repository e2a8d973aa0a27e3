//! What the memory rules find (docs/rules/memory.md §3–§8): the live buffers and who holds them, the map of
//! a region, its check against the allocator, what would make the request fit, the circular
//! buffers in the way. One [`LiveBuffer`] and one [`MemoryMap`] type serve both the failure's
//! picture and any operation's post-operation picture.

use crate::analysis::memory::notes::MemoryNote;
use crate::analysis::messages::failure::{BufferType, FailureKind};
use crate::analysis::messages::reason::Explanation;
use crate::analysis::shared_text::SharedText;

/// Which records the live buffers were rebuilt from (docs/rules/memory.md §3.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Basis {
    /// N's own snapshot, taken after the unwinding, plus the buffers the unwinding freed.
    AfterFailureSnapshot,
    /// The earlier snapshot S0, replayed through N's graph to the failure point.
    EarlierSnapshotAndGraph,
    /// S0 alone: N has no graph.
    EarlierSnapshot,
    /// Every captured graph before N replayed from empty, then N's.
    GraphOnly,
}

impl Basis {
    /// The JSON value: `after_failure_snapshot`, ….
    pub fn as_str(self) -> &'static str {
        match self {
            Self::AfterFailureSnapshot => "after_failure_snapshot",
            Self::EarlierSnapshotAndGraph => "earlier_snapshot_and_graph",
            Self::EarlierSnapshot => "earlier_snapshot",
            Self::GraphOnly => "graph_only",
        }
    }
}

/// Where a region's bounds come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RegionSource {
    /// The device's `devices` row.
    Devices,
    /// The failure message's bank size (DRAM).
    Message,
}

impl RegionSource {
    /// The JSON value.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Devices => "devices",
            Self::Message => "message",
        }
    }
}

/// The address range `[start, end)` an allocator places a buffer type in; unknown when the
/// report does not say.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Region {
    /// First address, inclusive.
    pub(crate) start: Option<u64>,
    /// End address, exclusive.
    pub(crate) end: Option<u64>,
    /// Where the bounds come from.
    pub source: Option<RegionSource>,
}

impl Region {
    /// Both bounds, when known.
    pub fn bounds(&self) -> Option<(u64, u64)> {
        Some((self.start?, self.end?))
    }
}

/// Whether a live buffer was allocated by the failed (or shown) operation itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// Live before the operation started (or allocated outside its graph).
    Earlier,
    /// Allocated in the operation's graph and still live at the failure point (or at its end).
    ThisOperation,
}

impl Origin {
    /// The JSON value.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Self::Earlier => "earlier",
            Self::ThisOperation => "this_operation",
        }
    }
}

/// One live buffer and who holds it (docs/rules/memory.md §4).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct LiveBuffer {
    /// Bank-relative address.
    pub address: u64,
    /// Bytes per bank.
    pub size_per_bank: u64,
    /// Memory layout, e.g. `HEIGHT_SHARDED`.
    pub(crate) layout: Option<SharedText>,
    /// Earlier, or allocated by the operation.
    pub origin: Option<Origin>,
    /// For a buffer of the operation: the innermost device operation open at its allocation.
    pub(crate) device_operation: Option<SharedText>,
    /// The tensor that holds it.
    pub tensor_id: Option<u64>,
    /// The tensor's shape.
    pub(crate) shape: Option<SharedText>,
    /// The tensor's dtype.
    pub(crate) dtype: Option<SharedText>,
    /// The first operation that produced the tensor.
    pub producer_operation_id: Option<u64>,
    /// That operation's name.
    pub(crate) producer_operation_name: Option<SharedText>,
    /// The last operation before N that read the tensor (deallocations excepted).
    pub last_use_operation_id: Option<u64>,
    /// The `file.py:line` of that operation (docs/rules/reference.md §1.5), when its stack trace has one:
    /// the line to free the tensor after (filled by the report layer).
    pub last_use_source: Option<SharedText>,
    /// The tensor is an input of the operation (JSON `input_of_failed_operation`).
    pub input_of_operation: bool,
    /// A known tensor, not an input of the operation, last used before it.
    pub stale: bool,
}

impl MemoryAtFailure {
    /// The failed operation.
    pub fn operation_id(&self) -> u64 {
        self.operation_id
    }

    /// The id text names its device by: 0 for a single chip (issue 30 §4.5).
    pub fn named_device(&self) -> u64 {
        crate::analysis::memory::mesh::named_device(self.device_id, self.single_chip)
    }
}

impl OperationMemory {
    /// The id text names its device by: 0 for a single chip (issue 30 §4.5).
    pub fn named_device(&self) -> u64 {
        crate::analysis::memory::mesh::named_device(self.device_id, self.single_chip)
    }
}

impl LiveBuffer {
    /// Its end address (saturating).
    pub(crate) fn end(&self) -> u64 {
        self.address.saturating_add(self.size_per_bank)
    }

    /// True for the origin `this_operation`.
    pub fn is_this_operation(&self) -> bool {
        self.origin == Some(Origin::ThisOperation)
    }
}

/// A free address range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Block {
    /// First address.
    pub address: u64,
    /// Bytes.
    pub size: u64,
}

/// The address map of one (device, buffer type) (docs/rules/memory.md §5).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct MemoryMap {
    /// The region, when known.
    pub region: Region,
    /// Merged occupied ranges `[start, end)`, ascending (inside the region when it is known).
    pub(crate) occupied: Vec<(u64, u64)>,
    /// Total size of the merged occupied ranges.
    pub used_per_bank: u64,
    /// Gaps inside the region, ascending; empty when the region is unknown.
    pub free_blocks: Vec<Block>,
    /// The biggest free block's size (0 if none); none when the region is unknown.
    pub largest_free_block: Option<u64>,
}

/// How the picture compares with the allocator's own figures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CheckStatus {
    /// Used and largest block agree within the tolerance.
    Exact,
    /// The report did not record something that holds memory.
    UnderCounted,
    /// The picture holds buffers freed since.
    OverCounted,
    /// Used agrees but the largest free block does not.
    Contradiction,
    /// Nothing to check against, or the region is unknown.
    Unchecked,
}

impl CheckStatus {
    /// The JSON value.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Exact => "exact",
            Self::UnderCounted => "under_counted",
            Self::OverCounted => "over_counted",
            Self::Contradiction => "contradiction",
            Self::Unchecked => "unchecked",
        }
    }
}

/// The check and the message's figures it used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Check {
    /// The outcome.
    pub status: CheckStatus,
    /// The message's allocated bytes per bank.
    pub allocated: Option<u64>,
    /// The message's free bytes per bank.
    pub(crate) free: Option<u64>,
    /// The message's largest free block.
    pub(crate) largest_free_block: Option<u64>,
    /// The tolerance used: 64 B per live buffer, plus 64.
    pub tolerance: u64,
}

/// What would make the request fit (docs/rules/memory.md §6).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fit {
    /// The request, per bank.
    pub(crate) needed_per_bank: u64,
    /// Addresses of the buffers to free, ascending; empty when a free block already holds it.
    pub free: Vec<u64>,
    /// Their total size.
    pub(crate) freed_per_bank: u64,
    /// The whole free range around the window once they are gone.
    pub(crate) block: Block,
}

/// Why there is no fit advice.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoFit {
    /// A circular-buffer failure: no buffer request to place.
    CircularBuffers,
    /// The region is unknown.
    RegionUnknown,
    /// The message gives no per-bank request.
    NoRequest,
    /// The request is larger than the whole region, or than the bank the message gives.
    LargerThanRegion {
        /// The smaller of the region's size and the message's bank size.
        size: u64,
    },
    /// Every window overlaps an input of the operation or a buffer it allocated.
    Pinned,
}

/// One circular buffer of the failing program.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CircularBuffer {
    /// Its address.
    pub(crate) address: u64,
    /// Its size per core.
    pub(crate) size: u64,
    /// `core_range_set`.
    pub(crate) core_range: Option<String>,
    /// The innermost device operation open at its allocation.
    pub(crate) device_operation: Option<String>,
}

/// The circular buffers of a failing program and the L1 buffers in their way (docs/rules/memory.md §7).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CircularBufferClash {
    /// The message's region end (kind 4) or grown-to address (kind 3).
    pub region_end: u64,
    /// The lowest address among the live L1 buffers.
    pub lowest_l1_address: Option<u64>,
    /// Live L1 buffers below the region end, ascending.
    pub clashing: Vec<u64>,
    /// The program's circular buffers.
    pub circular_buffers: Vec<CircularBuffer>,
}

/// The memory at the moment an operation failed to allocate (docs/rules/memory.md §2–§7).
#[derive(Debug, Clone, PartialEq)]
pub struct MemoryAtFailure {
    /// The failed operation.
    pub(crate) operation_id: u64,
    /// The failure's kind.
    pub(crate) kind: FailureKind,
    /// Where it failed: device.
    pub device_id: u64,
    /// Where it failed: buffer type (L1, DRAM or L1_SMALL).
    pub buffer_type: BufferType,
    /// The mesh the device is, when the failed operation's arguments name its shape (docs/rules/memory.md
    /// §2: the figures hold on each of its chips); filled by the report layer.
    pub mesh: Option<crate::analysis::memory::mesh::MeshShape>,
    /// Which records the picture rests on.
    pub basis: Basis,
    /// S0's operation, when one was used.
    pub snapshot_operation_id: Option<u64>,
    /// Live buffers, biggest first (ties by address).
    pub live_buffers: Vec<LiveBuffer>,
    /// The map of the region.
    pub map: MemoryMap,
    /// The check against the message's figures.
    pub check: Check,
    /// Why it did not fit, from the map, when the message has no free figures.
    pub reason: Option<Explanation>,
    /// The request per bank (kinds 1 and 2).
    pub(crate) needed_per_bank: Option<u64>,
    /// What would make it fit, or why there is no advice.
    pub fit: Result<Fit, NoFit>,
    /// Kinds 3 and 4: the circular buffers and what is in their way.
    pub circular_buffers: Option<CircularBufferClash>,
    /// What was set aside on the way.
    pub notes: Vec<MemoryNote>,
    /// The device a single chip is: text names it device 0 whatever id the tables give it.
    pub(crate) single_chip: bool,
}

/// The post-operation picture of any operation, for one (device, buffer type) of its snapshot.
#[derive(Debug, Clone, PartialEq)]
pub struct OperationMemory {
    /// The operation.
    pub operation_id: u64,
    /// The operation whose snapshot is shown, when it is not this one: the last recorded
    /// operation, for the memory when an unrecorded operation started (docs/rules/reference.md §13.5).
    pub snapshot_operation_id: Option<u64>,
    /// Every (device, buffer type) its snapshot holds, ascending.
    pub places: Vec<(u64, BufferType)>,
    /// The one shown.
    pub(crate) device_id: u64,
    /// The one shown.
    pub buffer_type: BufferType,
    /// Its buffers, biggest first.
    pub live_buffers: Vec<LiveBuffer>,
    /// The map of the region.
    pub map: MemoryMap,
    /// What was set aside on the way.
    pub(crate) notes: Vec<MemoryNote>,
    /// The device a single chip is: text names it device 0 whatever id the tables give it.
    pub(crate) single_chip: bool,
}
