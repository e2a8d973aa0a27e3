//! The graph-only pass (memory.md §3.4 `graph_only`): every captured graph of the report
//! replayed in rowid order (the writers' operation order) from nothing, with the streaming
//! buffer-only reader, one graph at a time. Run once per report, on demand, with progress and a
//! cancel flag; its result serves every failure of the report, and records the bytes per bank
//! used after each operation for charting memory over the run.

use super::ReportError;
use super::memory::MemoryReport;
use crate::analysis::failure::BufferType;
use crate::analysis::graph::parse_buffers;
use crate::analysis::memory::{DeviceFacts, GraphBuffer, GraphReplayer, MemoryNote};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};

/// How often, in rows, progress is reported.
const PROGRESS_EVERY: u64 = 256;

/// Bytes per bank live after one operation's graph on one (device, buffer type).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OperationUsage {
    /// The operation.
    pub operation_id: u64,
    /// The device.
    pub(crate) device_id: u64,
    /// The buffer type.
    pub(crate) buffer_type: BufferType,
    /// The sum of the live buffers' sizes per bank.
    pub used_per_bank: u64,
}

/// What the graph-only pass found: the buffers live before each failed operation, the bytes
/// used after each operation, and what it set aside.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct GraphReplay {
    /// Buffers live before each operation with an allocation failure, by operation id.
    live_before: HashMap<u64, Vec<GraphBuffer>>,
    /// The lowest DRAM address allocated per device before each operation with an allocation
    /// failure (memory.md §2, the DRAM base).
    lowest_dram_before: HashMap<u64, Vec<(Option<u64>, u64)>>,
    /// After each operation that has a graph, in replay order: its bytes per bank, per
    /// (device, buffer type) holding any.
    pub usage: Vec<OperationUsage>,
    /// What was set aside over every graph.
    pub(crate) notes: Vec<MemoryNote>,
    /// How many graphs were replayed.
    pub graphs: usize,
}

impl GraphReplay {
    /// The buffers live before the failed operation `operation_id`, when it is one.
    pub(crate) fn live_before(&self, operation_id: u64) -> Option<&[GraphBuffer]> {
        self.live_before.get(&operation_id).map(Vec::as_slice)
    }

    /// The lowest DRAM address the graphs before the failed operation `operation_id`
    /// allocated on `device`, freed since or not.
    pub(crate) fn lowest_dram_before(&self, operation_id: u64, device: u64) -> Option<u64> {
        let lowest = self.lowest_dram_before.get(&operation_id)?;
        lowest.iter().filter(|(d, _)| d.is_none_or(|d| d == device)).map(|(_, a)| *a).min()
    }
}

impl MemoryReport {
    /// Replays every captured graph from nothing (the `graph_only` basis). `progress` is called
    /// with (rows done, rows in all) every few hundred rows and at the end; the pass stops and
    /// gives `None` as soon as `cancel` is set. For each operation the first row of its rank is
    /// replayed (a table without ranks: the first row); rows of another rank are skipped.
    pub fn replay_graphs(
        &self,
        progress: &mut dyn FnMut(u64, u64),
        cancel: &AtomicBool,
    ) -> Result<Option<GraphReplay>, ReportError> {
        let failed: Vec<usize> =
            (0..self.operations.len()).filter(|&i| self.error_of(i).is_some_and(|e| e.failure.is_some())).collect();
        let devices: Vec<DeviceFacts> = self.devices.iter().map(|d| d.facts()).collect();
        let (first, last) = self.graph_rowids().map_err(ReportError::read("captured graphs"))?;
        let total = u64::try_from(last - first + 1).unwrap_or(0).max(1);
        let ranked = self.schema.has_column("captured_graph", "rank");
        let mut replayer = GraphReplayer::new(&devices);
        let mut result = GraphReplay::default();
        let mut replayed = vec![false; self.operations.len()];
        let (mut next_failed, mut last_index, mut invalid, mut out_of_order) = (0, 0, 0, false);
        let mut cancelled = false;
        let mut rows = 0u64;
        self.for_each_graph(|rowid, id, rank, text| {
            if cancel.load(Ordering::Relaxed) {
                cancelled = true;
                return false;
            }
            rows += 1;
            if rows.is_multiple_of(PROGRESS_EVERY) {
                progress(u64::try_from(rowid - first + 1).unwrap_or(0).min(total), total);
            }
            let start = self.operations.partition_point(|o| o.id < id);
            let Some(i) = (start..self.operations.len())
                .take_while(|&i| self.operations[i].id == id)
                .find(|&i| !ranked || self.operations[i].rank == rank)
            else {
                return true;
            };
            if replayed[i] {
                return true;
            }
            replayed[i] = true;
            out_of_order |= i < last_index;
            last_index = last_index.max(i);
            while next_failed < failed.len() && failed[next_failed] <= i {
                let id = self.operations[failed[next_failed]].id;
                result.live_before.insert(id, replayer.live());
                result.lowest_dram_before.insert(id, replayer.lowest_dram());
                next_failed += 1;
            }
            match parse_buffers(text) {
                Ok(nodes) => replayer.apply(&nodes),
                Err(_) => invalid += 1,
            }
            result.graphs += 1;
            result.usage.extend(replayer.used_per_bank().into_iter().map(|(device_id, buffer_type, used)| {
                OperationUsage { operation_id: id, device_id, buffer_type, used_per_bank: used }
            }));
            true
        })
        .map_err(ReportError::read("captured graphs"))?;
        if cancelled {
            return Ok(None);
        }
        for &i in &failed[next_failed..] {
            result.live_before.insert(self.operations[i].id, replayer.live());
            result.lowest_dram_before.insert(self.operations[i].id, replayer.lowest_dram());
        }
        result.notes = replayer.notes();
        if invalid > 0 {
            result.notes.push(MemoryNote::InvalidGraphs { count: invalid });
        }
        if out_of_order {
            result.notes.push(MemoryNote::GraphsOutOfOrder);
        }
        progress(total, total);
        Ok(Some(result))
    }

    /// The first and last rowid of `captured_graph` (two seeks); (1, 0) when empty.
    fn graph_rowids(&self) -> rusqlite::Result<(i64, i64)> {
        if !self.schema.has_table("captured_graph") {
            return Ok((1, 0));
        }
        let (first, last): (Option<i64>, Option<i64>) = self.conn.query_row(
            "SELECT (SELECT min(rowid) FROM captured_graph), (SELECT max(rowid) FROM captured_graph)",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )?;
        Ok((first.unwrap_or(1), last.unwrap_or(0)))
    }
}
