//! The run as a replay of one device reads it, recorded once from the run's one read of both
//! tables (docs/rules/memory.md §9.1): for every operation, its graph's allocations and frees of
//! the device and what its snapshot changed in the device's buffers — a few entries each. A
//! replay from any checkpoint is then given the operations from memory, each as the sequence
//! reads it from the tables: a snapshot is recorded as the map of its rows (the last row of a key
//! standing), which is all the sequence reads of it (`snapshot_diff.rs`).

use super::run::WhatIfReplay;
use super::sequence::{DeviceView, GraphEvent, OperationRecord};
use crate::analysis::int_hash::IntMap;
use crate::analysis::memory::snapshot_diff::{LiveKey, LiveSet};
use std::ops::Range;

/// What an operation's snapshot showed of the device.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shown {
    /// The operation has no `buffers` rows: no snapshot.
    Nothing,
    /// Rows, none of them the device's buffers.
    Empty,
    /// The device's buffers: the last such snapshot, with this operation's changes.
    Buffers,
}

/// One operation: its id, its snapshot, and where its entries end in the run's lists.
#[derive(Debug, Clone, Copy)]
struct RecordedOperation {
    operation_id: u64,
    shown: Shown,
    events: usize,
    gone: usize,
    new: usize,
}

/// One device's record of the run, every operation in run order (by index).
#[derive(Debug, Clone)]
pub struct RecordedRun {
    view: DeviceView,
    operations: Vec<RecordedOperation>,
    events: Vec<GraphEvent>,
    /// Keys the snapshots no longer show at their size.
    gone: Vec<LiveKey>,
    /// Keys the snapshots show anew, at their size.
    new: Vec<(LiveKey, u64)>,
    /// While recording: the device's last snapshot that showed any of its buffers, as a map.
    last: LiveSet<usize>,
    /// Entries beyond which the record is given up (a run whose snapshots change too much to
    /// keep); it is then empty.
    limit: usize,
    given_up: bool,
}

/// Where a replay from memory stands: the next operation, and the device's last snapshot that
/// showed any of its buffers, as a map.
#[derive(Debug, Clone, Default)]
pub struct RecordedCursor {
    next: usize,
    gone: usize,
    new: usize,
    last: IntMap<LiveKey, u64>,
    /// The replay's live buffers are that map but at `touched` (the keys the graphs' events met
    /// since): true once the replay was given a snapshot showing the device's buffers, and
    /// while it is given no other snapshot. A snapshot then changes at most `touched` and the
    /// keys it changed in the map, the only ones compared.
    synced: bool,
    touched: Vec<LiveKey>,
}

impl RecordedRun {
    /// Nothing recorded yet of `view`'s device; at most `limit` entries kept.
    pub fn new(view: DeviceView, limit: usize) -> Self {
        let (operations, events, gone, new) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        Self { view, operations, events, gone, new, last: LiveSet::default(), limit, given_up: false }
    }

    /// The device followed, as its replays view it.
    pub fn view(&self) -> &DeviceView {
        &self.view
    }

    /// Whether every one of a run's `operations` was recorded (the record was not given up).
    pub fn complete(&self, operations: usize) -> bool {
        !self.given_up && self.operations.len() == operations
    }

    /// Records the run's next operation (its index is the number recorded before it).
    pub fn record(&mut self, record: &OperationRecord<'_>) {
        if self.given_up {
            return;
        }
        let (view, events) = (&self.view, &mut self.events);
        view.each_graph_event(record, |event| events.push(event));
        let shown = match record.snapshot {
            None => Shown::Nothing,
            Some(rows) => {
                let changes = self.last.changes(self.view.shown(rows));
                match changes.shown {
                    0 => Shown::Empty,
                    _ => {
                        for (key, _) in changes.gone {
                            self.last.remove(&key);
                            self.gone.push(key);
                        }
                        for (key, size) in changes.new {
                            self.last.insert(key, self.new.len(), size);
                            self.new.push((key, size));
                        }
                        Shown::Buffers
                    }
                }
            }
        };
        let (events, gone, new) = (self.events.len(), self.gone.len(), self.new.len());
        self.operations.push(RecordedOperation { operation_id: record.operation_id, shown, events, gone, new });
        if events + gone + new > self.limit {
            *self = Self { given_up: true, ..Self::new(self.view.clone(), self.limit) };
        }
    }

