//! What a `buffers` snapshot changes in a replay's live buffers (docs/rules/memory.md §9.1):
//! the live buffers it no longer shows (or shows at another size) and the buffers it shows that
//! nothing live explains. Both whole-run replays (the what-if sequence and the true peak's
//! events) ask this after every operation, of snapshots of hundreds of rows that mostly repeat
//! the one before: one lookup per row, and a pass over the live buffers only when some are gone.

use super::live_index::IntMap;
use crate::analysis::messages::failure::BufferType;

/// A live buffer's key: its device and buffer type, and its recorded address.
pub(crate) type LiveKey = ((u64, BufferType), u64);

/// A buffer's index in a replay's list of buffers.
pub(crate) trait BufferIndex: Copy + Ord {
    /// As an index.
    fn index(self) -> usize;
}

impl BufferIndex for u32 {
    fn index(self) -> usize {
        self as usize
    }
}

impl BufferIndex for usize {
    fn index(self) -> usize {
        self
    }
}

/// The snapshot's changes to the live buffers.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct SnapshotChanges<Id> {
    /// Live buffers the snapshot does not show at their size, by id ascending.
    pub(crate) gone: Vec<(LiveKey, Id)>,
    /// Shown rows no live buffer explains (a key whose live buffer is gone included), with
    /// their bytes per bank, in no particular order.
    pub(crate) new: Vec<(LiveKey, u64)>,
    /// How many rows the snapshot showed.
    pub(crate) shown: usize,
}

/// Per buffer id, the last snapshot that showed it: what lets a diff look up each row once.
#[derive(Debug, Clone, Default)]
pub(crate) struct SeenMarks {
    seen: Vec<u32>,
    epoch: u32,
}

impl SeenMarks {
    /// The changes `shown` (the snapshot's valid rows of placed types, keyed as `live` is)
    /// makes to `live`; `size_of` gives a live buffer's bytes per bank. Exactly what comparing
    /// the snapshot as a map (the last row of a key standing) with `live` gives: `gone` the
    /// live entries whose key the map lacks or holds at another size, `new` the map's entries
    /// not left live.
    pub(crate) fn changes<Id: BufferIndex>(
        &mut self,
        live: &IntMap<LiveKey, Id>,
        size_of: &dyn Fn(Id) -> u64,
        shown: impl Iterator<Item = (LiveKey, u64)>,
    ) -> SnapshotChanges<Id> {
        self.epoch = self.epoch.wrapping_add(1);
        if self.epoch == 0 {
            self.seen.iter_mut().for_each(|s| *s = 0);
            self.epoch = 1;
        }
        let epoch = self.epoch;
        let mut matched = 0usize;
        let mut repeated = false;
        // Rows whose key is not live at that size: (key, size, the live id at that key).
        let mut other: Vec<(LiveKey, u64, Option<Id>)> = Vec::new();
        let rows: Vec<(LiveKey, u64)> = shown.collect();
        for &(key, size) in &rows {
            match live.get(&key) {
                Some(&id) if size_of(id) == size => {
                    let mark = self.mark(id);
                    repeated |= *mark == epoch;
                    *mark = epoch;
                    matched += 1;
                }
                at => other.push((key, size, at.copied())),
            }
        }
        other.sort_unstable_by_key(|(key, _, _)| (key.0.0, key.0.1 as u8, key.1));
        repeated |= other.windows(2).any(|w| w[0].0 == w[1].0);
        repeated |= other.iter().any(|&(_, _, id)| id.is_some_and(|id| self.seen_now(id)));
        if repeated {
            return slow_changes(live, size_of, &rows);
        }
        let mut gone: Vec<(LiveKey, Id)> = other.iter().filter_map(|&(key, _, id)| Some((key, id?))).collect();
        if matched + gone.len() < live.len() {
            gone = live.iter().filter(|&(_, &id)| !self.seen_now(id)).map(|(k, &id)| (*k, id)).collect();
        }
        gone.sort_unstable_by_key(|&(_, id)| id);
        let new = other.into_iter().map(|(key, size, _)| (key, size)).collect();
        SnapshotChanges { gone, new, shown: rows.len() }
    }

    fn mark(&mut self, id: impl BufferIndex) -> &mut u32 {
        let i = id.index();
        if i >= self.seen.len() {
            self.seen.resize(i + 1, 0);
        }
        &mut self.seen[i]
    }

