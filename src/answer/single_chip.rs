//! Whether a report's figures are one chip's (issue 30 §4.5): the one rule by which every front
//! end's text names a single chip device 0, whatever ids its tables use
//! (`analysis::memory::mesh::chip_alias`, docs/rules/memory.md §2).

use crate::analysis::memory::figures_on_one_chip;
use crate::report::MemoryReport;

/// Whether a report is on a single chip: one chip's `devices` rows, and `ids` (the devices its
/// figures are on) one id, 0 or 1 (a single chip opened as a mesh names itself by both, ttnn 0.81).
pub(crate) fn on_a_single_chip(report: &MemoryReport, ids: impl Iterator<Item = u64>) -> bool {
    let devices: Vec<_> = report.devices.iter().map(|d| d.facts()).collect();
    figures_on_one_chip(&devices, ids)
}
