//! Benchmark of the memory at a failure (docs/rules/memory.md) on generated reports.
//!
//! ```sh
//! cargo run --release --example gen_report -- --ops 100000 --buffers-per-op 100 --memory /work/bench/memory-100k
//! cargo run --release --example bench_memory -- /work/bench/memory-100k /work/bench/ttnn-100k
//! ```
//!
//! For each report it times (median of several runs after a warm-up): opening it; the first
//! memory section asked of a freshly opened report (what a first question costs: prepared
//! statements, and the report's tensor index when the tenants are not recent); then the memory
//! section of each failure
//! alone (the slowest is printed); every failure's section at once, as print mode asks for
//! them; the post-operation picture of an operation that did not fail (the terminal UI's tab
//! 4); and the graph-only pass over every captured graph (best of 3).

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};
use ttnn_tui::report::{FailureMemory, MemoryReport, resolve_report};

const RUNS: usize = 9;

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn time<T>(mut f: impl FnMut() -> T) -> Duration {
    f();
    median(
        (0..RUNS)
            .map(|_| {
                let start = Instant::now();
                std::hint::black_box(f());
                start.elapsed()
            })
            .collect(),
    )
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1000.0)
}

fn open(folder: &Path) -> MemoryReport {
    MemoryReport::open(&resolve_report(Some(folder)).unwrap(), 0).unwrap()
}

fn main() {
    let folders: Vec<PathBuf> = std::env::args().skip(1).map(PathBuf::from).collect();
    assert!(!folders.is_empty(), "usage: bench_memory REPORT_FOLDER...");
    println!(
        "| report | open | first section of a fresh report | one failure (slowest of them) | every failure at once | a completed operation's picture | graph-only pass |"
    );
    println!("| --- | ---: | ---: | ---: | ---: | ---: | ---: |");
    for folder in folders {
        let open_time = time(|| open(&folder));
        let report = open(&folder);
        let failed: Vec<usize> =
            (0..report.operations.len()).filter(|&i| report.error_of(i).is_some_and(|e| e.failure.is_some())).collect();
        let first_section = failed.first().map_or(Duration::ZERO, |&i| {
            median(
                (0..RUNS)
                    .map(|_| {
                        let fresh = open(&folder);
                        let start = Instant::now();
                        std::hint::black_box(fresh.pictures().at_failure(i, None).unwrap());
                        start.elapsed()
                    })
                    .collect(),
            )
        });
        let mut kinds = Vec::new();
        let one = failed
            .iter()
            .map(|&i| {
                let memory = report.pictures().at_failure(i, None).unwrap();
                kinds.push(match &memory {
                    FailureMemory::Found(m) => format!("{} {}", m.basis.as_str(), m.check.status.as_str()),
                    other => format!("{other:?}"),
                });
                time(|| report.pictures().at_failure(i, None).unwrap())
            })
            .max()
            .unwrap_or_default();
        let all = time(|| report.pictures().at_failures(&failed, None).unwrap());
        let completed = failed.first().map_or(0, |&i| i.saturating_sub(1));
        let picture = time(|| report.pictures().after_operation(completed, None).unwrap());
        let pass = (0..3)
            .map(|_| {
                let start = Instant::now();
                report.graphs().graph_only_pass(&mut |_, _| {}, &AtomicBool::new(false)).unwrap();
                start.elapsed()
            })
            .min()
            .unwrap();
        println!(
            "| {} | {} | {} | {} | {} | {} | {} |",
            folder.display(),
            ms(open_time),
            ms(first_section),
            ms(one),
            ms(all),
            ms(picture),
            ms(pass)
        );
        eprintln!("{}: {} failures: {}", folder.display(), failed.len(), kinds.join(", "));
    }
}
