//! Benchmark of the true per-operation peak and of `headroom` against `--peak`'s usage pass
//! (issue 31 "Speed": at most 1.5× and 2×), and of `--peak`'s answer as it now reads (the usage
//! pass's sums and the true peak's events from one read of `buffers`).
//!
//! ```sh
//! cargo build --release --examples
//! ./target/release/examples/gen_report --ops 20000 --buffers-per-op 100 --memory /tmp/peak-20k
//! ./target/release/examples/bench_peak /tmp/peak-20k
//! BENCH_RUNS=1 ./target/release/examples/bench_peak /work/bench/r/big-100m
//! ```
//!
//! In one run, on the same file, alternating them so each sees the same load, it times (median of
//! `BENCH_RUNS`, default 3, after one warm-up of each; wall and CPU time): the usage pass over all
//! of `buffers` with the peaks (what `--peak` read before the true peak), `--peak`'s answer
//! (`read_peaks`: the sums and the events in one read, then the true peaks), the run's events read
//! alone with every operation's true peak (`read_true_peaks`), and `read_headroom` (the events read
//! once, then every device and type searched in memory), and prints the ratios and what was found.
//!
//! Then `--peak`'s answer at 1 thread and at `BENCH_THREADS` (default the machine's cores), each
//! with every thread's CPU time (the calling thread, which folds the chunks in order, and each
//! pool worker): on a shared machine the wall-time ratio cannot be trusted, but the busiest
//! thread bounds it. The bound printed is the 1-thread CPU time over the least wall time the
//! N-thread run could take on N idle cores (its busiest thread's CPU time, or its CPU time
//! shared evenly, whichever is longer).

#[path = "common/timing.rs"]
mod timing;

use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::time::Duration;
use ttnn_tui::analysis::memory::usage::MemoryUsage;
use ttnn_tui::answer::{read_headroom, read_peaks, read_true_peaks};
use ttnn_tui::report::{MemoryReport, resolve_report};

fn ms(d: Duration) -> String {
    format!("{:.0} ms", d.as_secs_f64() * 1000.0)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [folder] = args.as_slice() else { panic!("usage: bench_peak REPORT_FOLDER") };
    if std::env::var_os("BENCH_THREADS_ONLY").is_none() {
        each_pass(folder);
    }
    threads_compared(folder);
}

/// `--peak`'s answer at 1 thread and at N, with each thread's CPU time and the bound on speedup.
fn threads_compared(folder: &str) {
    let source = resolve_report(Some(Path::new(folder))).expect("a report");
    let mut report = MemoryReport::open(&source, 0).expect("opens");
    let cores = std::env::var("BENCH_THREADS").ok().and_then(|t| t.parse().ok()).unwrap_or(report.threads());
    let runs = timing::runs(3);
    let mut medians = Vec::new();
    println!(
        "| `--peak`'s answer (median of {runs} by wall) | wall | CPU | caller | workers | busiest | floor on N cores |"
    );
    println!("| --- | ---: | ---: | ---: | --- | ---: | ---: |");
    for threads in [1, cores.max(2)] {
        report.set_threads(threads);
        drop(read_peaks(&report).expect("the run reads"));
        let mut samples: Vec<timing::ThreadCpu> =
            (0..runs).map(|_| timing::ThreadCpu::of(|| drop(read_peaks(&report).expect("the run reads"))).1).collect();
        samples.sort_by_key(|s| s.wall);
        let m = samples.swap_remove(samples.len() / 2);
        let workers: Vec<String> = m.workers.iter().map(|w| ms(*w)).collect();
        println!(
            "| {threads} thread(s) | {} | {} | {} | {} | {} | {} |",
            ms(m.wall),
            ms(m.total),
            ms(m.caller),
            if workers.is_empty() { "none".to_string() } else { workers.join(", ") },
            ms(m.busiest()),
            ms(m.floor_on(threads))
        );
        medians.push(m);
    }
    let (one, many) = (&medians[0], &medians[1]);
    let n = cores.max(2);
    println!(
        "{n} threads against 1: wall {:.2}× (this machine, shared); bound on an idle {n}-core machine {:.2}× \
         (1-thread CPU {} / busiest thread {} or CPU / {n} {}); total CPU / busiest thread {:.2}×",
        one.wall.as_secs_f64() / many.wall.as_secs_f64().max(1e-9),
        one.total.as_secs_f64() / many.floor_on(n).as_secs_f64().max(1e-9),
        ms(one.total),
        ms(many.busiest()),
        ms(many.total / n as u32),
        many.total.as_secs_f64() / many.busiest().as_secs_f64().max(1e-9),
    );
}

