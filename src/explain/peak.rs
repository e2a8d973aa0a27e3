//! `explain --peak`: each device's peak memory use per buffer type, from all of `buffers`.

use crate::analysis::format::{format_percent, size};
use crate::analysis::memory::MemoryNote;
use crate::analysis::usage::MemoryUsage;
use crate::analysis::usage_series::{Ceiling, Peak};
use crate::report::{MemoryReport, ReportError};
use std::fmt::Write;
use std::sync::atomic::AtomicBool;

/// A peak, with the size of the region it is measured against when known.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PeakLine {
    /// The peak.
    pub(crate) peak: Peak,
    /// The region size.
    pub(crate) ceiling: Option<Ceiling>,
}

impl PeakLine {
    /// The peak's share of its region in percent, when the region's size is known and not 0.
    fn share(&self) -> Option<f64> {
        let size = self.ceiling?.size;
        (size > 0).then(|| self.peak.used_per_bank as f64 * 100.0 / size as f64)
    }

    /// The share as the text gives it, `0.9%` (behaviour.md §6: at most two decimals).
    fn share_text(&self) -> Option<String> {
        self.share().map(format_percent)
    }

    /// The share as a number, the figure the text gives (`0.9`).
    pub(crate) fn percent_of_region(&self) -> Option<f64> {
        let text = self.share_text()?;
        text.trim_end_matches('%').replace(',', "").parse().ok().or(self.share())
    }
}

/// The peaks of a report, and the rows the valid-row rule kept out of them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Peaks {
    /// One per device and buffer type.
    pub(crate) lines: Vec<PeakLine>,
    /// `buffers` rows with a missing, zero or negative address or size (memory.md §3).
    pub(crate) set_aside_rows: u64,
}

/// Reads every `buffers` row of the report (one pass) and finds the peaks.
pub fn read_peaks(report: &MemoryReport) -> Result<Peaks, ReportError> {
    let mut usage = MemoryUsage::default();
    report.usage().read(&mut usage, &AtomicBool::new(false), &mut |_| {})?;
    Ok(peaks_of(report, &usage))
}

/// The peaks of a pass's sums, each with its region size (`diff` reads them from its own pass).
pub(crate) fn peaks_of(report: &MemoryReport, usage: &MemoryUsage) -> Peaks {
    let questions = report.usage();
    let lines = questions
        .peaks(usage)
        .into_iter()
        .map(|peak| PeakLine { peak, ceiling: questions.region_ceiling(peak.device_id, peak.buffer_type) })
        .collect();
    Peaks { lines, set_aside_rows: usage.set_aside_rows }
}

/// One line per device and buffer type, e.g. `Peak L1 use on device 0: 1.20 MiB per bank after
/// operation 42 ttnn.matmul (92.1% of the 1.30 MiB region)`; then the note of the rows set aside.
pub(super) fn peak_text(report: &MemoryReport, peaks: &Peaks) -> String {
    let mut out = String::new();
    if peaks.lines.is_empty() {
        out.push_str("No peak memory use: the report has no buffers rows.\n");
    }
    for line @ PeakLine { peak, ceiling } in &peaks.lines {
        let operation = match report.operation_index(peak.operation_id) {
            Some(i) => format!("{} {}", peak.operation_id, report.operations[i].name),
            None => peak.operation_id.to_string(),
        };
        let (kind, device, used) = (peak.buffer_type.token(), peak.device_id, size(peak.used_per_bank));
        let _ = write!(out, "Peak {kind} use on device {device}: {used} per bank after operation {operation}");
        if let (Some(ceiling), Some(percent)) = (ceiling, line.share_text()) {
            let _ = write!(out, " ({percent} of the {} region)", size(ceiling.size));
        }
        out.push('\n');
    }
    if peaks.set_aside_rows > 0 {
        let count = usize::try_from(peaks.set_aside_rows).unwrap_or(usize::MAX);
        let _ = writeln!(out, "{}", MemoryNote::BadBuffers { count, source: "buffers rows" }.text(false));
    }
    out
}
