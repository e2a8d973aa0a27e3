//! Where to free memory (`explain --late`, issue 16): the tensors held past their last use, what
//! freeing them does to each peak, and at each allocation failure whether it would have fit.

use super::single_chip::on_a_single_chip;
use crate::analysis::format::bare_shape;
use crate::analysis::memory::late::{
    LateAtFailure, LateFindings, LateSummary, LateTensor, check_lifetimes, late_at_failure_sentence, late_heading,
    lifetime_lines, suggestion,
};
use crate::analysis::messages::failure::BufferType;
use crate::report::{MemoryReport, ReportError};
use serde::Serialize;

/// The `late`, `late_summary` and `late_failures` keys of `explain --late --json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LateAnswer {
    /// The tensors held past their last use, biggest peak saving first.
    pub late: Vec<LateTensorAnswer>,
    /// Per device and buffer type: the peak, and the peak if every late tensor were freed.
    pub late_summary: Vec<LateSummaryAnswer>,
    /// Per allocation failure: would freeing them all have let it fit (replayed).
    pub late_failures: Vec<LateFailureAnswer>,
    /// Where `tensor_lifetime` disagrees with the list, as the text says it (text only).
    #[serde(skip)]
    pub lifetime_lines: Vec<String>,
    /// Whether the report is on a single chip, which text names device 0 whatever ids its
    /// tables use (issue 30 §4.5); the JSON keeps the tables' ids.
    #[serde(skip)]
    pub single_chip: bool,
}

/// One entry of `late`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LateTensorAnswer {
    /// The device.
    pub device_id: u64,
    /// The buffer type token.
    pub buffer_type: &'static str,
    address: u64,
    size_per_bank: u64,
    tensor_id: u64,
    shape: Option<String>,
    producer_operation_id: Option<u64>,
    last_use_operation_id: u64,
    held_until_operation_id: u64,
    source: Option<String>,
    peak_saving_per_bank: u64,
    /// The line to change, in a sentence (text only).
    #[serde(skip)]
    pub suggestion: String,
}

/// One entry of `late_summary`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LateSummaryAnswer {
    /// The device.
    pub device_id: u64,
    /// The buffer type token.
    pub buffer_type: &'static str,
    peak_per_bank: u64,
    peak_if_all_freed_per_bank: u64,
    /// How many tensors of the list are on this device and buffer type (text only).
    #[serde(skip)]
    pub count: usize,
    /// What freeing all of them does to the peak (text only).
    #[serde(skip)]
    pub heading: String,
}

/// One entry of `late_failures`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LateFailureAnswer {
    operation_id: u64,
    /// The device.
    pub device_id: u64,
    /// The buffer type token.
    pub buffer_type: &'static str,
    needed_per_bank: u64,
    held_past_last_use: usize,
    fits_if_all_freed: bool,
    /// What the replay of `free-late` says (docs/rules/memory.md §9.2); null when nothing was freed before.
    outcome: Option<&'static str>,
    address: Option<u64>,
    /// The sentence the text gives.
    pub sentence: String,
}

/// Reads every `buffers` row of the report (one pass) and finds the tensors held past their
/// last use; then, at each allocation failure, whether freeing them would have let it fit.
/// A report without `buffers` rows is read from its replayed graphs instead, as tab 5 charts it.
pub fn read_late(report: &MemoryReport) -> Result<LateAnswer, ReportError> {
    read_late_beside(report, &mut || {})
}

/// [`read_late`], with `beside` run on this thread meanwhile when the run is read on the worker
/// pool (else `beside` is not run).
pub fn read_late_beside(report: &MemoryReport, beside: &mut dyn FnMut()) -> Result<LateAnswer, ReportError> {
    let (mut findings, _) = report.late().list_beside(beside)?;
    let ids: Vec<u64> = findings.late.iter().map(|t| t.tensor_id).collect();
    findings.lifetime = check_lifetimes(&findings.late, &report.late().lifetimes(&ids)?);
    Ok(LateAnswer::new(report, &findings))
}

impl LateAnswer {
    /// The answer of some findings (the report names the operations of the sentences).
    pub fn new(report: &MemoryReport, findings: &LateFindings) -> Self {
        Self {
            late: findings.late.iter().map(tensor_answer).collect(),
            late_summary: findings.summary.iter().map(summary_answer).collect(),
            late_failures: findings.failures.iter().map(|f| failure_answer(report, f)).collect(),
            lifetime_lines: findings.lifetime.iter().flat_map(lifetime_lines).collect(),
            single_chip: on_a_single_chip(report, findings.summary.iter().map(|s| s.device_id)),
        }
    }

    /// Only what is on one device and buffer type, when given.
    pub fn only(mut self, device_id: Option<u64>, buffer_type: Option<BufferType>) -> Self {
        let keep = |d: u64, t: &str| device_id.is_none_or(|x| x == d) && buffer_type.is_none_or(|x| x.token() == t);
        self.late.retain(|t| keep(t.device_id, t.buffer_type));
        self.late_summary.retain(|s| keep(s.device_id, s.buffer_type));
        self.late_failures.retain(|f| keep(f.device_id, f.buffer_type));
        self
    }
}

/// The name of an operation by id (empty when the report has none).
fn name_of(report: &MemoryReport, id: u64) -> String {
    report.operation_index(id).map_or_else(String::new, |i| report.operations[i].name.to_string())
}

fn failure_answer(report: &MemoryReport, f: &LateAtFailure) -> LateFailureAnswer {
    LateFailureAnswer {
        operation_id: f.operation_id,
        device_id: f.device_id,
        buffer_type: f.buffer_type.token(),
        needed_per_bank: f.needed_per_bank,
        held_past_last_use: f.held,
        fits_if_all_freed: f.fits_if_all_freed(),
        outcome: f.answer.as_ref().map(|a| a.outcome.as_str()),
        address: f.answer.as_ref().and_then(|a| a.address),
        sentence: late_at_failure_sentence(f, &name_of(report, f.operation_id), false),
    }
}

fn tensor_answer(t: &LateTensor) -> LateTensorAnswer {
    LateTensorAnswer {
        device_id: t.device_id,
        buffer_type: t.buffer_type.token(),
        address: t.address,
        size_per_bank: t.size_per_bank,
        tensor_id: t.tensor_id,
        shape: t.shape.as_deref().map(|s| bare_shape(s).to_string()),
        producer_operation_id: t.producer_operation_id,
        last_use_operation_id: t.last_use_operation_id,
        held_until_operation_id: t.held_until_operation_id,
        source: t.source.clone(),
        peak_saving_per_bank: t.peak_saving_per_bank,
        suggestion: suggestion(t),
    }
}

fn summary_answer(s: &LateSummary) -> LateSummaryAnswer {
    LateSummaryAnswer {
        device_id: s.device_id,
        buffer_type: s.buffer_type.token(),
        peak_per_bank: s.peak_per_bank,
        peak_if_all_freed_per_bank: s.peak_if_all_freed_per_bank,
        count: s.count,
        heading: late_heading(s),
    }
}
