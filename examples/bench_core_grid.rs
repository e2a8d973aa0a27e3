//! What tab 5's per-core grid costs the true-peak walk (docs/true-peak.md "Per core"): the run's
//! events read once, then walked for every operation's true peak alone (`true_peaks`, what
//! `--peak` does) and with every L1 core at each peak (`true_peaks_per_core`, what tab 5's pass
//! does), alternately, median of `RUNS`; and how many grids and distinct fills that keeps.
//!
//! ```sh
//! cargo run --release --example bench_core_grid fixtures/models/vit_sharded
//! ```

use std::path::Path;
use std::time::{Duration, Instant};
use ttnn_tui::analysis::memory::peak::{true_peaks, true_peaks_per_core};
use ttnn_tui::report::{MemoryReport, resolve_report};

const RUNS: usize = 5;

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [folder] = args.as_slice() else { panic!("usage: bench_core_grid REPORT_FOLDER") };
    let report = MemoryReport::open(&resolve_report(Some(Path::new(folder))).expect("a report"), 0).expect("opens");
    let start = Instant::now();
    let f = report.passes().run_facts().expect("the events read");
    let read = start.elapsed();
    let (peaks, grids) = true_peaks_per_core(&f.events, &f.layouts, &f.last_use);
    let differ = grids.iter().filter(|g| !g.alike()).count();
    let fills: usize = grids.iter().map(|g| g.fills.len()).sum();
    println!(
        "{} operations, {} events; {} true peaks; {} grids ({differ} whose cores differ, {fills} distinct fills)",
        report.operations.len(),
        f.events.events.len(),
        peaks.len(),
        grids.len()
    );
    if let Some(g) = grids.iter().find(|g| !g.alike()) {
        let (core, fill) = g.busiest();
        println!("operation {}: busiest core {core:?} holds {} B per bank; its fills:", g.operation_id, fill.total());
        for (f, n) in g.fills.iter().zip(g.counts()) {
            println!("  {n} cores: {f:?}");
        }
    }
    let (mut alone, mut per_core) = (Vec::new(), Vec::new());
    for _ in 0..RUNS {
        let start = Instant::now();
        drop(true_peaks(&f.events, &f.layouts, &f.last_use));
        alone.push(start.elapsed());
        let start = Instant::now();
        drop(true_peaks_per_core(&f.events, &f.layouts, &f.last_use));
        per_core.push(start.elapsed());
    }
    let (a, p) = (median(alone), median(per_core));
    println!(
        "reading the events: {:.1} ms; the walk: {:.2} ms alone, {:.2} ms with every core ({:.2}×)",
        read.as_secs_f64() * 1e3,
        a.as_secs_f64() * 1e3,
        p.as_secs_f64() * 1e3,
        p.as_secs_f64() / a.as_secs_f64().max(1e-9)
    );
}
