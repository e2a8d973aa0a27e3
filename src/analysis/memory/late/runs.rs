//! The lifetimes of buffers as the snapshots show them: a buffer — (buffer type, address, size
//! per bank) on a device — seen in consecutive post-operation snapshots of its device is one
//! run, from the first snapshot that shows it to the last. Built from the same rows, in the same
//! pass, as the usage sums (docs/rules/memory.md §1: each operation's rows are every buffer live after it on
//! the devices it touched).

use crate::analysis::messages::failure::BufferType;
use std::collections::{BTreeMap, HashMap};

/// A buffer of a device: its type, address and bytes per bank.
pub(crate) type BufferKey = (BufferType, u64, u64);

/// One buffer seen in consecutive snapshots of its device.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BufferRun {
    /// The device.
    pub device_id: u64,
    /// Its buffer type.
    pub buffer_type: BufferType,
    /// Its address.
    pub address: u64,
    /// Its bytes per bank.
    pub size_per_bank: u64,
    /// The first operation whose snapshot shows it.
    pub first_operation_id: u64,
    /// The last operation whose snapshot shows it.
    pub last_operation_id: u64,
    /// True when the last snapshot of its device still shows it (it outlived the pass).
    pub open: bool,
}

/// The runs of one pass, fed valid rows in operation order. A run that ended after a single
/// snapshot is dropped at once: it cannot be held past a last use (that needs a snapshot after
/// the one of the last use), and on a run of millions of short-lived buffers keeping them would
/// cost more than the pass.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BufferRuns {
    /// Runs still in the last snapshot of their device, per device: buffer → (first, last).
    open: BTreeMap<u64, HashMap<BufferKey, (u64, u64)>>,
    /// Runs that ended after more than one snapshot.
    closed: Vec<BufferRun>,
    /// The operation whose rows are being read.
    current: Option<u64>,
    /// Its rows: (device, buffer); a device with only rows set aside has `None`.
    rows: Vec<(u64, Option<BufferKey>)>,
    /// The last operation flushed.
    last_flushed: Option<u64>,
    /// Rows of an operation older than one already read (a table out of operation order), left out.
    pub(crate) out_of_order_rows: u64,
}

impl BufferRuns {
    /// Notes that operation `operation_id` took a snapshot of `device_id` (any row, even one
    /// set aside) and, for a valid row, holds `buffer` there.
    pub(crate) fn add(&mut self, operation_id: u64, device_id: u64, buffer: Option<BufferKey>) {
        let older = |id: u64| operation_id < id;
        if self.last_flushed.is_some_and(older) || self.current.is_some_and(older) {
            self.out_of_order_rows += 1;
            return;
        }
        if self.current != Some(operation_id) {
            self.flush();
            self.current = Some(operation_id);
        }
        self.rows.push((device_id, buffer));
    }

    /// Ends the operation being read: each device it snapshot keeps the runs it shows and closes
    /// the others. A second flush of the same operation (a pass going on where the last stopped)
    /// only adds what it shows.
    pub(crate) fn flush(&mut self) {
        let Some(id) = self.current.take() else { return };
        let mut rows = std::mem::take(&mut self.rows);
        rows.sort_unstable_by_key(|r| r.0);
        for chunk in rows.chunk_by(|a, b| a.0 == b.0) {
            let device = chunk[0].0;
            let held = self.open.entry(device).or_default();
            for key in chunk.iter().filter_map(|r| r.1) {
                held.entry(key).and_modify(|span| span.1 = id).or_insert((id, id));
            }
            let closed = &mut self.closed;
            held.retain(|&key, &mut (first, last)| {
                if last == id {
                    return true;
                }
                if first != last {
                    closed.push(run(device, key, (first, last), false));
                }
                false
            });
        }
        rows.clear();
        self.rows = rows;
        self.last_flushed = Some(id);
    }

    /// Runs found another way (the graph replay's buffer stays), as they are.
    pub(crate) fn from_runs(runs: Vec<BufferRun>) -> Self {
        Self { closed: runs, ..Self::default() }
    }

