//! Benchmark of the terminal UI (not a timed test): time to first frame, then 1000 key presses
//! (scrolling, paging, filter toggles, search) of update + load + draw on a 120×40 `TestBackend`.
//!
//! ```sh
//! cargo run --release --example gen_report -- --ops 100000 --buffers-per-op 100 /tmp/ttnn-100k
//! cargo run --release --example bench_tui -- /tmp/ttnn-100k
//! ```

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};
use ttnn_tui::app::Action;
use ttnn_tui::report::{MemoryReport, resolve_report};
use ttnn_tui::tui::{app_for, perform};
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
        for result in perform(&report, app.pending_reads()) {
            app.deliver(result);
        }
        terminal.draw(|f| ttnn_tui::ui::draw(f, &mut app, &theme)).expect("a frame");
        runs.push((first_frame, opened, built, start.elapsed()));
    }
    runs.remove(0);
    runs.sort();
    let (first_frame, opened, built, complete) = runs[runs.len() / 2];
    let report = MemoryReport::open(&source, 0).expect("the report opens");
    let mut app = app_for(&report, false, None);
    let mut terminal = Terminal::new(TestBackend::new(120, 40)).expect("a test terminal");
    ttnn_tui::tui::frame(&mut terminal, &mut app, &report, &theme).expect("a frame");
    println!("report: {} ({} operations, {} errors)", path.display(), report.operations.len(), report.errors.len());
    println!(
        "time to first frame (median of 7): {} (open {}, app state {}, draw {}); complete frame (stack traces, arguments loaded): {}",
        ms(first_frame),
        ms(opened),
        ms(built - opened),
        ms(first_frame - built),
        ms(complete)
    );
    for k in [0usize, 50_000, 99_000] {
        let t = Instant::now();
        let _ = report.stack_traces(&(k..k + 36).collect::<Vec<_>>());
        let traces = t.elapsed();
        let t = Instant::now();
        let _ = report.arguments(k);
        println!("at operation {k}: 36 stack traces {}, arguments {}", ms(traces), ms(t.elapsed()));
    }

    let mut all = Vec::new();
    let mut by_key: BTreeMap<&str, Vec<Duration>> = BTreeMap::new();
    for (name, action) in script() {
        let t = Instant::now();
        app.update(action);
        ttnn_tui::tui::frame(&mut terminal, &mut app, &report, &theme).expect("a frame");
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
