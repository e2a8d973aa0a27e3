//! docs/rules/reference.md §14.2: real messages, with the summary and reason the rules give them, and
//! whether the reference would parse them (parity) or only ttnn-tui does (§13).

use super::failure::parse_allocation_failure;
use super::reason::{explain, summary};

/// Asserts the summary, the `{label}. {detail}` reason line and the parity of a message.
fn check_as(beyond_reference: bool, message: &str, expected_summary: &str, expected_reason: Option<&str>) {
    let failure = parse_allocation_failure(message).unwrap_or_else(|| panic!("not parsed: {message}"));
    assert_eq!(failure.beyond_reference, beyond_reference, "beyond_reference of {message}");
    assert_eq!(summary(&failure, false), expected_summary, "summary of {message}");
    let reason = explain(&failure, false).map(|e| format!("{}. {}", e.reason.label(), e.detail));
    assert_eq!(reason.as_deref(), expected_reason, "reason of {message}");
}

fn check(message: &str, expected_summary: &str, expected_reason: Option<&str>) {
    check_as(false, message, expected_summary, expected_reason);
}

fn parsed(message: &str) -> super::failure::AllocationFailure {
    parse_allocation_failure(message).unwrap_or_else(|| panic!("not parsed: {message}"))
}

/// docs/rules/reference.md §14.2, derived from real messages.
#[test]
fn real_messages_the_reference_parses() {
    check(
        "Out of Memory: Not enough space to allocate 117440512 B DRAM buffer across 12 banks, where each bank needs to store 9787392 B, but bank size is only 1046181792 B",
        "Requested 112 MiB DRAM across 12 banks (9.33 MiB per bank, bank size 997.72 MiB)",
        None,
    );
    check(
        "Out of Memory: Not enough space to allocate 27776 B L1_SMALL buffer across 62 banks, where each bank needs to store 448 B, but bank size is only 0 B",
        "Requested 27 KiB L1 Small across 62 banks (448 B per bank, bank size 0 B)",
        Some(
            "Larger than an empty bank. Needs 448 B per bank, more than an empty bank holds (0 B): it cannot fit in this buffer type spread across 62 banks.",
        ),
    );
    check(
        "Out of Memory: Not enough space to allocate 58720256 B DRAM buffer across 12 banks, where each bank needs to store 4894720 B, but bank size is 1071821792 B (allocated: 888424448 B, free: 183397344 B, largest free block: 3382944 B)",
        "Requested 56 MiB DRAM across 12 banks (4.67 MiB per bank, bank size 1,022.17 MiB); free 174.9 MiB, largest free block 3.23 MiB",
        Some("Fragmented. 174.9 MiB free per bank, but no single block holds 4.67 MiB; the largest is 3.23 MiB."),
    );
    check(
        "Always | TT_FATAL: Out of Memory: Not enough space to allocate 26542080 B L1 buffer across 48 banks, where each bank needs to store 552960 B, but bank size is 1329888 B (allocated: 417792 B, free: 912096 B, largest free block: 522240 B) (assert.hpp:104)",
        "Requested 25.31 MiB L1 across 48 banks (540 KiB per bank, bank size 1.27 MiB); free 891 KiB, largest free block 510 KiB",
        Some(
            "Fragmented. 891 KiB free per bank, but no single block holds 540 KiB; the largest is 510 KiB. An interleaved L1 buffer can use only the part of that free space inside the interleaved region.",
        ),
    );
    check(
        "Out of Memory: Not enough space to allocate 1073741824 B DRAM buffer across 12 banks, where each bank needs to store 89479168 B, but bank size is 1070773184 B (allocated: 1003628544 B, free: 67144640 B, largest free block: 67140352 B)",
        "Requested 1 GiB DRAM across 12 banks (85.33 MiB per bank, bank size 1,021.17 MiB); free 64.03 MiB, largest free block 64.03 MiB",
        Some("Not enough free space. Short by 21.3 MiB per bank: needs 85.33 MiB, 64.03 MiB free."),
    );
    check(
        "Statically allocated circular buffers on core range [(x=0,y=0) - (x=7,y=7)] grow to 1741152 B which is beyond max L1 size of 1499136 B",
        "Circular buffers on [(x=0,y=0) - (x=7,y=7)] grow to 1.66 MiB, beyond the L1 size of 1.43 MiB",
        Some("Beyond the end of L1. The circular buffers run 236 KiB past the end of L1."),
    );
    let clash = "Statically allocated circular buffers in program 453 clash with L1 buffers on core range [(x=0,y=0) - (x=4,y=0)]. L1 buffer allocated at 622592 and static circular buffer region ends at 654368";
    check(
        clash,
        "Circular buffers on [(x=0,y=0) - (x=4,y=0)] end at 654368, past an L1 buffer at 622592",
        Some("Overlaps an L1 buffer. The circular buffers overlap the L1 buffer at 622592 by 31 KiB."),
    );
    assert_eq!(
        summary(&parsed(clash), true),
        "Circular buffers on [(x=0,y=0) - (x=4,y=0)] end at 0x9FC20, past an L1 buffer at 0x98000"
    );
    check(
        "TT_THROW: Statically allocated circular buffers in program 2282 clash with L1 buffers on core range [0-0 - 10-9]. L1 buffer allocated at 1563072 and static circular buffer region ends at 1563264",
        "Circular buffers on [0-0 - 10-9] end at 1563264, past an L1 buffer at 1563072",
        Some("Overlaps an L1 buffer. The circular buffers overlap the L1 buffer at 1563072 by 192 B."),
    );
}