    /// Every run that may be held past a last use, ended or open, in no particular order.
    pub fn runs(&self) -> impl Iterator<Item = BufferRun> + '_ {
        let open = self
            .open
            .iter()
            .flat_map(|(&device, held)| held.iter().map(move |(&key, &span)| run(device, key, span, true)));
        self.closed.iter().copied().chain(open)
    }
}

fn run(
    device_id: u64,
    (buffer_type, address, size_per_bank): BufferKey,
    (first, last): (u64, u64),
    open: bool,
) -> BufferRun {
    BufferRun {
        device_id,
        buffer_type,
        address,
        size_per_bank,
        first_operation_id: first,
        last_operation_id: last,
        open,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use BufferType::{Dram, L1};

    fn runs_of(rows: &[(u64, u64, Option<BufferKey>)]) -> Vec<BufferRun> {
        let mut runs = BufferRuns::default();
        for &(op, device, key) in rows {
            runs.add(op, device, key);
        }
        runs.flush();
        let mut out: Vec<BufferRun> = runs.runs().collect();
        out.sort_by_key(|r| (r.device_id, r.address, r.first_operation_id));
        out
    }

    #[test]
    fn a_buffer_in_consecutive_snapshots_is_one_run_until_a_snapshot_lacks_it() {
        let a = Some((L1, 1000, 64));
        let b = Some((L1, 2000, 32));
        let runs = runs_of(&[(1, 0, a), (2, 0, a), (2, 0, b), (3, 0, b), (5, 0, a), (5, 0, b)]);
        let spans: Vec<(u64, u64, u64, bool)> =
            runs.iter().map(|r| (r.address, r.first_operation_id, r.last_operation_id, r.open)).collect();
        assert_eq!(spans, vec![(1000, 1, 2, false), (1000, 5, 5, true), (2000, 2, 5, true)]);
    }

    #[test]
    fn a_snapshot_of_another_device_leaves_a_device_runs_alone() {
        let a = Some((Dram, 4096, 64));
        let runs = runs_of(&[(1, 0, a), (2, 1, Some((L1, 9, 9))), (3, 0, a), (4, 0, None)]);
        let run = runs.iter().find(|r| r.device_id == 0).copied();
        assert_eq!(run.map(|r| (r.first_operation_id, r.last_operation_id, r.open)), Some((1, 3, false)));
    }

    #[test]
    fn a_buffer_seen_in_one_snapshot_only_is_dropped_once_it_ends() {
        let runs = runs_of(&[(1, 0, Some((L1, 64, 64))), (2, 0, Some((L1, 128, 64))), (3, 0, Some((L1, 128, 64)))]);
        let spans: Vec<(u64, u64, u64)> =
            runs.iter().map(|r| (r.address, r.first_operation_id, r.last_operation_id)).collect();
        assert_eq!(spans, vec![(128, 2, 3)]);
    }

    #[test]
    fn rows_older_than_the_operation_being_read_are_counted_and_left_out() {
        let mut runs = BufferRuns::default();
        runs.add(5, 0, Some((L1, 64, 64)));
        runs.add(3, 0, Some((L1, 128, 64)));
        runs.flush();
        assert_eq!(runs.out_of_order_rows, 1);
        assert_eq!(runs.runs().count(), 1);
    }

    #[test]
    fn a_pass_going_on_in_the_same_operation_keeps_what_the_first_part_showed() {
        let mut runs = BufferRuns::default();
        runs.add(1, 0, Some((L1, 64, 64)));
        runs.add(2, 0, Some((L1, 64, 64)));
        runs.flush();
        runs.add(2, 0, Some((L1, 128, 64)));
        runs.flush();
        let mut spans: Vec<(u64, u64, u64)> =
            runs.runs().map(|r| (r.address, r.first_operation_id, r.last_operation_id)).collect();
        spans.sort_unstable();
        assert_eq!(spans, vec![(64, 1, 2), (128, 2, 2)]);
    }
}
