//! What if: the device a replay follows (docs/rules/memory.md §1–§2) — one chip named by two ids, two
//! submeshes sharing chips, and the id the captured graphs give the device when the tables give
//! it another.

use super::memory_report::MemoryReport;
use crate::analysis::graph::nodes::NodeType;
use crate::analysis::memory::one_chip;
use crate::analysis::memory::whatif::DeviceView;
use crate::report::error::ReportError;

impl MemoryReport {
    /// The device a replay follows and the other ids its records give it: a single chip opened
    /// as a mesh names itself by both 0 and 1 (docs/rules/memory.md §1–§2) — two alike `devices` rows (or
    /// one), and no snapshot around the failed operation (by index) holding both ids: where one
    /// does, 0 and 1 are two mesh devices with allocators of their own (submeshes sharing chips).
    pub(super) fn device_view(&self, device: u64, index: usize) -> Result<DeviceView, ReportError> {
        let facts = self.devices.iter().find(|d| d.device_id == device).or(self.devices.first()).map(|d| d.facts());
        let rows: Vec<_> = self.devices.iter().map(|d| d.facts()).collect();
        let single_chip = device <= 1 && one_chip(&rows) && !self.both_ids_hold_buffers(index)?;
        let aliases = if single_chip { vec![1 - device] } else { Vec::new() };
        let graph_id = self.graph_id_of(device, index)?;
        Ok(DeviceView { device_id: device, aliases, facts, graph_id })
    }

    /// The id the captured graphs name `device` by, when it is another: the failed operation's
    /// (by index) graph names its tensors on one device, and the `tensors` table puts those
    /// tensors on `device` (docs/rules/memory.md §2: submeshes whose parent holds nothing are 1 and 2 in the
    /// graphs, 0 and 1 in the tables). None when they agree or nothing says.
    fn graph_id_of(&self, device: u64, index: usize) -> Result<Option<u64>, ReportError> {
        let Ok(graph) = self.graphs().graph_shared(index) else { return Ok(None) };
        let named: Vec<(u64, u64)> = graph
            .iter()
            .filter(|n| n.is(NodeType::Tensor))
            .filter_map(|n| Some((n.tensor_id?, n.device_id?)))
            .collect();
        if named.is_empty() {
            return Ok(None);
        }
        let ids: Vec<u64> = named.iter().map(|(t, _)| *t).collect();
        let facts = self.tensors().facts(index, &[], &ids).map_err(ReportError::read("the run's records"))?;
        let mut graph_ids: Vec<u64> = named
            .iter()
            .filter(|(t, _)| facts.iter().any(|f| f.tensor_id == *t && f.device_id == Some(device)))
            .map(|(_, g)| *g)
            .collect();
        graph_ids.sort_unstable();
        graph_ids.dedup();
        Ok(match graph_ids.as_slice() {
            [g] if *g != device => Some(*g),
            _ => None,
        })
    }

    /// Whether the snapshot of the operation (by index) or of the one before it holds buffers
    /// of both device 0 and device 1.
    fn both_ids_hold_buffers(&self, index: usize) -> Result<bool, ReportError> {
        let read = ReportError::read("the run's records");
        let rank = self.rank();
        for i in [index.checked_sub(1), Some(index)].into_iter().flatten() {
            let (rows, _) = self.snapshots().rows(self.operations[i].id, rank).map_err(&read)?;
            let holds = |d: u64| rows.iter().any(|r| r.device_id == d && r.valid().is_some());
            if holds(0) && holds(1) {
                return Ok(true);
            }
        }
        Ok(false)
    }
}
