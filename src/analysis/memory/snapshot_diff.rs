//! What a `buffers` snapshot changes in a replay's live buffers (docs/rules/memory.md §9.1):
//! the live buffers it no longer shows (or shows at another size) and the buffers it shows that
//! nothing live explains. Both whole-run replays (the what-if sequence and the true peak's
//! events) ask this after every operation, of snapshots of hundreds of rows that mostly repeat
//! the one before: the live buffers are kept with their sizes and the marks of the snapshot being
//! read, so each row costs one lookup in a small table, a key shown twice included, and the live
//! buffers are gone over only when some are gone.

use crate::analysis::int_hash::IntMap;
use crate::analysis::messages::failure::BufferType;

/// A live buffer's key: its device and buffer type, and its recorded address.
pub(crate) type LiveKey = ((u64, BufferType), u64);

/// A buffer's index in a replay's list of buffers.
pub(crate) trait BufferIndex: Copy + Ord {}

impl BufferIndex for u32 {}

impl BufferIndex for usize {}

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

/// A live buffer: its id and bytes per bank, and what the snapshot being read showed of it.
#[derive(Debug, Clone, Copy)]
struct Slot<Id> {
    id: Id,
    size: u64,
    /// The snapshot (epoch) that last showed its key.
    epoch: u32,
    /// The bytes per bank that snapshot's last row of the key showed.
    shown: u64,
}

/// The live buffers of a replay by key, each with its id and bytes per bank.
#[derive(Debug, Clone)]
pub(crate) struct LiveSet<Id> {
    map: IntMap<LiveKey, Slot<Id>>,
    epoch: u32,
}

impl<Id> Default for LiveSet<Id> {
    fn default() -> Self {
        Self { map: IntMap::default(), epoch: 0 }
    }
}

impl<Id: BufferIndex> LiveSet<Id> {
    /// Makes `id` (of `size` bytes per bank) the live buffer at `key`; the one it replaces, if any.
    pub(crate) fn insert(&mut self, key: LiveKey, id: Id, size: u64) -> Option<Id> {
        self.map.insert(key, Slot { id, size, epoch: 0, shown: 0 }).map(|s| s.id)
    }

    /// Frees the live buffer at `key`: its id, if any.
    pub(crate) fn remove(&mut self, key: &LiveKey) -> Option<Id> {
        self.map.remove(key).map(|s| s.id)
    }

    /// The id of the live buffer at `key`.
    pub(crate) fn get(&self, key: &LiveKey) -> Option<Id> {
        self.map.get(key).map(|s| s.id)
    }

