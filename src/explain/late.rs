//! `explain --late`: the tensors held past their last use, with the line to change (issue 16),
//! as text; the JSON is the answer's (`answer::LateAnswer`).

use crate::analysis::memory::named_device;
use crate::answer::LateAnswer;
use std::fmt::Write;

/// Per device and buffer type with a late tensor: a heading saying what freeing all of them does
/// to the peak, then one suggestion per tensor, biggest saving first.
pub(super) fn late_text(late: &LateAnswer) -> String {
    let mut out = String::new();
    for s in late.late_summary.iter().filter(|s| s.count > 0) {
        let kind = s.buffer_type;
        let device = named_device(s.device_id, late.single_chip);
        let _ = writeln!(out, "Held past their last use, {kind} on device {device}: {}", s.heading);
        for t in late.late.iter().filter(|t| (t.device_id, t.buffer_type) == (s.device_id, s.buffer_type)) {
            let _ = writeln!(out, "  {}", t.suggestion);
        }
    }
    if out.is_empty() {
        out.push_str("No tensor is held past its last use.\n");
    }
    for f in &late.late_failures {
        let _ = writeln!(out, "{}", f.sentence);
    }
    for line in &late.lifetime_lines {
        let _ = writeln!(out, "{line}");
    }
    out
}
