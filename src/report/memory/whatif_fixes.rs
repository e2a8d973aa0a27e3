//! What if: the records the fixes are resolved against (docs/rules/memory.md §9.1) — the named
//! tensors' records, the snapshots a `free-buffer` looks in, the late list — read into
//! `analysis::memory::whatif::FixFacts` for the rule (`analysis/memory/whatif/resolve.rs`).

use super::questions::Replays;
use crate::analysis::memory::MemoryAtFailure;
use crate::analysis::memory::late::LateFindings;
pub(super) use crate::analysis::memory::whatif::Resolved;
use crate::analysis::memory::whatif::{DeviceView, Fix, FixFacts, buffers_to_check, resolve, tensors_named};

impl<'r> Replays<'r> {
    /// The fixes as the replay acts on them, and where the replay must start.
    pub(super) fn resolve(
        &self,
        index: usize,
        fixes: &[Fix],
        m: &MemoryAtFailure,
        view: &DeviceView,
        late: Option<&LateFindings>,
    ) -> rusqlite::Result<Resolved> {
        let ids = tensors_named(fixes);
        // Placed as the failure's picture places them: by their producers' graphs where the
        // tables are in doubt (docs/rules/memory.md §4).
        let tensors = if ids.is_empty() { Vec::new() } else { self.report.pictures().tied_facts(index, &ids)? };
        let mut live_after = Vec::new();
        for (k, address) in buffers_to_check(fixes, &self.report.operations, index) {
            live_after.push((k, address, self.buffer_live_after(k, address, view)?));
        }
        let facts = FixFacts {
            operations: &self.report.operations,
            index,
            tensors: &tensors,
            live_after: &live_after,
            late,
            dram_banks: self.hardware().dram_banks(),
        };
        Ok(resolve(fixes, &facts, m, view))
    }

    /// Whether a buffer of the followed device is live at `address` after operation `k`, as its
    /// snapshot says; true when the snapshot holds no row of the device (nothing to tell by).
    fn buffer_live_after(&self, k: u64, address: u64, view: &DeviceView) -> rusqlite::Result<bool> {
        let (rows, _) = self.report.snapshots().rows(k, self.report.rank())?;
        let ours: Vec<_> = rows.iter().filter(|r| view.names_device(r.device_id)).collect();
        Ok(ours.is_empty() || ours.iter().any(|r| r.valid().is_some_and(|(a, _)| a == address)))
    }
}
