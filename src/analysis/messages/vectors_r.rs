//! Every message of docs/rules/messages.md §R with what docs/rules/reference.md §4 and §13 make of it: the kind (the
//! arrow of its heading), whether it is beyond the reference, the summary and the reason line.
//! The expected texts were derived by hand from §5.2, §5.3, §13.3 and the byte formatting of §6.1.

use super::failure::FailureKind::{self, *};
use super::failure::parse_allocation_failure;
use super::messages_r::*;
use super::reason::{explain, summary};

/// What one message must give.
struct Expected {
    id: &'static str,
    message: &'static str,
    kind: FailureKind,
    beyond_reference: bool,
    summary: &'static str,
    /// `{reason label}. {detail}`, or none.
    reason: Option<&'static str>,
}

const EXPLAINED: &[Expected] = &[
    Expected {
        id: "M01",
        message: M01,
        kind: BankOutOfMemory,
        beyond_reference: false,
        summary: "Requested 25.31 MiB L1 across 48 banks (540 KiB per bank, bank size 1.27 MiB); free 891 KiB, largest free block 510 KiB",
        reason: Some(
            "Fragmented. 891 KiB free per bank, but no single block holds 540 KiB; the largest is 510 KiB. An interleaved L1 buffer can use only the part of that free space inside the interleaved region.",
        ),
    },
    Expected {
        id: "M03",
        message: M03,
        kind: BankOutOfMemory,
        beyond_reference: false,
        summary: "Requested 3.07 GiB DRAM across 12 banks (261.96 MiB per bank, bank size 1,022.17 MiB); free 273.68 MiB, largest free block 206.47 MiB",
        reason: Some(
            "Fragmented. 273.68 MiB free per bank, but no single block holds 261.96 MiB; the largest is 206.47 MiB.",
        ),
    },
    Expected {
        id: "M05",
        message: M05,
        kind: BankOutOfMemory,
        beyond_reference: false,
        summary: "Requested 1 GiB DRAM across 12 banks (85.33 MiB per bank, bank size 1,021.17 MiB); free 64.03 MiB, largest free block 64.03 MiB",
        reason: Some("Not enough free space. Short by 21.3 MiB per bank: needs 85.33 MiB, 64.03 MiB free."),
    },
    Expected {
        id: "M07",
        message: M07,
        kind: BankOutOfMemory,
        beyond_reference: false,
        summary: "Requested 4 GiB DRAM across 12 banks (341.34 MiB per bank, bank size 1,022.17 MiB); free 518.81 MiB, largest free block 292.69 MiB",
        reason: Some(
            "Fragmented. 518.81 MiB free per bank, but no single block holds 341.34 MiB; the largest is 292.69 MiB.",
        ),
    },
    Expected {
        id: "M09",
        message: M09,
        kind: BankOutOfMemory,
        beyond_reference: true,
        summary: "Requested 980 MiB DRAM across 12 banks (81.67 MiB per bank, bank size 1,024 MiB)",
        reason: None,
    },
    Expected {
        id: "M11",
        message: M11,
        kind: BankOutOfMemory,
        beyond_reference: true,
        summary: "Requested 93.75 MiB L1 across 100 banks (960 KiB per bank)",
        reason: None,
    },
    Expected {
        id: "M13",
        message: M13,
        kind: BankOutOfMemory,
        beyond_reference: true,
        summary: "Requested 39.85 MiB L1 across 44 banks (928 KiB per bank)",
        reason: None,
    },
    Expected {
        id: "M15",
        message: M15,
        kind: BankOutOfMemory,
        beyond_reference: true,
        summary: "Requested 54 MiB L1 across 56 banks (988 KiB per bank)",
        reason: None,
    },
    Expected {
        id: "M17",
        message: M17,
        kind: BankOutOfMemory,
        beyond_reference: true,
        summary: "Requested 7.88 MiB L1 across 64 banks (126 KiB per bank)",
        reason: None,
    },
    Expected {
        id: "M19",
        message: M19,
        kind: BankOutOfMemory,
        beyond_reference: true,
        summary: "Requested 32 KiB L1 across 1 banks (32 KiB per bank)",
        reason: None,
    },
    Expected {
        id: "M23",
        message: M23,
        kind: BankOutOfMemory,
        beyond_reference: true,
        summary: "Requested 6 KiB L1 Small across 25 banks (256 B per bank)",
        reason: None,
    },
    Expected {
        id: "M25",
        message: M25,
        kind: BankOutOfMemory,
        beyond_reference: false,
        summary: "Requested 1,012.5 MiB DRAM across 8 banks (126.56 MiB per bank, bank size 3.98 GiB); free 49.05 MiB, largest free block 43.48 MiB",
        reason: Some("Not enough free space. Short by 77.51 MiB per bank: needs 126.56 MiB, 49.05 MiB free."),
    },
    Expected {
        id: "C02",
        message: C02,
        kind: CircularBuffersBeyondL1,
        beyond_reference: false,
        summary: "Circular buffers on [(x=0,y=0) - (x=12,y=9)] grow to 2 MiB, beyond the L1 size of 1.5 MiB",
        reason: Some("Beyond the end of L1. The circular buffers run 517 KiB past the end of L1."),
    },
    Expected {
        id: "C04",
        message: C04,
        kind: CircularBuffersBeyondL1,
        beyond_reference: false,
        summary: "Circular buffers on [(x=0,y=0) - (x=7,y=3)] grow to 2.47 MiB, beyond the L1 size of 1.43 MiB",
        reason: Some("Beyond the end of L1. The circular buffers run 1.04 MiB past the end of L1."),
    },
    Expected {
        id: "C06",
        message: C06,
        kind: CircularBuffersBeyondL1,
        beyond_reference: true,
        summary: "Circular buffers on [0-0 - 7-7] grow to 5.32 MiB, beyond the L1 size of 1.43 MiB",
        reason: Some("Beyond the end of L1. The circular buffers run 3.89 MiB past the end of L1."),
    },
    Expected {
        id: "C08",
        message: C08,
        kind: CircularBuffersBeyondL1,
        beyond_reference: false,
        summary: "Circular buffers on [(x=0,y=0) - (x=3,y=0)] grow to 2.19 MiB, beyond the L1 size of 1.43 MiB",
        reason: Some("Beyond the end of L1. The circular buffers run 775 KiB past the end of L1."),
    },
    Expected {
        id: "C10",
        message: C10,
        kind: CircularBuffersBeyondL1,
        beyond_reference: false,
        summary: "Circular buffers on [(x=0,y=0) - (x=0,y=0)] grow to 2.54 MiB, beyond the L1 size of 1.43 MiB",
        reason: Some("Beyond the end of L1. The circular buffers run 1.11 MiB past the end of L1."),
    },
    Expected {
        id: "K01",
        message: K01,
        kind: CircularBuffersClash,
        beyond_reference: true,
        summary: "Circular buffers on [0-0 - 10-9] end at 1563264, past an L1 buffer at 1563072",
        reason: Some("Overlaps an L1 buffer. The circular buffers overlap the L1 buffer at 1563072 by 192 B."),
    },
    Expected {
        id: "K03",
        message: K03,
        kind: CircularBuffersClash,
        beyond_reference: false,
        summary: "Circular buffers on [(x=0,y=0) - (x=4,y=0)] end at 654368, past an L1 buffer at 622592",
        reason: Some("Overlaps an L1 buffer. The circular buffers overlap the L1 buffer at 622592 by 31 KiB."),
    },
    Expected {
        id: "K05",
        message: K05,
        kind: CircularBuffersClash,
        beyond_reference: false,
        summary: "Circular buffers on [(x=0,y=0) - (x=7,y=7)] end at 1089536, past an L1 buffer at 974336",
        reason: Some("Overlaps an L1 buffer. The circular buffers overlap the L1 buffer at 974336 by 113 KiB."),
    },
    Expected {
        id: "K07",
        message: K07,
        kind: CircularBuffersClash,
        beyond_reference: true,
        summary: "Circular buffers on [0-0 - 7-7] end at 107936, past an L1 buffer at 104448",
        reason: Some("Overlaps an L1 buffer. The circular buffers overlap the L1 buffer at 104448 by 3 KiB."),
    },
    Expected {
        id: "K09",
        message: K09,
        kind: CircularBuffersClash,
        beyond_reference: false,
        summary: "Circular buffers on [(x=0,y=0) - (x=11,y=7)] end at 435136, past an L1 buffer at 267584",
        reason: Some("Overlaps an L1 buffer. The circular buffers overlap the L1 buffer at 267584 by 164 KiB."),
    },
    Expected {
        id: "K11",
        message: K11,
        kind: CircularBuffersClash,
        beyond_reference: false,
        summary: "Circular buffers on [(x=0,y=0) - (x=7,y=7)] end at 1284960, past an L1 buffer at 1261952",
        reason: Some("Overlaps an L1 buffer. The circular buffers overlap the L1 buffer at 1261952 by 22 KiB."),
    },
    Expected {
        id: "K13",
        message: K13,
        kind: CircularBuffersClash,
        beyond_reference: false,
        summary: "Circular buffers on [0-0 - 0-0] end at 1430656, past an L1 buffer at 1378048",
        reason: Some("Overlaps an L1 buffer. The circular buffers overlap the L1 buffer at 1378048 by 51 KiB."),
    },
    Expected {
        id: "G01",
        message: G01,
        kind: CircularBufferExceedsItsBuffer,
        beyond_reference: true,
        summary: "A circular buffer of 28 KiB is set on an L1 buffer of 4 KiB per bank",
        reason: Some(
            "Larger than its buffer. The circular buffer lives inside a tensor's L1 buffer, which holds 4 KiB per bank; it needs 24 KiB more. A larger shard for that tensor, or a smaller circular buffer (a smaller block), fits.",
        ),
    },
    Expected {
        id: "G03",
        message: G03,
        kind: CircularBufferExceedsItsBuffer,
        beyond_reference: true,
        summary: "A circular buffer of 96 KiB is set on an L1 buffer of 80 KiB per bank",
        reason: Some(
            "Larger than its buffer. The circular buffer lives inside a tensor's L1 buffer, which holds 80 KiB per bank; it needs 16 KiB more. A larger shard for that tensor, or a smaller circular buffer (a smaller block), fits.",
        ),
    },
];

