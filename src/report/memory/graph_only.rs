//! The graph-only pass (docs/rules/memory.md §3.4 `graph_only`): every captured graph of the report
//! replayed in rowid order (the writers' operation order) from nothing, with the streaming
//! buffer-only reader, one graph at a time. Run once per report, on demand, with progress and a
//! cancel flag; its result serves every failure of the report, and records the bytes per bank
//! used after each operation for charting memory over the run.

use super::graphs::Graphs;
use crate::analysis::graph::nodes::parse_buffers;
use crate::analysis::memory::late::BufferRun;
use crate::analysis::memory::{DeviceFacts, GraphBuffer, GraphWalker, MemoryNote};
use crate::analysis::messages::failure::BufferType;
use crate::report::error::ReportError;
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
pub struct GraphOnlyPass {
    /// Buffers live before each operation with an allocation failure, by operation id.
    live_before: HashMap<u64, Vec<GraphBuffer>>,
    /// The lowest DRAM address allocated per device before each operation with an allocation
    /// failure (docs/rules/memory.md §2, the DRAM base).
    lowest_dram_before: HashMap<u64, Vec<(Option<u64>, u64)>>,
    /// After each operation that has a graph, in replay order: its bytes per bank, per
    /// (device, buffer type) holding any.
    pub usage: Vec<OperationUsage>,
    /// What was set aside over every graph.
    pub(crate) notes: Vec<MemoryNote>,
    /// How many graphs were replayed.
    pub graphs: usize,
    /// Each buffer's stay: from the operation that allocated it to the last one after which it
    /// was live (issue 16, where to free memory, on a report without `buffers` rows).
    pub(crate) runs: Vec<BufferRun>,
}

impl GraphOnlyPass {
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

impl Graphs<'_> {
    /// Walks every captured graph from nothing, alone (the `graph_only` basis). `progress` is called
    /// with (rows done, rows in all) every few hundred rows and at the end; the pass stops and
    /// gives `None` as soon as `cancel` is set. For each operation the first row of its rank is
    /// replayed (a table without ranks: the first row); rows of another rank are skipped.
    pub fn graph_only_pass(
        &self,
        progress: &mut dyn FnMut(u64, u64),
        cancel: &AtomicBool,
    ) -> Result<Option<GraphOnlyPass>, ReportError> {
        let failed: Vec<u64> = (0..self.operations.len())
            .filter(|&i| self.operations[i].error.is_some_and(|e| self.errors[e].failure.is_some()))
            .map(|i| self.operations[i].id)
            .collect();
        let devices: Vec<DeviceFacts> = self.devices.iter().map(|d| d.facts()).collect();
        let (first, last) = self.graph_rowids().map_err(ReportError::read("captured graphs"))?;
        let total = u64::try_from(last - first + 1).unwrap_or(0).max(1);
        let mut pass = Pass::new(&devices, failed, self.operations.len());
        let (mut cancelled, mut rows) = (false, 0u64);
        self.for_each(|rowid, id, rank, text| {
            if cancel.load(Ordering::Relaxed) {
                cancelled = true;
                return false;
            }
            rows += 1;
            if rows.is_multiple_of(PROGRESS_EVERY) {
                progress(u64::try_from(rowid - first + 1).unwrap_or(0).min(total), total);
            }
            if let Some(i) = self.graph_operation(id, rank) {
                pass.replay(i, id, text);
            }
            true
        })
        .map_err(ReportError::read("captured graphs"))?;
        if cancelled {
            return Ok(None);
        }
        progress(total, total);
        Ok(Some(pass.finish()))
    }

    /// The operation (by index) a `captured_graph` row of `id` and `rank` is replayed for: that
    /// of its rank (a table without ranks: the first of the id); none for another rank's row.
    fn graph_operation(&self, id: u64, rank: u32) -> Option<usize> {
        let ranked = self.store.schema.has_column("captured_graph", "rank");
        let start = self.operations.partition_point(|o| o.id < id);
        (start..self.operations.len())
            .take_while(|&i| self.operations[i].id == id)
            .find(|&i| !ranked || self.operations[i].rank == rank)
    }

    /// The first and last rowid of `captured_graph` (two seeks); (1, 0) when empty.
    fn graph_rowids(&self) -> rusqlite::Result<(i64, i64)> {
        if !self.store.schema.has_table("captured_graph") {
            return Ok((1, 0));
        }
        let (first, last): (Option<i64>, Option<i64>) = self.store.conn.query_row(
            "SELECT (SELECT min(rowid) FROM captured_graph), (SELECT max(rowid) FROM captured_graph)",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )?;
        Ok((first.unwrap_or(1), last.unwrap_or(0)))
    }
}

/// The graph-only pass under way: the replayer, what it found so far, and what it has seen of
/// the order of the graphs.
struct Pass {
    replayer: GraphWalker,
    result: GraphOnlyPass,
    /// The ids of the operations with an allocation failure, in operation order.
    failed: Vec<u64>,
    /// How many of `failed` have their live buffers recorded.
    next_failed: usize,
    /// Which operations (by index) were replayed: only the first graph of each counts.
    replayed: Vec<bool>,
    /// The greatest operation index replayed so far.
    last_index: usize,
    /// Graphs that did not parse.
    invalid: usize,
    /// A graph came after one of a later operation.
    out_of_order: bool,
}

impl Pass {
    fn new(devices: &[DeviceFacts], failed: Vec<u64>, operations: usize) -> Self {
        Self {
            replayer: GraphWalker::new(devices),
            result: GraphOnlyPass::default(),
            failed,
            next_failed: 0,
            replayed: vec![false; operations],
            last_index: 0,
            invalid: 0,
            out_of_order: false,
        }
    }

    /// Replays the graph of operation `i` (id `id`), once per operation; first records what was
    /// live before every failed operation up to it (by id, as the graphs come in order).
    fn replay(&mut self, i: usize, id: u64, text: &str) {
        if std::mem::replace(&mut self.replayed[i], true) {
            return;
        }
        self.out_of_order |= i < self.last_index;
        self.last_index = self.last_index.max(i);
        self.record_failed(|failed| failed <= id);
        match parse_buffers(text) {
            Ok(nodes) => self.replayer.apply(id, &nodes),
            Err(_) => self.invalid += 1,
        }
        self.result.graphs += 1;
        let used = self.replayer.used_per_bank().into_iter();
        self.result.usage.extend(used.map(|(device_id, buffer_type, used_per_bank)| OperationUsage {
            operation_id: id,
            device_id,
            buffer_type,
            used_per_bank,
        }));
    }

    /// Records the live buffers and lowest DRAM addresses before the next failed operations
    /// while `due` says their turn has come.
    fn record_failed(&mut self, due: impl Fn(u64) -> bool) {
        while let Some(&id) = self.failed.get(self.next_failed).filter(|&&f| due(f)) {
            self.result.live_before.insert(id, self.replayer.live());
            self.result.lowest_dram_before.insert(id, self.replayer.lowest_dram());
            self.next_failed += 1;
        }
    }

    /// What the pass found: the failed operations no graph came after see every graph.
    fn finish(mut self) -> GraphOnlyPass {
        self.record_failed(|_| true);
        self.result.notes = self.replayer.notes();
        self.result.runs = self.replayer.runs();
        if self.invalid > 0 {
            self.result.notes.push(MemoryNote::InvalidGraphs { count: self.invalid });
        }
        if self.out_of_order {
            self.result.notes.push(MemoryNote::GraphsOutOfOrder);
        }
        self.result
    }
}