/// The rows of §14.2 that only ttnn-tui explains (§13).
#[test]
fn real_messages_beyond_the_reference() {
    // V0 L1, tt-metal#8490: no bank size, so no reason from the message.
    check_as(
        true,
        "RuntimeError: TT_THROW @ tt_metal/impl/allocator/allocator.cpp:118: tt::exception\ninfo:\nOut of Memory: Not enough space to allocate 98304000 B L1 buffer across 100 banks, where each bank needs to store 983040 B",
        "Requested 93.75 MiB L1 across 100 banks (960 KiB per bank)",
        None,
    );
    // A circular buffer on a globally allocated buffer, tt-metal#20837.
    check_as(
        true,
        "RuntimeError: TT_ASSERT @ /work/tt_metal/impl/buffers/circular_buffer_types.cpp:138: false\ninfo:\nCannot set to globally allocated buffer. Circular buffer size 67584 B exceeds allocated L1 buffer bank size of 32768 B\nbacktrace:",
        "A circular buffer of 66 KiB is set on an L1 buffer of 32 KiB per bank",
        Some(
            "Larger than its buffer. The circular buffer lives inside a tensor's L1 buffer, which holds 32 KiB per bank; it needs 34 KiB more. A larger shard for that tensor, or a smaller circular buffer (a smaller block), fits.",
        ),
    );
}

/// The row `not parsed by the reference`: the V0 message and the dataflow-buffer variant are
/// explained beyond it; the D1 gtest substring and the trace-region error stay raw.
#[test]
fn real_messages_the_reference_does_not_parse() {
    let v0 = "Out of Memory: Not enough space to allocate 98304000 B L1 buffer across 100 banks, where each bank needs to store 983040 B";
    let dataflow = "TT_THROW: Statically allocated dataflow buffers on core range [0-0 - 10-7] grow to 1891328 B which is beyond max L1 size of 1572864 B";
    assert!(parsed(v0).beyond_reference);
    assert!(parsed(dataflow).beyond_reference);
    let d1 = "Out of Memory: Not enough space after considering dependencies to allocate 1024 B DRAM across 1 banks (1024 B per bank)";
    let trace =
        "Creating trace buffers of size 36410368B on MeshDevice 0, but only 33000000B is allocated for trace region.";
    assert_eq!(parse_allocation_failure(d1), None);
    assert_eq!(parse_allocation_failure(trace), None);
}
