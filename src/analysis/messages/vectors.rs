//! The reference test vectors of docs/rules/reference.md §14.1 and §14.3, as tests (§14.2 is in `vectors_real.rs`).

use super::failure::{AllocationFailure, BufferType, FailureKind, Figures, parse_allocation_failure};
use super::reason::{Reason, explain, summary};

fn parsed(message: &str) -> AllocationFailure {
    parse_allocation_failure(message).unwrap_or_else(|| panic!("not parsed: {message}"))
}

/// Asserts the summary and the `{label}. {detail}` reason line of a message.
fn check(message: &str, expected_summary: &str, expected_reason: Option<&str>) {
    let failure = parsed(message);
    assert_eq!(summary(&failure, false), expected_summary, "summary of {message}");
    let reason = explain(&failure, false).map(|e| format!("{}. {}", e.reason.label(), e.detail));
    assert_eq!(reason.as_deref(), expected_reason, "reason of {message}");
}

fn bank(
    kind: FailureKind,
    buffer_type: BufferType,
    per_bank: u64,
    bank_size: u64,
    stats: Option<(u64, u64)>,
) -> AllocationFailure {
    AllocationFailure {
        kind,
        figures: Figures {
            buffer_type: Some(buffer_type),
            requested: Some(per_bank * 4),
            banks: Some(4),
            per_bank: Some(per_bank),
            bank_size: Some(bank_size),
            allocated: stats.map(|_| 0),
            free: stats.map(|s| s.0),
            largest_free_block: stats.map(|s| s.1),
            ..Figures::default()
        },
        beyond_reference: false,
        sharded: false,
    }
}

fn detail(failure: &AllocationFailure) -> (Reason, String) {
    let e = explain(failure, false).expect("a reason");
    (e.reason, e.detail)
}

const V1: &str = "Out of Memory: Not enough space to allocate 3276800 B L1 buffer across 4 banks, where each bank needs to store 819200 B, but bank size is only 1382720 B";
const V2: &str = "Out of Memory: Not enough space to allocate 3276800 B L1 buffer across 4 banks, where each bank needs to store 819200 B, but bank size is 1382720 B (allocated: 1000000 B, free: 382720 B, largest free block: 300000 B)";
const V3: &str = "Out of Memory: Not enough space after considering dependencies to allocate 4096 B DRAM across 2 banks (2048 B per bank), bank size is 8192 B (allocated: 3072 B, free: 5120 B, largest free block: 3072 B). After subtracting 1 dependency range(s) and 0 additional occupied range(s), 2048 B remained placeable across 2 window(s), largest 1024 B";

#[test]
fn vector_1_v2_message_has_no_reason() {
    check(V1, "Requested 3.13 MiB L1 across 4 banks (800 KiB per bank, bank size 1.32 MiB)", None);
}

#[test]
fn vector_2_not_enough_free_space_with_l1_caveat() {
    check(
        V2,
        "Requested 3.13 MiB L1 across 4 banks (800 KiB per bank, bank size 1.32 MiB); free 374 KiB, largest free block 293 KiB",
        Some(
            "Not enough free space. Short by 426 KiB per bank: needs 800 KiB, 374 KiB free. An interleaved L1 buffer can use only the part of that free space inside the interleaved region, so it may be short by more.",
        ),
    );
}

#[test]
fn vector_3_dependencies_with_placeable_window() {
    check(
        V3,
        "Requested 4 KiB DRAM across 2 banks (2 KiB per bank, bank size 8 KiB); free 5 KiB, largest free block 3 KiB; placeable 2 KiB, largest placeable window 1 KiB",
        Some(
            "A free block could hold it. The largest free block, 3 KiB, could hold the 2 KiB per bank, but other allocators' reservations leave a placeable window of at most 1 KiB.",
        ),
    );
    let f = parsed(V3);
    assert_eq!(f.kind, FailureKind::BankOutOfMemoryWithDependencies);
    assert_eq!((f.figures.placeable, f.figures.largest_placeable), (Some(2048), Some(1024)));
}

#[test]
fn vector_4_dependencies_l1_adds_region_caveat() {
    check(
        &V3.replace("B DRAM across", "B L1 across"),
        "Requested 4 KiB L1 across 2 banks (2 KiB per bank, bank size 8 KiB); free 5 KiB, largest free block 3 KiB; placeable 2 KiB, largest placeable window 1 KiB",
        Some(
            "A free block could hold it. The largest free block, 3 KiB, could hold the 2 KiB per bank, but other allocators' reservations leave a placeable window of at most 1 KiB. An interleaved L1 buffer is also limited to the interleaved region.",
        ),
    );
}

#[test]
fn vector_5_dependencies_without_placeable_suffix() {
    let message = &V3[..V3.find(". After subtracting").unwrap()];
    check(
        message,
        "Requested 4 KiB DRAM across 2 banks (2 KiB per bank, bank size 8 KiB); free 5 KiB, largest free block 3 KiB",
        Some(
            "A free block could hold it. The largest free block, 3 KiB, could hold the 2 KiB per bank, but space reserved by other allocators overlaps it.",
        ),
    );
}

