//! Benchmark of the true per-operation peak and of `headroom` against `--peak`'s usage pass
//! (issue 31 "Speed": at most 1.5× and 2×).
//!
//! ```sh
//! cargo build --release --examples
//! ./target/release/examples/gen_report --ops 20000 --buffers-per-op 100 --memory /tmp/peak-20k
//! ./target/release/examples/bench_peak /tmp/peak-20k
//! ```
//!
//! In one run, on the same file, alternating them so each sees the same load, it times (median of
//! `RUNS`, after one warm-up of each): the usage pass over all of `buffers` with the peaks (what
//! `--peak` read before the true peak), the run's events read once with every operation's true
//! peak (`read_true_peaks`), and `read_headroom` (the events read once, then every device and
//! type searched in memory), and prints the ratios and what was found.

#[path = "common/timing.rs"]
#[allow(dead_code)]
mod timing;

use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};
use ttnn_tui::analysis::memory::usage::MemoryUsage;
use ttnn_tui::answer::{read_headroom, read_true_peaks};
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
    let [folder] = args.as_slice() else { panic!("usage: bench_peak REPORT_FOLDER") };
    let source = resolve_report(Some(Path::new(folder))).expect("a report");
    let report = MemoryReport::open(&source, 0).expect("opens");
    let cancel = AtomicBool::new(false);
    let peak_pass = || {
        let mut usage = MemoryUsage::default();
        report.usage().read(&mut usage, &cancel, &mut |_| {}).expect("the pass reads");
        report.usage().peaks(&usage)
    };
    let true_pass = || read_true_peaks(&report).expect("the events read");
    let headroom_pass = || read_headroom(&report).expect("the events read");
    let peaks = peak_pass();
    println!("{} operations; {} after-operation peaks; peak RSS: {}", report.operations.len(), peaks.len(), peak_rss());
    let t = true_pass();
    for p in &t.true_peak {
        println!(
            "true peak {:?} on device {}: {} B per bank inside operation {} (after it {} B)",
            p.buffer_type, p.device_id, p.peak_per_bank, p.operation_id, p.after_per_bank
        );
    }
    println!("peak RSS after the true-peak pass: {}", peak_rss());
    let h = headroom_pass();
    for e in &h.headroom {
        println!(
            "headroom {:?} on device {}: {} B per bank (replay {:?})",
            e.buffer_type, e.device_id, e.per_bank, e.replay_check
        );
    }
    println!("peak RSS after headroom: {}", peak_rss());
    let (mut plain, mut truth, mut room) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..RUNS {
        let start = Instant::now();
        drop(peak_pass());
        plain.push(start.elapsed());
        let start = Instant::now();
        drop(true_pass());
        truth.push(start.elapsed());
        let start = Instant::now();
        drop(headroom_pass());
        room.push(start.elapsed());
    }
    let (p, t, r) = (timing::median(plain), timing::median(truth), timing::median(room));
    let ratio = |d: Duration| d.as_secs_f64() / p.as_secs_f64().max(1e-9);
    println!("| | time (median of {RUNS}) | ratio |");
    println!("| --- | ---: | ---: |");
    println!("| `--peak`'s usage pass (after-operation peaks) | {} | 1.00× |", ms(p));
    println!("| the true peak of every operation (target ≤ 1.5×) | {} | {:.2}× |", ms(t), ratio(t));
    println!("| `headroom` (target ≤ 2×) | {} | {:.2}× |", ms(r), ratio(r));
}
