//! What would make the request fit (docs/rules/memory.md §6): the window of the request's size, inside the
//! region and clear of every pinned buffer, that overlaps the fewest movable bytes.

use super::picture::{Block, Fit, LiveBuffer, NoFit};

/// One buffer as the window search sees it.
#[derive(Debug, Clone, Copy)]
struct Span {
    start: u64,
    end: u64,
    pinned: bool,
}

/// Sums over the buffers whose start (or end) is below a bound, by binary search.
struct Prefix {
    keys: Vec<u64>,
    bytes: Vec<u128>,
    count: Vec<u64>,
    pinned: Vec<u64>,
}

impl Prefix {
    fn new(mut items: Vec<(u64, Span)>) -> Self {
        items.sort_by_key(|(k, _)| *k);
        let mut p = Prefix { keys: vec![], bytes: vec![0], count: vec![0], pinned: vec![0] };
        for (k, s) in items {
            p.keys.push(k);
            p.bytes.push(p.bytes.last().unwrap_or(&0) + u128::from(s.end - s.start));
            p.count.push(p.count.last().unwrap_or(&0) + 1);
            p.pinned.push(p.pinned.last().unwrap_or(&0) + u64::from(s.pinned));
        }
        p
    }

    /// (bytes, buffers, pinned buffers) with key < bound (or ≤ when `inclusive`).
    fn below(&self, bound: u64, inclusive: bool) -> (u128, u64, u64) {
        let i = self.keys.partition_point(|&k| if inclusive { k <= bound } else { k < bound });
        (self.bytes[i], self.count[i], self.pinned[i])
    }
}

/// The cheapest window `[s, s+need)` in `[start, end)`: pinned buffers (inputs of the operation
/// and what it allocated) cannot move; ties go to fewer buffers, then to the highest window for
/// a top-down allocator (L1, L1_SMALL) or the lowest for a bottom-up one (DRAM).
pub(crate) fn fit(buffers: &[LiveBuffer], (start, end): (u64, u64), need: u64, top_down: bool) -> Result<Fit, NoFit> {
    if need == 0 {
        return Err(NoFit::NoRequest);
    }
    if end.saturating_sub(start) < need {
        return Err(NoFit::LargerThanRegion { size: end.saturating_sub(start) });
    }
    let spans: Vec<Span> = buffers
        .iter()
        .map(|b| Span { start: b.address, end: b.end(), pinned: b.input_of_operation || b.is_this_operation() })
        .filter(|s| s.end > s.start && s.end > start && s.start < end)
        .collect();
    let by_start = Prefix::new(spans.iter().map(|s| (s.start, *s)).collect());
    let by_end = Prefix::new(spans.iter().map(|s| (s.end, *s)).collect());
    // Only windows that start at `start` or at a buffer's end, or end at `end` or at a
    // buffer's start, need be tried.
    let mut candidates: Vec<u64> = vec![start, end - need];
    for s in &spans {
        candidates.push(s.end);
        candidates.push(s.start.saturating_sub(need));
    }
    let mut best: Option<(u128, u64, u64)> = None;
    for s in candidates.into_iter().filter(|&s| s >= start && s.checked_add(need).is_some_and(|e| e <= end)) {
        // Overlapping: start < s+need, minus those ending at or before s.
        let (bytes_in, count_in, pinned_in) = by_start.below(s + need, false);
        let (bytes_out, count_out, pinned_out) = by_end.below(s, true);
        if pinned_in > pinned_out {
            continue;
        }
        let cost = (bytes_in - bytes_out, count_in - count_out, s);
        let better = match best {
            None => true,
            Some(b) => {
                (cost.0, cost.1) < (b.0, b.1)
                    || ((cost.0, cost.1) == (b.0, b.1) && (cost.2 > b.2) == top_down && cost.2 != b.2)
            }
        };
        if better {
            best = Some(cost);
        }
    }
    let (freed, _, s) = best.ok_or(NoFit::Pinned)?;
    let (free, block) = freed_window(&spans, (start, end), s, s + need);
    Ok(Fit { needed_per_bank: need, free, freed_per_bank: u64::try_from(freed).unwrap_or(u64::MAX), block })
}

