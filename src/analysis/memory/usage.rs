//! Memory over the run: the per-operation sums of `max_size_per_bank` per device and buffer type,
//! built from `buffers` rows as they are read (docs/rules/memory.md §1: each operation's rows are a snapshot
//! of every buffer live after it on the devices it touched).

use super::inputs::{allocated_per_bank, valid_buffer};
use super::late::runs::BufferRuns;
use crate::analysis::messages::failure::BufferType;
use std::collections::BTreeMap;

/// One line of the chart: a device and a buffer type.
pub(crate) type UsageKey = (u64, BufferType);

/// The sums of one pass (or of several passes, each continuing where the last stopped).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MemoryUsage {
    /// Per (device, buffer type): `(operation id, bytes per bank)`, ascending by operation id.
    pub sums: BTreeMap<UsageKey, Vec<(u64, u64)>>,
    /// Per device: the operations with any `buffers` row on it (a snapshot), ascending.
    pub(crate) snapshots: BTreeMap<u64, Vec<u64>>,
    /// Rows added.
    pub rows: u64,
    /// Rows set aside because their buffer type is none of the five (kept out of every sum).
    pub unknown_type_rows: u64,
    /// Rows set aside by the one valid-row rule (docs/rules/memory.md §3: a missing, zero or negative
    /// address or size), kept out of every sum as in every other view of memory.
    pub set_aside_rows: u64,
    /// The rowid the next pass starts from (the report layer's bookmark).
    pub(crate) next_rowid: i64,
    /// The operation whose rows are being added, and its sums so far.
    current: Option<Current>,
    /// Each buffer's run of snapshots, when asked for ([`MemoryUsage::with_runs`]): the same
    /// rows, the same pass (where to free memory, issue 16).
    pub runs: Option<BufferRuns>,
}

/// The rows of the operation being read; moved into the sums when another operation starts.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Current {
    operation_id: u64,
    sums: Vec<(UsageKey, u64)>,
    devices: Vec<u64>,
}

/// What a row did to its operation's sums.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum RowKind {
    Summed,
    /// Its buffer type is none of the five.
    UnknownType,
    /// The valid-row rule set it aside.
    SetAside,
}

/// A valid row's buffer type, address and bytes per bank as the allocator counts them.
type ValidRow = Option<(BufferType, (u64, u64))>;

/// The buffer type, address and allocated bytes per bank of a row the valid-row rule keeps
/// (docs/rules/memory.md §3), with a type that is one of the five.
fn valid_row(buffer_type: Option<BufferType>, (address, size_per_bank): (Option<i64>, Option<i64>)) -> ValidRow {
    buffer_type.zip(valid_buffer(address, size_per_bank).map(|(a, s)| (a, allocated_per_bank(buffer_type, s))))
}

impl Current {
    fn new(operation_id: u64) -> Self {
        Self { operation_id, sums: Vec::new(), devices: Vec::new() }
    }

    /// Adds one row of this operation.
    fn add(&mut self, device_id: u64, buffer_type: Option<BufferType>, valid: ValidRow) -> RowKind {
        if !self.devices.contains(&device_id) {
            self.devices.push(device_id);
        }
        if buffer_type.is_none() {
            return RowKind::UnknownType;
        }
        let Some((buffer_type, (_, size_per_bank))) = valid else { return RowKind::SetAside };
        self.sum((device_id, buffer_type), size_per_bank);
        RowKind::Summed
    }

    fn sum(&mut self, key: UsageKey, size_per_bank: u64) {
        match self.sums.iter_mut().find(|(k, _)| *k == key) {
            Some((_, sum)) => *sum = sum.saturating_add(size_per_bank),
            None => self.sums.push((key, size_per_bank)),
        }
    }

    /// Adds the rows of the same operation that followed, summed apart.
    fn absorb(&mut self, later: Current) {
        for device in later.devices {
            if !self.devices.contains(&device) {
                self.devices.push(device);
            }
        }
        for (key, sum) in later.sums {
            self.sum(key, sum);
        }
    }
}

/// Some consecutive `buffers` rows (a chunk of a pass) summed on their own, on a pool worker:
/// per operation, in the order met, what [`MemoryUsage::add`] would have added for them.
/// [`MemoryUsage::add_part`] adds it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct UsagePart {
    groups: Vec<Current>,
    rows: u64,
    unknown_type_rows: u64,
    set_aside_rows: u64,
}

