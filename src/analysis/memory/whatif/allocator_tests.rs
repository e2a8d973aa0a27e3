//! The bank allocator against the plain model it replaced (docs/rules/memory.md §9): free blocks
//! start → size, a pass over them for each placement, every split and merge by search. Over
//! random sequences of placements, placements at given addresses and frees, both answer alike.

use super::allocator::BankAllocator;
use proptest::prelude::*;
use std::collections::BTreeMap;

/// The allocator as it was: the policy spelt out with no care for cost.
struct Model {
    top_down: bool,
    align: u64,
    free: BTreeMap<u64, u64>,
    used: BTreeMap<u64, u64>,
}

impl Model {
    fn new(start: u64, end: u64, top_down: bool, align: u64) -> Self {
        let free = if end > start { BTreeMap::from([(start, end - start)]) } else { BTreeMap::new() };
        Self { top_down, align: align.max(1), free, used: BTreeMap::new() }
    }

    fn aligned(&self, size: u64) -> u64 {
        size.max(1).div_ceil(self.align).saturating_mul(self.align)
    }

    fn place(&self, size: u64) -> Option<u64> {
        let size = self.aligned(size);
        if self.top_down {
            self.free.iter().rev().find(|(_, len)| **len >= size).map(|(s, len)| s + len - size)
        } else {
            self.free.iter().find(|(_, len)| **len >= size).map(|(s, _)| *s)
        }
    }

    fn allocate(&mut self, size: u64) -> Option<u64> {
        let address = self.place(size)?;
        self.take(address, self.aligned(size)).then_some(address)
    }

    fn take(&mut self, address: u64, size: u64) -> bool {
        let Some((&block, &len)) = self.free.range(..=address).next_back() else { return false };
        let (block_end, end) = (block + len, address.saturating_add(size));
        if end > block_end {
            return false;
        }
        self.free.remove(&block);
        if address > block {
            self.free.insert(block, address - block);
        }
        if block_end > end {
            self.free.insert(end, block_end - end);
        }
        self.used.insert(address, size);
        true
    }

    fn free(&mut self, address: u64) -> bool {
        let Some(size) = self.used.remove(&address) else { return false };
        let (mut start, mut end) = (address, address + size);
        if let Some((&before, &len)) = self.free.range(..start).next_back()
            && before + len == start
        {
            self.free.remove(&before);
            start = before;
        }
        if let Some(len) = self.free.remove(&end) {
            end += len;
        }
        self.free.insert(start, end - start);
        true
    }
}

/// One step of a random run: a placement by the policy, a placement at an address (as an
/// offset into the region), or a free of the n-th live block (else of an address never used).
#[derive(Debug, Clone)]
enum Op {
    Allocate(u64),
    AllocateAt(u64, u64),
    Free(usize),
    FreeUnused(u64),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (1u64..700).prop_map(Op::Allocate),
        2 => (0u64..5000, 1u64..400).prop_map(|(at, size)| Op::AllocateAt(at, size)),
        4 => (0usize..64).prop_map(Op::Free),
        1 => (0u64..5000).prop_map(Op::FreeUnused),
    ]
}

/// Runs `ops` through both and compares every answer after every step.
fn run_both(top_down: bool, align: u64, start: u64, len: u64, ops: &[Op]) {
    let end = start + len;
    let (mut a, mut m) = (BankAllocator::new(start, end, top_down, align), Model::new(start, end, top_down, align));
    for (i, op) in ops.iter().enumerate() {
        match *op {
            Op::Allocate(size) => assert_eq!(a.allocate(size), m.allocate(size), "step {i}"),
            Op::AllocateAt(at, size) => {
                let address = (start + at) / 16 * 16;
                assert_eq!(a.allocate_at(address, size), m.take(address, m.aligned(size)), "step {i}");
            }
            Op::Free(n) => {
                let live: Vec<u64> = m.used.keys().copied().collect();
                let address = live.get(n % live.len().max(1)).copied().unwrap_or(start);
                assert_eq!(a.free(address), m.free(address), "step {i}");
            }
            Op::FreeUnused(at) => assert_eq!(a.free(start + at), m.free(start + at), "step {i}"),
        }
        for size in [1, 100, 333, 1000] {
            assert_eq!(a.place(size), m.place(size), "step {i}, place {size}");
        }
        assert_eq!(a.largest_free(), m.free.values().copied().max().unwrap_or(0), "step {i}");
        assert_eq!(a.lowest_used(), m.used.keys().next().copied(), "step {i}");
        for (&address, &size) in &m.used {
            assert_eq!(a.size_at(address), Some(size), "step {i}");
        }
    }
}

proptest! {
    #[test]
    fn places_as_the_plain_model_over_random_runs(
        top_down in any::<bool>(),
        align in prop_oneof![Just(1u64), Just(16), Just(32)],
        start in 0u64..300,
        len in 0u64..4000,
        ops in proptest::collection::vec(op(), 0..120),
    ) {
        run_both(top_down, align, start, len, &ops);
    }
}

#[test]
fn an_empty_region_holds_nothing_and_a_full_one_is_used_from_its_start() {
    run_both(true, 16, 100, 0, &[Op::Allocate(1), Op::AllocateAt(0, 1), Op::Free(0)]);
    let mut a = BankAllocator::new(0, 64, false, 32);
    assert_eq!((a.allocate(32), a.allocate(32), a.allocate(1)), (Some(0), Some(32), None));
    assert_eq!((a.lowest_used(), a.largest_free()), (Some(0), 0));
    assert!(a.free(0) && a.free(32));
    assert_eq!((a.lowest_used(), a.largest_free()), (None, 64));
}