/// The four passes alternated, at the report's threads.
fn each_pass(folder: &str) {
    let source = resolve_report(Some(Path::new(folder))).expect("a report");
    let report = MemoryReport::open(&source, 0).expect("opens");
    let runs = timing::runs(3);
    let cancel = AtomicBool::new(false);
    let peak_pass = || {
        let mut usage = MemoryUsage::default();
        report.usage().read(&mut usage, &cancel, &mut |_| {}).expect("the pass reads");
        report.usage().peaks(&usage)
    };
    let peak_answer = || read_peaks(&report).expect("the run reads");
    let true_pass = || read_true_peaks(&report).expect("the events read");
    let headroom_pass = || read_headroom(&report).expect("the events read");
    let peaks = peak_pass();
    println!(
        "{} operations; {} after-operation peaks; {} threads; peak RSS: {}",
        report.operations.len(),
        peaks.len(),
        report.threads(),
        timing::peak_rss()
    );
    let t = true_pass();
    for p in &t.true_peak {
        println!(
            "true peak {:?} on device {}: {} B per bank inside operation {} (after it {} B)",
            p.buffer_type, p.device_id, p.peak_per_bank, p.operation_id, p.after_per_bank
        );
    }
    println!("peak RSS after the true-peak pass: {}", timing::peak_rss());
    let h = headroom_pass();
    for e in &h.headroom {
        println!(
            "headroom {:?} on device {}: {} B per bank (replay {:?})",
            e.buffer_type, e.device_id, e.per_bank, e.replay_check
        );
    }
    let one_read = report.passes().usage_and_run_facts().expect("the run reads").one_read;
    println!("peak RSS after headroom: {}; --peak reads buffers once: {one_read}", timing::peak_rss());
    drop(peak_answer());
    let mut samples: [Vec<(Duration, Duration)>; 4] = Default::default();
    for _ in 0..runs {
        let (_, w, c) = timing::wall_and_cpu(|| drop(peak_pass()));
        samples[0].push((w, c));
        let (_, w, c) = timing::wall_and_cpu(|| drop(peak_answer()));
        samples[1].push((w, c));
        let (_, w, c) = timing::wall_and_cpu(|| drop(true_pass()));
        samples[2].push((w, c));
        let (_, w, c) = timing::wall_and_cpu(|| drop(headroom_pass()));
        samples[3].push((w, c));
    }
    let medians: Vec<(Duration, Duration)> = samples
        .into_iter()
        .map(|s| {
            let (wall, cpu): (Vec<Duration>, Vec<Duration>) = s.into_iter().unzip();
            (timing::median(wall), timing::median(cpu))
        })
        .collect();
    let (base_wall, base_cpu) = medians[0];
    let ratio = |d: Duration, base: Duration| d.as_secs_f64() / base.as_secs_f64().max(1e-9);
    println!("| (median of {runs}) | wall | ratio | CPU | ratio |");
    println!("| --- | ---: | ---: | ---: | ---: |");
    let names = [
        "`--peak`'s usage pass (after-operation peaks)",
        "`--peak`'s answer: the sums and the events from one read, and the true peaks",
        "the true peak of every operation, its events read alone (target ≤ 1.5×)",
        "`headroom` (target ≤ 2×)",
    ];
    for (name, (wall, cpu)) in names.iter().zip(&medians) {
        println!(
            "| {name} | {} | {:.2}× | {} | {:.2}× |",
            ms(*wall),
            ratio(*wall, base_wall),
            ms(*cpu),
            ratio(*cpu, base_cpu)
        );
    }
}
