//! Parsing tests over the samples of every era in docs/rules/messages.md (A1…D3) and docs/rules/formats.md §1, with
//! docs/rules/reference.md §13 in force.

use super::failure::{BufferType, FailureKind, parse_allocation_failure};
use super::reason::{explain, summary};

fn kind(message: &str) -> Option<FailureKind> {
    parse_allocation_failure(message).map(|f| f.kind)
}

/// Asserts the summary, the `{label}. {detail}` reason line and the parity of a message.
fn check(message: &str, beyond_reference: bool, expected_summary: &str, expected_reason: Option<&str>) {
    let f = parse_allocation_failure(message).unwrap_or_else(|| panic!("not parsed: {message}"));
    assert_eq!(f.beyond_reference, beyond_reference, "beyond_reference of {message}");
    assert_eq!(summary(&f, false), expected_summary, "summary of {message}");
    let reason = explain(&f, false).map(|e| format!("{}. {}", e.reason.label(), e.detail));
    assert_eq!(reason.as_deref(), expected_reason, "reason of {message}");
}

#[test]
fn v0_and_v1_messages_without_bank_size_are_explained_beyond_the_reference() {
    // A1 and A3 (V0, tt-metal#8490, #8501), A5 (V1 log line plus uncaught exception,
    // tt-metal#19890: the log line comes first), A7 (V1, a truncated skip reason).
    let a1 = "RuntimeError: TT_THROW @ tt_metal/impl/allocator/allocator.cpp:118: tt::exception\ninfo:\nOut of Memory: Not enough space to allocate 98304000 B L1 buffer across 100 banks, where each bank needs to store 983040 B";
    let a3 = "RuntimeError: TT_THROW @ tt_metal/impl/allocator/allocator.cpp:118: tt::exception\ninfo:\nOut of Memory: Not enough space to allocate 41789440 B L1 buffer across 44 banks, where each bank needs to store 949760 B";
    let a5 = "                 Always | FATAL    | Out of Memory: Not enough space to allocate 536870912 B DRAM buffer across 12 banks, where each bank needs to store 44740608 B\nlibc++abi: terminating due to uncaught exception of type std::runtime_error: TT_THROW @ /tt-metal/tt_metal/impl/allocator/bank_manager.cpp:132: tt::exception\ninfo:\nOut of Memory: Not enough space to allocate 536870912 B DRAM buffer across 12 banks, where each bank needs to store 44740608 B\nbacktrace:\n --- /tt-metal/build/lib/libtt_metal.so(+0x1dfbd5) [0x7f68df013bd5]";
    let a7 = "Out of Memory: Not enough space to allocate 268435456 B DRAM buffer across 12 banks, where each bank needs to store 22372352 B";
    check(a1, true, "Requested 93.75 MiB L1 across 100 banks (960 KiB per bank)", None);
    check(a3, true, "Requested 39.85 MiB L1 across 44 banks (928 KiB per bank)", None);
    check(a5, true, "Requested 512 MiB DRAM across 12 banks (42.67 MiB per bank)", None);
    check(a7, true, "Requested 256 MiB DRAM across 12 banks (21.34 MiB per bank)", None);
    assert_eq!(kind(a5), Some(FailureKind::BankOutOfMemory));
}

#[test]
fn v2_messages_of_every_size() {
    // A11 (V2 L1, larger than an empty bank), A13 (V2 DRAM), A31 (V3 DRAM, 11 banks).
    check(
        "Out of Memory: Not enough space to allocate 36126720 B L1 buffer across 24 banks, where each bank needs to store 1505280 B, but bank size is only 1331936 B",
        false,
        "Requested 34.45 MiB L1 across 24 banks (1.44 MiB per bank, bank size 1.27 MiB)",
        Some(
            "Larger than an empty bank. Needs 1.44 MiB per bank, more than an empty bank holds (1.27 MiB): it cannot fit in this buffer type spread across 24 banks.",
        ),
    );
    check(
        "Out of Memory: Not enough space to allocate 204800000 B DRAM buffer across 12 banks, where each bank needs to store 17088000 B, but bank size is only 1073741792 B",
        false,
        "Requested 195.31 MiB DRAM across 12 banks (16.3 MiB per bank, bank size 1,024 MiB)",
        None,
    );
    check(
        "TT_FATAL: Out of Memory: Not enough space to allocate 2297856 B DRAM buffer across 11 banks, where each bank needs to store 208896 B, but bank size is 1070773184 B (allocated: 1070239264 B, free: 533920 B, largest free block: 99712 B)",
        false,
        "Requested 2.19 MiB DRAM across 11 banks (204 KiB per bank, bank size 1,021.17 MiB); free 521 KiB, largest free block 97 KiB",
        Some("Fragmented. 521 KiB free per bank, but no single block holds 204 KiB; the largest is 97 KiB."),
    );
}

