//! The Over time tab (tab 5): the memory used after every operation on the demo as a chart, with
//! its failures, peak and ceiling; the cursor and its keys; the progress and cancel paths of the
//! pass over `buffers`; a report without snapshots, followed through its graphs.

use crate::tui_support;

use insta::assert_snapshot;
use ttnn_tui::app::Action::*;
use ttnn_tui::app::{Job, JobEnd, Tab};
use ttnn_tui::report::{MemoryReport, ReportSource};
use tui_support::Harness;

fn demo(width: u16, height: u16, plain: bool) -> Harness {
    let report = MemoryReport::open(&ReportSource::Demo, 0).unwrap();
    let mut h = Harness::new(report, width, height, plain, None);
    h.press(&[GoToTab(4)]);
    h
}

#[test]
fn the_pass_is_asked_for_shows_its_progress_and_is_cancelled_by_leaving() {
    let mut h = demo(120, 40, false);
    assert_eq!(h.app.wanted_jobs(), [Job::Usage]);
    h.app.job_progress(Job::Usage, 250, 1000);
    h.draw();
    let screen = h.screen();
    assert!(screen.contains("Reading every buffers row once for the session: 250 of 1000 rows"), "{screen}");
    assert!(screen.contains("25 %"), "{screen}");
    // Leaving the tab: the running pass is no longer wanted; once cancelled it waits to go on.
    h.press(&[GoToTab(0)]);
    assert!(!h.app.want(Job::Usage), "the running pass is to be cancelled");
    h.app.job_ended(Job::Usage, JobEnd::Cancelled);
    assert!(h.app.wanted_jobs().is_empty(), "not wanted off the tab");
    h.press(&[GoToTab(4)]);
    assert_eq!(h.app.wanted_jobs(), [Job::Usage]);
}

#[test]
fn the_demo_run_as_a_chart_with_its_failures_and_peak() {
    let mut h = demo(120, 40, false);
    h.run_jobs();
    // The line of the first failure (L1), the cursor on it, the region as a ceiling.
    let screen = h.screen();
    assert!(screen.contains("Memory over the run · device 0 · L1 "), "{screen}");
    assert!(screen.contains("operation 7 ttnn.conv2d") && screen.contains("✖ failed here"), "{screen}");
    assert!(screen.contains("region 1.3 MiB") && screen.contains("✖ failed") && screen.contains("peak"), "{screen}");
    assert_snapshot!("over_time_l1_120x40", h.terminal.backend());
    // `t` moves to the DRAM line.
    h.press(&[NextBufferType]);
    assert!(h.screen().contains("Memory over the run · device 0 · DRAM"), "{}", h.screen());
    assert_snapshot!("over_time_dram_120x40", h.terminal.backend());
    h.press(&[NextBufferType]);
    // `l` moves to the next operation; `p` to the peak; Enter opens the operation.
    h.press(&[NextPoint]);
    assert!(h.screen().contains("operation 8 ttnn.conv2d"), "{}", h.screen());
    h.press(&[JumpToPeak]);
    assert!(h.screen().contains("(this one)"), "{}", h.screen());
    h.press(&[Activate]);
    assert_eq!(h.app.tab(), Tab::Operations);
    h.resize(60, 15);
    h.press(&[GoToTab(4)]);
    assert_snapshot!("over_time_60x15", h.terminal.backend());
}

#[test]
fn without_colour_the_lines_stay_apart() {
    let mut h = demo(120, 40, true);
    h.run_jobs();
    for cell in h.terminal.backend().buffer().content() {
        assert_eq!((cell.fg, cell.bg), (ratatui::style::Color::Reset, ratatui::style::Color::Reset));
    }
    assert_snapshot!("over_time_plain_120x40", h.terminal.backend());
}

