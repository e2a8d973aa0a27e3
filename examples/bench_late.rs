//! Benchmark of where to free memory (issue 16) against the usage pass alone: the same pass over
//! all of `buffers` following each buffer's run, then the tensors at the runs' places, their
//! attribution and peak savings.
//!
//! ```sh
//! cargo build --release --examples
//! ./target/release/examples/bench_late /work/bench/late-100k
//! ```
//!
//! In one run, on the same file, alternating them so all see the same load, it times (median of
//! `BENCH_RUNS`, default 3, after one warm-up of each) `Usage::read` from a fresh `MemoryUsage`,
//! the same pass following each buffer's run, `MemoryReport::read_late` (that pass, then the
//! tensors, attribution, savings and free-late at every failure), and the answers of
//! `explain --late` (`answer::read_late`) and `explain --peak` (`answer::read_peaks`, the usage
//! and the true peak) in wall and CPU time, and prints the ratios (issue 29: `--late` at most
//! 1.5× `--peak`) and what was found.

#[path = "common/timing.rs"]
mod timing;

use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};
use ttnn_tui::analysis::memory::usage::MemoryUsage;
use ttnn_tui::answer::{read_late, read_peaks};
use ttnn_tui::report::{MemoryReport, resolve_report};

fn ms(d: Duration) -> String {
    format!("{:.0} ms", d.as_secs_f64() * 1000.0)
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
    let late_pass = || report.late().read(&cancel, &mut |_| {}).expect("the pass reads");
    let runs_pass = || {
        let mut usage = MemoryUsage::with_runs();
        report.usage().read(&mut usage, &cancel, &mut |_| {}).expect("the pass reads");
        usage
    };
    let usage = usage_pass();
    println!(
        "{} buffers rows, {} lines; peak RSS after the usage pass: {}",
        usage.rows,
        usage.sums.len(),
        timing::peak_rss()
    );
    let usage = runs_pass();
    let runs = usage.runs.as_ref().map_or(0, |r| r.runs().count());
    let start = Instant::now();
    let findings = report.late().findings(&usage).expect("the findings read");
    println!("{runs} runs of more than one snapshot; the findings alone took {} ms", start.elapsed().as_millis());
    let saving: u64 = findings.late.iter().map(|t| t.peak_saving_per_bank).max().unwrap_or(0);
    println!(
        "{} tensors held past their last use (biggest peak saving {saving} B); peak RSS after the late pass: {}",
        findings.late.len(),
        timing::peak_rss()
    );
    let start = Instant::now();
    let failures = report.late().at_failures(&findings, None).expect("the failures replay");
    println!(
        "of which at the {} failures (their memory, free-late replayed): {} ms",
        failures.len(),
        start.elapsed().as_millis()
    );
    let runs = timing::runs(3);
    let late_answer = || read_late(&report).expect("--late reads");
    let peak_answer = || read_peaks(&report).expect("--peak reads");
    let passes: [(&str, &dyn Fn()); 5] = [
        ("read_usage alone", &|| drop(usage_pass())),
        ("read_usage following each buffer's run", &|| drop(runs_pass())),
        ("read_late (the same pass with runs, then the findings)", &|| drop(late_pass())),
        ("`explain --peak`'s answer (the usage and the true peaks)", &|| drop(peak_answer())),
        ("`explain --late`'s answer (the late list, free-late at every failure)", &|| drop(late_answer())),
    ];
    for (_, pass) in &passes[3..] {
        pass();
    }
    let mut samples: Vec<Vec<(Duration, Duration)>> = vec![Vec::new(); passes.len()];
    for _ in 0..runs {
        for (k, (_, pass)) in passes.iter().enumerate() {
            let (_, wall, cpu) = timing::wall_and_cpu(pass);
            samples[k].push((wall, cpu));
        }
    }
    let medians: Vec<(Duration, Duration)> = samples
        .into_iter()
        .map(|s| {
            let (wall, cpu): (Vec<Duration>, Vec<Duration>) = s.into_iter().unzip();
            (timing::median(wall), timing::median(cpu))
        })
        .collect();
    let ratio = |d: Duration, base: Duration| d.as_secs_f64() / base.as_secs_f64().max(1e-9);
    println!("| (median of {runs}, {} threads) | wall | ratio | CPU | ratio |", report.threads());
    println!("| --- | ---: | ---: | ---: | ---: |");
    for ((name, _), (wall, cpu)) in passes.iter().zip(&medians) {
        let (bw, bc) = medians[0];
        println!("| {name} | {} | {:.2}× | {} | {:.2}× |", ms(*wall), ratio(*wall, bw), ms(*cpu), ratio(*cpu, bc));
    }
    let ((lw, lc), (pw, pc)) = (medians[4], medians[3]);
    println!(
        "`explain --late` against `explain --peak` (target ≤ 1.5×): {:.2}× wall, {:.2}× CPU",
        ratio(lw, pw),
        ratio(lc, pc)
    );
}