#[test]
fn v2_with_server_header_and_without_info_line() {
    // A9 (tt-inference-server#989): no `info:` line between header and message.
    let a9 = "RuntimeError: TT_FATAL @ /home/container_app_user/tt-metal/tt_metal/impl/allocator/bank_manager.cpp:431: address.has_value()\nOut of Memory: Not enough space to allocate 427819008 B DRAM buffer across 12 banks, where each bank needs to store 35651584 B, but bank size is only 1046181792 B";
    let f = parse_allocation_failure(a9).unwrap();
    assert_eq!(f.kind, FailureKind::BankOutOfMemory);
    assert_eq!(f.figures.free, None);
    assert_eq!(summary(&f, false), "Requested 408 MiB DRAM across 12 banks (34 MiB per bank, bank size 997.72 MiB)");
}

#[test]
fn v2_broken_over_two_lines_keeps_its_bank_size_beyond_the_reference() {
    // A15: a person re-wrapped the message and dropped the prefix; the reference leaves it raw.
    let a15 = "Not enough space to allocate 5468979200 B DRAM buffer across 12 banks,\nwhere each bank needs to store 455749632 B, but bank size is only 1073741792 B";
    check(a15, true, "Requested 5.09 GiB DRAM across 12 banks (434.64 MiB per bank, bank size 1,024 MiB)", None);
}

#[test]
fn v3_log_line_brace_wrapper_and_timestamps() {
    // A19 log line, A21 tt-xla brace wrapper, A23 log line then wrapper (first occurrence counts).
    let a19 = "| critical |          Always | TT_FATAL: Out of Memory: Not enough space to allocate 1050673152 B DRAM buffer across 12 banks, where each bank needs to store 87556096 B, but bank size is 1073741792 B (allocated: 943941568 B, free: 129800224 B, largest free block: 34201600 B)";
    let a21 = "{TT_FATAL @ /localdev/x/tt-metal/tt_metal/impl/allocator/bank_manager.cpp:439: false\ninfo:\nOut of Memory: Not enough space to allocate 58720256 B DRAM buffer across 12 banks, where each bank needs to store 4894720 B, but bank size is 1071821792 B (allocated: 888424448 B, free: 183397344 B, largest free block: 3382944 B)";
    let a23 = "2026-05-14 01:00:31.755 | critical |          Always | TT_FATAL: Out of Memory: Not enough space to allocate 3294625792 B DRAM buffer across 12 banks, where each bank needs to store 274686208 B, but bank size is 1071821792 B (allocated: 784847680 B, free: 286974112 B, largest free block: 216504544 B) (assert.hpp:104)\n2026-05-14 01:00:31.802 (2408.930s) [        4F4456C0]                utils.h:62     ERR| Exception:\n{TT_FATAL @ /__w/tt-xla/bank_manager.cpp:462: false\ninfo:\nOut of Memory: Not enough space to allocate 1 B DRAM buffer across 12 banks, where each bank needs to store 1 B, but bank size is 1071821792 B (allocated: 1 B, free: 1 B, largest free block: 1 B)";
    for m in [a19, a21] {
        let f = parse_allocation_failure(m).unwrap();
        assert_eq!((f.kind, f.figures.buffer_type), (FailureKind::BankOutOfMemory, Some(BufferType::Dram)));
        assert!(f.figures.largest_free_block.is_some());
    }
    assert_eq!(parse_allocation_failure(a23).unwrap().figures.requested, Some(3294625792));
}

#[test]
fn v3_blackhole_one_line_and_info_on_same_line() {
    // A27 and A29: header, `info:` and message run together on one line.
    let a27 = "RuntimeError: TT_FATAL @ bank_manager.cpp:439: false Out of Memory: Not enough space to allocate 484442112 B DRAM buffer across 8 banks, where each bank needs to store 60555264 B, but bank size is 4273390016 B (allocated: 4092737984 B, free: 180652032 B, largest free block: 43778048 B)";
    let a29 = "RuntimeError: TT_FATAL @ bank_manager.cpp:439: false\ninfo: Out of Memory: Not enough space to allocate 75497472 B DRAM buffer across 8 banks, where each bank needs to store 9437184 B, but bank size is 4273390016 B (allocated: 4268823936 B, free: 4566080 B, largest free block: 2359296 B)";
    let f = parse_allocation_failure(a27).unwrap();
    assert_eq!(
        summary(&f, false),
        "Requested 462 MiB DRAM across 8 banks (57.75 MiB per bank, bank size 3.98 GiB); free 172.28 MiB, largest free block 41.75 MiB"
    );
    assert_eq!(parse_allocation_failure(a29).unwrap().figures.banks, Some(8));
}

