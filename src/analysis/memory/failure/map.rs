//! The map of a region and its check against the allocator's own figures (docs/rules/memory.md §5).

use super::picture::{Block, Check, CheckStatus, MemoryMap, Region};
use crate::analysis::memory::notes::{MemoryNote, Tally};
use crate::analysis::messages::failure::Figures;

/// The map of buffers `(address, size)` in a region: merged occupied ranges (clipped to the
/// region when it is known), the free blocks between them, the largest; with a note for
/// overlapping buffers and for buffers outside the region.
pub(crate) fn build_map(buffers: &[(u64, u64)], region: Region) -> (MemoryMap, Vec<MemoryNote>) {
    let mut ranges: Vec<(u64, u64)> =
        buffers.iter().map(|&(a, s)| (a, a.saturating_add(s))).filter(|(a, e)| e > a).collect();
    ranges.sort_unstable();
    let (mut overlaps, mut outside) = (Tally::default(), Tally::default());
    let mut merged: Vec<(u64, u64)> = Vec::new();
    let mut reach = 0;
    for &(start, end) in &ranges {
        if start < reach {
            overlaps.add(start);
        }
        reach = reach.max(end);
    }
    let bounds = region.bounds();
    for &(start, end) in &ranges {
        let (start, end) = match bounds {
            Some((lo, hi)) => {
                if start < lo || end > hi {
                    outside.bump();
                }
                (start.max(lo), end.min(hi))
            }
            None => (start, end),
        };
        if start >= end {
            continue;
        }
        match merged.last_mut() {
            Some(last) if start <= last.1 => last.1 = last.1.max(end),
            _ => merged.push((start, end)),
        }
    }
    let used_per_bank = merged.iter().map(|(s, e)| e - s).sum();
    let (free_blocks, largest_free_block) = free_blocks(&merged, bounds);
    let mut notes: Vec<MemoryNote> =
        overlaps.note(|count, address| MemoryNote::Overlap { count, address }).into_iter().collect();
    if let Some((start, end)) = bounds {
        notes.extend(outside.note(|count, _| MemoryNote::OutsideRegion { count, start, end }));
    }
    let map = MemoryMap { region, occupied: merged, used_per_bank, free_blocks, largest_free_block };
    (map, notes)
}

/// The free blocks between merged occupied ranges of a known region `[lo, hi)`, ascending, and
/// the largest one's size (0 when full); nothing and none when the region is unknown.
fn free_blocks(merged: &[(u64, u64)], bounds: Option<(u64, u64)>) -> (Vec<Block>, Option<u64>) {
    let Some((lo, hi)) = bounds else { return (Vec::new(), None) };
    let mut blocks = Vec::new();
    let mut at = lo;
    for &(s, e) in merged {
        if s > at {
            blocks.push(Block { address: at, size: s - at });
        }
        at = at.max(e);
    }
    if hi > at {
        blocks.push(Block { address: at, size: hi - at });
    }
    let largest = blocks.iter().map(|b| b.size).max().unwrap_or(0);
    (blocks, Some(largest))
}

/// The check of a map against a message's figures, with a tolerance of 64 B per live buffer
/// plus 64 for alignment (docs/rules/memory.md §5).
pub fn check(map: &MemoryMap, figures: &Figures, live: usize) -> Check {
    let tolerance = 64u64.saturating_mul(live as u64 + 1);
    let status = match (figures.allocated, figures.largest_free_block, map.largest_free_block) {
        (Some(allocated), Some(largest), Some(picture_largest)) => {
            let used = map.used_per_bank;
            if used < allocated.saturating_sub(tolerance) {
                CheckStatus::UnderCounted
            } else if used > allocated.saturating_add(tolerance) {
                CheckStatus::OverCounted
            } else if picture_largest.abs_diff(largest) <= tolerance {
                CheckStatus::Exact
            } else {
                CheckStatus::Contradiction
            }
        }
        _ => CheckStatus::Unchecked,
    };
    Check {
        status,
        allocated: figures.allocated,
        free: figures.free,
        largest_free_block: figures.largest_free_block,
        tolerance,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::memory::failure::picture::RegionSource;

    fn region(start: u64, end: u64) -> Region {
        Region { start: Some(start), end: Some(end), source: Some(RegionSource::Devices) }
    }

    #[test]
    fn free_blocks_include_both_ends_and_ascend() {
        let (map, notes) = build_map(&[(300, 100), (100, 50)], region(0, 1000));
        assert_eq!(map.occupied, [(100, 150), (300, 400)]);
        assert_eq!(map.used_per_bank, 150);
        let blocks: Vec<(u64, u64)> = map.free_blocks.iter().map(|b| (b.address, b.size)).collect();
        assert_eq!(blocks, [(0, 100), (150, 150), (400, 600)]);
        assert_eq!(map.largest_free_block, Some(600));
        assert!(notes.is_empty());
    }

    #[test]
    fn overlapping_buffers_count_once_with_a_note() {
        let (map, notes) = build_map(&[(0x1F000, 0x2000), (0x1F000, 0x1000), (0x20800, 0x1000)], region(0, 0x40000));
        assert_eq!(map.occupied, [(0x1F000, 0x21800)]);
        assert_eq!(map.used_per_bank, 0x2800);
        assert_eq!(notes, [MemoryNote::Overlap { count: 2, address: 0x1F000 }]);
    }

    #[test]
    fn buffers_outside_the_region_are_clipped_with_a_note() {
        let (map, notes) = build_map(&[(50, 100), (950, 100), (2000, 10)], region(100, 1000));
        assert_eq!(map.occupied, [(100, 150), (950, 1000)]);
        assert_eq!(map.used_per_bank, 100);
        assert_eq!(map.largest_free_block, Some(800));
        assert_eq!(notes, [MemoryNote::OutsideRegion { count: 3, start: 100, end: 1000 }]);
    }

    #[test]
    fn without_a_region_used_counts_every_buffer_and_there_are_no_free_blocks() {
        let (map, _) = build_map(&[(10, 10), (15, 10)], Region::default());
        assert_eq!((map.used_per_bank, map.largest_free_block, map.free_blocks.len()), (15, None, 0));
        let (empty, _) = build_map(&[], region(0, 0));
        assert_eq!((empty.largest_free_block, empty.free_blocks.len()), (Some(0), 0));
    }

    fn figures(allocated: u64, largest: u64) -> Figures {
        Figures { allocated: Some(allocated), free: Some(0), largest_free_block: Some(largest), ..Figures::default() }
    }

    #[test]
    fn check_statuses_with_the_tolerance() {
        // 3 live buffers: tolerance 256.
        let (map, _) = build_map(&[(0, 400), (400, 400), (1000, 200)], region(0, 2000));
        assert_eq!((map.used_per_bank, map.largest_free_block), (1000, Some(800)));
        let status = |f: Figures| check(&map, &f, 3).status;
        assert_eq!(status(figures(1000, 800)), CheckStatus::Exact);
        assert_eq!(status(figures(1256, 544)), CheckStatus::Exact);
        assert_eq!(status(figures(1257, 800)), CheckStatus::UnderCounted);
        assert_eq!(status(figures(743, 800)), CheckStatus::OverCounted);
        assert_eq!(status(figures(1000, 1057)), CheckStatus::Contradiction);
        assert_eq!(status(Figures::default()), CheckStatus::Unchecked);
        assert_eq!(check(&map, &figures(1000, 800), 3).tolerance, 256);
        let (unknown, _) = build_map(&[(0, 1000)], Region::default());
        assert_eq!(check(&unknown, &figures(1000, 800), 1).status, CheckStatus::Unchecked);
    }
}
