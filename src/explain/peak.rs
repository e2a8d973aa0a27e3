//! `explain --peak`: each device's peak memory use per buffer type, from all of `buffers`.

use crate::analysis::format::{format_percent, size};
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

/// Reads every `buffers` row of the report (one pass) and finds the peaks.
pub fn read_peaks(report: &MemoryReport) -> Result<Vec<PeakLine>, ReportError> {
    let mut usage = MemoryUsage::default();
    report.read_usage(&mut usage, &AtomicBool::new(false), &mut |_| {})?;
    Ok(report
        .usage_peaks(&usage)
        .into_iter()
        .map(|peak| PeakLine { peak, ceiling: report.region_ceiling(peak.device_id, peak.buffer_type) })
        .collect())
}

/// One line per device and buffer type, e.g. `Peak L1 use on device 0: 1.20 MiB per bank after
/// operation 42 ttnn.matmul (92.1% of the 1.30 MiB region)`.
pub(super) fn peak_text(report: &MemoryReport, peaks: &[PeakLine]) -> String {
    if peaks.is_empty() {
        return "No peak memory use: the report has no buffers rows.\n".to_string();
    }
    let mut out = String::new();
    for PeakLine { peak, ceiling } in peaks {
        let operation = match report.operation_index(peak.operation_id) {
            Some(i) => format!("{} {}", peak.operation_id, report.operations[i].name),
            None => peak.operation_id.to_string(),
        };
        let (kind, device, used) = (peak.buffer_type.token(), peak.device_id, size(peak.used_per_bank));
        let _ = write!(out, "Peak {kind} use on device {device}: {used} per bank after operation {operation}");
        if let Some(ceiling) = ceiling {
            let percent = format_percent(peak.used_per_bank as f64 * 100.0 / ceiling.size as f64);
            let _ = write!(out, " ({percent} of the {} region)", size(ceiling.size));
        }
        out.push('\n');
    }
    out
}
