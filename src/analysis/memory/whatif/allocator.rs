//! One bank allocator as tt-metal runs it (docs/rules/memory.md §9, measured on real re-runs; tt-metal's
//! `FreeListOpt` with its first-fit policy): free blocks kept merged, a top-down allocator (L1,
//! L1_SMALL) takes the *highest* free block that holds the request and places it at that block's
//! top, a bottom-up one (DRAM) the lowest block at its bottom. Sizes are aligned up first. Every
//! bank of a buffer type moves in lockstep, so one allocator stands for all of them.

use crate::analysis::int_hash::IntMap;
use std::collections::BTreeMap;
use std::ops::Bound::{Excluded, Included, Unbounded};

/// The allocator of one (device, buffer type): its region and what it holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct BankAllocator {
    /// First address of the region.
    start: u64,
    /// End of the region (exclusive).
    end: u64,
    /// Places at the top of the highest block (L1, L1_SMALL), else at the bottom of the lowest.
    top_down: bool,
    /// Allocation sizes are rounded up to this.
    align: u64,
    /// Free blocks, merged (no two touch), keyed by the edge the policy does not move when it
    /// takes from them, so that taking is one search and an update in place: start → end
    /// top-down (taken from the top), end → start bottom-up (taken from the bottom).
    free: BTreeMap<u64, u64>,
    /// Allocated blocks, start → size; with the free blocks they tile the region.
    used: IntMap<u64, u64>,
}

impl BankAllocator {
    /// An empty allocator of `[start, end)`.
    pub(crate) fn new(start: u64, end: u64, top_down: bool, align: u64) -> Self {
        let mut free = BTreeMap::new();
        if end > start {
            if top_down {
                free.insert(start, end)
            } else {
                free.insert(end, start)
            };
        }
        Self { start, end: end.max(start), top_down, align: align.max(1), free, used: IntMap::default() }
    }

    /// The region `[start, end)`.
    pub(crate) fn region(&self) -> (u64, u64) {
        (self.start, self.end)
    }

    /// The size an allocation of `size` takes.
    pub(crate) fn aligned(&self, size: u64) -> u64 {
        size.max(1).div_ceil(self.align).saturating_mul(self.align)
    }

    /// A free block `[start, end)` from its entry in `free`.
    fn block(&self, key: u64, value: u64) -> (u64, u64) {
        if self.top_down { (key, value) } else { (value, key) }
    }

    /// Where the policy would place `size` bytes, without placing them; none when no free block
    /// holds them.
    pub(crate) fn place(&self, size: u64) -> Option<u64> {
        let size = self.aligned(size);
        if self.top_down {
            self.free.iter().rev().find(|&(s, e)| e - s >= size).map(|(_, e)| e - size)
        } else {
            self.free.iter().find(|&(e, s)| e - s >= size).map(|(_, s)| *s)
        }
    }

    /// Places `size` bytes by the policy; none when no free block holds them. The block found
    /// is shrunk where it lies, without a second search.
    pub(crate) fn allocate(&mut self, size: u64) -> Option<u64> {
        let size = self.aligned(size);
        let (key, address, emptied) = if self.top_down {
            let (&start, end) = self.free.iter_mut().rev().find(|(s, e)| **e - **s >= size)?;
            *end -= size;
            (start, *end, *end == start)
        } else {
            let (&end, start) = self.free.iter_mut().find(|(e, s)| **e - **s >= size)?;
            let address = *start;
            *start += size;
            (end, address, *start == end)
        };
        if emptied {
            self.free.remove(&key);
        }
        self.used.insert(address, size);
        Some(address)
    }

    /// Places `size` bytes at `address` (a buffer whose place the run decided); false when that
    /// range is not wholly free inside the region.
    pub(crate) fn allocate_at(&mut self, address: u64, size: u64) -> bool {
        self.take(address, self.aligned(size))
    }

    /// Marks `[address, address + size)` used when it lies inside one free block: one search
    /// finds the block and shrinks it where it lies; a range taken from its middle adds a block.
    fn take(&mut self, address: u64, size: u64) -> bool {
        let (end, top_down) = (address.saturating_add(size), self.top_down);
        let found = match top_down {
            true => self.free.range_mut(..=address).next_back(),
            false => self.free.range_mut((Excluded(address), Unbounded)).next(),
        };
        let Some((&key, value)) = found else { return false };
        let (block, block_end) = if top_down { (key, *value) } else { (*value, key) };
        if address < block || end > block_end {
            return false;
        }
        // The entry keeps the part on its key's side (its other edge moved); the part on the
        // other side, when there is one, is an entry of its own.
        let (kept, other) = match top_down {
            true => ((block < address).then_some(address), (end < block_end).then_some((end, block_end))),
            false => ((end < block_end).then_some(end), (block < address).then_some((address, block))),
        };
        match kept {
            Some(edge) => *value = edge,
            None => {
                self.free.remove(&key);
            }
        }
        if let Some((key, edge)) = other {
            self.free.insert(key, edge);
        }
        self.used.insert(address, size);
        true
    }

