//! Tab 4's fixes (issue 20 §2): at a failure, every advice line replayed and said with what
//! tt-metal would do; `f`/`F` show one fix's picture on the map (the request where it lands),
//! `Esc` the failure as recorded; `w` types fixes of one's own, replayed and added to the list.
//! On the real reports of `fixtures/real/`, whose re-runs (`fixtures/rerun/`) say where tt-metal
//! put the request.

use crate::real_support;
use crate::tui_support;

use insta::assert_snapshot;
use real_support::folder;
use ttnn_tui::app::Action::{self, *};
use ttnn_tui::report::{MemoryReport, resolve_report};
use tui_support::Harness;

fn harness(scenario: &str, operation: u64, width: u16, height: u16) -> Harness {
    let report = MemoryReport::open(&resolve_report(Some(&folder(scenario))).unwrap(), 0).unwrap();
    let mut h = Harness::new(report, width, height, false, Some(operation));
    h.press(&[GoToTab(3)]);
    h.run_jobs();
    h
}

/// The screen's text with its lines joined, so a sentence wrapped over lines reads whole.
fn joined(h: &Harness) -> String {
    h.screen().lines().map(|l| l.trim_matches('"').trim_end()).collect::<Vec<_>>().join(" ")
}

#[test]
fn every_fix_is_said_with_its_replayed_answer() {
    let h = harness("a_l1_add_oom", 11, 120, 40);
    let text = joined(&h);
    for line in [
        "· Freeing tensor 8 after operation 10: the 128 KiB request fits at 1105920.",
        "· Placing the output in DRAM: the 684 KiB DRAM request fits at 1048640.",
    ] {
        assert!(text.contains(line), "{line:?} in\n{}", h.screen());
    }
    assert!(text.contains(" Map · "), "the failure as recorded: {}", h.screen());
    assert_snapshot!("fixes_a_l1_add_oom_120x40", h.terminal.backend());
}

#[test]
fn a_fix_shows_its_picture_and_esc_the_recorded_one() {
    let mut h = harness("a_l1_add_oom", 11, 120, 40);
    assert!(h.enabled(NextFix) && h.enabled(WhatIf));
    h.press(&[NextFix]);
    let text = joined(&h);
    assert!(text.contains("▶ Freeing tensor 8 after operation 10:"), "{}", h.screen());
    assert!(text.contains(" Map after freeing tensor 8 after operation 10 · "), "{}", h.screen());
    assert!(text.contains("request 128 KiB"), "the request drawn where it lands: {}", h.screen());
    assert_eq!(h.app.message(), Some("Fix 1 of 2 on the map"));
    assert_snapshot!("fixes_a_l1_add_oom_first_fix_120x40", h.terminal.backend());
    h.press(&[NextFix]);
    assert!(joined(&h).contains(" Map after placing the output in DRAM · "), "{}", h.screen());
    h.press(&[Back]);
    assert!(joined(&h).contains(" Map · "), "{}", h.screen());
    assert_eq!(h.app.message(), Some("The failure as recorded"));
    // F goes backwards, from the last.
    h.press(&[PreviousFix]);
    assert!(joined(&h).contains("▶ Placing the output in DRAM"), "{}", h.screen());
}

#[test]
fn a_fix_of_ones_own_is_replayed_and_shown() {
    let mut h = harness("a_l1_add_oom", 11, 120, 40);
    h.press(&[WhatIf]).type_text("free 17@10");
    assert!(joined(&h).contains("What if (fixes separated by commas, e.g. free 8@10, output-to-dram): free 17@10█"));
    h.press(&[SearchConfirm]);
    // The re-run that freed tensor 17 (fill5) after operation 10 placed the request at 712704
    // (fixtures/rerun/a_l1_add_oom__free_fill5).
    let text = joined(&h);
    assert!(
        text.contains("▶ Freeing tensor 17 after operation 10: the 128 KiB request fits at 712704."),
        "{}",
        h.screen()
    );
    assert!(text.contains(" Map after freeing tensor 17 after operation 10 · "), "{}", h.screen());
    // A fix that does not read says why and keeps the prompt.
    h.press(&[WhatIf]).type_text("shrink 3");
    h.press(&[SearchConfirm]);
    assert!(
        h.app.message().unwrap().starts_with("cannot read the fix \"shrink 3\": one of free T@K"),
        "{:?}",
        h.app.message()
    );
    h.press(&[Back]);
    assert!(!joined(&h).contains("What if (fixes"), "Esc closes the prompt");
    // A fix that names what the run does not have is not replayed as if it did nothing.
    h.press(&[WhatIf]).type_text("free 999");
    h.press(&[SearchConfirm]);
    assert_eq!(h.app.message(), Some("Not replayed: free 999: tensor 999 is not in the report"));
    assert!(!joined(&h).contains("Freeing tensor 999"), "{}", h.screen());
}

#[test]
fn a_circular_buffer_clash_shows_the_buffers_moved_to_dram() {
    let mut h = harness("cb_clash_own_output", 15, 120, 40);
    let text = joined(&h);
    assert!(
        text.contains(
            "2 live L1 buffers lie below it: tensor 43 at 106496 (8 KiB, this operation), tensor 35 at 114688 (8 KiB)."
        ),
        "{}",
        h.screen()
    );
    assert!(text.contains("· Placing the output in DRAM and keeping tensor 35 in DRAM: the circular buffers, up to 118112, fit below the lowest L1 buffer, at 122880."), "{}", h.screen());
    h.press(&[NextFix]);
    assert!(joined(&h).contains("circular buffers up to 118112"), "the band on the map after the fix: {}", h.screen());
    assert_snapshot!("fixes_cb_clash_own_output_fix_120x40", h.terminal.backend());
}

#[test]
fn a_tiny_terminal_draws_the_fixes_without_panicking() {
    let mut h = harness("stale_chain", 5, 60, 15);
    let keys: [Action; 4] = [NextFix, NextFix, PreviousFix, Back];
    h.press(&keys);
    h.press(&[NextFix]);
    assert_snapshot!("fixes_stale_chain_60x15", h.terminal.backend());
}

/// Tab 5's list of tensors held past their last use says, at the failure, what freeing them all
/// there does — replayed: the real re-run (fixtures/rerun/stale_chain__free_late) placed the
/// output at 112640 and then failed on its dataflow buffers.
#[test]
fn the_late_list_says_what_freeing_them_all_does_at_the_failure() {
    let report = MemoryReport::open(&resolve_report(Some(&folder("stale_chain"))).unwrap(), 0).unwrap();
    let mut h = Harness::new(report, 120, 40, false, Some(5));
    h.press(&[GoToTab(4)]);
    h.run_jobs();
    let text = joined(&h);
    assert!(
        text.contains("At operation 5 ttnn.matmul: freeing all 6 at their last use: the 1 MiB request fits at 112640, but ttnn.add used 12 KiB of circular buffers at operation 2 and only 7 KiB would be left below it."),
        "{}",
        h.screen()
    );
}