impl UsagePart {
    /// Adds one `buffers` row as stored, as [`MemoryUsage::add`] does.
    pub(crate) fn add(
        &mut self,
        operation_id: u64,
        device_id: u64,
        buffer_type: Option<BufferType>,
        place: (Option<i64>, Option<i64>),
    ) {
        if self.groups.last().is_none_or(|g| g.operation_id != operation_id) {
            self.groups.push(Current::new(operation_id));
        }
        let Some(group) = self.groups.last_mut() else { return };
        let kind = group.add(device_id, buffer_type, valid_row(buffer_type, place));
        self.rows += 1;
        self.unknown_type_rows += u64::from(kind == RowKind::UnknownType);
        self.set_aside_rows += u64::from(kind == RowKind::SetAside);
    }
}

impl MemoryUsage {
    /// Sums that also follow each buffer from snapshot to snapshot (for `analysis::memory::late`).
    pub fn with_runs() -> Self {
        Self { runs: Some(BufferRuns::default()), ..Self::default() }
    }

    /// Adds one `buffers` row as stored; `buffer_type` is none for a type that is none of the
    /// five. A row the valid-row rule sets aside still marks a snapshot of its device.
    pub(crate) fn add(
        &mut self,
        operation_id: u64,
        device_id: u64,
        buffer_type: Option<BufferType>,
        place: (Option<i64>, Option<i64>),
    ) {
        if self.current.as_ref().is_none_or(|c| c.operation_id != operation_id) {
            self.flush();
            self.current = Some(Current::new(operation_id));
        }
        let Some(current) = self.current.as_mut() else { return };
        let valid = valid_row(buffer_type, place);
        if let Some(runs) = self.runs.as_mut() {
            runs.add(operation_id, device_id, valid.map(|(t, (a, s))| (t, a, s)));
        }
        let kind = current.add(device_id, buffer_type, valid);
        self.rows += 1;
        self.unknown_type_rows += u64::from(kind == RowKind::UnknownType);
        self.set_aside_rows += u64::from(kind == RowKind::SetAside);
    }

    /// Adds a chunk's rows folded apart ([`UsagePart`], made from the rows that follow those
    /// added so far): the same sums as adding each of its rows in order. Not for a pass that
    /// follows each buffer's run (its rows must be added one by one).
    pub(crate) fn add_part(&mut self, part: UsagePart) {
        self.rows += part.rows;
        self.unknown_type_rows += part.unknown_type_rows;
        self.set_aside_rows += part.set_aside_rows;
        for group in part.groups {
            match self.current.as_mut() {
                Some(current) if current.operation_id == group.operation_id => current.absorb(group),
                _ => {
                    self.flush();
                    self.current = Some(group);
                }
            }
        }
    }

    /// Moves the operation being read into the sums; call at the end of a pass.
    pub(crate) fn flush(&mut self) {
        if let Some(runs) = self.runs.as_mut() {
            runs.flush();
        }
        let Some(current) = self.current.take() else { return };
        let id = current.operation_id;
        for (key, sum) in current.sums {
            let add = |entry: &mut (u64, u64), (_, sum): (u64, u64)| entry.1 = entry.1.saturating_add(sum);
            merge(self.sums.entry(key).or_default(), id, (id, sum), |(i, _)| *i, add);
        }
        for device in current.devices {
            merge(self.snapshots.entry(device).or_default(), id, id, |i| *i, |_, _| ());
        }
    }

    /// The (device, buffer type) pairs that have rows, in device then type order.
    pub(crate) fn keys(&self) -> impl Iterator<Item = UsageKey> + '_ {
        self.sums.keys().copied()
    }
}

