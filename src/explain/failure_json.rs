//! The FAILURE object of the JSON contract: an allocation failure's kind, texts and every figure,
//! the same for a report's error and a log's failure.

use crate::analysis::messages::failure::{AllocationFailure, FailureKind};
use crate::analysis::messages::reason::{Reason, explain, summary};
use serde::Serialize;

/// The FAILURE object: kind, texts (addresses in hex with `hex`), and every figure.
#[derive(Debug, Serialize)]
pub(crate) struct FailureJson<'r> {
    kind: FailureKind,
    kind_label: &'static str,
    summary: String,
    reason: Option<Reason>,
    reason_label: Option<&'static str>,
    reason_detail: Option<String>,
    beyond_reference: bool,
    figures: FiguresJson<'r>,
}

/// Every figure as a number, null where the kind or era has none.
#[derive(Debug, Serialize)]
struct FiguresJson<'r> {
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
    core_range: Option<&'r str>,
    circular_buffer_region_end: Option<u64>,
    max_l1_bytes: Option<u64>,
    l1_buffer_address: Option<u64>,
    circular_buffer_size_bytes: Option<u64>,
    l1_buffer_size_bytes: Option<u64>,
}

/// The FAILURE object of an allocation failure.
pub(crate) fn failure_json(failure: &AllocationFailure, hex: bool) -> FailureJson<'_> {
    let f = &failure.figures;
    let explanation = explain(failure, hex);
    FailureJson {
        kind: failure.kind,
        kind_label: failure.kind.label(),
        summary: summary(failure, hex),
        reason: explanation.as_ref().map(|e| e.reason),
        reason_label: explanation.as_ref().map(|e| e.reason.label()),
        reason_detail: explanation.map(|e| e.detail),
        beyond_reference: failure.beyond_reference,
        figures: FiguresJson {
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
            core_range: f.core_range.as_deref(),
            circular_buffer_region_end: f.region_end,
            max_l1_bytes: f.max_l1,
            l1_buffer_address: f.l1_buffer_address,
            circular_buffer_size_bytes: f.circular_buffer_size,
            l1_buffer_size_bytes: f.l1_buffer_size,
        },
    }
}