    /// Frees the block at `address`, merging it with its free neighbours; false when nothing is
    /// allocated there.
    pub(crate) fn free(&mut self, address: u64) -> bool {
        let Some(size) = self.used.remove(&address) else { return false };
        let (start, end) = (address, address + size);
        // Keyed by start, the block's entry is start → end and the walk goes down from `end`;
        // keyed by end, it is end → start and the walk goes up from `start`.
        match self.top_down {
            true => insert_merged(&mut self.free, start, end, true),
            false => insert_merged(&mut self.free, end, start, false),
        }
        true
    }

    /// The size of the block allocated at `address`.
    pub(crate) fn size_at(&self, address: u64) -> Option<u64> {
        self.used.get(&address).copied()
    }

    /// The largest free block (0 when none).
    pub(crate) fn largest_free(&self) -> u64 {
        self.free.iter().map(|(&k, &v)| k.abs_diff(v)).max().unwrap_or(0)
    }

    /// The lowest allocated address, where circular buffers growing from the region's start
    /// would first run into a buffer: where the lowest free block does not begin at the start,
    /// the start itself, else that block's end (the free and used blocks tile the region).
    pub(crate) fn lowest_used(&self) -> Option<u64> {
        if self.used.is_empty() {
            return None;
        }
        match self.free.iter().next().map(|(&k, &v)| self.block(k, v)) {
            Some((s, e)) if s == self.start => Some(e),
            _ => Some(self.start),
        }
    }
}

/// Adds the free block whose entry in `free` is `key → value`, merged with the free blocks it
/// touches; one search finds both. Walking from `value` towards `key` (down when `free` is keyed
/// by start, up when by end), the neighbour on the value's side is the entry keyed `value`, and
/// the one on the key's side the next entry after it, when that entry's value is `key`.
fn insert_merged(free: &mut BTreeMap<u64, u64>, key: u64, value: u64, down: bool) {
    let mut near = match down {
        true => free.range_mut((Unbounded, Included(value))),
        false => free.range_mut((Included(value), Unbounded)),
    };
    let mut next = || if down { near.next_back() } else { near.next() };
    let (beyond, behind) = match next() {
        Some((&k, v)) if k == value => (Some(*v), next()),
        first => (None, first),
    };
    match (beyond, behind.filter(|(_, v)| **v == key)) {
        (_, Some((_, v))) => {
            *v = beyond.unwrap_or(value);
            if beyond.is_some() {
                free.remove(&value);
            }
        }
        (Some(v), None) => {
            free.remove(&value);
            free.insert(key, v);
        }
        (None, None) => {
            free.insert(key, value);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn top_down_takes_the_highest_block_that_holds_it_at_its_top() {
        // [1000, 2000): a 100 B hole at 1200 and a 300 B hole at 1500 once two are freed.
        let mut a = BankAllocator::new(1000, 2000, true, 4);
        assert_eq!(a.allocate(200), Some(1800));
        assert_eq!(a.allocate(300), Some(1500));
        assert_eq!(a.allocate(100), Some(1400));
        assert_eq!(a.allocate(200), Some(1200));
        assert!(a.free(1500));
        assert!(a.free(1200));
        // 100 B: the highest block that holds it is the 300 B one, at its top.
        assert_eq!(a.allocate(100), Some(1700));
        // 248 B no longer fits at 1500–1700 (200 B); the lower block 1000–1400 (400 B) does.
        assert_eq!(a.allocate(248), Some(1152));
        assert_eq!(a.largest_free(), 200);
        assert_eq!(a.lowest_used(), Some(1152));
        // Alignment rounds sizes up: 250 B take 252 B.
        assert_eq!(a.aligned(250), 252);
    }

    #[test]
    fn bottom_up_takes_the_lowest_block_at_its_bottom_and_frees_merge() {
        let mut a = BankAllocator::new(64, 1064, false, 32);
        assert_eq!(a.allocate(100), Some(64)); // 128 with alignment
        assert_eq!(a.allocate(100), Some(192));
        assert_eq!(a.allocate(100), Some(320));
        assert!(a.free(192));
        assert!(a.free(64));
        // The two freed blocks merged into one of 256 at 64.
        assert_eq!(a.allocate(250), Some(64));
        assert!(!a.free(999), "nothing at 999");
        assert_eq!(a.allocate(2000), None);
    }

    #[test]
    fn freeing_and_allocating_the_same_size_again_reuses_the_block_exactly() {
        let mut a = BankAllocator::new(105_824, 1_499_136, true, 16);
        let placed: Vec<u64> = (0..10).map(|_| a.allocate(131_072).unwrap()).collect();
        assert_eq!(placed[0], 1_499_136 - 131_072);
        assert!(a.free(placed[4]));
        assert_eq!(a.allocate(131_072), Some(placed[4]));
    }

    #[test]
    fn allocate_at_needs_a_free_range() {
        let mut a = BankAllocator::new(0, 1000, true, 16);
        assert!(a.allocate_at(96, 100), "takes [96, 208) once aligned");
        assert!(!a.allocate_at(160, 32), "overlaps the first");
        assert!(!a.allocate_at(960, 64), "beyond the end");
        assert!(a.allocate_at(208, 32), "right after the first");
        assert_eq!((a.size_at(96), a.size_at(208)), (Some(112), Some(32)));
    }
}