/// Adds `item` (for operation `id`) to a list ascending by id: appended in the usual case (rows in
/// operation order), combined with an existing entry, or inserted in place when the table is out
/// of order.
fn merge<T>(list: &mut Vec<T>, id: u64, item: T, id_of: impl Fn(&T) -> u64, combine: impl FnOnce(&mut T, T)) {
    if list.last().is_none_or(|last| id_of(last) < id) {
        list.push(item);
        return;
    }
    match list.binary_search_by_key(&id, id_of) {
        Ok(at) => combine(&mut list[at], item),
        Err(at) => list.insert(at, item),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use BufferType::{Dram, L1, L1Small};

    #[test]
    fn sums_per_operation_device_and_type() {
        let mut u = MemoryUsage::default();
        for (op, dev, ty, size) in [
            (1, 0, Some(L1), 100),
            (1, 0, Some(Dram), 7),
            (1, 0, Some(L1), 50),
            (1, 1, Some(L1), 3),
            (2, 0, Some(L1Small), 9),
            (2, 0, None, 1_000),
            (3, 1, Some(L1), 4),
        ] {
            u.add(op, dev, ty, (Some(64), Some(size)));
        }
        u.flush();
        assert_eq!(u.sums[&(0, L1)], vec![(1, 150)]);
        assert_eq!(u.sums[&(0, Dram)], vec![(1, 7)]);
        // An L1_SMALL row counts as the allocator padded it (32 B).
        assert_eq!(u.sums[&(0, L1Small)], vec![(2, 32)]);
        assert_eq!(u.sums[&(1, L1)], vec![(1, 3), (3, 4)]);
        assert_eq!(u.snapshots[&0], vec![1, 2]);
        assert_eq!(u.snapshots[&1], vec![1, 3]);
        assert_eq!((u.rows, u.unknown_type_rows), (7, 1));
        assert_eq!(u.keys().collect::<Vec<_>>(), vec![(0, Dram), (0, L1), (0, L1Small), (1, L1)]);
    }

    #[test]
    fn rows_out_of_operation_order_still_add_up() {
        let mut u = MemoryUsage::default();
        for (op, size) in [(5, 10), (3, 1), (5, 20), (4, 2), (3, 100)] {
            u.add(op, 0, Some(L1), (Some(64), Some(size)));
        }
        u.flush();
        assert_eq!(u.sums[&(0, L1)], vec![(3, 101), (4, 2), (5, 30)]);
        assert_eq!(u.snapshots[&0], vec![3, 4, 5]);
    }

    #[test]
    fn a_second_pass_continues_the_operation_the_first_stopped_in() {
        let mut u = MemoryUsage::default();
        u.add(1, 0, Some(L1), (Some(64), Some(10)));
        u.add(2, 0, Some(L1), (Some(64), Some(20)));
        u.flush();
        u.add(2, 0, Some(L1), (Some(64), Some(5)));
        u.add(3, 0, Some(L1), (Some(64), Some(1)));
        u.flush();
        assert_eq!(u.sums[&(0, L1)], vec![(1, 10), (2, 25), (3, 1)]);
    }

    #[test]
    fn rows_the_valid_row_rule_sets_aside_are_counted_not_summed() {
        let mut u = MemoryUsage::default();
        for (address, size) in [(Some(0), Some(100)), (Some(64), Some(10)), (None, Some(5)), (Some(-64), Some(7))] {
            u.add(1, 0, Some(L1), (address, size));
        }
        u.add(1, 0, Some(L1), (Some(128), Some(0)));
        u.add(1, 0, Some(L1), (Some(128), None));
        u.flush();
        assert_eq!(u.sums[&(0, L1)], vec![(1, 10)]);
        assert_eq!((u.rows, u.set_aside_rows, u.unknown_type_rows), (6, 5, 0));
        // A device whose rows were all set aside still took a snapshot.
        u.add(2, 3, Some(L1), (Some(0), Some(1)));
        u.flush();
        assert_eq!(u.snapshots[&3], vec![2]);
    }

    #[test]
    fn parts_summed_apart_add_up_as_the_rows_one_by_one() {
        let rows = [
            (1, 0, Some(L1), Some(64), Some(100)),
            (1, 0, Some(Dram), Some(64), Some(7)),
            (1, 1, Some(L1), Some(64), Some(3)),
            (2, 0, None, Some(64), Some(1_000)),
            (2, 0, Some(L1), Some(0), Some(5)),
            (2, 2, Some(L1Small), Some(64), Some(9)),
            (3, 1, Some(L1), Some(64), Some(4)),
            (2, 0, Some(L1), Some(64), Some(11)),
            (3, 2, Some(L1), Some(64), Some(-8)),
            (3, 2, Some(L1), Some(64), Some(8)),
        ];
        let mut one_by_one = MemoryUsage::default();
        for (op, dev, ty, address, size) in rows {
            one_by_one.add(op, dev, ty, (address, size));
        }
        one_by_one.flush();
        for a in 0..=rows.len() {
            for b in a..=rows.len() {
                let mut parts = MemoryUsage::default();
                for chunk in [&rows[..a], &rows[a..b], &rows[b..]] {
                    let mut part = UsagePart::default();
                    for &(op, dev, ty, address, size) in chunk {
                        part.add(op, dev, ty, (address, size));
                    }
                    parts.add_part(part);
                }
                parts.flush();
                assert_eq!(parts, one_by_one, "cut at {a} and {b}");
            }
        }
        assert_eq!(one_by_one.sums[&(0, L1)], vec![(1, 100), (2, 11)]);
        assert_eq!((one_by_one.rows, one_by_one.unknown_type_rows, one_by_one.set_aside_rows), (10, 1, 2));
    }

    #[test]
    fn a_device_with_only_unknown_types_is_still_a_snapshot() {
        let mut u = MemoryUsage::default();
        u.add(7, 2, None, (Some(64), Some(64)));
        u.flush();
        assert!(u.sums.is_empty());
        assert_eq!(u.snapshots[&2], vec![7]);
    }
}
