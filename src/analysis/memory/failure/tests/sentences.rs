//! The sentences print mode and the terminal UI share.

use super::*;

fn case() -> MemoryAtFailure {
    let g = G::default()
        .start("ttnn.matmul")
        .start("MatmulDeviceOperation")
        .alloc(0, BufferType::L1, 1500, 500)
        .aborted("MatmulDeviceOperation");
    let mut i = inputs(l1_failure(3000, 8000, 1000, 500), g);
    i.own_snapshot =
        vec![row(0, BufferType::L1, 2000, 2000), row(0, BufferType::L1, 4500, 5500), row(0, BufferType::L1, 1500, 500)]
            .into();
    i.input_tensor_ids = vec![3];
    i.tensors = vec![
        tensor(81, 2000, &[(4, "ttnn.matmul", true), (6, "ttnn.add", false)]),
        tensor(3, 4500, &[(10, "ttnn.matmul", false)]),
    ];
    memory_at_failure(&i).unwrap()
}

#[test]
fn the_block_of_lines() {
    let m = case();
    assert_eq!(
        failure_lines(&m, true),
        [
            "At the failure (after-failure snapshot + unwinding): 3 live L1 buffers on device 0 hold 8 KiB per bank of the 0x3E8–0x2710 region (9 KiB)",
            "The picture matches the allocator's figures (allocated 8 KiB, largest free block 500 B).",
            "Largest holders: tensor 3 5 KiB (not produced by a recorded operation; input) · tensor 81 2 KiB (ttnn.matmul, op 4; last used op 6, stale) · buffer at 0x5DC 500 B (no tensor recorded; this operation, MatmulDeviceOperation)",
            "No buffer can be freed right before operation 10 to make room: every 3 KiB window overlaps an input of operation 10 or a buffer it allocated.",
        ]
    );
}

#[test]
fn check_sentences_say_the_difference() {
    let mut m = case();
    m.check.status = CheckStatus::UnderCounted;
    m.check.allocated = Some(9000);
    assert_eq!(
        check_sentence(&m),
        "The picture accounts for 8 KiB of the allocator's 9 KiB per bank: 1,000 B unaccounted, held by something the report did not record."
    );
    m.check.status = CheckStatus::OverCounted;
    m.check.allocated = Some(7000);
    assert_eq!(
        check_sentence(&m),
        "The picture holds 8 KiB per bank, 1,000 B more than the allocator's 7 KiB: it counts buffers freed since."
    );
    m.check.status = CheckStatus::Contradiction;
    m.check.allocated = Some(8000);
    m.check.largest_free_block = Some(4000);
    assert_eq!(
        check_sentence(&m),
        "The picture's total matches the allocator's (8 KiB), but its largest free block is 500 B where the allocator's is 4 KiB."
    );
    m.check.status = CheckStatus::Unchecked;
    assert_eq!(check_sentence(&m), "The message gives no allocator figures to check the picture against.");
    m.map.region = Region::default();
    assert_eq!(
        check_sentence(&m),
        "The L1 region of device 0 is unknown (no devices row with its addresses): no free blocks, no check."
    );
}

#[test]
fn holders_sentence_counts_the_rest() {
    let m = case();
    assert!(
        holders_sentence(&m.live_buffers, 1, false)
            .unwrap()
            .ends_with("(not produced by a recorded operation; input) · 2 more")
    );
    assert_eq!(holders_sentence(&[], 3, false), None);
}

#[test]
fn notes_follow_the_advice() {
    let mut m = case();
    m.notes.push(MemoryNote::Overlap { count: 1, address: 0x1F000 });
    assert_eq!(
        failure_lines(&m, true).last().unwrap(),
        "Note: 2 buffers overlap at 0x1F000; the picture counts them once"
    );
}

#[test]
fn the_fullness_counts_free_blocks_the_largest_and_the_share_outside_it() {
    use crate::analysis::memory::{Block, MemoryMap, fullness_sentence};
    let blocks = |sizes: &[u64]| sizes.iter().map(|&size| Block { address: 64, size }).collect::<Vec<Block>>();
    let map = |sizes: &[u64], largest: Option<u64>| MemoryMap {
        free_blocks: blocks(sizes),
        largest_free_block: largest,
        ..MemoryMap::default()
    };
    assert_eq!(
        fullness_sentence(&map(&[131_072, 65_536, 65_536], Some(131_072))).as_deref(),
        Some("Free space: 3 blocks, the largest 128 KiB; 50% of the free space lies outside it.")
    );
    assert_eq!(
        fullness_sentence(&map(&[1_024], Some(1_024))).as_deref(),
        Some("Free space: 1 block, the largest 1 KiB; 0% of the free space lies outside it.")
    );
    assert_eq!(fullness_sentence(&map(&[], Some(0))).as_deref(), Some("Free space: none."));
    assert_eq!(fullness_sentence(&map(&[], None)), None, "the region is unknown");
}
