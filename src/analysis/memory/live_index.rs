//! The live buffers of a replay (docs/rules/memory.md §3.2), indexed by address so that an allocation or a
//! free costs a hash lookup and a look at the few buffers sharing that address (one per device
//! and buffer type), not a pass over everything live. Buffers keep the order they became live
//! in, which the outputs read them in.

use super::inputs::{DeviceFacts, GraphBuffer, default_banks};
use crate::analysis::graph::nodes::GraphNode;
use crate::analysis::int_hash::IntMap;
use crate::analysis::messages::failure::BufferType;
use std::collections::BTreeMap;

/// One live buffer and where the graph being replayed allocated it.
#[derive(Debug, Clone)]
pub(crate) struct Entry {
    /// The buffer.
    pub(crate) buffer: GraphBuffer,
    /// Position of its `buffer_allocate` node in the graph being replayed; none for a buffer
    /// live before it.
    pub(crate) allocated_at: Option<usize>,
    /// The bytes per bank it adds to the running sums (when they are kept).
    counted: u64,
    /// The operation being replayed when it became live ([`LiveIndex::operation`]).
    pub(crate) since: u64,
}

impl Entry {
    /// Its layout: the buffer's, else that of its allocation in `graph` (the graph being
    /// replayed, whose allocations are kept without their layout).
    pub(crate) fn layout(&self, graph: &[GraphNode]) -> Option<crate::analysis::shared_text::SharedText> {
        self.buffer.layout.clone().or_else(|| graph.get(self.allocated_at?)?.layout_shared())
    }

    /// The bytes per bank it counts for in the running sums (0 when they are not kept).
    pub(crate) fn per_bank(&self) -> u64 {
        self.counted
    }
}

/// Running bytes per bank per (device, buffer type), for the graph-only pass's chart.
#[derive(Debug, Clone, Default)]
struct Sums {
    devices: Vec<DeviceFacts>,
    /// (device, buffer type code) → (buffer type, live buffers, bytes per bank).
    by_place: BTreeMap<(u64, u8), (BufferType, usize, u64)>,
}

/// The slots of the live buffers at one address, ascending: almost always one, kept inline.
#[derive(Debug, Clone)]
enum Slots {
    One(usize),
    Many(Vec<usize>),
}

impl Slots {
    fn as_slice(&self) -> &[usize] {
        match self {
            Slots::One(slot) => std::slice::from_ref(slot),
            Slots::Many(slots) => slots,
        }
    }

    fn push(&mut self, slot: usize) {
        match self {
            Slots::One(first) => *self = Slots::Many(vec![*first, slot]),
            Slots::Many(slots) => slots.push(slot),
        }
    }

    /// Takes `slot` out; true when none is left.
    fn remove(&mut self, slot: usize) -> bool {
        match self {
            Slots::One(only) => *only == slot,
            Slots::Many(slots) => {
                slots.retain(|&s| s != slot);
                slots.is_empty()
            }
        }
    }
}

/// Live buffers in the order they became live, with an index by address.
#[derive(Debug, Clone, Default)]
pub(crate) struct LiveIndex {
    /// Entries by insertion order; removed ones leave a hole until the next compaction.
    slots: Vec<Option<Entry>>,
    /// Slots of the live buffers at each address, ascending.
    by_address: IntMap<u64, Slots>,
    /// Live entries.
    len: usize,
    /// Running sums, when asked for.
    sums: Option<Sums>,
    /// The operation being replayed, stamped on each buffer that becomes live.
    pub(crate) operation: u64,
    /// The entries removed since they were last taken ([`LiveIndex::take_removed`]), when kept.
    removed: Option<Vec<Entry>>,
}

impl LiveIndex {
    /// Starts keeping bytes per bank per (device, buffer type), spreading graph sizes over the
    /// devices' banks where a buffer gives no per-bank figure.
    pub(crate) fn with_sums(devices: Vec<DeviceFacts>) -> Self {
        Self { sums: Some(Sums { devices, by_place: BTreeMap::new() }), ..Self::default() }
    }

    /// Keeps every entry removed from now on, for [`LiveIndex::take_removed`].
    pub(crate) fn keep_removed(&mut self) {
        self.removed.get_or_insert_with(Vec::new);
    }

    /// The entries removed (freed or replaced) since the last call, when they are kept.
    pub(crate) fn take_removed(&mut self) -> Vec<Entry> {
        self.removed.as_mut().map(std::mem::take).unwrap_or_default()
    }

    /// The live entries in the order they became live.
    pub(crate) fn iter(&self) -> impl Iterator<Item = &Entry> {
        self.slots.iter().flatten()
    }

    /// Adds a buffer, first removing every live buffer it may be the same as (a new allocation
    /// at a live address replaces what the records still had there).
    pub(crate) fn insert(&mut self, buffer: GraphBuffer, allocated_at: Option<usize>) {
        let same = |index: &Self, s: usize| index.slots[s].as_ref().is_some_and(|e| e.buffer.same_buffer(&buffer));
        while let Some(slot) = self.at(buffer.address).iter().copied().find(|&s| same(self, s)) {
            self.remove_slot(slot);
            self.compact();
        }
        self.push(buffer, allocated_at);
    }

    /// Removes the newest live buffer a free of `freed` names; false when none is live.
    pub(crate) fn remove_newest(&mut self, freed: &GraphBuffer) -> bool {
        let found = self
            .at(freed.address)
            .iter()
            .rev()
            .copied()
            .find(|&s| self.slots[s].as_ref().is_some_and(|e| e.buffer.same_buffer(freed)));
        match found {
            Some(slot) => {
                self.remove_slot(slot);
                self.compact();
                true
            }
            None => false,
        }
    }

