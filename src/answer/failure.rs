//! The FAILURE object of the JSON contract: an allocation failure's kind, texts and every figure,
//! the same for a report's error and a log's failure.

use crate::analysis::messages::failure::{AllocationFailure, FailureKind};
use crate::analysis::messages::reason::{Reason, explain, summary};
use serde::Serialize;

/// The FAILURE object: kind, texts (addresses in hex with `hex`), and every figure.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FailureAnswer {
    /// The kind of failure.
    pub kind: FailureKind,
    /// Its label, as the callout's first line.
    pub kind_label: &'static str,
    /// The summary sentence.
    pub summary: String,
    /// The reason, when one applies.
    pub reason: Option<Reason>,
    /// The reason's label.
    pub reason_label: Option<&'static str>,
    /// The reason's detail sentence.
    pub reason_detail: Option<String>,
    /// Recognised by a pattern beyond the reference (docs/rules/reference.md §13).
    pub beyond_reference: bool,
    /// Every figure of the message.
    pub figures: FiguresAnswer,
}

/// Every figure as a number, null where the kind or era has none.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FiguresAnswer {
    buffer_type: Option<&'static str>,
    requested_bytes: Option<u64>,
    num_banks: Option<u64>,
    bytes_per_bank: Option<u64>,
    bank_size_bytes: Option<u64>,
    allocated_bytes: Option<u64>,
    free_bytes: Option<u64>,
    largest_free_block_bytes: Option<u64>,
    placeable_bytes: Option<u64>,
    largest_placeable_bytes: Option<u64>,
    core_range: Option<String>,
    circular_buffer_region_end: Option<u64>,
    max_l1_bytes: Option<u64>,
    l1_buffer_address: Option<u64>,
    circular_buffer_size_bytes: Option<u64>,
    l1_buffer_size_bytes: Option<u64>,
}

impl FailureAnswer {
    /// The FAILURE object of an allocation failure.
    pub fn new(failure: &AllocationFailure, hex: bool) -> Self {
        let f = &failure.figures;
        let explanation = explain(failure, hex);
        Self {
            kind: failure.kind,
            kind_label: failure.kind.label(),
            summary: summary(failure, hex),
            reason: explanation.as_ref().map(|e| e.reason),
            reason_label: explanation.as_ref().map(|e| e.reason.label()),
            reason_detail: explanation.map(|e| e.detail),
            beyond_reference: failure.beyond_reference,
            figures: FiguresAnswer {
                buffer_type: f.buffer_type.map(|t| t.token()),
                requested_bytes: f.requested,
                num_banks: f.banks,
                bytes_per_bank: f.per_bank,
                bank_size_bytes: f.bank_size,
                allocated_bytes: f.allocated,
                free_bytes: f.free,
                largest_free_block_bytes: f.largest_free_block,
                placeable_bytes: f.placeable,
                largest_placeable_bytes: f.largest_placeable,
                core_range: f.core_range.clone(),
                circular_buffer_region_end: f.region_end,
                max_l1_bytes: f.max_l1,
                l1_buffer_address: f.l1_buffer_address,
                circular_buffer_size_bytes: f.circular_buffer_size,
                l1_buffer_size_bytes: f.l1_buffer_size,
            },
        }
    }

    /// The reason line as the text gives it: `{label}. {detail}`.
    pub fn reason_line(&self) -> Option<(&'static str, &str)> {
        Some((self.reason_label?, self.reason_detail.as_deref()?))
    }
}
