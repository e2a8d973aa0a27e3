//! Background jobs against a report that changes under them (`--watch`): a job started for an
//! earlier state of the report never installs its result, and is asked for again.

use crate::live;
use crate::support;

use live::{Writer, initial};
use std::time::{Duration, Instant};
use support::TempDir;
use ttnn_tui::app::{Action, Job};
use ttnn_tui::report::{MemoryReport, resolve_report};
use ttnn_tui::tui::worker::no_waker;
use ttnn_tui::tui::{Session, Workers, app_for};

/// The Over time tab.
const OVER_TIME: usize = 4;

#[test]
fn a_replay_running_when_the_report_changes_never_installs_its_stale_result() {
    let dir = TempDir::new("watch-jobs");
    let db = initial().write_to(dir.path());
    let mut writer = Writer::start(&db, "WAL");
    let source = resolve_report(Some(dir.path())).unwrap();
    let report = MemoryReport::open_watched(&source, 0).unwrap();
    let mut session = Session::new(report);
    let mut app = app_for(&session.report, false, None);
    let mut workers = Workers::new(no_waker());

    // The report has no `buffers` rows yet: the run over time asks for every graph replayed.
    app.update(Action::GoToTab(OVER_TIME));
    session.run_job(Job::Usage, &mut app);
    assert_eq!(app.wanted_jobs(), [Job::ReplayGraphs]);
    workers.start_wanted(&mut session, &mut app);
    assert!(workers.busy());

    // A writer commits an operation while the replay runs (the replay of three small graphs is
    // done well before the loop would next look): its result is for the report as it was.
    writer.send("op 4 ttnn.add");
    assert!(session.poll_changes(&mut app));
    std::thread::sleep(Duration::from_millis(300));
    assert!(workers.collect(&mut session, &mut app));
    assert!(!workers.busy(), "the stale replay is dropped");
    assert_eq!(app.wanted_jobs(), [Job::ReplayGraphs], "the run over time asks for a replay of the new state");

    // The new replay's result is installed.
    workers.start_wanted(&mut session, &mut app);
    let start = Instant::now();
    while workers.busy() {
        workers.collect(&mut session, &mut app);
        assert!(start.elapsed() < live::PATIENCE, "the replay never finished");
        std::thread::sleep(Duration::from_millis(5));
    }
    assert_eq!(app.wanted_jobs(), [], "nothing more is wanted once the replay of the new state landed");
    writer.quit();
}
