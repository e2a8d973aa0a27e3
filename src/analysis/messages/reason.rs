//! The texts that explain an allocation failure: labels, summary line, why it did not fit, and
//! the callout body (docs/rules/reference.md §5).

use super::failure::{AllocationFailure, BufferType, FailureKind};
use crate::analysis::format::{format_address, format_size, size};
use serde::Serialize;

/// Why an allocation did not fit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Reason {
    /// Not enough free space for the request.
    NotEnoughFreeSpace,
    /// Enough free space in total, but no single block large enough.
    Fragmented,
    /// A large enough block was free, but the allocator could not use it.
    FreeBlockCouldHoldIt,
    /// The request cannot fit in this buffer type spread across that many banks.
    LargerThanEmptyBank,
    /// The circular buffers need more than L1 holds.
    BeyondEndOfL1,
    /// The circular-buffer region runs into an L1 buffer.
    OverlapsL1Buffer,
    /// A circular buffer asks for more than the tensor's L1 buffer it is set on holds per bank.
    LargerThanItsBuffer,
}

impl Reason {
    /// The reason's label, shown in bold before its detail.
    pub fn label(self) -> &'static str {
        match self {
            Self::NotEnoughFreeSpace => "Not enough free space",
            Self::Fragmented => "Fragmented",
            Self::FreeBlockCouldHoldIt => "A free block could hold it",
            Self::LargerThanEmptyBank => "Larger than an empty bank",
            Self::BeyondEndOfL1 => "Beyond the end of L1",
            Self::OverlapsL1Buffer => "Overlaps an L1 buffer",
            Self::LargerThanItsBuffer => "Larger than its buffer",
        }
    }
}

impl FailureKind {
    /// The kind's label: `Out of memory`, `Circular buffers beyond L1`, ….
    pub(crate) fn label(self) -> &'static str {
        match self {
            Self::BankOutOfMemory => "Out of memory",
            Self::BankOutOfMemoryWithDependencies => "Out of memory after dependencies",
            Self::CircularBuffersBeyondL1 => "Circular buffers beyond L1",
            Self::CircularBuffersClash => "Circular buffers clash with L1 buffers",
            Self::CircularBufferExceedsItsBuffer => "Circular buffer larger than its L1 buffer",
        }
    }
}

/// A reason with its detail text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Explanation {
    /// Which reason applies.
    pub reason: Reason,
    /// The figures that show it, as one sentence or two.
    pub(crate) detail: String,
}

const L1_FRAGMENTED_CAVEAT: &str =
    " An interleaved L1 buffer can use only the part of that free space inside the interleaved region.";
const L1_SHORT_CAVEAT: &str = " An interleaved L1 buffer can use only the part of that free space inside the interleaved region, so it may be short by more.";
const L1_REGION_CAVEAT: &str = " An interleaved L1 buffer is also limited to the interleaved region.";

/// The one-line summary of the failure's figures; `hex` selects hexadecimal addresses.
pub fn summary(failure: &AllocationFailure, hex: bool) -> String {
    let f = &failure.figures;
    match failure.kind {
        FailureKind::BankOutOfMemory | FailureKind::BankOutOfMemoryWithDependencies => {
            let type_label = f.buffer_type.map(|t| format!(" {}", t.label())).unwrap_or_default();
            // V0/V1 messages (docs/rules/reference.md §13.3) give no bank size.
            let bank_size = f.bank_size.map(|b| format!(", bank size {}", size(b))).unwrap_or_default();
            let mut line = format!(
                "Requested {}{} across {} banks ({} per bank{})",
                size(f.requested.unwrap_or(0)),
                type_label,
                f.banks.unwrap_or(0),
                size(f.per_bank.unwrap_or(0)),
                bank_size,
            );
            if let (Some(free), Some(largest)) = (f.free, f.largest_free_block) {
                line.push_str(&format!("; free {}, largest free block {}", size(free), size(largest)));
                if let (Some(p), Some(lp)) = (f.placeable, f.largest_placeable) {
                    line.push_str(&format!("; placeable {}, largest placeable window {}", size(p), size(lp)));
                }
            }
            line
        }
        FailureKind::CircularBuffersBeyondL1 => format!(
            "Circular buffers on {} grow to {}, beyond the L1 size of {}",
            f.core_range.as_deref().unwrap_or(""),
            size(f.region_end.unwrap_or(0)),
            size(f.max_l1.unwrap_or(0)),
        ),
        FailureKind::CircularBuffersClash => format!(
            "Circular buffers on {} end at {}, past an L1 buffer at {}",
            f.core_range.as_deref().unwrap_or(""),
            format_address(f.region_end, hex),
            format_address(f.l1_buffer_address, hex),
        ),
        FailureKind::CircularBufferExceedsItsBuffer => format!(
            "A circular buffer of {} is set on an L1 buffer of {} per bank",
            size(f.circular_buffer_size.unwrap_or(0)),
            size(f.l1_buffer_size.unwrap_or(0)),
        ),
    }
}

