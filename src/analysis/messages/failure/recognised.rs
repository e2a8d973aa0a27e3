//! What a recognised allocation failure holds: which of the failures it is, the buffer type it
//! names, and the figures its message gives (docs/rules/reference.md §4.6).

use serde::Serialize;

/// The allocation failures ttnn-tui explains: the reference's four, and one beyond it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FailureKind {
    /// A buffer did not fit its banks.
    BankOutOfMemory,
    /// A buffer did not fit once other allocators' reservations were taken into account.
    BankOutOfMemoryWithDependencies,
    /// Statically allocated circular buffers grow past the end of L1.
    CircularBuffersBeyondL1,
    /// Statically allocated circular buffers run into an L1 buffer.
    CircularBuffersClash,
    /// A circular buffer placed inside a tensor's L1 buffer is larger than that buffer per bank
    /// (beyond the reference, §13.2 B5).
    CircularBufferExceedsItsBuffer,
}

/// A tt-metal buffer type, from a message token or a database code (docs/rules/formats.md §1.7).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum BufferType {
    /// `DRAM`, code 0.
    #[serde(rename = "DRAM")]
    Dram,
    /// `L1`, code 1.
    #[serde(rename = "L1")]
    L1,
    /// `SYSTEM_MEMORY`, code 2.
    #[serde(rename = "SYSTEM_MEMORY")]
    SystemMemory,
    /// `L1_SMALL`, code 3.
    #[serde(rename = "L1_SMALL")]
    L1Small,
    /// `TRACE`, code 4.
    #[serde(rename = "TRACE")]
    Trace,
}

impl BufferType {
    /// The type named by an exact message token, or none for any other token.
    pub(crate) fn from_token(token: &str) -> Option<Self> {
        match token {
            "DRAM" => Some(Self::Dram),
            "L1" => Some(Self::L1),
            "SYSTEM_MEMORY" => Some(Self::SystemMemory),
            "L1_SMALL" => Some(Self::L1Small),
            "TRACE" => Some(Self::Trace),
            _ => None,
        }
    }

    /// The type of a database or graph code `0..4`.
    pub(crate) fn from_code(code: i64) -> Option<Self> {
        match code {
            0 => Some(Self::Dram),
            1 => Some(Self::L1),
            2 => Some(Self::SystemMemory),
            3 => Some(Self::L1Small),
            4 => Some(Self::Trace),
            _ => None,
        }
    }

    /// The label the reference shows: `DRAM`, `L1`, `System Memory`, `L1 Small`, `Trace`.
    pub(crate) fn label(self) -> &'static str {
        match self {
            Self::Dram => "DRAM",
            Self::L1 => "L1",
            Self::SystemMemory => "System Memory",
            Self::L1Small => "L1 Small",
            Self::Trace => "Trace",
        }
    }

    /// The tt-metal token: `DRAM`, `L1`, `SYSTEM_MEMORY`, `L1_SMALL`, `TRACE`.
    pub fn token(self) -> &'static str {
        match self {
            Self::Dram => "DRAM",
            Self::L1 => "L1",
            Self::SystemMemory => "SYSTEM_MEMORY",
            Self::L1Small => "L1_SMALL",
            Self::Trace => "TRACE",
        }
    }
}

/// The figures of one allocation failure, as extracted from its message (docs/rules/reference.md §4.6).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Figures {
    /// Buffer type token when it is one of the five known ones (kinds 1, 2).
    pub(crate) buffer_type: Option<BufferType>,
    /// Total bytes requested across all banks (kinds 1, 2).
    pub(crate) requested: Option<u64>,
    /// Number of banks (kinds 1, 2).
    pub(crate) banks: Option<u64>,
    /// Bytes each bank must store (kinds 1, 2).
    pub(crate) per_bank: Option<u64>,
    /// One bank's size (kinds 1, 2; none in V0/V1 messages).
    pub(crate) bank_size: Option<u64>,
    /// Allocated bytes per bank, from newer tt-metal.
    pub(crate) allocated: Option<u64>,
    /// Free bytes per bank, from newer tt-metal.
    pub(crate) free: Option<u64>,
    /// Largest free block per bank, from newer tt-metal.
    pub(crate) largest_free_block: Option<u64>,
    /// Bytes left placeable after other allocators' ranges (kind 2 with the suffix).
    pub(crate) placeable: Option<u64>,
    /// Largest placeable window (kind 2 with the suffix).
    pub(crate) largest_placeable: Option<u64>,
    /// Core range text, verbatim (kinds 3, 4).
    pub(crate) core_range: Option<String>,
    /// End address of the static circular-buffer region (kinds 3, 4).
    pub(crate) region_end: Option<u64>,
    /// L1 size per core (kind 3).
    pub(crate) max_l1: Option<u64>,
    /// Address of the L1 buffer the region runs into (kind 4).
    pub(crate) l1_buffer_address: Option<u64>,
    /// Size of the circular buffer, in bytes (kind 5).
    pub(crate) circular_buffer_size: Option<u64>,
    /// Per-bank size of the L1 buffer the circular buffer is set on (kind 5).
    pub(crate) l1_buffer_size: Option<u64>,
}

/// An allocation failure recognised in an error message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AllocationFailure {
    /// Which failure it is.
    pub kind: FailureKind,
    /// The figures the message gives.
    pub(crate) figures: Figures,
    /// True when recognised by a rule the reference does not have (docs/rules/reference.md §13): a §13.2
    /// pattern, or any pattern found only once whitespace runs are collapsed.
    pub(crate) beyond_reference: bool,
    /// The request is a sharded buffer (its operation's `memory_config` says so; the report
    /// layer sets it): no interleaved-region caveat applies.
    pub(crate) sharded: bool,
}
