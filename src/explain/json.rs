//! The JSON form of print mode: a stable contract other tools parse (field names are fixed).

use super::{ExplainOptions, ExplainedError, Explanation};
use crate::analysis::failure::AllocationFailure;
use crate::analysis::reason::{explain, summary};
use crate::analysis::sanitize::sanitize_line;
use crate::report::MemoryReport;
use serde_json::{Value, json};

/// Renders the errors of a report as one pretty-printed JSON document.
pub fn render_json(report: &MemoryReport, explanation: &Explanation<'_>, options: &ExplainOptions) -> String {
    let operations: Vec<Value> = explanation
        .operations
        .iter()
        .map(|e| {
            let mut v = error_fields(e, options.hex);
            v["failed_device_operations"] = json!(e.failed_device_operations.clone().unwrap_or_default());
            v["perf"] = e.perf.as_ref().map_or(Value::Null, |p| json!(p));
            v["memory"] = match &e.memory {
                Ok(Some(m)) => super::memory_json(m),
                _ => Value::Null,
            };
            v
        })
        .collect();
    let unattached: Vec<Value> = explanation.unattached.iter().map(|e| error_fields(e, options.hex)).collect();
    let mut document = json!({
        "memory_report": {
            "path": sanitize_line(&report.source.display_path()),
            "rank": report.rank,
            "operations": report.operations.len(),
            "errors": report.errors.len(),
            "schema_version": report.schema_version,
        },
        "perf_report": explanation.linked.map_or(Value::Null, |l| json!({
            "path": sanitize_line(&l.perf.path.display().to_string()),
            "rows": l.rows.len(),
            "link": l.state().as_str(),
            "reason": l.reason(),
        })),
        "operations": operations,
        "unattached_errors": unattached,
    });
    if let Some(peaks) = &explanation.peaks {
        document["memory_report"]["peak"] = super::peak::peak_json(peaks);
    }
    let mut text = serde_json::to_string_pretty(&document).expect("JSON values always serialise");
    text.push('\n');
    text
}

fn error_fields(e: &ExplainedError<'_>, hex: bool) -> Value {
    let stack_trace = (!e.error.stack_trace.is_empty()).then_some(e.error.stack_trace.as_str());
    json!({
        "operation_id": e.operation_id,
        "operation_name": e.operation_name,
        "error_type": e.error.error_type,
        "message": e.error.message,
        "stack_trace": stack_trace,
        "allocation_failure": e.failure.map(|f| failure_json(f, hex)),
    })
}

/// The FAILURE object: kind, texts (addresses in hex with `hex`), and every figure as a number
/// (null where the kind or era has none).
pub(crate) fn failure_json(failure: &AllocationFailure, hex: bool) -> Value {
    let f = &failure.figures;
    let explanation = explain(failure, hex);
    json!({
        "kind": failure.kind,
        "kind_label": failure.kind.label(),
        "summary": summary(failure, hex),
        "reason": explanation.as_ref().map(|e| e.reason),
        "reason_label": explanation.as_ref().map(|e| e.reason.label()),
        "reason_detail": explanation.as_ref().map(|e| e.detail.as_str()),
        "beyond_reference": failure.beyond_reference,
        "figures": {
            "buffer_type": f.buffer_type.map(|t| t.token()),
            "requested_bytes": f.requested,
            "num_banks": f.banks,
            "bytes_per_bank": f.per_bank,
            "bank_size_bytes": f.bank_size,
            "allocated_bytes": f.allocated,
            "free_bytes": f.free,
            "largest_free_block_bytes": f.largest_free_block,
            "placeable_bytes": f.placeable,
            "largest_placeable_bytes": f.largest_placeable,
            "core_range": f.core_range,
            "circular_buffer_region_end": f.region_end,
            "max_l1_bytes": f.max_l1,
            "l1_buffer_address": f.l1_buffer_address,
            "circular_buffer_size_bytes": f.circular_buffer_size,
            "l1_buffer_size_bytes": f.l1_buffer_size,
        },
    })
}