    /// Every live buffer's id, in no particular order.
    pub(crate) fn ids(&self) -> impl Iterator<Item = Id> + '_ {
        self.map.values().map(|s| s.id)
    }

    /// Every key rewritten by `rekey` (a later key standing, as inserting them in turn would).
    pub(crate) fn rekey(&mut self, rekey: impl Fn(LiveKey) -> LiveKey) {
        self.map = self.map.drain().map(|(key, slot)| (rekey(key), slot)).collect();
    }

    /// The changes `shown` (the snapshot's valid rows of placed types, keyed as the live
    /// buffers are) makes: exactly what comparing the snapshot as a map (the last row of a key
    /// standing) with the live buffers gives — `gone` the live buffers whose key the map lacks
    /// or holds at another size, `new` the map's entries not left live. The live buffers are
    /// not changed.
    pub(crate) fn changes(&mut self, shown: impl Iterator<Item = (LiveKey, u64)>) -> SnapshotChanges<Id> {
        self.epoch = self.epoch.wrapping_add(1);
        if self.epoch == 0 {
            self.map.values_mut().for_each(|s| s.epoch = 0);
            self.epoch = 1;
        }
        let epoch = self.epoch;
        let (mut rows, mut seen) = (0usize, 0usize);
        // Rows of keys not live, with their place in the snapshot; live keys shown at another size.
        let mut other: Vec<(LiveKey, u64, usize)> = Vec::new();
        let mut resized: Vec<LiveKey> = Vec::new();
        for (key, size) in shown {
            match self.map.get_mut(&key) {
                Some(slot) => {
                    seen += usize::from(slot.epoch != epoch);
                    slot.epoch = epoch;
                    slot.shown = size;
                    if size != slot.size {
                        resized.push(key);
                    }
                }
                None => other.push((key, size, rows)),
            }
            rows += 1;
        }
        let left = |s: &Slot<Id>| s.epoch != epoch || s.shown != s.size;
        let mut gone: Vec<(LiveKey, Id)> = match seen < self.map.len() {
            true => self.map.iter().filter(|(_, s)| left(s)).map(|(k, s)| (*k, s.id)).collect(),
            false => resized.iter().filter_map(|k| self.map.get(k).filter(|s| left(s)).map(|s| (*k, s.id))).collect(),
        };
        gone.sort_unstable_by_key(|&(_, id)| id);
        gone.dedup_by_key(|g| g.1);
        // The last row of each key not live, and the live keys last shown at another size.
        other.sort_unstable_by_key(|&(key, _, at)| (key.0.0, key.0.1 as u8, key.1, at));
        let mut new: Vec<(LiveKey, u64)> = Vec::with_capacity(other.len() + gone.len());
        new.extend(other.chunk_by(|a, b| a.0 == b.0).filter_map(|run| run.last()).map(|&(key, size, _)| (key, size)));
        new.extend(
            gone.iter().filter_map(|(k, _)| self.map.get(k).filter(|s| s.epoch == epoch).map(|s| (*k, s.shown))),
        );
        SnapshotChanges { gone, new, shown: rows }
    }

    /// [`Self::changes`] by a snapshot already read as a map (`shown`, of `rows` rows), when the
    /// live buffers are known to agree with it outside `keys`: only those are compared.
    pub(crate) fn changes_among(
        &self,
        keys: &mut Vec<LiveKey>,
        shown: &IntMap<LiveKey, u64>,
        rows: usize,
    ) -> SnapshotChanges<Id> {
        keys.sort_unstable_by_key(|key| (key.0.0, key.0.1 as u8, key.1));
        keys.dedup();
        let (mut gone, mut new) = (Vec::new(), Vec::new());
        for key in keys.iter() {
            let live = self.map.get(key);
            let size = shown.get(key).copied();
            if live.map(|s| s.size) == size {
                continue;
            }
            gone.extend(live.map(|s| (*key, s.id)));
            new.extend(size.map(|size| (*key, size)));
        }
        gone.sort_unstable_by_key(|&(_, id)| id);
        SnapshotChanges { gone, new, shown: rows }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const L1: (u64, BufferType) = (0, BufferType::L1);
    const DRAM: (u64, BufferType) = (0, BufferType::Dram);

    /// Live buffers of ids `entries`, each of `size(id)` bytes per bank.
    fn live(entries: &[(LiveKey, u32)]) -> LiveSet<u32> {
        let mut set = LiveSet::default();
        for &(key, id) in entries {
            set.insert(key, id, size(id));
        }
        set
    }

    type Changes = SnapshotChanges<u32>;

    /// No change, by a snapshot of `shown` rows.
    fn none(shown: usize) -> Changes {
        SnapshotChanges { gone: vec![], new: vec![], shown }
    }

    fn sorted(mut c: Changes) -> Changes {
        c.new.sort_unstable_by_key(|&(key, s)| (key.0.0, key.0.1 as u8, key.1, s));
        c
    }

    /// Sizes by id: id × 100.
    fn size(id: u32) -> u64 {
        u64::from(id) * 100
    }

    #[test]
    fn a_snapshot_that_repeats_the_live_buffers_changes_nothing() {
        let mut l = live(&[((L1, 500), 1), ((DRAM, 64), 2)]);
        let rows = [((DRAM, 64), 200), ((L1, 500), 100)];
        assert_eq!(l.changes(rows.into_iter()), none(2));
    }

    #[test]
    fn missing_resized_and_unexplained_rows_are_found() {
        let mut l = live(&[((L1, 500), 1), ((L1, 900), 3), ((DRAM, 64), 2)]);
        // 900 is missing, 64 is shown at another size, 700 is new.
        let rows = [((DRAM, 64), 999), ((L1, 500), 100), ((L1, 700), 40)];
        let want = SnapshotChanges {
            gone: vec![((DRAM, 64), 2), ((L1, 900), 3)],
            new: vec![((L1, 700), 40), ((DRAM, 64), 999)],
            shown: 3,
        };
        assert_eq!(sorted(l.changes(rows.into_iter())), sorted(want));
        // The next snapshot is compared on its own (the marks of the last one do not count).
        let rows = [((L1, 500), 100)];
        let want = SnapshotChanges { gone: vec![((DRAM, 64), 2), ((L1, 900), 3)], new: vec![], shown: 1 };
        assert_eq!(l.changes(rows.into_iter()), want);
    }

    #[test]
    fn a_key_shown_twice_reads_as_its_last_row() {
        let mut l = live(&[((L1, 500), 1)]);
        // The last row of key 500 has another size: the live buffer is gone, the row is new.
        let rows = [((L1, 500), 100), ((L1, 500), 7)];
        let want = SnapshotChanges { gone: vec![((L1, 500), 1)], new: vec![((L1, 500), 7)], shown: 2 };
        assert_eq!(l.changes(rows.into_iter()), want);
        // The last row at the live size: nothing changes.
        let rows = [((L1, 500), 7), ((L1, 500), 100)];
        assert_eq!(l.changes(rows.into_iter()), none(2));
        // A new key shown twice: once, at its last size.
        let rows = [((L1, 500), 100), ((L1, 64), 3), ((L1, 64), 5)];
        let want = SnapshotChanges { gone: vec![], new: vec![((L1, 64), 5)], shown: 3 };
        assert_eq!(l.changes(rows.into_iter()), want);
    }

    /// The changes as the snapshot read as a map (the last row of a key standing) gives them.
    fn as_a_map(live: &[(LiveKey, u32)], rows: &[(LiveKey, u64)]) -> Changes {
        let shown: IntMap<LiveKey, u64> = rows.iter().copied().collect();
        let live: IntMap<LiveKey, u32> = live.iter().copied().collect();
        let mut gone: Vec<(LiveKey, u32)> =
            live.iter().filter(|(k, id)| shown.get(*k) != Some(&size(**id))).map(|(k, id)| (*k, *id)).collect();
        gone.sort_unstable_by_key(|g| g.1);
        let new = shown.iter().filter(|(k, s)| live.get(*k).map(|&id| size(id)) != Some(**s)).map(|(k, s)| (*k, *s));
        SnapshotChanges { gone, new: new.collect(), shown: rows.len() }
    }

    #[test]
    fn every_snapshot_gives_what_the_snapshot_as_a_map_gives() {
        // A small generator: keys from a few addresses, sizes from a few ids' sizes, repeats.
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = |n: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % n
        };
        for _ in 0..2000 {
            let mut entries: Vec<(LiveKey, u32)> = Vec::new();
            for id in 1..=next(8) as u32 {
                let key = (if next(2) == 0 { L1 } else { DRAM }, next(6) * 64);
                entries.retain(|e| e.0 != key);
                entries.push((key, id));
            }
            let rows: Vec<(LiveKey, u64)> = (0..next(10))
                .map(|_| ((if next(2) == 0 { L1 } else { DRAM }, next(6) * 64), size(1 + next(8) as u32)))
                .collect();
            let mut l = live(&entries);
            // An earlier snapshot's marks must not count.
            l.changes(rows.iter().rev().copied());
            assert_eq!(
                sorted(l.changes(rows.iter().copied())),
                sorted(as_a_map(&entries, &rows)),
                "{entries:?} {rows:?}"
            );
        }
    }
}
