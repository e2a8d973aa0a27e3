//! `explain --peak` as text: one line per device and buffer type.

use crate::analysis::format::size;
use crate::analysis::memory::{MemoryNote, named_device};
use crate::answer::{PeaksAnswer, TruePeakAnswer, TruePeaks};
use std::fmt::Write;

/// One line per device and buffer type, e.g. `Peak L1 use on device 0: 1.20 MiB per bank after
/// operation 42 ttnn.matmul (92.1% of the 1.30 MiB region)`; then the note of the rows set aside.
pub(super) fn peak_text(peaks: &PeaksAnswer) -> String {
    let mut out = String::new();
    if peaks.peak.is_empty() {
        out.push_str("No peak memory use: the report has no buffers rows.\n");
    }
    for line in &peaks.peak {
        let peak = &line.peak;
        let operation = match &line.operation_name {
            Some(name) => format!("{} {name}", peak.operation_id),
            None => peak.operation_id.to_string(),
        };
        let device = named_device(peak.device_id, peaks.single_chip);
        let (kind, used) = (peak.buffer_type.token(), size(peak.used_per_bank));
        let _ = write!(out, "Peak {kind} use on device {device}: {used} per bank after operation {operation}");
        if let (Some(region), Some(percent)) = (line.region_per_bank, &line.share) {
            let _ = write!(out, " ({percent} of the {} region)", size(region));
        }
        out.push('\n');
    }
    if let Some(t) = &peaks.true_peaks {
        out.push_str(&true_peak_text(t));
    }
    if peaks.set_aside_rows > 0 {
        let count = usize::try_from(peaks.set_aside_rows).unwrap_or(usize::MAX);
        let _ = writeln!(out, "{}", MemoryNote::BadBuffers { count, source: "buffers rows" }.text(false));
    }
    out
}

/// The true peak lines (`True peak L1 use on device 0: 908 KiB per bank inside operation 7
/// ttnn.add (65.2% of the 1.33 MiB bank; 452 KiB left): circular buffers 12 KiB · its own buffers
/// 128 KiB · live and used later 768 KiB · held past their last use 0 B`) and the tightest
/// operations.
pub(crate) fn true_peak_text(t: &TruePeaks) -> String {
    let mut out = String::new();
    for p in &t.true_peak {
        let _ = writeln!(out, "{}", true_peak_line(p));
    }
    if !t.tightest.is_empty() {
        let ops: Vec<String> = t
            .tightest
            .iter()
            .map(|p| {
                let left = p.room_per_bank.map_or_else(|| "?".to_string(), size);
                format!("{} ({left} left{})", operation(p), core_text(p))
            })
            .collect();
        let _ = writeln!(out, "Tightest operations (L1 room left at their peak): {}", ops.join(", "));
    }
    out
}

/// One true peak as a line (no newline).
pub(crate) fn true_peak_line(p: &TruePeakAnswer) -> String {
    let c = &p.composition;
    let mut line = format!(
        "True peak {} use on device {}: {} per bank inside operation {}{}",
        p.buffer_type.token(),
        p.named_device,
        size(p.peak_per_bank),
        operation(p),
        core_text(p)
    );
    if let (Some(bank), Some(room)) = (p.bank_size.filter(|&b| b > 0), p.room_per_bank) {
        let share = crate::analysis::format::format_percent(p.peak_per_bank as f64 * 100.0 / bank as f64);
        let _ = write!(line, " ({share} of the {} bank; {} left)", size(bank), size(room));
    }
    let _ = write!(
        line,
        ": circular buffers {} · its own buffers {} · live and used later {} · held past their last use {}",
        size(c.circular_buffers),
        size(c.own),
        size(c.live),
        size(c.stale)
    );
    line
}

fn operation(p: &TruePeakAnswer) -> String {
    match &p.operation_name {
        Some(name) => format!("{} {name}", p.operation_id),
        None => p.operation_id.to_string(),
    }
}

fn core_text(p: &TruePeakAnswer) -> String {
    p.core.map_or_else(String::new, |[x, y]| format!(", on core ({x},{y})"))
}