    /// Gives `run` the operations of `range` (indexes, from the cursor's on, which is moved past
    /// them) as the tables give them.
    pub fn replay(&self, run: &mut WhatIfReplay, range: Range<usize>, cursor: &mut RecordedCursor) {
        while cursor.next < range.start {
            self.step(cursor);
            // Not given to the replay: its live buffers are not known here.
            cursor.synced = false;
        }
        while cursor.next < range.end {
            let i = cursor.next;
            let op = self.operations[i];
            let changed = (cursor.gone..op.gone, cursor.new..op.new);
            self.step(cursor);
            let events = &self.events[if i == 0 { 0 } else { self.operations[i - 1].events }..op.events];
            cursor.touched.extend(events.iter().filter_map(|e| match e {
                GraphEvent::Alloc(b) => Some((b.place, b.address)),
                GraphEvent::Free(place, address) => address.map(|a| (*place, a)),
            }));
            let RecordedCursor { last, synced, touched, .. } = cursor;
            let fast = *synced && op.shown == Shown::Buffers;
            let diff = (op.shown != Shown::Nothing).then_some(|live: &mut LiveSet<usize>| match op.shown {
                Shown::Empty => live.changes(std::iter::empty()),
                _ if fast => {
                    touched.extend(self.gone[changed.0].iter().copied());
                    touched.extend(self.new[changed.1].iter().map(|(key, _)| *key));
                    live.changes_among(touched, last, last.len())
                }
                _ => live.changes(last.iter().map(|(key, size)| (*key, *size))),
            });
            run.recorded_operation(op.operation_id, events, diff);
            if op.shown != Shown::Nothing {
                // Given a snapshot: the live buffers are its map now (none for an empty one).
                cursor.synced = op.shown == Shown::Buffers;
                cursor.touched.clear();
            }
        }
    }

    /// Moves the cursor past its next operation: the map takes its snapshot's changes.
    fn step(&self, cursor: &mut RecordedCursor) {
        let op = &self.operations[cursor.next];
        for key in &self.gone[cursor.gone..op.gone] {
            cursor.last.remove(key);
        }
        cursor.last.extend(self.new[cursor.new..op.new].iter().copied());
        (cursor.gone, cursor.new, cursor.next) = (op.gone, op.new, cursor.next + 1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::graph::nodes::{GraphNode, NodeFields, NodeType};
    use crate::analysis::memory::SnapshotRow;
    use crate::analysis::memory::whatif::{Plan, Regions, checkpoint_buffers};
    use crate::analysis::messages::failure::BufferType::{self, Dram, L1};

    /// Device 0, also named 1 (a single chip opened as a mesh): rows of both are its rows.
    fn view() -> DeviceView {
        DeviceView { device_id: 0, aliases: vec![1], facts: None, graph_id: None }
    }

    fn row(device_id: u64, address: u64, size: u64, t: BufferType) -> SnapshotRow {
        let (address, size_per_bank) = (Some(address as i64), Some(size as i64));
        SnapshotRow { device_id, address, size_per_bank, buffer_type: Some(t), layout: None }
    }

    fn node(id: u64, node_type: NodeType, address: u64, size: u64) -> GraphNode {
        GraphNode::from(NodeFields {
            id,
            node_type: Some(node_type),
            address: Some(address),
            max_size_per_bank: Some(size),
            buffer_type: Some(L1),
            buffer_type_code: true,
            ..NodeFields::default()
        })
    }

    /// Operations whose snapshots repeat keys (at one size and at two, under both ids), show none
    /// of the device's buffers, or are missing, with graph allocations and frees between.
    fn operations() -> Vec<(Vec<GraphNode>, Option<Vec<SnapshotRow>>)> {
        let mut out = Vec::new();
        let mut live: Vec<SnapshotRow> = vec![row(0, 9000, 64, L1), row(0, 64, 4096, Dram)];
        for k in 0..24u64 {
            let address = 5000 - 100 * (k % 7);
            let mut graph = vec![node(1, NodeType::BufferAllocate, address, 32)];
            if k % 3 == 0 {
                graph.push(node(2, NodeType::BufferDeallocate, 9000, 64));
            }
            if k % 4 == 2 {
                // Allocated with no free recorded, and shown by no snapshot.
                graph.push(node(3, NodeType::BufferAllocate, 7000, 16));
            }
            live.retain(|r| r.address != Some(address as i64));
            live.push(row(k % 2, address, 32, L1));
            if k % 4 == 1 {
                live.remove(0);
            }
            let mut rows = live.clone();
            if k % 5 == 2 {
                // A key shown twice, at another size first, under the other id.
                rows.insert(0, row(1 - k % 2, address, 48, L1));
            }
            let snapshot = match k % 6 {
                3 => None,
                4 => Some(vec![row(7, 100, 32, L1)]),
                _ => Some(rows),
            };
            out.push((graph, snapshot));
        }
        out
    }

    fn record_of<'a>(
        i: usize,
        (graph, snapshot): &'a (Vec<GraphNode>, Option<Vec<SnapshotRow>>),
    ) -> OperationRecord<'a> {
        OperationRecord {
            operation_id: 10 + i as u64,
            graph,
            through: None,
            snapshot: snapshot.as_deref(),
            failed: false,
        }
    }

