//! What if: the records that say which device a replay follows and on what hardware
//! (docs/rules/memory.md §1–§2, §9.1) — the `devices` rows, the snapshots around the failure, the
//! failed operation's graph and its tensors' places, the DRAM failures' figures — read for the
//! rules of `analysis/memory/whatif/device.rs` and `hardware.rs`.

use super::questions::Replays;
use crate::analysis::memory::whatif::{
    DeviceView, HardwareFacts, Regions, addresses_differ, both_ids_held, device_view, failure_dram, graph_id,
    graph_tensors, ids_holding_buffers, lockstep_tensors,
};
use crate::analysis::memory::{MemoryAtFailure, chip_alias};
use crate::analysis::messages::failure::BufferType;
use crate::report::error::ReportError;

impl<'r> Replays<'r> {
    /// The device a replay follows and the other ids its records give it: a single chip opened
    /// as a mesh names itself by both 0 and 1 (docs/rules/memory.md §1–§2) — unless a snapshot
    /// around the failed operation (by index) holds both ids: then they are two mesh devices
    /// with allocators of their own (submeshes sharing chips).
    pub(super) fn device_view(&self, device: u64, index: usize) -> Result<DeviceView, ReportError> {
        let hardware = self.hardware();
        // The snapshots are read only where the ids could name one chip.
        let others = match chip_alias(&hardware.devices, device, &[]) {
            Some(_) => both_ids_held(device, &self.holders_around(index)?),
            None => Vec::new(),
        };
        let graph_id = self.graph_id_of(device, index)?;
        Ok(device_view(device, hardware.device_row(device), &hardware.devices, &others, graph_id))
    }

    /// What the what-if rules read of the hardware: the `devices` rows, the schema version and
    /// every DRAM failure's figures.
    pub(super) fn hardware(&self) -> HardwareFacts {
        let dram_failures = self
            .report
            .errors
            .iter()
            .filter_map(|e| e.failure.as_ref())
            .filter(|f| f.figures.buffer_type == Some(BufferType::Dram))
            .map(|f| (f.figures.bank_size, f.figures.banks))
            .collect();
        HardwareFacts {
            devices: self.report.devices.iter().map(|d| d.facts()).collect(),
            schema_version: self.report.schema_version.clone(),
            dram_failures,
        }
    }

    /// The regions of the device's allocators (`HardwareFacts::regions`); the lowest DRAM
    /// address recorded up to the failure is read only for a failure outside DRAM.
    pub(super) fn regions(&self, device: u64, m: &MemoryAtFailure) -> Regions {
        let failure = failure_dram(m);
        let lowest = match failure {
            Some(_) => None,
            None => {
                self.report.snapshots().lowest_dram_address(m.operation_id, device, self.report.rank()).ok().flatten()
            }
        };
        self.hardware().regions(device, failure, lowest)
    }

    /// The id the captured graphs name `device` by, when it is another (`whatif::graph_id`):
    /// the failed operation's (by index) graph and its tensors' `tensors` rows.
    fn graph_id_of(&self, device: u64, index: usize) -> Result<Option<u64>, ReportError> {
        let Ok(graph) = self.report.graphs().graph_shared(index) else { return Ok(None) };
        let named = graph_tensors(&graph);
        if named.is_empty() {
            return Ok(None);
        }
        let ids: Vec<u64> = named.iter().map(|(t, _)| *t).collect();
        let facts = self.report.tensors().facts(index, &[], &ids).map_err(ReportError::read("the run's records"))?;
        Ok(graph_id(device, &named, &facts))
    }

    /// The ids holding buffers in the snapshot of the operation before the one at `index`, then
    /// in its own; the second is not read once the first holds both 0 and 1.
    fn holders_around(&self, index: usize) -> Result<Vec<Vec<u64>>, ReportError> {
        let read = ReportError::read("the run's records");
        let mut out = Vec::with_capacity(2);
        for i in [index.checked_sub(1), Some(index)].into_iter().flatten() {
            let (rows, _) =
                self.report.snapshots().rows(self.report.operations[i].id, self.report.rank()).map_err(&read)?;
            out.push(ids_holding_buffers(&rows));
            if out.last().is_some_and(|ids| ids.contains(&0) && ids.contains(&1)) {
                break;
            }
        }
        Ok(out)
    }

    /// A live tensor of the failure whose buffer lies at different addresses on the chips the
    /// followed device names (`whatif::addresses_differ`); its tensors' `device_tensors` rows
    /// are read by id: the rows at other addresses are the ones that tell (a read by the live
    /// places, as `facts` does for holders, finds only the rows at the live addresses).
    pub(super) fn addresses_differ(&self, m: &MemoryAtFailure, view: &DeviceView) -> rusqlite::Result<Option<String>> {
        let ids = lockstep_tensors(m, view);
        if ids.is_empty() {
            return Ok(None);
        }
        let places = self.report.tensors().device_tensors_of(&ids)?.into_iter().collect();
        Ok(addresses_differ(view, places))
    }
}
