//! Tab 4's fixes (issue 20 §2): at a failure, every advice line replayed and said with what
//! tt-metal would do; `f`/`F` show one fix's picture on the map (the request where it lands),
//! `Esc` the failure as recorded; `w` types fixes of one's own, replayed and added to the list.
//! On the real reports of `fixtures/real/`, whose re-runs (`fixtures/rerun/`) say where tt-metal
//! put the request.

use crate::real_support;
use crate::tui_support;

use insta::assert_snapshot;
use real_support::folder;
use std::sync::atomic::AtomicBool;
use ttnn_tui::app::Action::{self, *};
use ttnn_tui::app::{App, Job};
use ttnn_tui::report::{MemoryReport, ReportError, resolve_report};
use ttnn_tui::tui::worker::Waker;
use ttnn_tui::tui::{FixesPass, JobPass, Pass, PicturePass, Session, Slot, WhatIfPass, act, frame};
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
        "· Freeing tensor 8 after operation 10: the 128 KiB-per-bank request fits at 1105920.",
        "· Keeping tensor 2, an input of the operation, in DRAM: the 128 KiB-per-bank request fits at 188416.",
        "· Placing the output in DRAM: the 684 KiB-per-bank DRAM request fits at 1048640.",
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
    assert_eq!(h.app.message(), Some("Fix 1 of 5 on the map"));
    assert_snapshot!("fixes_a_l1_add_oom_first_fix_120x40", h.terminal.backend());
    h.press(&[NextFix]);
    assert!(joined(&h).contains(" Map after keeping tensor 8 in DRAM · "), "{}", h.screen());
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
        text.contains("▶ Freeing tensor 17 after operation 10: the 128 KiB-per-bank request fits at 712704."),
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
    // An input of the failed add freed before it reads it: refused with the fix that can, as
    // `whatif` refuses it (real tt-metal: fixtures/rerun/a_l1_add_oom__free_fill0_input).
    h.press(&[WhatIf]).type_text("free 2@10");
    h.press(&[SearchConfirm]);
    assert_eq!(
        h.app.message(),
        Some(
            "Not replayed: free 2@10: tensor 2 is an input of the failed operation 11 ttnn.add: it stays live until the operation reads it, so freeing it makes no room; keeping it in DRAM can (--to-dram 2)"
        )
    );
    assert!(!joined(&h).contains("Freeing tensor 2 after operation 10"), "{}", h.screen());
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
    assert!(text.contains("· Freeing tensor 35 after operation 14 and placing the output in DRAM: the circular buffers, up to 118112, fit below the lowest L1 buffer, at 122880."), "{}", h.screen());
    // Either half alone still clashes, as the real re-runs did (fixtures/rerun/cb_clash_own_output__*).
    assert!(text.contains("· Keeping tensor 35 in DRAM: the circular buffers still clash with 1 L1 buffer: tensor 43 at 114688 (8 KiB per bank)."), "{}", h.screen());
    assert!(text.contains("· Placing the output in DRAM: the circular buffers still clash with 1 L1 buffer: tensor 35 at 114688 (8 KiB per bank)."), "{}", h.screen());
    h.press(&[NextFix]);
    assert!(joined(&h).contains("circular buffers up to 118112"), "the band on the map after the fix: {}", h.screen());
    assert_snapshot!("fixes_cb_clash_own_output_fix_120x40", h.terminal.backend());
}

