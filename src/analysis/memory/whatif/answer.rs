//! What a replay answers: what tt-metal would do with the failed request after the fixes, what is
//! in the way, the self-check, what was set aside, and the memory after the fix for drawing.

use super::fix::Fix;
use super::sequence::Place;
use crate::analysis::memory::failure::picture::MemoryMap;
use crate::analysis::messages::failure::BufferType;

/// What tt-metal would do with the request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// It would be placed (at [`Answer::address`]).
    Fits,
    /// It would not be placed.
    DoesNotFit,
    /// The report cannot tell (no region, or a change the model does not cover).
    Unknown,
}

impl Outcome {
    /// The JSON value.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Fits => "fits",
            Self::DoesNotFit => "does_not_fit",
            Self::Unknown => "unknown",
        }
    }
}

/// The part of the operation that does not fit (docs/rules/memory.md §9.3 `fails_on`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FailsOn {
    /// The failed request itself.
    Request,
    /// Its circular buffers: the region the operation needs from the allocator's start.
    CircularBuffers,
}

impl FailsOn {
    /// The JSON value.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Request => "request",
            Self::CircularBuffers => "circular_buffers",
        }
    }
}

/// The failed request, as its message gives it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Request {
    /// A buffer of `size_per_bank` in `place` (kinds 1 and 2).
    Allocation {
        /// Where it was asked for.
        place: Place,
        /// Bytes per bank.
        size_per_bank: u64,
        /// Bytes across every bank, and the page size when it can be told: what placing it in
        /// DRAM instead needs.
        size: Option<(u64, u64)>,
    },
    /// The operation's circular buffers, from the L1 allocator's start to `region_end` (kinds 3
    /// and 4); `beyond_l1` when they grow past the end of L1.
    CircularBuffers {
        /// The region's end.
        region_end: u64,
        /// Kind 3: past the end of L1.
        beyond_l1: bool,
    },
}

/// A buffer in the way of the request after the fixes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InTheWay {
    /// Where it lies in the fixed run.
    pub address: u64,
    /// Bytes per bank.
    pub size_per_bank: u64,
    /// Where the run recorded it.
    pub recorded_address: u64,
    /// The operation that allocated it (none: live before the replayed range).
    pub operation_id: Option<u64>,
    /// Its tensor, when known (the report layer names the others).
    pub tensor_id: Option<u64>,
}

/// The first allocation the model did not put where the run did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mismatch {
    /// The operation it belongs to (none: the failed request itself).
    pub operation_id: Option<u64>,
    /// Its buffer type.
    pub buffer_type: BufferType,
    /// Where the run put it (none: the run refused the request).
    pub recorded: Option<u64>,
    /// Where the model puts it (none: nowhere).
    pub model: Option<u64>,
}

/// Replaying with no fix puts every recorded allocation at its recorded address (and refuses
/// the request), or the first place it does not.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReplayCheck {
    /// A reproduction.
    Exact,
    /// A model: the first difference, and how many allocations differ.
    Differs {
        /// The first.
        first: Mismatch,
        /// How many allocations the policy placed elsewhere.
        count: usize,
    },
}