    /// The oldest live entry at `address` that counts for (device, buffer type).
    pub(crate) fn find_of(&self, address: u64, device: u64, buffer_type: BufferType) -> Option<&Entry> {
        self.at(address).iter().filter_map(|&s| self.slots[s].as_ref()).find(|e| e.buffer.is_of(device, buffer_type))
    }

    /// Bytes per bank live, per (device, buffer type) holding any buffer, ascending; empty
    /// unless the set was made [`LiveIndex::with_sums`].
    pub(crate) fn sums(&self) -> Vec<(u64, BufferType, u64)> {
        let Some(sums) = &self.sums else { return Vec::new() };
        sums.by_place.iter().filter(|(_, (_, n, _))| *n > 0).map(|((d, _), (t, _, b))| (*d, *t, *b)).collect()
    }

    /// Adds a buffer, keeping any other at its address.
    fn push(&mut self, buffer: GraphBuffer, allocated_at: Option<usize>) {
        let counted = self.count(&buffer, true, 0);
        let slot = self.slots.len();
        match self.by_address.get_mut(&buffer.address) {
            Some(slots) => slots.push(slot),
            None => {
                self.by_address.insert(buffer.address, Slots::One(slot));
            }
        }
        self.slots.push(Some(Entry { buffer, allocated_at, counted, since: self.operation }));
        self.len += 1;
    }

    fn at(&self, address: u64) -> &[usize] {
        self.by_address.get(&address).map_or(&[], Slots::as_slice)
    }

    fn remove_slot(&mut self, slot: usize) {
        let Some(entry) = self.slots[slot].take() else { return };
        self.len -= 1;
        self.count(&entry.buffer, false, entry.counted);
        if self.by_address.get_mut(&entry.buffer.address).is_some_and(|slots| slots.remove(slot)) {
            self.by_address.remove(&entry.buffer.address);
        }
        if let Some(removed) = &mut self.removed {
            removed.push(entry);
        }
    }

    /// Adds a buffer to the running sums (or takes `counted` bytes back out); the bytes added.
    fn count(&mut self, buffer: &GraphBuffer, add: bool, counted: u64) -> u64 {
        let (Some(sums), Some(buffer_type)) = (self.sums.as_mut(), buffer.buffer_type) else { return 0 };
        let device = buffer.device_id.unwrap_or(0);
        let entry = sums.by_place.entry((device, buffer_type as u8)).or_insert((buffer_type, 0, 0));
        if add {
            let row = sums.devices.iter().find(|d| d.device_id == device);
            let bytes = buffer.per_bank(default_banks(buffer_type, None, row)).unwrap_or(0);
            entry.1 += 1;
            entry.2 = entry.2.saturating_add(bytes);
            bytes
        } else {
            entry.1 = entry.1.saturating_sub(1);
            entry.2 = entry.2.saturating_sub(counted);
            counted
        }
    }

    /// Drops the holes once they outnumber the live entries (amortised linear).
    fn compact(&mut self) {
        if self.slots.len() < 64 || self.len * 2 > self.slots.len() {
            return;
        }
        self.slots.retain(Option::is_some);
        self.by_address.clear();
        for (slot, entry) in self.slots.iter().enumerate() {
            if let Some(e) = entry {
                match self.by_address.get_mut(&e.buffer.address) {
                    Some(slots) => slots.push(slot),
                    None => {
                        self.by_address.insert(e.buffer.address, Slots::One(slot));
                    }
                }
            }
        }
    }
}

impl Extend<GraphBuffer> for LiveIndex {
    /// Adds buffers live before the replay, as given.
    fn extend<I: IntoIterator<Item = GraphBuffer>>(&mut self, buffers: I) {
        for b in buffers {
            self.push(b, None);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn buffer(device: u64, address: u64, per_bank: u64) -> GraphBuffer {
        GraphBuffer {
            device_id: Some(device),
            buffer_type: Some(BufferType::L1),
            exact_type: true,
            address,
            max_size_per_bank: Some(per_bank),
            ..GraphBuffer::default()
        }
    }

    #[test]
    fn order_replacement_and_removal_survive_compaction() {
        let mut live = LiveIndex::with_sums(Vec::new());
        for k in 0..300u64 {
            live.insert(buffer(0, 1000 + k, 10), Some(k as usize));
        }
        // Device 1 shares an address with device 0; a new allocation at 1005 on device 0
        // replaces the one there.
        live.insert(buffer(1, 1005, 7), None);
        live.insert(buffer(0, 1005, 20), Some(999));
        // Free every address but the last 50 (holes, then compaction).
        for k in 0..250u64 {
            assert!(live.remove_newest(&buffer(0, 1000 + k, 10)));
        }
        assert!(!live.remove_newest(&buffer(0, 1000, 10)));
        let order: Vec<(u64, u64)> = live.iter().map(|e| (e.buffer.address, e.buffer.device_id.unwrap())).collect();
        let mut want: Vec<(u64, u64)> = (250..300).map(|k| (1000 + k, 0)).collect();
        want.push((1005, 1));
        assert_eq!(order, want);
        assert_eq!(live.find_of(1005, 1, BufferType::L1).map(|e| e.allocated_at), Some(None));
        assert_eq!(live.find_of(1299, 0, BufferType::L1).map(|e| e.allocated_at), Some(Some(299)));
        assert_eq!(live.sums(), [(0, BufferType::L1, 500), (1, BufferType::L1, 7)]);
    }
}
