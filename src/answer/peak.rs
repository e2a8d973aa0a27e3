//! `explain --peak`: each device's peak memory use per buffer type, from all of `buffers`.

use super::single_chip::on_a_single_chip;
use super::true_peak::{TruePeaks, true_peaks_of};
use crate::analysis::format::format_percent;
use crate::analysis::memory::usage::MemoryUsage;
use crate::analysis::memory::usage_series::{Ceiling, CeilingSource, Peak};
use crate::report::{MemoryReport, ReportError};
use serde::Serialize;

/// The peaks of a report (`memory_report.peak` of `explain --peak --json`), and the rows the
/// valid-row rule kept out of them.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PeaksAnswer {
    /// One per device and buffer type, in device then type order.
    pub peak: Vec<PeakAnswer>,
    /// The true peaks inside the operations and the tightest operations (docs/true-peak.md);
    /// none when only the snapshots were read (`diff`).
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub true_peaks: Option<TruePeaks>,
    /// `buffers` rows with a missing, zero or negative address or size (docs/rules/memory.md §3).
    #[serde(skip)]
    pub set_aside_rows: u64,
    /// Whether the report is on a single chip, which text names device 0 whatever ids its
    /// tables use (issue 30 §4.5); the JSON keeps the tables' ids.
    #[serde(skip)]
    pub single_chip: bool,
}

/// One peak with the region the text measures it against: its size per bank, where that comes
/// from (`devices` or `message`, as a memory section's region), and its share in percent as the
/// text gives it; null when the region is unknown.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PeakAnswer {
    /// The peak: device, buffer type, operation, bytes per bank.
    #[serde(flatten)]
    pub peak: Peak,
    /// The region's size per bank.
    pub region_per_bank: Option<u64>,
    region_source: Option<&'static str>,
    percent_of_region: Option<f64>,
    /// The operation's name, when the report has it (text only).
    #[serde(skip)]
    pub operation_name: Option<String>,
    /// The share as the text gives it, `0.9%` (text only).
    #[serde(skip)]
    pub share: Option<String>,
}

/// Reads every `buffers` row of the report and finds the peaks, and the run's events (graphs and
/// snapshots) for the true peaks: one read of `buffers` for both when the tables allow it.
pub fn read_peaks(report: &MemoryReport) -> Result<PeaksAnswer, ReportError> {
    read_peaks_beside(report, &mut || {})
}

/// [`read_peaks`], with `beside` run on this thread meanwhile when the run is read on the worker
/// pool (else `beside` is not run).
pub fn read_peaks_beside(report: &MemoryReport, beside: &mut dyn FnMut()) -> Result<PeaksAnswer, ReportError> {
    let run = report.passes().usage_and_run_facts_beside(beside)?;
    let mut peaks = peaks_of(report, &run.usage);
    peaks.true_peaks = Some(true_peaks_of(report, &run.facts));
    Ok(peaks)
}

/// The peaks of a pass's sums, each with its region (`diff` reads them from its own pass).
pub(crate) fn peaks_of(report: &MemoryReport, usage: &MemoryUsage) -> PeaksAnswer {
    let questions = report.usage();
    let peak: Vec<PeakAnswer> = questions
        .peaks(usage)
        .into_iter()
        .map(|peak| {
            let name = report.operation_index(peak.operation_id).map(|i| report.operations[i].name.to_string());
            PeakAnswer::new(peak, questions.region_ceiling(peak.device_id, peak.buffer_type), name)
        })
        .collect();
    let single_chip = on_a_single_chip(report, peak.iter().map(|p| p.peak.device_id));
    PeaksAnswer { peak, true_peaks: None, set_aside_rows: usage.set_aside_rows, single_chip }
}

impl PeakAnswer {
    fn new(peak: Peak, ceiling: Option<Ceiling>, operation_name: Option<String>) -> Self {
        // The share as the text gives it (docs/rules/reference.md §6: at most two decimals), and that figure.
        let exact = ceiling.filter(|c| c.size > 0).map(|c| peak.used_per_bank as f64 * 100.0 / c.size as f64);
        let share = exact.map(format_percent);
        let percent = share.as_deref().and_then(|t| t.trim_end_matches('%').replace(',', "").parse().ok()).or(exact);
        Self {
            peak,
            region_per_bank: ceiling.map(|c| c.size),
            region_source: ceiling.map(|c| match c.source {
                CeilingSource::Devices => "devices",
                CeilingSource::Message => "message",
            }),
            percent_of_region: percent,
            operation_name,
            share,
        }
    }
}
