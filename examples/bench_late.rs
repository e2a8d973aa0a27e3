//! Benchmark of where to free memory (issue 16) against the usage pass alone: the same pass over
//! all of `buffers` following each buffer's run, then the tensors at the runs' places, their
//! attribution and peak savings.
//!
//! ```sh
//! cargo build --release --examples
//! ./target/release/examples/bench_late /work/bench/late-100k
//! ```
//!
//! In one run, on the same file, alternating the two so both see the same load, it times
//! (median of `RUNS`, after one warm-up of each) `Usage::read` from a fresh
//! `MemoryUsage` and `MemoryReport::read_late`, and prints the ratio (target ≤ 1.5×) and what
//! was found.

#[path = "common/timing.rs"]
#[allow(dead_code)]
mod timing;

use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};
use ttnn_tui::analysis::memory::usage::MemoryUsage;
use ttnn_tui::report::{MemoryReport, resolve_report};

const RUNS: usize = 3;

fn ms(d: Duration) -> String {
    format!("{:.0} ms", d.as_secs_f64() * 1000.0)
}

/// Peak resident memory of this process so far, from /proc/self/status.
fn peak_rss() -> String {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status.lines().find(|l| l.starts_with("VmHWM:")).map_or("unknown".into(), |l| l[6..].trim().to_string())
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [folder] = args.as_slice() else { panic!("usage: bench_late REPORT_FOLDER") };
    let source = resolve_report(Some(Path::new(folder))).expect("a report");
    let report = MemoryReport::open(&source, 0).expect("opens");
    let cancel = AtomicBool::new(false);
    let usage_pass = || {
        let mut usage = MemoryUsage::default();
        report.usage().read(&mut usage, &cancel, &mut |_| {}).expect("the pass reads");
        usage
    };
    let late_pass = || report.read_late(&cancel, &mut |_| {}).expect("the pass reads");
    let runs_pass = || {
        let mut usage = MemoryUsage::with_runs();
        report.usage().read(&mut usage, &cancel, &mut |_| {}).expect("the pass reads");
        usage
    };
    let usage = usage_pass();
    println!("{} buffers rows, {} lines; peak RSS after the usage pass: {}", usage.rows, usage.sums.len(), peak_rss());
    let usage = runs_pass();
    let runs = usage.runs.as_ref().map_or(0, |r| r.runs().count());
    let start = Instant::now();
    let findings = report.late_findings(&usage).expect("the findings read");
    println!("{runs} runs of more than one snapshot; the findings alone took {} ms", start.elapsed().as_millis());
    let saving: u64 = findings.late.iter().map(|t| t.peak_saving_per_bank).max().unwrap_or(0);
    println!(
        "{} tensors held past their last use (biggest peak saving {saving} B); peak RSS after the late pass: {}",
        findings.late.len(),
        peak_rss()
    );
    let (mut alone, mut with_runs, mut with_late) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..RUNS {
        let start = Instant::now();
        drop(usage_pass());
        alone.push(start.elapsed());
        let start = Instant::now();
        drop(runs_pass());
        with_runs.push(start.elapsed());
        let start = Instant::now();
        drop(late_pass());
        with_late.push(start.elapsed());
    }
    let (a, r, l) = (timing::median(alone), timing::median(with_runs), timing::median(with_late));
    println!("| | time (median of {RUNS}) | ratio |");
    println!("| --- | ---: | ---: |");
    println!("| read_usage alone | {} | 1.00× |", ms(a));
    println!("| read_usage following each buffer's run | {} | {:.2}× |", ms(r), r.as_secs_f64() / a.as_secs_f64());
    println!(
        "| read_late (the same pass with runs, then the findings) | {} | {:.2}× |",
        ms(l),
        l.as_secs_f64() / a.as_secs_f64()
    );
}
