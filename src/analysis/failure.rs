//! Parsing the four allocator and circular-buffer errors out of a stored error text (behaviour.md §4).

use regex::Regex;
use serde::Serialize;
use std::sync::LazyLock;

/// The four allocation failures the reference explains.
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
}

/// A tt-metal buffer type, from a message token or a database code (formats.md §1.7).
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

/// The figures of one allocation failure, as extracted from its message (behaviour.md §4.6).
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
    /// One bank's size (kinds 1, 2).
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
}

/// An allocation failure recognised in an error message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AllocationFailure {
    /// Which of the four errors it is.
    pub kind: FailureKind,
    /// The figures the message gives.
    pub(crate) figures: Figures,
    /// True when recognised by a rule the reference does not have (the dataflow-buffer wording).
    pub(crate) beyond_reference: bool,
}

const N: &str = "([0-9]+)";
const T: &str = "([A-Za-z0-9_]+)";
const R: &str = "([^\\n\\r\\x{2028}\\x{2029}]+?)";

fn compile(pattern: &str) -> Regex {
    Regex::new(pattern).expect("allocation-failure patterns are valid")
}

/// Searches with a pattern only when its fixed opening is in the message, so a pattern is
/// compiled (about a millisecond each) only for reports that could match it.
fn search<'m>(opening: &str, pattern: &LazyLock<Regex>, message: &'m str) -> Option<regex::Captures<'m>> {
    if message.contains(opening) { pattern.captures(message) } else { None }
}

static OUT_OF_MEMORY: LazyLock<Regex> = LazyLock::new(|| {
    compile(&format!(
        r"Out of Memory: Not enough space to allocate {N} B {T} buffer across {N} banks, where each bank needs to store {N} B, but bank size is (?:only )?{N} B(?: \(allocated: {N} B, free: {N} B, largest free block: {N} B\))?"
    ))
});

static OUT_OF_MEMORY_DEPENDENCIES: LazyLock<Regex> = LazyLock::new(|| {
    compile(&format!(
        r"Out of Memory: Not enough space after considering dependencies to allocate {N} B {T} across {N} banks \({N} B per bank\), bank size is {N} B \(allocated: {N} B, free: {N} B, largest free block: {N} B\)(?:\. After subtracting [0-9]+ dependency range\(s\) and [0-9]+ additional occupied range\(s\), {N} B remained placeable across [0-9]+ window\(s\), largest {N} B)?"
    ))
});

fn beyond_l1(buffers: &str) -> Regex {
    compile(&format!(
        r"Statically allocated {buffers} buffers on core range {R} grow to {N} B which is beyond max L1 size of {N} B"
    ))
}

fn clash(buffers: &str) -> Regex {
    compile(&format!(
        r"Statically allocated {buffers} buffers in program [0-9]+ clash with L1 buffers on core range {R}\. L1 buffer allocated at {N} and static {buffers} buffer region ends at {N}"
    ))
}

static CB_BEYOND_L1: LazyLock<Regex> = LazyLock::new(|| beyond_l1("circular"));
static CB_CLASH: LazyLock<Regex> = LazyLock::new(|| clash("circular"));
static DFB_BEYOND_L1: LazyLock<Regex> = LazyLock::new(|| beyond_l1("dataflow"));
static DFB_CLASH: LazyLock<Regex> = LazyLock::new(|| clash("dataflow"));

/// Recognises an allocation failure anywhere in a stored error text; `None` when it is another error.
///
/// Patterns are tried in the reference's order (out of memory, after dependencies, beyond L1,
/// clash); the first that matches decides. The dataflow-buffer wording is tried last, beyond the
/// reference. A figure that does not fit in 64 bits makes the text unrecognised.
pub fn parse_allocation_failure(message: &str) -> Option<AllocationFailure> {
    if let Some(c) = search("Out of Memory: Not enough space to allocate ", &OUT_OF_MEMORY, message) {
        return bank_failure(FailureKind::BankOutOfMemory, &c);
    }
    let dependencies = "Out of Memory: Not enough space after considering dependencies to allocate ";
    if let Some(c) = search(dependencies, &OUT_OF_MEMORY_DEPENDENCIES, message) {
        return bank_failure(FailureKind::BankOutOfMemoryWithDependencies, &c);
    }
    let variants = [
        ("Statically allocated circular buffers ", &CB_BEYOND_L1, &CB_CLASH, false),
        ("Statically allocated dataflow buffers ", &DFB_BEYOND_L1, &DFB_CLASH, true),
    ];
    for (opening, beyond, clash, beyond_reference) in variants {
        if let Some(c) = search(opening, beyond, message) {
            let figures = Figures {
                core_range: Some(c[1].to_string()),
                region_end: Some(number(&c, 2)?),
                max_l1: Some(number(&c, 3)?),
                ..Figures::default()
            };
            return Some(AllocationFailure { kind: FailureKind::CircularBuffersBeyondL1, figures, beyond_reference });
        }
        if let Some(c) = search(opening, clash, message) {
            let figures = Figures {
                core_range: Some(c[1].to_string()),
                l1_buffer_address: Some(number(&c, 2)?),
                region_end: Some(number(&c, 3)?),
                ..Figures::default()
            };
            return Some(AllocationFailure { kind: FailureKind::CircularBuffersClash, figures, beyond_reference });
        }
    }
    None
}

/// Builds the record of kinds 1 and 2, whose capture groups share one order.
fn bank_failure(kind: FailureKind, c: &regex::Captures<'_>) -> Option<AllocationFailure> {
    let optional = |i: usize| -> Option<Option<u64>> {
        match c.get(i) {
            Some(m) => m.as_str().parse().ok().map(Some),
            None => Some(None),
        }
    };
    let figures = Figures {
        requested: Some(number(c, 1)?),
        buffer_type: BufferType::from_token(&c[2]),
        banks: Some(number(c, 3)?),
        per_bank: Some(number(c, 4)?),
        bank_size: Some(number(c, 5)?),
        allocated: optional(6)?,
        free: optional(7)?,
        largest_free_block: optional(8)?,
        placeable: optional(9)?,
        largest_placeable: optional(10)?,
        ..Figures::default()
    };
    Some(AllocationFailure { kind, figures, beyond_reference: false })
}

fn number(c: &regex::Captures<'_>, i: usize) -> Option<u64> {
    c.get(i)?.as_str().parse().ok()
}