/// The buffers to free for the window `[s, window_end)` (their addresses, ascending), and the
/// free block they open: from the end of the nearest kept buffer below to the start of the
/// nearest above, within `[start, end)`.
fn freed_window(spans: &[Span], (start, end): (u64, u64), s: u64, window_end: u64) -> (Vec<u64>, Block) {
    let mut free: Vec<u64> = Vec::new();
    let (mut block_start, mut block_end) = (start, end);
    for b in spans {
        if b.start < window_end && b.end > s {
            free.push(b.start);
        } else if b.end <= s {
            block_start = block_start.max(b.end);
        } else {
            block_end = block_end.min(b.start);
        }
    }
    free.sort_unstable();
    free.dedup();
    (free, Block { address: block_start, size: block_end - block_start })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::memory::failure::picture::Origin;

    fn buffer(address: u64, size: u64) -> LiveBuffer {
        LiveBuffer { address, size_per_bank: size, origin: Some(Origin::Earlier), ..LiveBuffer::default() }
    }
    fn input(address: u64, size: u64) -> LiveBuffer {
        LiveBuffer { input_of_operation: true, ..buffer(address, size) }
    }
    fn own(address: u64, size: u64) -> LiveBuffer {
        LiveBuffer { origin: Some(Origin::ThisOperation), ..buffer(address, size) }
    }

    #[test]
    fn frees_the_fewest_movable_bytes_next_to_a_gap() {
        // [0,1000): 0-100 a, 100-400 gap, 400-600 b, 600-700 c, 700-1000 gap.
        let live = [buffer(0, 100), buffer(400, 200), buffer(600, 100)];
        let f = fit(&live, (0, 1000), 450, true).unwrap();
        // Freeing b opens 100-600 (500) with 200 B; freeing c opens 600-1000 (400): too small.
        assert_eq!((f.free.clone(), f.freed_per_bank), (vec![400], 200));
        assert_eq!(f.block, Block { address: 100, size: 500 });
        assert_eq!(f.needed_per_bank, 450);
    }

    #[test]
    fn a_free_block_that_holds_it_needs_nothing_freed_and_top_down_takes_the_highest() {
        let live = [buffer(100, 100), buffer(500, 100)];
        let f = fit(&live, (0, 1000), 200, true).unwrap();
        assert!(f.free.is_empty());
        assert_eq!(f.block, Block { address: 600, size: 400 });
        let f = fit(&live, (0, 1000), 200, false).unwrap();
        assert_eq!(f.block, Block { address: 200, size: 300 });
    }

    #[test]
    fn pinned_buffers_are_never_freed() {
        // The cheaper neighbours are an input and a buffer of the operation: the dearer one goes.
        let live = [input(0, 100), buffer(100, 300), own(500, 100), input(600, 100)];
        let f = fit(&live, (0, 1000), 350, true).unwrap();
        assert_eq!(f.free, [100]);
        let none = fit(&[input(0, 500), own(500, 500)], (0, 1000), 100, true);
        assert_eq!(none, Err(NoFit::Pinned));
        assert_eq!(fit(&[], (0, 100), 101, true), Err(NoFit::LargerThanRegion { size: 100 }));
        assert_eq!(fit(&[], (0, 100), 0, true), Err(NoFit::NoRequest));
    }

    #[test]
    fn ties_prefer_fewer_buffers() {
        // Two 100 B buffers or one 200 B buffer: both free 200 B; one buffer wins.
        let live = [buffer(0, 100), buffer(100, 100), buffer(300, 200), buffer(500, 500)];
        let f = fit(&live, (0, 1000), 300, false).unwrap();
        assert_eq!(f.free, [300]);
        assert_eq!(f.block, Block { address: 200, size: 300 });
    }
}
