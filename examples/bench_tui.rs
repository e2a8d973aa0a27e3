//! Benchmark of the terminal UI (not a timed test): time to first frame, without and with a
//! performance report (which is read and linked on a worker thread after the first frame), then
//! 1000 key presses (scrolling, paging, filter toggles, search) of update + load + draw on a
//! 120×40 `TestBackend`.
//!
//! ```sh
//! cargo run --release --example gen_report -- --ops 100000 --buffers-per-op 100 /tmp/ttnn-100k
//! cargo run --release --example bench_tui -- /tmp/ttnn-100k
//! ```
//!
//! The performance report is written next to nothing the report owns: a CSV in the system temp
//! folder whose rows are the report's completed device operations, so that it links.

#[path = "../tests/support/perf.rs"]
mod perf;

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};
use ttnn_tui::app::{Action, Job};
use ttnn_tui::report::perf::perf_report::{PerfReport, PerfSource};
use ttnn_tui::report::{MemoryReport, ReportSource, resolve_report};
use ttnn_tui::tui::worker::{Update, no_waker};
use ttnn_tui::tui::{LinkPass, Session, app_for, start_worker};
use ttnn_tui::ui::Theme;

/// The key presses, in order: 1000 in all.
fn script() -> Vec<(&'static str, Action)> {
    let mut keys = Vec::new();
    while keys.len() < 1000 {
        keys.extend([("j", Action::Down); 20]);
        keys.extend([("k", Action::Up); 5]);
        keys.extend([("PgDn", Action::PageDown); 5]);
        keys.extend([("PgUp", Action::PageUp); 2]);
        keys.extend([("Ctrl-d", Action::HalfPageDown); 2]);
        keys.push(("G", Action::Last));
        keys.push(("g", Action::First));
        keys.push(("e", Action::ToggleErrorsOnly));
        keys.extend([("j", Action::Down); 3]);
        keys.push(("e", Action::ToggleErrorsOnly));
        keys.push(("/", Action::SearchStart));
        for c in "matmul".chars() {
            keys.push(("search char", Action::SearchInput(c)));
        }
        keys.push(("Enter", Action::SearchConfirm));
        keys.extend([("n", Action::NextMatch); 4]);
        keys.push(("N", Action::PreviousMatch));
        keys.push(("Esc", Action::Back));
        keys.push(("Enter (expand)", Action::Toggle));
        keys.push(("Enter (expand)", Action::Toggle));
    }
    keys.truncate(1000);
    keys
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

fn ms(d: Duration) -> String {
    format!("{:.3} ms", d.as_secs_f64() * 1000.0)
}

/// Writes a perf CSV whose rows are the report's completed device operations, in order.
fn linking_csv(report: &MemoryReport) -> PathBuf {
    use ttnn_tui::analysis::graph::nodes::parse_scopes;
    use ttnn_tui::analysis::perf::link::MemoryOperation;
    let names = report
        .graphs()
        .map(parse_scopes, |i, graph| {
            let op = &report.operations[i];
            let side = MemoryOperation::from_graph(op.id, op.name.to_string(), graph.as_deref().unwrap_or(&[]));
            side.starts.into_iter().map(|d| d.name).collect::<Vec<_>>()
        })
        .expect("the graphs read");
    let mut csv = perf::PerfCsv::new(perf::Era::Y2026);
    for name in names.iter().flatten() {
        csv.push(perf::Row::device(name, 0, 1000));
    }
    let folder = std::env::temp_dir().join(format!("bench-tui-perf-{}", std::process::id()));
    std::fs::create_dir_all(&folder).expect("a temp folder");
    csv.write(&folder, "ops_perf_results.csv")
}

/// Time to first frame with a performance report (checked, then linked on a worker thread), and
/// until the link lands; the median of 5.
fn first_frame_with_perf(source: &ReportSource, csv: &std::path::Path, theme: &Theme) -> (Duration, Duration) {
    let mut runs = Vec::new();
    for _ in 0..6 {
        let start = Instant::now();
        let report = MemoryReport::open(source, 0).expect("the report opens");
        PerfReport::check(csv).expect("the CSV's header");
        let perf = PerfSource::Path(csv.to_path_buf());
        let mut app = app_for(&report, false, None);
        app.set_perf_linking(perf.file_name());
        let linking = start_worker(LinkPass::new(perf), &report, 0, no_waker());
        let mut terminal = Terminal::new(TestBackend::new(120, 40)).expect("a test terminal");
        terminal.draw(|f| ttnn_tui::ui::draw(f, &mut app, theme)).expect("a frame");
        let first = start.elapsed();
        let Update::Done(input) = linking.wait() else { panic!("the worker answers") };
        let input = input.expect("the link");
        assert!(input.link.is_linked(), "the CSV links");
        runs.push((first, start.elapsed()));
    }
    runs.remove(0);
    runs.sort();
    runs[runs.len() / 2]
}

/// Tab 4 on a worker, as the loop runs it (issue 29): on each of the first five failures, the
/// key to tab 4 drawn (the frame reads no picture: "Reading the memory of this operation…"),
/// then keys (up and down) each updated and drawn while the worker reads the failure's picture
/// and then replays its fixes, until both land. Prints the key-to-tab-4 frame and the longest
/// frame drawn while the worker ran, separately.
fn fixes_in_the_background(session: &Session, theme: &Theme) {
    let report = &session.report;
    let failures: Vec<u64> = report.errors.iter().filter_map(|e| e.operation_id).take(5).collect();
    let mut session = Session::new(MemoryReport::open(&report.source, 0).expect("the report opens"));
    let (mut to_tab4, mut longest, mut frames) = (Duration::ZERO, Duration::ZERO, 0usize);
    let (mut pictured, mut landed) = (Vec::new(), Vec::new());
    for id in failures {
        let mut app = app_for(&session.report, false, Some(id));
        let mut terminal = Terminal::new(TestBackend::new(120, 40)).expect("a test terminal");
        ttnn_tui::tui::frame(&mut terminal, &mut app, &session, theme).expect("a frame");
        let mut workers = ttnn_tui::tui::Workers::new(no_waker());
        let start = Instant::now();
        let mut key = |app: &mut ttnn_tui::app::App, session: &Session, action: Action| {
            let t = Instant::now();
            app.update(action);
            ttnn_tui::tui::frame(&mut terminal, app, session, theme).expect("a frame");
            t.elapsed()
        };
        to_tab4 = to_tab4.max(key(&mut app, &session, Action::GoToTab(3)));
        workers.start_wanted(&mut session, &mut app);
        let (mut k, mut picture) = (0, None);
        while workers.busy() {
            longest = longest.max(key(&mut app, &session, if k % 2 == 0 { Action::Down } else { Action::Up }));
            frames += 1;
            k += 1;
            std::thread::sleep(Duration::from_millis(5));
            workers.collect(&mut session, &mut app);
            if picture.is_none() && app.picture_wanted().is_none() {
                picture = Some(start.elapsed());
            }
            workers.start_wanted(&mut session, &mut app);
        }
        pictured.push(picture.unwrap_or_else(|| start.elapsed()));
        landed.push(start.elapsed());
    }
    let list = |d: Vec<Duration>| d.into_iter().map(ms).collect::<Vec<_>>().join(", ");
    println!(
        "tab 4 on 5 failures, the picture and the fixes on a worker: key to tab 4 (longest) {}; longest frame while the worker ran {} over {frames} frames; the picture landed after {}; the fixes after {}",
        ms(to_tab4),
        ms(longest),
        list(pictured),
        list(landed)
    );
}

fn main() {
    let path: PathBuf = std::env::args_os().nth(1).map(PathBuf::from).expect("usage: bench_tui REPORT");
    let source = resolve_report(Some(&path)).expect("a report");
    let theme = Theme::colored();

    // Time to first frame, as the explain benchmark times explain: a warm-up, then the median
    // of 7 runs. Each run opens the report, builds the state and draws; the complete frame adds
    // the loads (stack traces of the visible rows, arguments) and a redraw.
    let mut runs = Vec::new();
    for _ in 0..8 {
        let start = Instant::now();
        let report = MemoryReport::open(&source, 0).expect("the report opens");
        let opened = start.elapsed();
        let mut app = app_for(&report, false, None);
        let built = start.elapsed();
        let mut terminal = Terminal::new(TestBackend::new(120, 40)).expect("a test terminal");
        terminal.draw(|f| ttnn_tui::ui::draw(f, &mut app, &theme)).expect("a frame");
        let first_frame = start.elapsed();
        let reads = app.pending_reads();
        let session = Session::new(report);
        for result in session.perform(reads) {
            app.deliver(result);
        }
        terminal.draw(|f| ttnn_tui::ui::draw(f, &mut app, &theme)).expect("a frame");
        runs.push((first_frame, opened, built, start.elapsed()));
    }
    runs.remove(0);
    runs.sort();
    let (first_frame, opened, built, complete) = runs[runs.len() / 2];
    let mut session = Session::new(MemoryReport::open(&source, 0).expect("the report opens"));
    let report = &session.report;
    let mut app = app_for(report, false, None);
    let mut terminal = Terminal::new(TestBackend::new(120, 40)).expect("a test terminal");
    ttnn_tui::tui::frame(&mut terminal, &mut app, &session, &theme).expect("a frame");
    println!("report: {} ({} operations, {} errors)", path.display(), report.operations.len(), report.errors.len());
    println!(
        "time to first frame (median of 7): {} (open {}, app state {}, draw {}); complete frame (stack traces, arguments loaded): {}",
        ms(first_frame),
        ms(opened),
        ms(built - opened),
        ms(first_frame - built),
        ms(complete)
    );
    let csv = linking_csv(report);
    let (with_perf, linked) = first_frame_with_perf(&source, &csv, &theme);
    println!(
        "with a perf report of {} rows: time to first frame {} (the link lands after {})",
        report.operations.len(),
        ms(with_perf),
        ms(linked)
    );
    let _ = std::fs::remove_dir_all(csv.parent().expect("its folder"));
    for k in [0usize, 50_000, 99_000] {
        let t = Instant::now();
        let _ = report.details().stack_traces(&(k..k + 36).collect::<Vec<_>>());
        let traces = t.elapsed();
        let t = Instant::now();
        let _ = report.details().arguments(k);
        println!("at operation {k}: 36 stack traces {}, arguments {}", ms(traces), ms(t.elapsed()));
    }

    // Tab 4 on the first failure (the state opens on it): from the key to the drawn frame, the
    // picture read (here and now; the loop reads it on a worker), and a move in its holders table.
    let mut memory = app_for(report, false, None);
    ttnn_tui::tui::frame(&mut terminal, &mut memory, &session, &theme).expect("a frame");
    let t = Instant::now();
    memory.update(Action::GoToTab(3));
    ttnn_tui::tui::frame(&mut terminal, &mut memory, &session, &theme).expect("a frame");
    let tab4 = t.elapsed();
    let t = Instant::now();
    session.run_job(Job::Picture, &mut memory);
    ttnn_tui::tui::frame(&mut terminal, &mut memory, &session, &theme).expect("a frame");
    let picture = t.elapsed();
    let t = Instant::now();
    memory.update(Action::Down);
    ttnn_tui::tui::frame(&mut terminal, &mut memory, &session, &theme).expect("a frame");
    println!(
        "tab 4 on the first failure: key to drawn {}, the picture read and drawn {} (on a worker in the loop), next holder {}",
        ms(tab4),
        ms(picture),
        ms(t.elapsed())
    );
    fixes_in_the_background(&session, &theme);

    let mut all = Vec::new();
    let mut by_key: BTreeMap<&str, Vec<Duration>> = BTreeMap::new();
    for (name, action) in script() {
        let t = Instant::now();
        app.update(action);
        ttnn_tui::tui::frame(&mut terminal, &mut app, &session, &theme).expect("a frame");
        let d = t.elapsed();
        all.push(d);
        by_key.entry(name).or_default().push(d);
    }
    all.sort();
    println!(
        "1000 keys, update + load + draw: median {}, p95 {}, max {}",
        ms(percentile(&all, 0.5)),
        ms(percentile(&all, 0.95)),
        ms(all[all.len() - 1])
    );
    println!("{:<16} {:>6} {:>12} {:>12}", "key", "count", "median", "p95");
    for (name, mut samples) in by_key {
        samples.sort();
        println!(
            "{name:<16} {:>6} {:>12} {:>12}",
            samples.len(),
            ms(percentile(&samples, 0.5)),
            ms(percentile(&samples, 0.95))
        );
    }
}