#[test]
fn a_report_without_snapshots_is_followed_through_its_graphs() {
    use tui_support::support::sim::{Era, Options, Sim, SimOp};
    use tui_support::support::{BufferType, TempDir};
    let l1 = BufferType::L1;
    let mut sim = Sim::new(Era::GraphOnly, Options::default(), 1);
    sim.run(SimOp::new("ttnn.to_layout", "TilizeDeviceOperation").output("x", l1, 262_144));
    sim.run(SimOp::new("ttnn.relu", "UnaryDeviceOperation").input("x").output("y", l1, 327_680));
    sim.fail(SimOp::new("ttnn.conv2d", "Conv2dDeviceOperation").input("y").output("c", l1, 1_048_576));
    let dir = TempDir::new("tui-over-time-graph-only");
    sim.report().write_to(dir.path());
    let report = MemoryReport::open(&ttnn_tui::report::resolve_report(Some(dir.path())).unwrap(), 0).unwrap();
    let mut h = Harness::new(report, 120, 40, false, None);
    h.press(&[GoToTab(4)]);
    h.run_jobs();
    assert_eq!(h.app.wanted_jobs(), [Job::ReplayGraphs]);
    assert!(h.screen().contains("replaying every captured graph to follow the memory over the run"), "{}", h.screen());
    h.run_jobs();
    let screen = h.screen();
    assert!(screen.contains("from the captured graphs (no buffers snapshots)"), "{screen}");
    // After the relu, x and y are both live: 576 KiB per bank.
    h.press(&[First, NextPoint]);
    assert!(h.screen().contains("576 KiB per bank after it"), "{}", h.screen());
    // The graphs say where to free memory too: x, last used by the relu, held to the failure.
    let screen = h.screen();
    let heading = "Held past their last use: freeing the one at its last use leaves the peak at 576 KiB";
    assert!(screen.contains(heading), "{screen}");
    assert!(screen.contains("  L1 peak unchanged · tensor 1, 256 KiB per bank · free after operation 2 "), "{screen}");
    // Selected, its whole suggestion shows under the rows.
    h.press(&[NextLateTensor]);
    let suggestion = "ttnn.deallocate(…) after operation 2 — tensor 1 (256 KiB per bank, [262144]) is last used by operation 2 ttnn.relu";
    assert!(h.screen().contains(suggestion), "{}", h.screen());
}

/// The replay a failure's picture asked for on tab 4 (without the run over time) serves tab 5
/// too: the run over time is found from it, and tab 5 shows what it shows when it asked first.
#[test]
fn a_replay_made_for_tab_4_serves_tab_5_as_if_tab_5_had_asked() {
    use tui_support::support::sim::{Era, Options, Sim, SimOp};
    use tui_support::support::{BufferType, TempDir};
    let l1 = BufferType::L1;
    let mut sim = Sim::new(Era::GraphOnly, Options::default(), 1);
    sim.run(SimOp::new("ttnn.to_layout", "TilizeDeviceOperation").output("x", l1, 262_144));
    sim.run(SimOp::new("ttnn.relu", "UnaryDeviceOperation").input("x").output("y", l1, 327_680));
    sim.fail(SimOp::new("ttnn.conv2d", "Conv2dDeviceOperation").input("y").output("c", l1, 1_048_576));
    let dir = TempDir::new("tui-over-time-replay-from-tab-4");
    sim.report().write_to(dir.path());
    let open = || MemoryReport::open(&ttnn_tui::report::resolve_report(Some(dir.path())).unwrap(), 0).unwrap();
    // Tab 5 first: the pass over `buffers` finds none, then the replay brings the run over time.
    let mut first = Harness::new(open(), 120, 40, false, None);
    first.press(&[GoToTab(4)]);
    first.run_jobs();
    first.run_jobs();
    // Tab 4 first: the failure's picture has the graphs replayed, for itself only.
    let mut h = Harness::new(open(), 120, 40, false, None);
    h.press(&[GoToTab(3)]);
    assert_eq!(h.app.wanted_jobs(), [Job::ReplayGraphs]);
    h.run_jobs();
    h.assert_line(
        "At the failure (every captured graph replayed): 2 live L1 buffers on device 0 hold 576 KiB per bank of the",
    );
    // Then tab 5: one pass, which finds no `buffers` rows and reads the kept replay.
    h.press(&[GoToTab(4)]);
    assert_eq!(h.app.wanted_jobs(), [Job::Usage]);
    h.run_jobs();
    assert!(h.app.wanted_jobs().is_empty());
    assert_eq!(h.screen(), first.screen());
    h.assert_line("Held past their last use: freeing the one at its last use leaves the peak at 576 KiB");
}

