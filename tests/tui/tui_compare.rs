//! `ttnn-tui BEFORE --compare AFTER` (issue 24 §2) on real pairs (`fixtures/real/` and its re-run
//! with a fix, `fixtures/rerun/`), drawn to a `TestBackend`: tab 1 marks the failures gone and
//! new under the line a comparison leads with; tab 5 draws both runs' lines, each run's failures,
//! and the BEFORE operation aligned with the cursor's; the rest of the UI shows AFTER.

use crate::tui_support;

use insta::assert_snapshot;
use std::path::Path;
use ttnn_tui::app::Action::*;
use ttnn_tui::app::Job;
use ttnn_tui::report::{MemoryReport, ReportSource};
use tui_support::Harness;

fn open(relative: &str) -> MemoryReport {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures").join(relative);
    MemoryReport::open(&ReportSource::File { database: folder.join("db.sqlite"), folder }, 0).unwrap()
}

/// AFTER shown, compared with BEFORE, drawn at `width`×`height`.
fn compared(before: &str, after: &str, width: u16, height: u16) -> Harness {
    let mut h = Harness::new(open(after), width, height, false, None);
    h.session.compare_with(open(before), &mut h.app);
    h.draw();
    h
}

#[test]
fn tab_1_marks_the_failure_gone_and_new() {
    let h = compared("real/stale_chain", "rerun/stale_chain__free_late", 120, 40);
    let screen = h.screen();
    // AFTER is shown, on its first failure.
    assert_eq!(h.selected_id(), Some(11));
    assert!(screen.contains("ttnn-tui · stale_chain → stale_chain__free_late"), "{screen}");
    assert!(
        screen.contains(
            "vs stale_chain: Out of memory in ttnn.matmul (operation 5) is gone; new: Circular buffers clash with L1 buffers in"
        ),
        "{screen}"
    );
    assert_eq!(h.lines_with("✖ CB new").len(), 1, "{screen}");
    assert!(h.lines_with("✖ CB new")[0].contains("11 ttnn.matmul"), "{screen}");
    assert_snapshot!("compare_stale_chain_operations_120x40", h.terminal.backend());

    // A failure gone without a new one: the aligned AFTER operation is marked gone.
    let h = compared("real/a_l1_add_oom", "rerun/a_l1_add_oom__free_fill5", 120, 40);
    let gone = h.lines_with("✔ gone");
    assert_eq!(gone.len(), 1, "{}", h.screen());
    assert!(gone[0].contains("12 ttnn.add"), "{}", h.screen());
    assert!(h.screen().contains("vs a_l1_add_oom: Out of memory in ttnn.add (operation 11) is gone; no new failure."));
    // The same failure in both runs: kept.
    let h = compared("real/l1_fragmented", "rerun/l1_fragmented__free_fill9", 120, 40);
    assert!(h.lines_with("✖ OOM kept")[0].contains("17 ttnn.add"), "{}", h.screen());
}

#[test]
fn tab_5_draws_both_runs() {
    let mut h = compared("real/stale_chain", "rerun/stale_chain__free_late", 120, 40);
    h.press(&[GoToTab(4)]);
    assert_eq!(h.app.wanted_jobs(), [Job::Usage, Job::BeforeUsage]);
    // AFTER's line first: BEFORE's is still being read.
    h.session.run_job(Job::Usage, &mut h.app);
    h.draw();
    assert!(h.screen().contains("before: reading its buffers rows…"), "{}", h.screen());
    h.session.run_job(Job::BeforeUsage, &mut h.app);
    h.draw();
    let screen = h.screen();
    // The cursor on AFTER's failure; BEFORE's aligned operation is its own failure.
    assert!(screen.contains("operation 11 ttnn.matmul · 330 KiB per bank after it · ✖ failed here"), "{screen}");
    assert!(screen.contains("before: operation 5 ttnn.matmul · 412 KiB per bank after it · ✖ failed here"), "{screen}");
    assert!(screen.contains("before") && screen.contains("✖ before") && screen.contains("✖ after"), "{screen}");
    assert_snapshot!("compare_stale_chain_over_time_120x40", h.terminal.backend());
    // On a `ttnn.deallocate` only AFTER has, BEFORE has no operation.
    h.press(&[First, NextPoint]);
    assert!(h.screen().contains("operation 2 ttnn.deallocate"), "{}", h.screen());
    assert!(h.screen().contains("before: no operation aligned with this one (only this run has it)"), "{}", h.screen());
    h.press(&[NextPoint, NextPoint]);
    assert!(h.screen().contains("before: operation 2 ttnn.add · "), "{}", h.screen());
    // Enter opens AFTER's operation: the rest of the UI is AFTER's.
    h.press(&[Activate]);
    assert_eq!(h.selected_id(), Some(4));
}

#[test]
fn a_tiny_terminal_keeps_both() {
    let mut h = compared("real/a_l1_add_oom", "rerun/a_l1_add_oom__free_fill5", 60, 15);
    assert_snapshot!("compare_a_l1_add_oom_operations_60x15", h.terminal.backend());
    h.press(&[GoToTab(4)]);
    h.run_jobs();
    // The two runs name their one chip differently (device 0, device 1): the line is matched.
    assert!(h.screen().contains("before: operation 1 ttnn.empty · 128 KiB per bank after it"), "{}", h.screen());
    h.press(&[Last]);
    assert!(h.screen().contains("before: operation 11 ttnn.add · 1.25 MiB per bank after it"), "{}", h.screen());
    assert_snapshot!("compare_a_l1_add_oom_over_time_60x15", h.terminal.backend());
}