/// What the replay set aside or approximated, each said in one line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WhatIfNote {
    /// The fixed run cannot place an earlier allocation: it would fail there first.
    EarlierFailure {
        /// The operation (none: before the replayed range).
        operation_id: Option<u64>,
        /// Its buffer type.
        buffer_type: BufferType,
        /// The bytes per bank it asked for.
        size_per_bank: u64,
        /// The largest free block then.
        largest_free_block: u64,
    },
    /// A buffer moved to DRAM without a recorded page size: its DRAM size is estimated.
    DramSizeEstimated {
        /// Its tensor, when known.
        tensor_id: Option<u64>,
        /// The size used.
        size_per_bank: u64,
    },
    /// A fix the user named that cannot act on this run: what it names is not in the report, or
    /// holds no buffer where and when it says. A question with no answer: front ends refuse it.
    NotApplied {
        /// The fix, as given.
        fix: String,
        /// Why, a clause.
        why: String,
    },
    /// Something the replay needs is not in the report.
    NotFound {
        /// The fix, as given.
        fix: String,
        /// What is missing.
        what: String,
    },
    /// The region of a buffer type is unknown.
    RegionUnknown {
        /// The buffer type.
        buffer_type: BufferType,
    },
    /// Graph frees of buffers that were not live.
    UnknownFrees {
        /// How many.
        count: usize,
    },
    /// The circular buffers an earlier operation used would not fit below the lowest L1 buffer.
    CircularBuffersAfter {
        /// The earlier operation.
        operation_id: u64,
        /// Its name.
        operation_name: String,
        /// The failed operation's name when it differs (a weaker hint: whether the failed
        /// operation's own fit is unknown); none for the same operation earlier (`cb_hint`).
        other_than: Option<String>,
        /// Its circular-buffer region, from the allocator's start.
        used: u64,
        /// The room left below the lowest L1 buffer.
        room: u64,
    },
    /// The request fits so close to the L1 allocator's start that the failed operation's
    /// circular buffers, which no operation of the run records, may not fit below it.
    CircularBuffersUnrecorded {
        /// The failed operation's name.
        operation_name: String,
        /// The room left below the lowest L1 buffer.
        room: u64,
    },
    /// The circular buffers end beyond L1: no change to L1 buffers helps.
    BeyondL1,
    /// An L1_SMALL request: the operation may need several such buffers.
    SeveralL1Small,
    /// The operation is known to allocate more after the request than the report shows (conv2d's
    /// L1_SMALL buffers): whether the rest fits is unknown.
    MoreAfterRequest {
        /// The operation's name.
        operation_name: String,
    },
    /// The report shows an allocator mode the model does not cover (one buffer at different
    /// addresses on different cores or devices).
    AllocatorMode {
        /// What was seen, a clause.
        what: String,
    },
}

/// A buffer live after the fix: where the replay put it and where the run recorded it. Only
/// what the map draws: a failure's 150 000 live buffers are held once more for each fix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BufferAfterFix {
    /// Bank-relative address after the fix.
    pub address: u64,
    /// Bytes per bank.
    pub size_per_bank: u64,
    /// The tensor that holds it.
    pub tensor_id: Option<u64>,
    /// Where the run recorded it (the report layer names its tensor by it).
    pub recorded_address: u64,
}

impl BufferAfterFix {
    /// Its end address (saturating).
    pub(crate) fn end(&self) -> u64 {
        self.address.saturating_add(self.size_per_bank)
    }
}

/// The memory of the request's buffer type once the fix is in and the request placed (when it
/// fits): what the Memory tab draws for a fix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AfterFix {
    /// The map of the region after the fix, the request counted when placed.
    pub map: MemoryMap,
    /// The live buffers after the fix, at their new addresses (the request not among them).
    pub live: Vec<BufferAfterFix>,
    /// The request: where it lies and its size per bank, when it fits.
    pub request: Option<(u64, u64)>,
    /// The circular buffers' range, for a circular-buffer failure.
    pub circular_buffers: Option<(u64, u64)>,
}