#[test]
fn the_loop_s_replay_job_brings_where_to_free_memory_to_a_report_without_snapshots() {
    use std::time::{Duration, Instant};
    use ttnn_tui::tui::worker::no_waker;
    use ttnn_tui::tui::{Session, Workers, app_for};
    use tui_support::support::sim::{Era, Options, Sim, SimOp};
    use tui_support::support::{BufferType, TempDir};
    let l1 = BufferType::L1;
    let mut sim = Sim::new(Era::GraphOnly, Options { stack_traces: true, ..Options::default() }, 1);
    sim.run(SimOp::new("ttnn.to_layout", "TilizeDeviceOperation").output("x", l1, 262_144));
    sim.run(SimOp::new("ttnn.relu", "UnaryDeviceOperation").input("x").output("y", l1, 327_680));
    sim.run(SimOp::new("ttnn.exp", "UnaryDeviceOperation").input("y").output("z", l1, 65_536));
    let dir = TempDir::new("tui-over-time-graph-only-worker");
    sim.report().write_to(dir.path());
    let report = MemoryReport::open(&ttnn_tui::report::resolve_report(Some(dir.path())).unwrap(), 0).unwrap();
    let mut session = Session::new(report);
    let mut app = app_for(&session.report, false, None);
    let mut workers = Workers::new(no_waker());
    app.update(GoToTab(4));
    session.run_job(Job::Usage, &mut app);
    assert_eq!(app.wanted_jobs(), [Job::ReplayGraphs]);
    workers.start_wanted(&mut session, &mut app);
    let start = Instant::now();
    while workers.busy() {
        workers.collect(&mut session, &mut app);
        assert!(start.elapsed() < Duration::from_secs(30), "the replay never finished");
        std::thread::sleep(Duration::from_millis(5));
    }
    // x is last used by the relu (operation 2) and held to the end of the run.
    app.update(NextLateTensor);
    app.update(Copy);
    assert_eq!(
        app.take_clipboard().as_deref(),
        Some(
            "ttnn.deallocate(…) after block.py:102 — tensor 1 (256 KiB per bank, [262144]) is last used by operation 2 ttnn.relu and held until operation 3; freeing it there lowers the L1 peak by 64 KiB.\n"
        )
    );
}

#[test]
fn the_cursor_opens_on_the_selected_operation_and_stays_where_the_user_puts_it() {
    let report = MemoryReport::open(&ReportSource::Demo, 0).unwrap();
    // The demo's first failure is operation 7; the user is on operation 13.
    let mut h = Harness::new(report, 120, 40, false, Some(13));
    h.press(&[GoToTab(4)]);
    h.run_jobs();
    assert!(h.screen().contains("operation 13 ttnn.to_memory_config ·"), "{}", h.screen());
    // Another operation selected on tab 1: the cursor follows it.
    h.press(&[GoToTab(0), Down, GoToTab(4)]);
    assert!(h.screen().contains("operation 14 "), "{}", h.screen());
    // Once moved on this tab, the cursor stays.
    h.press(&[NextPoint, GoToTab(0), Down, GoToTab(4)]);
    assert!(h.screen().contains("operation 15 "), "{}", h.screen());
    h.press(&[GoToTab(0), Up, Up, GoToTab(4)]);
    assert!(h.screen().contains("operation 15 "), "{}", h.screen());
}

