//! The message patterns: the reference's four (docs/rules/reference.md §4.2) and those beyond it (§13.2),
//! each searched anywhere in a text, first occurrence first.

use super::recognised::{BufferType, FailureKind, Figures};
use crate::analysis::sanitize::sanitize_line;
use regex::{Captures, Regex};
use std::borrow::Cow;
use std::sync::LazyLock;

/// What one list of patterns found in a text.
pub(super) enum Found {
    /// No pattern of the list matches.
    Nothing,
    /// The first pattern that matches, with its figures (boxed: they are large).
    Failure(FailureKind, Box<Figures>),
    /// A pattern matches, but one of its figures does not fit in 64 bits.
    Unreadable,
}

/// Which text the patterns beyond the reference are searched in (docs/rules/reference.md §13.1).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Text {
    /// The message as stored (step 2).
    Stored,
    /// The message with its whitespace runs collapsed (step 3).
    Collapsed,
}

const N: &str = "([0-9]+)";
const T: &str = "([A-Za-z0-9_]+)";
const R: &str = "([^\\n\\r\\x{2028}\\x{2029}]+?)";
const OOM: &str = "Out of Memory: ";

fn compile(pattern: &str) -> Regex {
    Regex::new(pattern).expect("allocation-failure patterns are valid")
}

/// Searches with a pattern only when its fixed opening is in the text, so a pattern is
/// compiled (about a millisecond each) only for reports that could match it.
fn search<'m>(opening: &str, pattern: &LazyLock<Regex>, text: &'m str) -> Option<Captures<'m>> {
    if text.contains(opening) { pattern.captures(text) } else { None }
}

/// Pattern 1 (V2/V3, with the bank size), with or without the `Out of Memory: ` prefix.
fn out_of_memory(prefix: &str) -> Regex {
    compile(&format!(
        r"{prefix}Not enough space to allocate {N} B {T} buffer across {N} banks, where each bank needs to store {N} B, but bank size is (?:only )?{N} B(?: \(allocated: {N} B, free: {N} B, largest free block: {N} B\))?"
    ))
}

/// B2, the V0/V1 form that ends after the per-bank figure, with or without the prefix.
fn old_out_of_memory(prefix: &str) -> Regex {
    compile(&format!(
        r"{prefix}Not enough space to allocate {N} B {T} buffer across {N} banks, where each bank needs to store {N} B"
    ))
}

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

static OUT_OF_MEMORY: LazyLock<Regex> = LazyLock::new(|| out_of_memory(OOM));
static OUT_OF_MEMORY_DEPENDENCIES: LazyLock<Regex> = LazyLock::new(|| {
    compile(&format!(
        r"Out of Memory: Not enough space after considering dependencies to allocate {N} B {T} across {N} banks \({N} B per bank\), bank size is {N} B \(allocated: {N} B, free: {N} B, largest free block: {N} B\)(?:\. After subtracting [0-9]+ dependency range\(s\) and [0-9]+ additional occupied range\(s\), {N} B remained placeable across [0-9]+ window\(s\), largest {N} B)?"
    ))
});
static CB_BEYOND_L1: LazyLock<Regex> = LazyLock::new(|| beyond_l1("circular"));
static CB_CLASH: LazyLock<Regex> = LazyLock::new(|| clash("circular"));

static DFB_BEYOND_L1: LazyLock<Regex> = LazyLock::new(|| beyond_l1("dataflow"));
static DFB_CLASH: LazyLock<Regex> = LazyLock::new(|| clash("dataflow"));
static OLD_OUT_OF_MEMORY: LazyLock<Regex> = LazyLock::new(|| old_out_of_memory(OOM));
static BARE_OUT_OF_MEMORY: LazyLock<Regex> = LazyLock::new(|| out_of_memory(""));
static BARE_OLD_OUT_OF_MEMORY: LazyLock<Regex> = LazyLock::new(|| old_out_of_memory(""));
static SERVICE_CORE_CLASH: LazyLock<Regex> = LazyLock::new(|| {
    compile(&format!(
        r"Circular buffers on service-core range {R} in program [0-9]+ clash with ServiceCoreManager-allocated L1 \(lowest service allocation at {N}, CB region ends at {N}\)"
    ))
});
static GLOBAL_CB_TOO_LARGE: LazyLock<Regex> = LazyLock::new(|| {
    compile(&format!(
        r"Cannot set to globally allocated buffer\. Circular buffer size {N} B exceeds allocated L1 buffer(?: bank)? size of {N} B"
    ))
});
static DYNAMIC_CB_TOO_LARGE: LazyLock<Regex> = LazyLock::new(|| {
    compile(&format!(
        r"Cannot set circular buffer size to {N}\. This is larger than the associated dynamically allocated L1 buffer bank size of {N} B"
    ))
});

const OOM_OPENING: &str = "Out of Memory: Not enough space to allocate ";
const BARE_OOM_OPENING: &str = "Not enough space to allocate ";

/// The reference's four patterns, in its order (docs/rules/reference.md §4.3).
pub(super) fn reference(text: &str) -> Found {
    if let Some(c) = search(OOM_OPENING, &OUT_OF_MEMORY, text) {
        return bank_failure(FailureKind::BankOutOfMemory, &c);
    }
    let dependencies = "Out of Memory: Not enough space after considering dependencies to allocate ";
    if let Some(c) = search(dependencies, &OUT_OF_MEMORY_DEPENDENCIES, text) {
        return bank_failure(FailureKind::BankOutOfMemoryWithDependencies, &c);
    }
    circular_buffers("Statically allocated circular buffers ", &CB_BEYOND_L1, &CB_CLASH, text)
}

