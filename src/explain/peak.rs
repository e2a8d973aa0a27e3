//! `explain --peak` as text: one line per device and buffer type.

use crate::analysis::format::size;
use crate::analysis::memory::{MemoryNote, named_device};
use crate::answer::PeaksAnswer;
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
    if peaks.set_aside_rows > 0 {
        let count = usize::try_from(peaks.set_aside_rows).unwrap_or(usize::MAX);
        let _ = writeln!(out, "{}", MemoryNote::BadBuffers { count, source: "buffers rows" }.text(false));
    }
    out
}