/// Issue 28 §6 on tab 4: the softmax whose dataflow buffers clash with the stale tensor 35 and
/// its own output. The pair comes first and fits; each change alone still clashes — as the real
/// re-runs did (fixtures/rerun/softmax_cb_clash__*). `f` shows the pair's picture.
#[test]
fn a_softmax_that_needs_both_changes_shows_the_pair_first() {
    let mut h = harness("softmax_cb_clash", 15, 120, 40);
    let text = joined(&h);
    for line in [
        "· Freeing tensor 35 after operation 13 and placing the output in DRAM: the circular buffers, up to 128352, fit below the lowest L1 buffer, at 129024.",
        "· Freeing tensor 35 right after its last use, operation 13: the circular buffers still clash with 1 L1 buffer: tensor 43 at 126976 (2 KiB per bank).",
        "· Keeping tensor 35 in DRAM: the circular buffers still clash with 1 L1 buffer: tensor 43 at 126976 (2 KiB per bank).",
        "· Placing the output in DRAM: the circular buffers still clash with 1 L1 buffer: tensor 35 at 126976 (2 KiB per bank).",
    ] {
        assert!(text.contains(line), "{line:?} in\n{}", h.screen());
    }
    let pair = text.find("· Freeing tensor 35 after operation 13 and placing").unwrap();
    let single = text.find("· Freeing tensor 35 right after its last use").unwrap();
    assert!(pair < single, "the pair that works first: {}", h.screen());
    h.press(&[NextFix]);
    let text = joined(&h);
    assert!(text.contains("▶ Freeing tensor 35 after operation 13 and placing the output in DRAM:"), "{}", h.screen());
    assert!(text.contains("circular buffers up to 128352"), "the band on the map after the fix: {}", h.screen());
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
        text.contains("At operation 5 ttnn.matmul: freeing all 6 at their last use: the 1 MiB-per-bank request fits at 112640, but ttnn.add used 12 KiB of circular buffers at operation 2 and only 7 KiB would be left below it: ttnn.matmul records none of its own, so whether they fit is unknown."),
        "{}",
        h.screen()
    );
}

/// Issue 30 §4.1: at 80×24 the advice of `stale_chain` is longer than its room: its last line
/// says what is cut, `J` scrolls to its last fix, and `f`/`F` bring the fix they select into view.
#[test]
fn the_advice_scrolls_at_80x24_and_shows_the_fix_chosen() {
    let mut h = harness("stale_chain", 5, 80, 24);
    h.assert_line("↓ 21 more lines · J scrolls");
    assert_snapshot!("fixes_stale_chain_80x24", h.terminal.backend());
    h.press(&[ScrollDetailDown]);
    h.assert_line("↑ 1 line above, ↓ 20 more · J/K scroll");
    h.press(&[ScrollDetailDown; 20]);
    h.assert_line("· Keeping tensor 29, an input of the operation, in DRAM: the 1 MiB-per-bank");
    h.assert_line("↑ 21 lines above · K scrolls back");
    // J at the end stays there.
    h.press(&[ScrollDetailDown]);
    h.assert_line("↑ 21 lines above · K scrolls back");
    // Back to the top, then `f`: the first fix comes into view, marked; `f` again, the second.
    h.press(&[ScrollDetailUp; 21]);
    h.assert_line("↓ 21 more lines · J scrolls");
    h.press(&[NextFix]);
    h.assert_line("▶ Placing the output in DRAM: the 5.33 MiB-per-bank DRAM request fits at");
    h.press(&[NextFix]);
    h.assert_line("▶ Freeing the 6 tensors held past their last use, each right after it (tensors");
    // `F` from the top: back to the first fix, in view again.
    h.press(&[ScrollDetailUp; 21]);
    h.press(&[PreviousFix]);
    h.assert_line("▶ Placing the output in DRAM: the 5.33 MiB-per-bank DRAM request fits at");
}

/// Issue 30 §4.2: tab 1's callout says what tab 4 has of the fixes — that they are to be
/// replayed there, then how many the replay put the request in place with — and `y` copies
/// the replayed sentences with the callout.
#[test]
fn tab_1_points_at_the_fixes_and_copies_them() {
    let report = MemoryReport::open(&resolve_report(Some(&folder("a_l1_add_oom"))).unwrap(), 0).unwrap();
    let mut h = Harness::new(report, 200, 40, false, Some(11));
    assert_eq!(h.lines_with("│Fixes: tab 4 replays them (press 4)  ").len(), 1, "{}", h.screen());
    h.press(&[Copy]);
    let copied = h.app.take_clipboard().unwrap();
    assert!(copied.ends_with("\nFixes: tab 4 replays them (press 4)\n"), "{copied}");
    h.press(&[GoToTab(3)]);
    h.run_jobs();
    h.press(&[GoToTab(0)]);
    let hint = "│Fixes: 5 on tab 4 (press 4), 5 replayed; the request fits with each  ";
    assert_eq!(h.lines_with(hint).len(), 1, "{}", h.screen());
    h.press(&[Copy]);
    let copied = h.app.take_clipboard().unwrap();
    assert!(
        copied.ends_with(
            "\nFixes (replayed):\n· Freeing tensor 8 after operation 10: the 128 KiB-per-bank request fits at 1105920.\n· Keeping tensor 8 in DRAM: the 128 KiB-per-bank request fits at 188416.\n· Keeping tensor 5, an input of the operation, in DRAM: the 128 KiB-per-bank request fits at 188416.\n· Keeping tensor 2, an input of the operation, in DRAM: the 128 KiB-per-bank request fits at 188416.\n· Placing the output in DRAM: the 684 KiB-per-bank DRAM request fits at 1048640.\n"
        ),
        "{copied}"
    );
}