/// The patterns beyond the reference, in the order of docs/rules/reference.md §13.2: B1 dataflow buffers,
/// B2 old out of memory, B3 without the prefix, B4 service-core clash, B5 circular buffer larger
/// than its L1 buffer.
pub(super) fn beyond(text: &str, which: Text) -> Found {
    let dataflow = circular_buffers("Statically allocated dataflow buffers ", &DFB_BEYOND_L1, &DFB_CLASH, text);
    if !matches!(dataflow, Found::Nothing) {
        return dataflow;
    }
    if let Some(c) = search(OOM_OPENING, &OLD_OUT_OF_MEMORY, text).filter(|c| is_old_form(c, text, which)) {
        return bank_failure(FailureKind::BankOutOfMemory, &c);
    }
    if let Some(c) = search(BARE_OOM_OPENING, &BARE_OUT_OF_MEMORY, text) {
        return bank_failure(FailureKind::BankOutOfMemory, &c);
    }
    if let Some(c) = search(BARE_OOM_OPENING, &BARE_OLD_OUT_OF_MEMORY, text).filter(|c| is_old_form(c, text, which)) {
        return bank_failure(FailureKind::BankOutOfMemory, &c);
    }
    if let Some(c) = search("Circular buffers on service-core range ", &SERVICE_CORE_CLASH, text) {
        return read(|| {
            let figures = Figures {
                core_range: Some(sanitize_line(&c[1])),
                l1_buffer_address: Some(number(&c, 2)?),
                region_end: Some(number(&c, 3)?),
                ..Figures::default()
            };
            Some((FailureKind::CircularBuffersClash, figures))
        });
    }
    let global = search("Cannot set to globally allocated buffer. ", &GLOBAL_CB_TOO_LARGE, text);
    let dynamic = || search("Cannot set circular buffer size to ", &DYNAMIC_CB_TOO_LARGE, text);
    if let Some(c) = global.or_else(dynamic) {
        return read(|| {
            let figures = Figures {
                circular_buffer_size: Some(number(&c, 1)?),
                l1_buffer_size: Some(number(&c, 2)?),
                ..Figures::default()
            };
            Some((FailureKind::CircularBufferExceedsItsBuffer, figures))
        });
    }
    Found::Nothing
}

/// Whether a B2 match is an old (V0/V1) message. In the stored text a match that goes on as
/// `, but bank size …` across a line break is a newer message broken over lines: it is left to
/// the collapsed text, where pattern 1 reads its bank size.
fn is_old_form(c: &Captures<'_>, text: &str, which: Text) -> bool {
    let end = c.get(0).map_or(0, |m| m.end());
    let rest: String = text[end..].chars().take(64).collect();
    which == Text::Collapsed || !(rest.starts_with(',') && collapse_whitespace(&rest).starts_with(", but bank size "))
}

/// Kinds 3 and 4 in one wording (`circular` or `dataflow`): beyond L1 first, then the clash.
fn circular_buffers(opening: &str, beyond: &LazyLock<Regex>, clash: &LazyLock<Regex>, text: &str) -> Found {
    if let Some(c) = search(opening, beyond, text) {
        return read(|| {
            let figures = Figures {
                core_range: Some(sanitize_line(&c[1])),
                region_end: Some(number(&c, 2)?),
                max_l1: Some(number(&c, 3)?),
                ..Figures::default()
            };
            Some((FailureKind::CircularBuffersBeyondL1, figures))
        });
    }
    if let Some(c) = search(opening, clash, text) {
        return read(|| {
            let figures = Figures {
                core_range: Some(sanitize_line(&c[1])),
                l1_buffer_address: Some(number(&c, 2)?),
                region_end: Some(number(&c, 3)?),
                ..Figures::default()
            };
            Some((FailureKind::CircularBuffersClash, figures))
        });
    }
    Found::Nothing
}

/// Builds the record of kinds 1 and 2, whose capture groups share one order; the groups after
/// the per-bank figure are optional (B2 has none of them).
fn bank_failure(kind: FailureKind, c: &Captures<'_>) -> Found {
    let optional = |i: usize| -> Option<Option<u64>> {
        match c.get(i) {
            Some(m) => m.as_str().parse().ok().map(Some),
            None => Some(None),
        }
    };
    read(|| {
        let figures = Figures {
            requested: Some(number(c, 1)?),
            buffer_type: BufferType::from_token(&c[2]),
            banks: Some(number(c, 3)?),
            per_bank: Some(number(c, 4)?),
            bank_size: optional(5)?,
            allocated: optional(6)?,
            free: optional(7)?,
            largest_free_block: optional(8)?,
            placeable: optional(9)?,
            largest_placeable: optional(10)?,
            ..Figures::default()
        };
        Some((kind, figures))
    })
}

/// A matched pattern's record, or `Unreadable` when a figure does not fit in 64 bits.
fn read(figures: impl FnOnce() -> Option<(FailureKind, Figures)>) -> Found {
    match figures() {
        Some((kind, figures)) => Found::Failure(kind, Box::new(figures)),
        None => Found::Unreadable,
    }
}

fn number(c: &Captures<'_>, i: usize) -> Option<u64> {
    c.get(i)?.as_str().parse().ok()
}

/// The text with every run of whitespace (space, tab, CR, LF, U+2028, U+2029) made one space;
/// borrowed when that changes nothing.
pub(super) fn collapse_whitespace(text: &str) -> Cow<'_, str> {
    static RUN: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"[ \t\r\n\x{2028}\x{2029}]{2,}|[\t\r\n\x{2028}\x{2029}]").expect("the whitespace pattern is valid")
    });
    RUN.replace_all(text, " ")
}
