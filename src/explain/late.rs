//! `explain --late`: the tensors held past their last use, with the line to change (issue 16),
//! as text and as the `late` / `late_summary` keys of the JSON document.

use crate::analysis::format::bare_shape;
use crate::analysis::memory::late::{
    LateAtFailure, LateFindings, LateSummary, LateTensor, check_lifetimes, late_at_failure_sentence, late_heading,
    lifetime_lines, suggestion,
};
use crate::report::{MemoryReport, ReportError};
use serde::Serialize;
use std::fmt::Write;

/// Reads every `buffers` row of the report (one pass) and finds the tensors held past their
/// last use; then, at each allocation failure, whether freeing them would have let it fit.
/// A report without `buffers` rows is read from its replayed graphs instead, as tab 5 charts it.
pub fn read_late(report: &MemoryReport) -> Result<LateFindings, ReportError> {
    let (mut findings, _) = report.late_list_and_replay()?;
    let ids: Vec<u64> = findings.late.iter().map(|t| t.tensor_id).collect();
    findings.lifetime = check_lifetimes(&findings.late, &report.tensor_lifetimes(&ids)?);
    Ok(findings)
}

/// The name of an operation by id (empty when the report has none).
fn name_of(report: &MemoryReport, id: u64) -> String {
    report.operation_index(id).map_or_else(String::new, |i| report.operations[i].name.clone())
}

/// One entry of `late_failures`.
#[derive(Serialize)]
pub(super) struct LateFailureJson {
    operation_id: u64,
    device_id: u64,
    buffer_type: &'static str,
    needed_per_bank: u64,
    held_past_last_use: usize,
    fits_if_all_freed: bool,
    /// What the replay of `free-late` says (memory.md §9.2); null when nothing was freed before.
    outcome: Option<&'static str>,
    address: Option<u64>,
    sentence: String,
}

/// The `late_failures` list, in operation order.
pub(super) fn late_failures_json(report: &MemoryReport, findings: &LateFindings) -> Vec<LateFailureJson> {
    findings
        .failures
        .iter()
        .map(|f: &LateAtFailure| LateFailureJson {
            operation_id: f.operation_id,
            device_id: f.device_id,
            buffer_type: f.buffer_type.token(),
            needed_per_bank: f.needed_per_bank,
            held_past_last_use: f.held,
            fits_if_all_freed: f.fits_if_all_freed(),
            outcome: f.answer.as_ref().map(|a| a.outcome.as_str()),
            address: f.answer.as_ref().and_then(|a| a.address),
            sentence: late_at_failure_sentence(f, &name_of(report, f.operation_id), false),
        })
        .collect()
}

/// One entry of `late`.
#[derive(Serialize)]
pub(super) struct LateJson<'a> {
    device_id: u64,
    buffer_type: &'static str,
    address: u64,
    size_per_bank: u64,
    tensor_id: u64,
    shape: Option<&'a str>,
    producer_operation_id: Option<u64>,
    last_use_operation_id: u64,
    held_until_operation_id: u64,
    source: Option<&'a str>,
    peak_saving_per_bank: u64,
}

/// One entry of `late_summary`.
#[derive(Serialize)]
pub(super) struct LateSummaryJson {
    device_id: u64,
    buffer_type: &'static str,
    peak_per_bank: u64,
    peak_if_all_freed_per_bank: u64,
}

/// The `late` list, biggest peak saving first.
pub(super) fn late_json(findings: &LateFindings) -> Vec<LateJson<'_>> {
    findings
        .late
        .iter()
        .map(|t: &LateTensor| LateJson {
            device_id: t.device_id,
            buffer_type: t.buffer_type.token(),
            address: t.address,
            size_per_bank: t.size_per_bank,
            tensor_id: t.tensor_id,
            shape: t.shape.as_deref().map(bare_shape),
            producer_operation_id: t.producer_operation_id,
            last_use_operation_id: t.last_use_operation_id,
            held_until_operation_id: t.held_until_operation_id,
            source: t.source.as_deref(),
            peak_saving_per_bank: t.peak_saving_per_bank,
        })
        .collect()
}

/// The `late_summary` list, in device then buffer type order.
pub(super) fn late_summary_json(findings: &LateFindings) -> Vec<LateSummaryJson> {
    findings
        .summary
        .iter()
        .map(|s: &LateSummary| LateSummaryJson {
            device_id: s.device_id,
            buffer_type: s.buffer_type.token(),
            peak_per_bank: s.peak_per_bank,
            peak_if_all_freed_per_bank: s.peak_if_all_freed_per_bank,
        })
        .collect()
}

/// Per device and buffer type with a late tensor: a heading saying what freeing all of them does
/// to the peak, then one suggestion per tensor, biggest saving first.
pub(super) fn late_text(report: &MemoryReport, findings: &LateFindings) -> String {
    let mut out = String::new();
    for s in findings.summary.iter().filter(|s| s.count > 0) {
        let kind = s.buffer_type.token();
        let _ = writeln!(out, "Held past their last use, {kind} on device {}: {}", s.device_id, late_heading(s));
        for t in findings.late.iter().filter(|t| (t.device_id, t.buffer_type) == (s.device_id, s.buffer_type)) {
            let _ = writeln!(out, "  {}", suggestion(t));
        }
    }
    if out.is_empty() {
        out.push_str("No tensor is held past its last use.\n");
    }
    for f in &findings.failures {
        let _ = writeln!(out, "{}", late_at_failure_sentence(f, &name_of(report, f.operation_id), false));
    }
    for line in findings.lifetime.iter().flat_map(lifetime_lines) {
        let _ = writeln!(out, "{line}");
    }
    out
}