/// Why the allocation did not fit, where the figures say (docs/rules/reference.md §5.3).
pub fn explain(failure: &AllocationFailure, hex: bool) -> Option<Explanation> {
    let f = &failure.figures;
    let diff = |a: u64, b: u64| format_size(a as i128 - b as i128);
    match failure.kind {
        FailureKind::CircularBuffersBeyondL1 => {
            let (end, max) = (f.region_end?, f.max_l1?);
            Some(Explanation {
                reason: Reason::BeyondEndOfL1,
                detail: format!("The circular buffers run {} past the end of L1.", diff(end, max)),
            })
        }
        FailureKind::CircularBuffersClash => {
            let (end, at) = (f.region_end?, f.l1_buffer_address?);
            Some(Explanation {
                reason: Reason::OverlapsL1Buffer,
                detail: format!(
                    "The circular buffers overlap the L1 buffer at {} by {}.",
                    format_address(Some(at), hex),
                    diff(end, at)
                ),
            })
        }
        FailureKind::CircularBufferExceedsItsBuffer => {
            let (cb, buffer) = (f.circular_buffer_size?, f.l1_buffer_size?);
            Some(Explanation {
                reason: Reason::LargerThanItsBuffer,
                detail: format!(
                    "The circular buffer lives inside a tensor's L1 buffer, which holds {} per bank; it needs {} more. A larger shard for that tensor, or a smaller circular buffer (a smaller block), fits.",
                    size(buffer),
                    diff(cb, buffer)
                ),
            })
        }
        FailureKind::BankOutOfMemory | FailureKind::BankOutOfMemoryWithDependencies => bank_reason(failure),
    }
}

/// Rules 1–5 of docs/rules/reference.md §5.3 for kinds 1 and 2. Rule 1 needs the bank size, which V0/V1
/// messages do not give; the other rules need the free figures (from the message, or from the
/// map of the memory at the failure).
fn bank_reason(failure: &AllocationFailure) -> Option<Explanation> {
    let f = &failure.figures;
    let diff = |a: u64, b: u64| format_size(a as i128 - b as i128);
    let need = f.per_bank?;
    if let Some(bank_size) = f.bank_size.filter(|&bank_size| need > bank_size) {
        return Some(Explanation {
            reason: Reason::LargerThanEmptyBank,
            detail: format!(
                "Needs {} per bank, more than an empty bank holds ({}): it cannot fit in this buffer type spread across {} banks.",
                size(need),
                size(bank_size),
                f.banks.unwrap_or(0)
            ),
        });
    }
    let (free, largest) = (f.free?, f.largest_free_block?);
    // A sharded buffer is not confined to the interleaved region: no caveat (beyond the reference).
    let is_l1 = f.buffer_type == Some(BufferType::L1) && !failure.sharded;
    if largest >= need {
        return Some(free_block_could_hold_it(failure, need, largest));
    }
    if free >= need {
        return Some(Explanation {
            reason: Reason::Fragmented,
            detail: format!(
                "{} free per bank, but no single block holds {}; the largest is {}.{}",
                size(free),
                size(need),
                size(largest),
                if is_l1 { L1_FRAGMENTED_CAVEAT } else { "" }
            ),
        });
    }
    Some(Explanation {
        reason: Reason::NotEnoughFreeSpace,
        detail: format!(
            "Short by {} per bank: needs {}, {} free.{}",
            diff(need, free),
            size(need),
            size(free),
            if is_l1 { L1_SHORT_CAVEAT } else { "" }
        ),
    })
}