    fn seen_now(&self, id: impl BufferIndex) -> bool {
        self.seen.get(id.index()) == Some(&self.epoch)
    }
}

/// The changes by the snapshot as a map, for snapshots that show a key twice.
fn slow_changes<Id: BufferIndex>(
    live: &IntMap<LiveKey, Id>,
    size_of: &dyn Fn(Id) -> u64,
    rows: &[(LiveKey, u64)],
) -> SnapshotChanges<Id> {
    let shown: IntMap<LiveKey, u64> = rows.iter().copied().collect();
    let mut gone: Vec<(LiveKey, Id)> = live
        .iter()
        .filter(|(key, id)| shown.get(key).is_none_or(|&s| s != size_of(**id)))
        .map(|(k, id)| (*k, *id))
        .collect();
    gone.sort_unstable_by_key(|&(_, id)| id);
    let new = shown
        .iter()
        .filter(|(key, size)| live.get(key).is_none_or(|&id| size_of(id) != **size))
        .map(|(k, s)| (*k, *s))
        .collect();
    SnapshotChanges { gone, new, shown: rows.len() }
}

#[cfg(test)]
mod tests {
    use super::*;

    const L1: (u64, BufferType) = (0, BufferType::L1);
    const DRAM: (u64, BufferType) = (0, BufferType::Dram);

    fn live(entries: &[(LiveKey, u32)]) -> IntMap<LiveKey, u32> {
        entries.iter().copied().collect()
    }

    type Changes = SnapshotChanges<u32>;

    /// No change, by a snapshot of `shown` rows.
    fn none(shown: usize) -> Changes {
        SnapshotChanges { gone: vec![], new: vec![], shown }
    }

    fn sorted(mut c: Changes) -> Changes {
        c.new.sort_unstable();
        c
    }

    /// Sizes by id: id × 100.
    fn size(id: u32) -> u64 {
        u64::from(id) * 100
    }

    #[test]
    fn a_snapshot_that_repeats_the_live_buffers_changes_nothing() {
        let l = live(&[((L1, 500), 1), ((DRAM, 64), 2)]);
        let mut marks = SeenMarks::default();
        let rows = [((DRAM, 64), 200), ((L1, 500), 100)];
        assert_eq!(marks.changes(&l, &size, rows.into_iter()), none(2));
    }

    #[test]
    fn missing_resized_and_unexplained_rows_are_found() {
        let l = live(&[((L1, 500), 1), ((L1, 900), 3), ((DRAM, 64), 2)]);
        let mut marks = SeenMarks::default();
        // 900 is missing, 64 is shown at another size, 700 is new.
        let rows = [((DRAM, 64), 999), ((L1, 500), 100), ((L1, 700), 40)];
        let want = SnapshotChanges {
            gone: vec![((DRAM, 64), 2), ((L1, 900), 3)],
            new: vec![((L1, 700), 40), ((DRAM, 64), 999)],
            shown: 3,
        };
        assert_eq!(sorted(marks.changes(&l, &size, rows.into_iter())), sorted(want));
        // The next snapshot is compared on its own (the marks of the last one do not count).
        let rows = [((L1, 500), 100)];
        let want = SnapshotChanges { gone: vec![((DRAM, 64), 2), ((L1, 900), 3)], new: vec![], shown: 1 };
        assert_eq!(marks.changes(&l, &size, rows.into_iter()), want);
    }

    #[test]
    fn a_key_shown_twice_reads_as_its_last_row() {
        let l = live(&[((L1, 500), 1)]);
        let mut marks = SeenMarks::default();
        // The last row of key 500 has another size: the live buffer is gone, the row is new.
        let rows = [((L1, 500), 100), ((L1, 500), 7)];
        let want = SnapshotChanges { gone: vec![((L1, 500), 1)], new: vec![((L1, 500), 7)], shown: 2 };
        assert_eq!(marks.changes(&l, &size, rows.into_iter()), want);
        // The last row at the live size: nothing changes.
        let rows = [((L1, 500), 7), ((L1, 500), 100)];
        assert_eq!(marks.changes(&l, &size, rows.into_iter()), none(2));
        // A new key shown twice: once, at its last size.
        let rows = [((L1, 500), 100), ((L1, 64), 3), ((L1, 64), 5)];
        let want = SnapshotChanges { gone: vec![], new: vec![((L1, 64), 5)], shown: 3 };
        assert_eq!(marks.changes(&l, &size, rows.into_iter()), want);
    }
}