    /// What a replay's state shows: the buffers, the live ones, the frees not found, the fixed run.
    fn state(run: &WhatIfReplay) -> String {
        let mut live: Vec<usize> = run.sequence().live_ids().collect();
        live.sort_unstable();
        format!("{:?} {live:?} {} {:?}", run.sequence().buffers, run.sequence().unknown_frees, run.fixed)
    }

    /// From every checkpoint, given every operation after it, or all but a few (a replay given
    /// operations again after a gap).
    #[test]
    fn a_replay_from_memory_gives_what_the_records_give_from_every_checkpoint() {
        let ops = operations();
        let mut recorded = RecordedRun::new(view(), usize::MAX);
        for (i, op) in ops.iter().enumerate() {
            recorded.record(&record_of(i, op));
        }
        assert!(recorded.complete(ops.len()));
        let regions = Regions { l1: Some((1000, 10_000)), l1_small: None, dram: Some((64, 1 << 20)) };
        for start in 0..ops.len() {
            let Some(rows) = ops[start].1.as_ref() else { continue };
            let begin = || {
                let mut run = WhatIfReplay::new(view(), regions, Plan::default());
                run.start(checkpoint_buffers(rows, &view()), Some(10 + start as u64));
                run
            };
            for gap in [None, Some(start + 3)] {
                let (mut read, mut remembered) = (begin(), begin());
                let mut cursor = RecordedCursor::default();
                for (i, op) in ops.iter().enumerate().skip(start + 1) {
                    if gap.is_some_and(|g| (g..g + 2).contains(&i)) {
                        continue;
                    }
                    read.operation(&record_of(i, op));
                    recorded.replay(&mut remembered, i..i + 1, &mut cursor);
                    assert_eq!(state(&remembered), state(&read), "from {start}, after {i}, gap {gap:?}");
                }
            }
        }
    }

    #[test]
    fn a_record_past_its_limit_is_given_up() {
        let ops = operations();
        let mut recorded = RecordedRun::new(view(), 10);
        for (i, op) in ops.iter().enumerate() {
            recorded.record(&record_of(i, op));
        }
        assert!(!recorded.complete(ops.len()));
        assert!(recorded.operations.is_empty() && recorded.events.is_empty());
    }
}