#[test]
fn pytest_gutter_keeps_the_message_on_its_line() {
    let text = "E   RuntimeError: TT_FATAL @ bank_manager.cpp:486: false\nE   info:\nE   Out of Memory: Not enough space to allocate 3276800 B L1 buffer across 4 banks, where each bank needs to store 819200 B, but bank size is 1382720 B (allocated: 1000000 B, free: 382720 B, largest free block: 300000 B)\nE   backtrace:";
    assert_eq!(kind(text), Some(FailureKind::BankOutOfMemory));
}

#[test]
fn circular_buffer_messages_in_every_wrapper() {
    // B1 with pytest E markers inline, B3 TT_THROW wrapper, B9 with a leading `# `.
    let b1 = "tt::exception E info: E Statically allocated circular buffers on core range [(x=0,y=0) - (x=7,y=7)] grow to 1741152 B which is beyond max L1 size of 1499136 B";
    let b3 = "RuntimeError: TT_THROW @ .../program.cpp:1043: tt::exception\ninfo:\nStatically allocated circular buffers on core range [(x=0,y=0) - (x=12,y=9)] grow to 1683968 B which is beyond max L1 size of 1572864 B";
    let b9 = "# Statically allocated circular buffers in program 92 clash with L1 buffers on core range [(x=0,y=0) - (x=7,y=1)]. L1 buffer allocated at 564736 and static circular buffer region ends at 1100832";
    assert_eq!(kind(b1), Some(FailureKind::CircularBuffersBeyondL1));
    let f = parse_allocation_failure(b3).unwrap();
    assert_eq!(f.figures.core_range.as_deref(), Some("[(x=0,y=0) - (x=12,y=9)]"));
    assert!(!f.beyond_reference);
    let f = parse_allocation_failure(b9).unwrap();
    assert_eq!(f.kind, FailureKind::CircularBuffersClash);
    assert_eq!((f.figures.l1_buffer_address, f.figures.region_end), (Some(564736), Some(1100832)));
}

#[test]
fn circular_buffer_samples_b5_b7_and_dataflow_b15() {
    check(
        "Statically allocated circular buffers on core range [(x=0,y=0) - (x=7,y=7)] grow to 2003264 B which is beyond max L1 size of 1499136 B",
        false,
        "Circular buffers on [(x=0,y=0) - (x=7,y=7)] grow to 1.91 MiB, beyond the L1 size of 1.43 MiB",
        Some("Beyond the end of L1. The circular buffers run 492 KiB past the end of L1."),
    );
    check(
        "Statically allocated circular buffers in program 702 clash with L1 buffers on core range [(x=1,y=0) - (x=3,y=9)]. L1 buffer allocated at 567488 and static circular buffer region ends at 754528",
        false,
        "Circular buffers on [(x=1,y=0) - (x=3,y=9)] end at 754528, past an L1 buffer at 567488",
        Some("Overlaps an L1 buffer. The circular buffers overlap the L1 buffer at 567488 by 183 KiB."),
    );
    check(
        "Statically allocated dataflow buffers on core range [0-0 - 10-9] grow to 2208704 B which is beyond max L1 size of 1572864 B",
        true,
        "Circular buffers on [0-0 - 10-9] grow to 2.11 MiB, beyond the L1 size of 1.5 MiB",
        Some("Beyond the end of L1. The circular buffers run 621 KiB past the end of L1."),
    );
}

