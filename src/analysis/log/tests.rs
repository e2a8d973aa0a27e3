//! The log scan on real messages (docs/rules/messages.md §R) in the shapes logs give them.

use super::*;
use crate::analysis::messages::failure::FailureKind;
use crate::analysis::messages::reason::summary;

/// M05, one line (V3 DRAM, not enough free space).
const M05: &str = "Out of Memory: Not enough space to allocate 1073741824 B DRAM buffer across 12 banks, where each bank needs to store 89479168 B, but bank size is 1070773184 B (allocated: 1003628544 B, free: 67144640 B, largest free block: 67140352 B)";
/// C04, one line (circular buffers beyond L1).
const C04: &str = "Statically allocated circular buffers on core range [(x=0,y=0) - (x=7,y=3)] grow to 2587616 B which is beyond max L1 size of 1499136 B";

fn summaries(findings: &LogFindings) -> Vec<String> {
    findings.failures.iter().map(|f| summary(&f.failure, false)).collect()
}

#[test]
fn a_pasted_message_alone() {
    let found = scan_text(M05);
    assert_eq!(found.lines, 1);
    assert_eq!(found.failures.len(), 1);
    let f = &found.failures[0];
    assert_eq!((f.line, f.also_at.clone(), f.message.as_str()), (1, vec![], M05));
    assert_eq!(
        summaries(&found),
        [
            "Requested 1 GiB DRAM across 12 banks (85.33 MiB per bank, bank size 1,021.17 MiB); free 64.03 MiB, largest free block 64.03 MiB"
        ]
    );
}

#[test]
fn the_logger_line_the_exception_and_pytest_lines_are_one_failure() {
    // M03 as tt-xla prints it: the logger line, then the exception (A23), inside a pytest section.
    let log = [
        "____________ test_model ____________",
        ">       y = ttnn.conv2d(x, w)",
        "models/x/model.py:46:",
        ">       return self.function(*args)",
        "E       RuntimeError: TT_FATAL @ /__w/bank_manager.cpp:462: false",
        "E       info:",
        &format!("E       {M05}"),
        "",
        "---- Captured stderr call ----",
        &format!("2026-05-14 01:00:31.755 | critical |          Always | TT_FATAL: {M05} (assert.hpp:104)"),
        "===== short test summary info =====",
        "FAILED tests/test_m.py::test_model - RuntimeError: TT_FATAL @ /__w/bank_manager.cpp:462: false",
    ]
    .join("\n");
    let found = scan_text(&log);
    assert_eq!(found.failures.len(), 1, "{found:#?}");
    let f = &found.failures[0];
    assert_eq!((f.line, f.also_at.clone()), (7, vec![10]));
    assert_eq!(f.operation_name.as_deref(), Some("ttnn.conv2d"));
    assert_eq!(f.source.as_deref(), Some("models/x/model.py:46"));
    assert_eq!(f.test.as_deref(), Some("test_model"));
    assert_eq!(f.message, M05);
}

#[test]
fn different_failures_and_tests_stay_apart() {
    let log = format!("{M05}\n{C04}\n{M05}\n_____ test_a _____\n{C04}\n_____ test_b _____\n{C04}\n");
    let found = scan_text(&log);
    let lines: Vec<(u64, Vec<u64>)> = found.failures.iter().map(|f| (f.line, f.also_at.clone())).collect();
    assert_eq!(lines, [(1, vec![]), (2, vec![]), (3, vec![]), (5, vec![]), (7, vec![])]);
    assert_eq!(found.failures[3].test.as_deref(), Some("test_a"));
    assert_eq!(found.failures[4].test.as_deref(), Some("test_b"));
}

#[test]
fn a_message_under_a_timestamp_and_colour_codes_on_every_line() {
    let log = format!(
        "2026-05-14T01:00:31.7551234Z Traceback (most recent call last):\r\n\
         2026-05-14T01:00:31.7551234Z   File \"/home/u/model.py\", line 30, in <module>\r\n\
         2026-05-14T01:00:31.7551234Z     out = ttnn.matmul(a, b)\r\n\
         2026-05-14T01:00:31.7551234Z RuntimeError: TT_THROW @ x.cpp:1: tt::exception\r\n\
         2026-05-14T01:00:31.7551234Z \x1b[31m{C04}\x1b[0m\r\n"
    );
    let found = scan_text(&log);
    assert_eq!(found.failures.len(), 1);
    let f = &found.failures[0];
    assert_eq!((f.line, f.message.as_str()), (5, C04));
    assert_eq!((f.operation_name.as_deref(), f.source.as_deref()), (Some("ttnn.matmul"), Some("/home/u/model.py:30")));
    assert_eq!(f.failure.kind, FailureKind::CircularBuffersBeyondL1);
}