#[test]
fn vector_6_fragmented_from_figures() {
    let mut f =
        bank(FailureKind::BankOutOfMemoryWithDependencies, BufferType::Dram, 819200, 1382720, Some((1000000, 300000)));
    f.figures.requested = Some(1638400);
    f.figures.banks = Some(2);
    f.figures.allocated = Some(382720);
    f.figures.placeable = Some(0);
    f.figures.largest_placeable = Some(0);
    assert_eq!(
        summary(&f, false),
        "Requested 1.56 MiB DRAM across 2 banks (800 KiB per bank, bank size 1.32 MiB); free 977 KiB, largest free block 293 KiB; placeable 0 B, largest placeable window 0 B"
    );
    assert_eq!(
        detail(&f),
        (
            Reason::Fragmented,
            "977 KiB free per bank, but no single block holds 800 KiB; the largest is 293 KiB.".into()
        )
    );
}

#[test]
fn vector_7_clash_decimal_and_hex() {
    let m = "Statically allocated circular buffers in program 166 clash with L1 buffers on core range [(x=0,y=0) - (x=4,y=7)]. L1 buffer allocated at 600256 and static circular buffer region ends at 621824";
    check(
        m,
        "Circular buffers on [(x=0,y=0) - (x=4,y=7)] end at 621824, past an L1 buffer at 600256",
        Some("Overlaps an L1 buffer. The circular buffers overlap the L1 buffer at 600256 by 21 KiB."),
    );
    let f = parsed(m);
    assert_eq!(
        summary(&f, true),
        "Circular buffers on [(x=0,y=0) - (x=4,y=7)] end at 0x97D00, past an L1 buffer at 0x928C0"
    );
    assert_eq!(explain(&f, true).unwrap().detail, "The circular buffers overlap the L1 buffer at 0x928C0 by 21 KiB.");
}

#[test]
fn vector_8_beyond_l1() {
    check(
        "Statically allocated circular buffers on core range [(x=0,y=0) - (x=7,y=7)] grow to 1600000 B which is beyond max L1 size of 1499136 B",
        "Circular buffers on [(x=0,y=0) - (x=7,y=7)] grow to 1.53 MiB, beyond the L1 size of 1.43 MiB",
        Some("Beyond the end of L1. The circular buffers run 99 KiB past the end of L1."),
    );
}

#[test]
fn vector_9_larger_than_an_empty_bank_with_or_without_statistics() {
    let expected = (
        Reason::LargerThanEmptyBank,
        "Needs 1.91 MiB per bank, more than an empty bank holds (1.32 MiB): it cannot fit in this buffer type spread across 4 banks.".to_string(),
    );
    for stats in [None, Some((1000000, 900000))] {
        let f = bank(FailureKind::BankOutOfMemory, BufferType::L1, 2000000, 1382720, stats);
        assert_eq!(detail(&f), expected);
    }
    let mut f = bank(FailureKind::BankOutOfMemory, BufferType::L1, 2000000, 1382720, None);
    f.figures.requested = Some(8000000);
    assert_eq!(summary(&f, false), "Requested 7.63 MiB L1 across 4 banks (1.91 MiB per bank, bank size 1.32 MiB)");
}

#[test]
fn vectors_10_to_14_rule_order() {
    let dram =
        |kind, need, bank_size, free, largest| bank(kind, BufferType::Dram, need, bank_size, Some((free, largest)));
    let k1 = FailureKind::BankOutOfMemory;
    assert_eq!(
        detail(&dram(k1, 300, 1000, 300, 299)),
        (Reason::Fragmented, "300 B free per bank, but no single block holds 300 B; the largest is 299 B.".into())
    );
    assert_eq!(
        detail(&dram(k1, 300, 1000, 300, 300)),
        (
            Reason::FreeBlockCouldHoldIt,
            "The largest free block, 300 B, could hold the 300 B per bank, but the allocator could not use it; the message does not say why.".into()
        )
    );
    // Rule 1 needs strictly greater: need equal to the bank size is not "larger than an empty bank".
    assert_eq!(detail(&dram(k1, 1382720, 1382720, 382720, 300000)).0, Reason::NotEnoughFreeSpace);
    assert_eq!(
        detail(&dram(k1, 300, 1000, 100, 100)),
        (Reason::NotEnoughFreeSpace, "Short by 200 B per bank: needs 300 B, 100 B free.".into())
    );
    let l1 = bank(k1, BufferType::L1, 819200, 1382720, Some((1000000, 900000)));
    assert_eq!(
        detail(&l1),
        (
            Reason::FreeBlockCouldHoldIt,
            "The largest free block, 879 KiB, could hold the 800 KiB per bank, but the allocator could not use it; the message does not say why.".into()
        )
    );
}

#[test]
fn vector_15_other_errors_are_not_parsed() {
    assert_eq!(parse_allocation_failure("Shape mismatch"), None);
    assert_eq!(parse_allocation_failure("Operation 'ttnn.conv2d' started but never completed (likely crashed)"), None);
    assert_eq!(parse_allocation_failure(""), None);
}

/// docs/rules/reference.md §14.3: the reference's full stored message parses as vector 2.
#[test]
fn full_stored_message() {
    let text = "TT_FATAL @ tt_metal/impl/allocator/bank_manager.cpp:486: false\ninfo:\n".to_string()
        + V2
        + "\nbacktrace:\n --- build_Release/lib/libtt_metal.so(+0x570add) [0x7f0bc96eeadd]\n";
    assert_eq!(parsed(&text), parsed(V2));
}