/// A pass held until the test lets it go: what a slow replay (0.5–0.8 s on 100 M rows) looks
/// like to the loop, without timing anything.
struct Held<P> {
    gate: std::sync::Mutex<std::sync::mpsc::Receiver<()>>,
    pass: P,
}

impl<P: Pass> Pass for Held<P> {
    type Output = P::Output;

    fn run(self, report: &MemoryReport, cancel: &AtomicBool, progress: &mut dyn FnMut(u64, u64)) -> P::Output {
        self.gate.lock().unwrap().recv().expect("the test lets the replay go");
        self.pass.run(report, cancel, progress)
    }
    fn failed(self, error: ReportError) -> P::Output {
        self.pass.failed(error)
    }
    fn lost() -> P::Output {
        P::lost()
    }
    fn progress(app: &mut App, done: u64, total: u64) {
        P::progress(app, done, total)
    }
    fn install(output: P::Output, session: &mut Session, app: &mut App) {
        P::install(output, session, app)
    }
    fn stale(output: Option<P::Output>, session: &mut Session, app: &mut App) {
        P::stale(output, session, app)
    }
}

/// Starts `pass` on a worker held at its gate; the receiver hears each of its wake-ups.
fn held<P: Pass>(pass: P, h: &Harness) -> (Slot<Held<P>>, std::sync::mpsc::Sender<()>, std::sync::mpsc::Receiver<()>) {
    let (release, gate) = std::sync::mpsc::channel();
    let (woke, wakes) = std::sync::mpsc::channel();
    let woke = std::sync::Mutex::new(woke);
    let waker: Waker = std::sync::Arc::new(move || {
        let _ = woke.lock().unwrap().send(());
    });
    let mut slot = Slot::default();
    slot.start(Held { gate: std::sync::Mutex::new(gate), pass }, &h.session, waker);
    (slot, release, wakes)
}

/// Acts and draws as the loop does (`act`, then `frame`), without the harness's replays.
fn key(h: &mut Harness, action: Action) {
    let size = h.terminal.size().unwrap();
    act(&mut h.app, action, size);
    frame(&mut h.terminal, &mut h.app, &h.session, &h.theme).unwrap();
}

/// Reads the selected failure's picture here and now (the loop reads it on a worker), and draws.
fn read_picture(h: &mut Harness) {
    h.session.run_job(Job::Picture, &mut h.app);
    frame(&mut h.terminal, &mut h.app, &h.session, &h.theme).unwrap();
}

/// Collects the held pass's result once it lands (its wake-ups say when), and draws.
fn land<P: Pass>(h: &mut Harness, slot: &mut Slot<P>, wakes: &std::sync::mpsc::Receiver<()>) {
    while slot.busy() {
        wakes.recv_timeout(std::time::Duration::from_secs(60)).expect("the replay lands");
        slot.collect(&mut h.session, &mut h.app);
    }
    frame(&mut h.terminal, &mut h.app, &h.session, &h.theme).unwrap();
}