#[test]
fn a_message_cut_short_is_not_a_failure_and_the_last_tt_error_is_named() {
    // M21 (cut short) and C01 (trace region): no allocation failure.
    let log = "Out of Memory: Not enough space to allocate 8192 B L1_SMALL buffer across 64 banks\n\
               RuntimeError: TT_FATAL @ /home/tt-metal/tt_metal/distributed/mesh_trace.cpp:167: mesh_cq.device()->get_trace_buffers_size() <= trace_region_size\n\
               info:\n\
               Creating trace buffers of size 36410368B on MeshDevice 0, but only 33000000B is allocated for trace region.\n";
    let found = scan_text(log);
    assert!(found.failures.is_empty());
    let other = found.other_error.unwrap();
    assert_eq!(other.line, 2);
    assert_eq!(
        other.text,
        "Creating trace buffers of size 36410368B on MeshDevice 0, but only 33000000B is allocated for trace region."
    );
}

#[test]
fn a_message_is_followed_only_until_a_blank_line_or_another_opening() {
    // Two cut-short messages, each followed by a complete one: each complete one is found on its own line.
    let log = format!(
        "Not enough space to allocate 8192 B L1_SMALL buffer across 64 banks\n{C04}\n\nStatically allocated circular buffers\n\n{M05}"
    );
    let found = scan_text(&log);
    let lines: Vec<u64> = found.failures.iter().map(|f| f.line).collect();
    assert_eq!(lines, [2, 6]);
}

#[test]
fn repeats_and_failures_beyond_the_caps_are_counted() {
    let mut scanner = LogScanner::new();
    for _ in 0..MAX_REPEATS + 3 {
        scanner.push_line(M05);
    }
    let found = scanner.finish();
    assert_eq!(found.failures.len(), 1);
    assert_eq!(found.failures[0].also_at.len(), MAX_REPEATS);
    assert_eq!(found.repeats_not_listed, 2);
}

#[test]
fn a_wrapped_message_under_pytest_markers_and_timestamps_on_every_line() {
    // K01 (tt-metal#54876) as its author broke it, each line marked by pytest and stamped by CI.
    let k01 = [
        "TT_THROW: Statically allocated circular buffers in program 2282 clash with L1 buffers",
        "on core range [0-0 - 10-9]. L1 buffer allocated at 1563072 and static circular buffer",
        "region ends at 1563264",
    ];
    let lines = std::iter::once("RuntimeError: TT_THROW @ program.cpp:1: tt::exception").chain(k01);
    let log: String = lines.map(|l| format!("2026-05-14T01:00:31.7551234Z E       {l}\r\n")).collect();
    let found = scan_text(&log);
    assert_eq!(found.failures.len(), 1, "{found:#?}");
    let f = &found.failures[0];
    assert_eq!((f.line, f.message.as_str()), (2, k01.join("\n").as_str()));
    assert_eq!(
        summary(&f.failure, false),
        "Circular buffers on [0-0 - 10-9] end at 1563264, past an L1 buffer at 1563072"
    );
    assert!(f.failure.beyond_reference);
}

/// A terminal that wraps inside `Out of Memory:` leaves the message's start on the line before
/// its opening: `line` is where the message begins, whatever the split, and the failure is the
/// one the whole message gives.
#[test]
fn a_message_wrapped_inside_out_of_memory_begins_on_the_line_before() {
    let whole = scan_text(M05).failures[0].failure.clone();
    for (before, after) in
        [("Out of", "Memory:"), ("Out", "of Memory:"), ("Ou", "t of Memory:"), ("Out of Memory", ":")]
    {
        let rest = &M05["Out of Memory:".len()..];
        let log = format!(
            "collected 1 item\nE       RuntimeError: TT_FATAL: {before}\nE       {after}{rest}\nE       backtrace:\n"
        );
        let found = scan_text(&log);
        assert_eq!(found.failures.len(), 1, "{before:?}");
        let f = &found.failures[0];
        assert_eq!(f.line, 2, "{before:?}");
        assert_eq!(f.message, format!("{before}\n{after}{rest}"), "{before:?}");
        assert_eq!((f.failure.kind, &f.failure.figures), (whole.kind, &whole.figures), "{before:?}");
    }
    // A line that merely ends with `Out` before an unprefixed message is not its start.
    let found = scan_text(&format!("Sold Out\n{}", &M05["Out of Memory: ".len()..]));
    assert_eq!(found.failures[0].line, 2);
}
