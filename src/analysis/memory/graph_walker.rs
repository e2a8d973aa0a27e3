//! The graph-only replay (docs/rules/memory.md §3.4): every captured graph of a report replayed in operation
//! order from nothing, one graph at a time, so that the buffers live before any operation, the
//! bytes used after each, and how long each buffer stayed live can be read on the way.

use super::graph_walk::GraphWalk;
use super::inputs::DeviceFacts;
use super::live_index::{Entry, LiveIndex};
use super::notes::MemoryNote;
use crate::analysis::graph::nodes::{GraphNode, NodeType};
use crate::analysis::memory::late::BufferRun;
use crate::analysis::messages::failure::BufferType;

/// Replays every captured graph of a report in operation order from empty (the `graph_only`
/// basis, docs/rules/memory.md §3.4), one graph at a time, so that the buffers live before any operation
/// and the bytes used after each can be read on the way.
#[derive(Debug, Clone)]
pub struct GraphWalker {
    replay: GraphWalk,
    /// The lowest DRAM address allocated so far per device (none: a node without a device),
    /// for the DRAM base of docs/rules/memory.md §2.
    lowest_dram: Vec<(Option<u64>, u64)>,
    /// The last operation replayed.
    last: Option<u64>,
    /// The buffers that stayed live after more than one operation and were freed since: the
    /// graphs' counterpart of the snapshots' runs (issue 16, where to free memory).
    ended: Vec<BufferRun>,
}

impl GraphWalker {
    /// An empty replay: nothing live. `devices` spread graph sizes that give no per-bank figure
    /// over the device's L1 banks (L1, L1_SMALL) or 12 (DRAM).
    pub fn new(devices: &[DeviceFacts]) -> Self {
        let mut live = LiveIndex::with_sums(devices.to_vec());
        live.keep_removed();
        let replay = GraphWalk::across_graphs(live);
        Self { replay, lowest_dram: Vec::new(), last: None, ended: Vec::new() }
    }

    /// Replays one operation's whole graph.
    pub(crate) fn apply(&mut self, operation_id: u64, nodes: &[GraphNode]) {
        self.replay.live.operation = operation_id;
        self.replay.run(nodes, None);
        for entry in self.replay.live.take_removed() {
            self.end_run(&entry);
        }
        self.last = Some(operation_id);
        let dram = nodes.iter().filter(|n| n.is(NodeType::BufferAllocate) && n.buffer_type() == Some(BufferType::Dram));
        for n in dram {
            let Some(address) = n.address().filter(|&a| a > 0) else { continue };
            match self.lowest_dram.iter_mut().find(|(d, _)| *d == n.device_id()) {
                Some(entry) => entry.1 = entry.1.min(address),
                None => self.lowest_dram.push((n.device_id(), address)),
            }
        }
    }

    /// Notes a buffer freed (or replaced) while the current operation ran: it was live after
    /// every operation from the one that allocated it to the last one replayed. As with the
    /// snapshots' runs, a buffer live after one operation only is dropped: it cannot be held
    /// past a last use.
    fn end_run(&mut self, entry: &Entry) {
        let Some(last) = self.last.filter(|&last| entry.since < last) else { return };
        if let Some(run) = run_of(entry, last, false) {
            self.ended.push(run);
        }
    }

    /// Every buffer that stayed live after more than one operation, and every buffer live after
    /// the last operation replayed (`open`), in no particular order.
    pub(crate) fn runs(&self) -> Vec<BufferRun> {
        let Some(last) = self.last else { return Vec::new() };
        let open = self.replay.live.iter().filter(|e| e.since <= last).filter_map(|e| run_of(e, last, true));
        self.ended.iter().copied().chain(open).collect()
    }

    /// The lowest DRAM address allocated so far per device (none: nodes without a device),
    /// freed since or not.
    pub(crate) fn lowest_dram(&self) -> Vec<(Option<u64>, u64)> {
        self.lowest_dram.clone()
    }

    /// The buffers live now, in the order they became live.
    pub(crate) fn live(&self) -> Vec<super::inputs::GraphBuffer> {
        self.replay.live.iter().map(|e| e.buffer.clone()).collect()
    }

    /// Bytes per bank live now, per (device, buffer type) holding any buffer, ascending: kept
    /// as the graphs are replayed. A node without a device counts for device 0.
    pub(crate) fn used_per_bank(&self) -> Vec<(u64, BufferType, u64)> {
        self.replay.live.sums()
    }

    /// What was set aside so far (frees of addresses never allocated, …).
    pub(crate) fn notes(&self) -> Vec<MemoryNote> {
        self.replay.notes()
    }
}

/// The run of a live entry from the operation that allocated it to `last`, with the bytes per
/// bank it counts for in the usage; none for a buffer without a type or a per-bank size.
fn run_of(entry: &Entry, last: u64, open: bool) -> Option<BufferRun> {
    let buffer_type = entry.buffer.buffer_type?;
    let size_per_bank = Some(entry.per_bank()).filter(|&b| b > 0)?;
    Some(BufferRun {
        device_id: entry.buffer.device_id.unwrap_or(0),
        buffer_type,
        address: entry.buffer.address,
        size_per_bank,
        first_operation_id: entry.since,
        last_operation_id: last,
        open,
    })
}