/// Tab 4's replays are background passes (issue 29): the frame never runs one, so while a
/// failure's fixes — or fixes typed at `w` — are being replayed, keys are applied and drawn;
/// the answer is drawn when it lands.
#[test]
fn a_replay_in_flight_does_not_hold_up_the_loop() {
    let report = MemoryReport::open(&resolve_report(Some(&folder("a_l1_add_oom"))).unwrap(), 0).unwrap();
    let mut h = Harness::new(report, 120, 40, false, Some(11));
    key(&mut h, GoToTab(3));
    read_picture(&mut h);
    // The frame drew the failure's picture and did not replay its fixes: the loop is to.
    assert!(joined(&h).contains("Replaying each fix…"), "{}", h.screen());
    assert_eq!(h.app.fixes_wanted(), Some(h.app.selected_operation().unwrap()));
    let pass = FixesPass::prepare(&mut h.session, &h.app);
    let (mut slot, release, wakes) = held(pass, &h);
    // Keys while the replay is held: each applied and drawn.
    key(&mut h, GoToTab(0));
    assert!(!joined(&h).contains("Replaying each fix…"), "tab 1 is drawn: {}", h.screen());
    assert_eq!(h.app.fixes_wanted(), None, "tab 1 needs no replay");
    key(&mut h, GoToTab(3));
    assert!(joined(&h).contains("Replaying each fix…"), "{}", h.screen());
    key(&mut h, WhatIf);
    assert!(joined(&h).contains("What if (fixes separated by commas"), "{}", h.screen());
    key(&mut h, Back);
    assert!(slot.busy() && !slot.collect(&mut h.session, &mut h.app), "the replay is still held");
    release.send(()).unwrap();
    land(&mut h, &mut slot, &wakes);
    let text = joined(&h);
    assert!(
        text.contains("· Freeing tensor 8 after operation 10: the 128 KiB-per-bank request fits at 1105920."),
        "{text}"
    );
    assert_eq!(h.app.fixes_wanted(), None);

    // The fixes typed at `w` are replayed the same way.
    key(&mut h, WhatIf);
    for c in "free 17@10".chars() {
        key(&mut h, SearchInput(c));
    }
    key(&mut h, SearchConfirm);
    assert_eq!(h.app.message(), Some("Replaying with free 17@10…"));
    assert!(h.app.what_if_wanted().is_some());
    let pass = WhatIfPass::prepare(&mut h.session, &h.app);
    let (mut slot, release, wakes) = held(pass, &h);
    key(&mut h, NextFix);
    assert!(joined(&h).contains("▶ Freeing tensor 8 after operation 10:"), "{}", h.screen());
    assert!(!joined(&h).contains("Freeing tensor 17"), "not replayed yet: {}", h.screen());
    release.send(()).unwrap();
    land(&mut h, &mut slot, &wakes);
    let text = joined(&h);
    assert!(
        text.contains("▶ Freeing tensor 17 after operation 10: the 128 KiB-per-bank request fits at 712704."),
        "{text}"
    );
    assert_eq!(h.app.what_if_wanted(), None);
}

/// The memory at a failure is a background pass too (issue 29): its holders may need the
/// report's tensor index, seconds on a large report. While it is read, keys are applied and
/// drawn ("Reading the memory of this operation…"); the picture is drawn when it lands, and
/// only then are its fixes wanted.
#[test]
fn a_picture_read_in_flight_does_not_hold_up_the_loop() {
    let report = MemoryReport::open(&resolve_report(Some(&folder("a_l1_add_oom"))).unwrap(), 0).unwrap();
    let mut h = Harness::new(report, 120, 40, false, Some(11));
    let selected = h.app.selected_operation();
    key(&mut h, GoToTab(3));
    // The frame did not read the picture: the loop is to.
    assert!(joined(&h).contains("Reading the memory of this operation…"), "{}", h.screen());
    assert_eq!(h.app.picture_wanted(), selected);
    assert_eq!(h.app.fixes_wanted(), None, "no fixes before the picture");
    let pass = PicturePass::prepare(&mut h.session, &h.app);
    let (mut slot, release, wakes) = held(pass, &h);
    // Keys while the read is held: each applied and drawn.
    key(&mut h, GoToTab(0));
    assert!(!joined(&h).contains("Reading the memory of this operation…"), "tab 1 is drawn: {}", h.screen());
    assert_eq!(h.app.picture_wanted(), None, "tab 1 needs no picture");
    key(&mut h, GoToTab(3));
    assert!(joined(&h).contains("Reading the memory of this operation…"), "{}", h.screen());
    key(&mut h, Help);
    assert!(joined(&h).contains("Keys"), "the help is drawn: {}", h.screen());
    key(&mut h, Back);
    assert!(slot.busy() && !slot.collect(&mut h.session, &mut h.app), "the read is still held");
    release.send(()).unwrap();
    land(&mut h, &mut slot, &wakes);
    let text = joined(&h);
    assert!(!text.contains("Reading the memory of this operation…"), "{text}");
    assert!(text.contains("Replaying each fix…"), "the picture landed, its fixes are wanted: {text}");
    assert_eq!(h.app.picture_wanted(), None);
    assert_eq!(h.app.fixes_wanted(), selected);
}