/// The answer for the failed operation (docs/rules/memory.md §9.1, §9.3).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    /// The failed operation.
    pub operation_id: u64,
    /// The fixes, as given.
    pub fixes: Vec<Fix>,
    /// What was checked: an allocation, or the circular buffers.
    pub circular_buffers: bool,
    /// What tt-metal would do with the operation: `Fits` only when everything it is known to
    /// allocate fits (docs/rules/memory.md §9.3).
    pub outcome: Outcome,
    /// The part that does not fit, when the outcome is `DoesNotFit` for the request or its
    /// circular buffers.
    pub fails_on: Option<FailsOn>,
    /// Whether the request itself fits (allocation checks; none for circular-buffer checks and
    /// when it was not placed at all); [`Answer::address`] is where.
    pub request_fits: Option<bool>,
    /// The buffer type the request was placed in (DRAM when moved there).
    pub buffer_type: BufferType,
    /// The request's address when the request fits (the operation may still not).
    pub address: Option<u64>,
    /// The request per bank, in the buffer type it was placed in.
    pub size_per_bank: Option<u64>,
    /// The largest free block when it does not fit.
    pub largest_free_block: Option<u64>,
    /// Room for circular buffers: the lowest L1 buffer's address minus the allocator's start.
    pub cb_room: Option<u64>,
    /// What the most recent earlier operation of the same name used for its circular buffers.
    pub cb_hint: Option<u64>,
    /// Circular buffers: where their region ends, and the lowest L1 buffer of the fixed run.
    pub cb_region: Option<(u64, Option<u64>)>,
    /// Circular buffers: where the failed operation's own output lies in the fixed run (in
    /// DRAM when `output-to-dram` moved it), when the report records it.
    pub output: Option<(BufferType, u64)>,
    /// What is in the way when it does not fit.
    pub in_the_way: Vec<InTheWay>,
    /// The self-check.
    pub replay_check: ReplayCheck,
    /// What was set aside or approximated.
    pub notes: Vec<WhatIfNote>,
    /// The memory after the fix, for drawing.
    pub after: Option<AfterFix>,
}

/// Below this much room under the lowest L1 buffer, an operation whose circular buffers no
/// operation of the run records is not said to fit (docs/rules/memory.md §9.3): the smallest
/// regions measured on real ttnn 0.81 runs are ttnn.add's 12 KiB and a 32-wide softmax's 22 KiB.
pub const UNRECORDED_CB_ROOM: u64 = 32 * 1024;

/// Operations that place a tensor and run no program: no circular buffers follow their request.
fn runs_no_program(operation_name: &str) -> bool {
    let name = operation_name.rsplit('.').next().unwrap_or(operation_name);
    matches!(name, "empty" | "zeros" | "ones" | "full" | "from_torch" | "to_device" | "allocate_tensor_on_device")
}

impl Answer {
    /// The answer at `operation_id` before the replay has said anything: unknown, nothing
    /// placed, no notes; the replay's answer and an answer refused both start from it.
    pub(crate) fn unknown(operation_id: u64, fixes: Vec<Fix>) -> Self {
        Answer {
            operation_id,
            fixes,
            circular_buffers: false,
            outcome: Outcome::Unknown,
            fails_on: None,
            request_fits: None,
            buffer_type: BufferType::L1,
            address: None,
            size_per_bank: None,
            largest_free_block: None,
            cb_room: None,
            cb_hint: None,
            cb_region: None,
            output: None,
            in_the_way: Vec::new(),
            replay_check: ReplayCheck::Exact,
            notes: Vec::new(),
            after: None,
        }
    }

    /// An L1 request that fits with less than [`UNRECORDED_CB_ROOM`] left below it, for an
    /// operation that runs a program while no earlier operation records circular buffers: the
    /// outcome is `unknown`, the request's own fit kept (stale_loop's five frees: the request
    /// fitted 672 B above the allocator's start, then ttnn.add's 12 KiB of circular buffers
    /// clashed with it).
    pub(super) fn guard_unrecorded_circular_buffers(&mut self, operation_name: &str) {
        let Some(room) = self.cb_room else { return };
        let program = !operation_name.is_empty() && !runs_no_program(operation_name);
        let allocation = !self.circular_buffers && self.buffer_type == BufferType::L1;
        if self.outcome == Outcome::Fits && allocation && program && room < UNRECORDED_CB_ROOM {
            self.outcome = Outcome::Unknown;
            self.notes.push(WhatIfNote::CircularBuffersUnrecorded { operation_name: operation_name.to_string(), room });
        }
    }
}

/// An earlier operation's circular buffers, for `cb_hint`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CircularBufferUse {
    /// The operation.
    pub operation_id: u64,
    /// Its name.
    pub operation_name: String,
    /// Its circular-buffer region's end minus the L1 allocator's start.
    pub used: u64,
    /// It has the failed operation's name (`cb_hint`); else it is the most recent operation
    /// that recorded circular buffers at all (a weaker hint, said with its name).
    pub same_name: bool,
}
