//! The sentences of where to free memory: one suggestion per late tensor, read like code review,
//! and the heading of a line's list.

use super::findings::{LateSummary, LateTensor};
use crate::analysis::format::{bare_shape, size};

/// The suggestion for one late tensor, e.g. `ttnn.deallocate(…) after block.py:139 — tensor 71
/// (48 KiB per bank, [1, 1, 3136, 64]) is last used by operation 124 ttnn.add and held until
/// operation 145; freeing it there lowers the L1 peak by 48 KiB.`
pub fn suggestion(t: &LateTensor) -> String {
    let place = match &t.source {
        Some(source) => source.clone(),
        None => format!("operation {}", t.last_use_operation_id),
    };
    let what = match &t.shape {
        Some(shape) => format!("{} per bank, {}", size(t.size_per_bank), bare_shape(shape)),
        None => format!("{} per bank", size(t.size_per_bank)),
    };
    let last = match t.last_use_operation_name.as_str() {
        "" => t.last_use_operation_id.to_string(),
        name => format!("{} {name}", t.last_use_operation_id),
    };
    let kind = t.buffer_type.token();
    let effect = match t.peak_saving_per_bank {
        0 => format!("freeing it there does not lower the {kind} peak"),
        saving => format!("freeing it there lowers the {kind} peak by {}", size(saving)),
    };
    format!(
        "ttnn.deallocate(…) after {place} — tensor {} ({what}) is last used by operation {last} and held until operation {}; {effect}.",
        t.tensor_id, t.held_until_operation_id
    )
}

/// A late tensor in a few words, its saving first (tab 5's list rows, where a whole
/// [`suggestion`] would be cut before its figures), e.g. `L1 peak −48 KiB · tensor 71, 48 KiB
/// per bank · free after block.py:139`.
pub fn late_row(t: &LateTensor) -> String {
    let kind = t.buffer_type.token();
    let saving = match t.peak_saving_per_bank {
        0 => format!("{kind} peak unchanged"),
        saving => format!("{kind} peak −{}", size(saving)),
    };
    let place = match &t.source {
        Some(source) => source.clone(),
        None => format!("operation {}", t.last_use_operation_id),
    };
    format!("{saving} · tensor {}, {} per bank · free after {place}", t.tensor_id, size(t.size_per_bank))
}

/// What freeing every late tensor of a line does to its peak, e.g. `freeing all 14 at their last
/// use lowers the peak from 1.21 MiB to 912 KiB`.
pub fn late_heading(s: &LateSummary) -> String {
    let (peak, after) = (size(s.peak_per_bank), size(s.peak_if_all_freed_per_bank));
    let which = match s.count {
        0 => return "no tensor is held past its last use".to_string(),
        1 => "freeing the one at its last use".to_string(),
        n => format!("freeing all {n} at their last use"),
    };
    if s.peak_if_all_freed_per_bank < s.peak_per_bank {
        format!("{which} lowers the peak from {peak} to {after}")
    } else {
        format!("{which} leaves the peak at {peak}")
    }
}
