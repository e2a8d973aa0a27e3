//! ttnn releases that record no message for a failed operation, on screen (docs/rules/reference.md §13.5):
//! the operation the report did not record is listed after the last with its error and `(not
//! recorded)`, its callout says why it has no message and how to add it, tab 4 shows the memory
//! when it started; with the run's log beside the report, its failure reads as if recorded.

use crate::tui_support;

use insta::assert_snapshot;
use std::sync::Arc;
use ttnn_tui::app::Action::*;
use ttnn_tui::report::{LogBeside, MemoryReport, resolve_report};
use tui_support::Harness;
use tui_support::support::sim::{Era, Options, Sim, SimOp};
use tui_support::support::{BufferType, TempDir};

const L1: BufferType = BufferType::L1;

/// The run of `tests/reading/releases.rs`, as ttnn 0.67–0.78 record it, opened with its log or not.
fn report(with_log: bool) -> (MemoryReport, TempDir) {
    let mut sim = Sim::new(Era::ImporterWithoutMessage, Options::default(), 1);
    sim.weight("w", 0, L1, 262_144);
    sim.run(SimOp::new("ttnn.to_layout", "TilizeDeviceOperation").input("w").output("x", L1, 393_216));
    sim.run(SimOp::new("ttnn.relu", "UnaryDeviceOperation").input("x").output("y", L1, 327_680));
    let failed = sim.fail(SimOp::new("ttnn.add", "BinaryNgDeviceOperation").input("y").output("z", L1, 524_288));
    let dir = TempDir::new("tui-releases");
    sim.write_to(dir.path());
    let mut report = MemoryReport::open(&resolve_report(Some(dir.path())).unwrap(), 0).unwrap();
    if with_log {
        let text = sim.log("test_model", failed, "ttnn.add");
        let findings = ttnn_tui::explain::scan_log(text.as_bytes()).unwrap();
        report.join_log(Arc::new(LogBeside { path: "run.log".into(), findings }));
    }
    (report, dir)
}

#[test]
fn the_unrecorded_operation_is_listed_with_its_error() {
    let (report, _dir) = report(false);
    let mut h = Harness::new(report, 120, 40, false, None);
    let screen = h.screen();
    assert!(screen.contains("Operations · 3 operations · 1 with an error"), "{screen}");
    assert!(screen.contains("▶ ✖ error 3 ttnn.add (not recorded)"), "{screen}");
    assert!(screen.contains("││This ttnn release records no allocator message for a failed     │"), "{screen}");
    assert_snapshot!("unrecorded_operation_120x40", h.terminal.backend());
    // The errors-only filter keeps it.
    h.press(&[ToggleErrorsOnly]);
    assert!(h.screen().contains("Showing 1 of 3 operations"), "{}", h.screen());
    assert!(h.screen().contains("3 ttnn.add (not recorded)"), "{}", h.screen());
    // Expanded in place: the callout's note comes before the raw message.
    h.press(&[Toggle]);
    let lines = h.lines_with("This ttnn release records no allocator message");
    assert_eq!(lines.len(), 2, "{}", h.screen());
    assert!(lines[0].starts_with("│    This ttnn release"), "{lines:?}");
    h.resize(60, 15);
    assert_snapshot!("unrecorded_operation_60x15", h.terminal.backend());
}

#[test]
fn tab_4_shows_the_memory_when_it_started() {
    let (report, _dir) = report(false);
    let mut h = Harness::new(report, 120, 40, false, None);
    h.press(&[GoToTab(3)]);
    let screen = h.screen();
    assert!(screen.contains("Memory when 3 ttnn.add started (after 2) · device 0 · L1"), "{screen}");
    assert!(
        screen.contains("When operation 3 started (the snapshot after operation 2): 3 live L1 buffers on device 0"),
        "{screen}"
    );
    assert_snapshot!("unrecorded_operation_memory_120x40", h.terminal.backend());
}

#[test]
fn with_the_log_its_failure_reads_as_if_recorded() {
    let (report, _dir) = report(true);
    let mut h = Harness::new(report, 120, 40, false, None);
    let screen = h.screen();
    assert!(screen.contains("▶ ✖ OOM   3 ttnn.add (not recorded)"), "{screen}");
    assert!(screen.contains("Not enough free space. Short by 139 KiB per bank"), "{screen}");
    assert!(screen.contains("(also on line 41), at model/block.py:103, test test_model."), "{screen}");
    assert_snapshot!("unrecorded_operation_with_log_120x40", h.terminal.backend());
    h.press(&[GoToTab(3)]);
    let screen = h.screen();
    assert!(screen.contains("Memory at the failure of 3 ttnn.add · device 0 · L1"), "{screen}");
    assert!(screen.contains("The picture matches the allocator's figures"), "{screen}");
    assert_snapshot!("unrecorded_operation_with_log_memory_120x40", h.terminal.backend());
    h.resize(60, 15);
    assert_snapshot!("unrecorded_operation_with_log_memory_60x15", h.terminal.backend());
}