#[test]
fn the_tensors_held_past_their_last_use_are_listed_under_the_chart() {
    let mut h = demo(120, 40, false);
    h.run_jobs();
    let screen = h.screen();
    let heading = "Held past their last use: freeing all 7 at their last use lowers the peak from 977 KiB to 849 KiB";
    assert!(screen.contains(heading), "{screen}");
    assert!(screen.contains("]/[ late tensor"), "the status bar shows the key: {screen}");
    // `]` selects the biggest saving: its span is marked on the chart, and `y` copies it whole.
    h.press(&[NextLateTensor]);
    let screen = h.screen();
    assert!(
        screen.contains("▶ L1 peak −128 KiB · tensor 2004, 128 KiB per bank · free after model.py:41 "),
        "{screen}"
    );
    // Under the rows, the selected one's whole suggestion.
    assert!(
        late_text(&h).contains(
            "ttnn.deallocate(…) after model.py:41 — tensor 2004 (128 KiB per bank, [64, 4, 7, 7]) is last used by operation 4 ttnn.conv2d and held until operation 40; freeing it there lowers the L1 peak by 128 KiB."
        ),
        "{screen}"
    );
    // The legend under the chart names the span; it covers none of the chart (issue 30 §4.7).
    assert!(
        h.lines_with("└• true peak  ⣀ used  • held  • cursor  • region  ▄ peak  █ ✖ failed  ─").len() == 1,
        "the span's legend: {screen}"
    );
    assert_snapshot!("over_time_late_selected_120x40", h.terminal.backend());
    h.press(&[Copy]);
    assert_eq!(
        h.app.take_clipboard().as_deref(),
        Some(
            "ttnn.deallocate(…) after model.py:41 — tensor 2004 (128 KiB per bank, [64, 4, 7, 7]) is last used by operation 4 ttnn.conv2d and held until operation 40; freeing it there lowers the L1 peak by 128 KiB.\n"
        )
    );
    // `[` stays on the first; Enter opens its last-use operation.
    h.press(&[NextLateTensor, PreviousLateTensor, PreviousLateTensor, Activate]);
    assert_eq!(h.app.tab(), Tab::Operations);
    assert!(h.screen().contains("Operation 4 ttnn.conv2d"), "{}", h.screen());
    h.resize(60, 15);
    h.press(&[GoToTab(4), NextLateTensor]);
    assert_snapshot!("over_time_late_60x15", h.terminal.backend());
}

/// The lines under the chart's box (the cursor's line, then the late list), joined as text.
fn late_text(h: &Harness) -> String {
    let screen = h.screen();
    let lines: Vec<&str> = screen.lines().map(|l| l.trim_matches('"').trim_end()).collect();
    let bottom = lines.iter().rposition(|l| l.starts_with('└')).expect("the chart's bottom");
    lines[bottom + 1..lines.len() - 2].join(" ")
}

/// At 80 and 160 columns the late list's figures are whole: the heading wraps, each row leads
/// with its saving, and the selected one's suggestion wraps under the rows.
#[test]
fn the_late_list_keeps_its_figures_at_80_and_160_columns() {
    for (width, height) in [(80, 24), (160, 40)] {
        let mut h = demo(width, height, false);
        h.run_jobs();
        h.press(&[NextLateTensor]);
        let text = late_text(&h);
        let heading =
            "Held past their last use: freeing all 7 at their last use lowers the peak from 977 KiB to 849 KiB";
        assert!(text.contains(heading), "{width}: {}", h.screen());
        let row = "▶ L1 peak −128 KiB · tensor 2004, 128 KiB per bank · free after model.py:41";
        assert!(h.screen().contains(row), "{width}: {}", h.screen());
        assert!(
            text.contains("and held until operation 40; freeing it there lowers the L1 peak by 128 KiB."),
            "{width}: {}",
            h.screen()
        );
        assert_snapshot!(format!("over_time_late_selected_{width}x{height}"), h.terminal.backend());
    }
}