#[test]
fn every_explained_message_of_section_r() {
    for e in EXPLAINED {
        let failure = parse_allocation_failure(e.message).unwrap_or_else(|| panic!("{} is not parsed", e.id));
        assert_eq!(failure.kind, e.kind, "kind of {}", e.id);
        assert_eq!(failure.beyond_reference, e.beyond_reference, "beyond_reference of {}", e.id);
        assert_eq!(summary(&failure, false), e.summary, "summary of {}", e.id);
        let reason = explain(&failure, false).map(|x| format!("{}. {}", x.reason.label(), x.detail));
        assert_eq!(reason.as_deref(), e.reason, "reason of {}", e.id);
    }
}

#[test]
fn the_cut_short_and_dependencies_messages_of_section_r_stay_raw() {
    // M21 stops at `across 64 banks`; D01 is the dependencies form without statistics.
    assert_eq!(parse_allocation_failure(M21), None);
    assert_eq!(parse_allocation_failure(D01), None);
}

#[test]
fn wrapped_messages_keep_their_core_range_and_figures() {
    let c06 = parse_allocation_failure(C06).unwrap();
    assert_eq!(c06.figures.core_range.as_deref(), Some("[0-0 - 7-7]"));
    assert_eq!((c06.figures.region_end, c06.figures.max_l1), (Some(5576032), Some(1499136)));
    let k01 = parse_allocation_failure(K01).unwrap();
    assert_eq!(k01.figures.core_range.as_deref(), Some("[0-0 - 10-9]"));
    assert_eq!((k01.figures.l1_buffer_address, k01.figures.region_end), (Some(1563072), Some(1563264)));
}

#[test]
fn old_and_unprefixed_messages_have_no_statistics_and_only_the_bank_size_they_give() {
    let m09 = parse_allocation_failure(M09).unwrap().figures;
    assert_eq!((m09.bank_size, m09.free, m09.largest_free_block), (Some(1073741792), None, None));
    for message in [M11, M13, M15, M17, M19, M23] {
        let f = parse_allocation_failure(message).unwrap().figures;
        assert_eq!((f.bank_size, f.allocated, f.free, f.largest_free_block), (None, None, None, None), "{message}");
    }
}

#[test]
fn circular_buffer_larger_than_its_buffer_keeps_both_sizes() {
    let g03 = parse_allocation_failure(G03).unwrap().figures;
    assert_eq!((g03.circular_buffer_size, g03.l1_buffer_size), (Some(98304), Some(81920)));
    assert_eq!((g03.buffer_type, g03.per_bank, g03.core_range), (None, None, None));
}