/// Rule 3 of docs/rules/reference.md §5.3: the largest free block holds `need` per bank, yet the allocation
/// failed; why, as far as the kind and the placeable window tell.
fn free_block_could_hold_it(failure: &AllocationFailure, need: u64, largest: u64) -> Explanation {
    let fits = format!("The largest free block, {}, could hold the {} per bank", size(largest), size(need));
    let detail = match (failure.kind, failure.figures.largest_placeable) {
        (FailureKind::BankOutOfMemory, _) => {
            format!("{fits}, but the allocator could not use it; the message does not say why.")
        }
        (_, None) => format!("{fits}, but space reserved by other allocators overlaps it."),
        (_, Some(window)) => {
            format!("{fits}, but other allocators' reservations leave a placeable window of at most {}.", size(window))
        }
    };
    let is_l1 = failure.figures.buffer_type == Some(BufferType::L1) && !failure.sharded;
    let caveat =
        if failure.kind == FailureKind::BankOutOfMemoryWithDependencies && is_l1 { L1_REGION_CAVEAT } else { "" };
    Explanation { reason: Reason::FreeBlockCouldHoldIt, detail: detail + caveat }
}

/// The callout body of docs/rules/reference.md §5.4, as plain lines (bold parts are marked by the fields).
/// What "beyond TT-NN Visualizer" (JSON: `beyond_reference: true`) means, said by the UI's
/// legend and help and by explain's footnote (issue 30 §4.4).
pub(crate) const BEYOND_REFERENCE_MEANING: &str =
    "TT-NN Visualizer shows the message raw; ttnn-tui recognises it with a pattern of its own";

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CalloutBody {
    /// Line 1, bold: the kind label.
    pub(crate) kind_label: &'static str,
    /// Line 2: the summary.
    pub(crate) summary: String,
    /// Line 3, when a reason applies: its label (bold) and detail.
    pub(crate) explanation: Option<Explanation>,
    /// Line 4: a caller's status line, or `Failed in …`, or nothing.
    pub last_line: Option<String>,
    /// True when the failure was recognised beyond the reference (docs/rules/reference.md §13): the UI marks it.
    pub(crate) beyond_reference: bool,
}

impl CalloutBody {
    /// Builds the body; `status` replaces `Failed in …` when given (the perf callout).
    pub fn new(failure: &AllocationFailure, hex: bool, failed_device_ops: &[String], status: Option<String>) -> Self {
        let last_line = status.or_else(|| failed_in(failed_device_ops));
        Self {
            kind_label: failure.kind.label(),
            summary: summary(failure, hex),
            explanation: explain(failure, hex),
            last_line,
            beyond_reference: failure.beyond_reference,
        }
    }

    /// The reason line as plain text: `{label}. {detail}`.
    pub fn reason_line(&self) -> Option<String> {
        self.explanation.as_ref().map(|e| format!("{}. {}", e.reason.label(), e.detail))
    }

    /// The body as plain text lines, for print mode and copying.
    pub fn lines(&self) -> Vec<String> {
        let mut lines = vec![self.kind_label.to_string(), self.summary.clone()];
        lines.extend(self.reason_line());
        lines.extend(self.last_line.clone());
        lines
    }
}

/// `Failed in {names joined by ", "}`, or nothing when no device operation is known to have failed.
pub(crate) fn failed_in(names: &[String]) -> Option<String> {
    (!names.is_empty()).then(|| format!("Failed in {}", names.join(", ")))
}