#[test]
fn dataflow_buffer_wording_is_recognised_beyond_the_reference() {
    let b13 = "TT_THROW: Statically allocated dataflow buffers on core range [0-0 - 10-7] grow to 1891328 B which is beyond max L1 size of 1572864 B\n  tt_metal/impl/dataflow_buffer/dataflow_buffer.cpp:2682";
    let f = parse_allocation_failure(b13).unwrap();
    assert_eq!(f.kind, FailureKind::CircularBuffersBeyondL1);
    assert!(f.beyond_reference);
    assert_eq!(summary(&f, false), "Circular buffers on [0-0 - 10-7] grow to 1.8 MiB, beyond the L1 size of 1.5 MiB");
    let clash = "Statically allocated dataflow buffers in program 7 clash with L1 buffers on core range [0-0 - 1-1]. L1 buffer allocated at 1000 and static dataflow buffer region ends at 2000";
    let f = parse_allocation_failure(clash).unwrap();
    assert_eq!((f.kind, f.beyond_reference), (FailureKind::CircularBuffersClash, true));
}

#[test]
fn warnings_trace_region_and_op_validation_are_not_allocation_failures() {
    for text in [
        "Always | WARNING  | Circular buffer size 104448 B exceeds allocated L1 buffer bank size of 90304 B. This may allow this circular buffer to write outside the allocated buffer space.",
        "RuntimeError: TT_FATAL @ /x/tt_metal/distributed/mesh_trace.cpp:167: mesh_cq.device()->get_trace_buffers_size() <= trace_region_size\ninfo:\nCreating trace buffers of size 36410368B on MeshDevice 0, but only 33000000B is allocated for trace region.",
        "  TT_FATAL: Creating trace buffers of size 109961216B on MeshDevice 0, but only 105000000B is allocated for trace region. (assert.hpp:104)",
        "RuntimeError: TT_THROW @ ../ttnn/cpp/ttnn/operations/matmul/matmul.cpp:61: tt::exception\ninfo:\nttnn.matmul: The width of the first tensor must be equal to the height of the second tensor",
        "RuntimeError: TT_THROW @ ../ttnn/cpp/ttnn/operations/matmul/matmul.cpp:61: tt::exception\ninfo:\nttnn.matmul: The width of the first tensor must be equal to the height of the second tensor (64 != 32). The shape of first tensor was ttnn.Shape([1, 1, 32, 64]) and the shape of second tensor was ttnn.Shape([1, 1, 32, 32]))",
        "Out of Memory: Not enough space after considering dependencies to allocate 1024 B DRAM across 1 banks (1024 B per bank)",
    ] {
        assert_eq!(kind(text), None, "{text}");
    }
}

#[test]
fn buffer_type_token_rules() {
    let with = |token: &str| {
        format!(
            "Out of Memory: Not enough space to allocate 4096 B {token} buffer across 2 banks, where each bank needs to store 2048 B, but bank size is only 8192 B"
        )
    };
    for (token, expected) in [
        ("DRAM", Some(BufferType::Dram)),
        ("L1", Some(BufferType::L1)),
        ("SYSTEM_MEMORY", Some(BufferType::SystemMemory)),
        ("L1_SMALL", Some(BufferType::L1Small)),
        ("TRACE", Some(BufferType::Trace)),
        ("l1", None),
        ("BufferType_7", None),
    ] {
        let f = parse_allocation_failure(&with(token)).expect("parses with any token");
        assert_eq!(f.figures.buffer_type, expected, "{token}");
    }
    let unknown = parse_allocation_failure(&with("Banana")).unwrap();
    assert_eq!(summary(&unknown, false), "Requested 4 KiB across 2 banks (2 KiB per bank, bank size 8 KiB)");
}

#[test]
fn figures_are_exact_u64() {
    let m = "Out of Memory: Not enough space to allocate 18446744073709551615 B DRAM buffer across 1 banks, where each bank needs to store 9007199254740993 B, but bank size is only 9007199254740992 B";
    let f = parse_allocation_failure(m).unwrap();
    assert_eq!(f.figures.requested, Some(u64::MAX));
    assert_eq!(f.figures.per_bank, Some(9007199254740993));
    // 2^53 + 1 > 2^53: exact, so still larger than an empty bank.
    assert!(super::reason::explain(&f, false).is_some());
    let overflow = m.replace("18446744073709551615", "18446744073709551616");
    assert_eq!(kind(&overflow), None);
}

#[test]
fn first_matching_pattern_decides_the_kind() {
    let cb = "Statically allocated circular buffers on core range [(x=0,y=0) - (x=7,y=7)] grow to 1600000 B which is beyond max L1 size of 1499136 B";
    let oom = "Out of Memory: Not enough space to allocate 4096 B DRAM buffer across 2 banks, where each bank needs to store 2048 B, but bank size is only 8192 B";
    assert_eq!(kind(&format!("{cb}\n{oom}")), Some(FailureKind::BankOutOfMemory));
}
