//! Benchmark of `ttnn-tui diff` (issue 24, "Speed"): the alignment of two runs' operation names,
//! and a whole comparison of two reports against the `--peak` passes it is measured by.
//!
//! ```sh
//! cargo build --release --example bench_diff
//! ./target/release/examples/bench_diff                      # the alignment only
//! ./target/release/examples/bench_diff BEFORE AFTER         # and a diff of two reports
//! ```
//!
//! The alignment is timed (median of `RUNS`, after a warm-up) on 200 000 operation names a side,
//! cycling through a transformer block's operations (`gen_report`'s cycle, `ttnn.deallocate`
//! among them): the same run with 2 000 `ttnn.deallocate` calls inserted at random places (a
//! `free-late` fix); with 1 000 operations replaced by another name; with 20 000 inserted; and
//! two unrelated runs (names drawn at random), where the search's budget takes over. Each case prints
//! the pairs found and the time.
//!
//! With two report folders (e.g. `gen_report --memory` outputs), it times once each: the two
//! `explain --peak` passes (`read_peaks`), each run's memory as `diff` reads it (`run_memory`:
//! the pass over `buffers` following each buffer's run, the chart lines, the late list), then
//! `diff` as the binary runs it (both reports opened and read, the failures, the alignment, the
//! text with the first new failure's block).

#[path = "common/timing.rs"]
mod timing;

use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};
use ttnn_tui::analysis::compare::Alignment;
use ttnn_tui::explain::{ExplainOptions, diff_reports, read_peaks};
use ttnn_tui::report::{MemoryReport, resolve_report};

const RUNS: usize = 5;
const OPERATIONS: usize = 200_000;

/// A transformer block's operations, as `gen_report` cycles them, and the call a fix inserts.
const CYCLE: &[&str] = &[
    "ttnn.to_memory_config",
    "ttnn.conv2d",
    "ttnn.relu",
    "ttnn.add",
    "ttnn.layer_norm",
    "ttnn.linear",
    "ttnn.experimental.nlp_create_qkv_heads",
    "ttnn.matmul",
    "ttnn.softmax",
    "ttnn.deallocate",
    "ttnn.matmul",
    "ttnn.linear",
    "ttnn.deallocate",
    "ttnn.max_pool2d",
];
const DEALLOCATE: &str = "ttnn.deallocate";

/// A small deterministic generator (xorshift), so runs are reproducible.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

/// `count` deallocates inserted at random places.
fn inserted(run: &[&'static str], count: usize, rng: &mut Rng) -> Vec<&'static str> {
    let mut at: Vec<usize> = (0..count).map(|_| rng.below(run.len())).collect();
    at.sort_unstable();
    let mut out = Vec::with_capacity(run.len() + count);
    let mut next = at.iter().peekable();
    for (k, name) in run.iter().enumerate() {
        out.push(*name);
        while next.next_if(|&&a| a == k).is_some() {
            out.push(DEALLOCATE);
        }
    }
    out
}

fn time_alignment(case: &str, before: &[&str], after: &[&str]) {
    let mut pairs = 0;
    let median = timing::time(RUNS, || pairs = Alignment::new(before, after).pairs());
    println!(
        "align {case}: {} × {} operations, {pairs} pairs, {:.1} ms (median of {RUNS})",
        before.len(),
        after.len(),
        ms(median)
    );
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn alignments() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let run: Vec<&str> = (0..OPERATIONS).map(|k| CYCLE[k % CYCLE.len()]).collect();
    time_alignment("identical", &run, &run);
    time_alignment("2 000 deallocates inserted", &run, &inserted(&run, 2_000, &mut rng));
    let mut replaced = run.clone();
    for _ in 0..1_000 {
        let k = rng.below(replaced.len());
        replaced[k] = if replaced[k] == "ttnn.add" { "ttnn.multiply" } else { "ttnn.add" };
    }
    time_alignment("1 000 operations replaced", &run, &replaced);
    time_alignment("20 000 deallocates inserted", &run, &inserted(&run, 20_000, &mut rng));
    let random = |rng: &mut Rng| (0..OPERATIONS).map(|_| CYCLE[rng.below(CYCLE.len())]).collect::<Vec<_>>();
    let (a, b) = (random(&mut rng), random(&mut rng));
    time_alignment("two unrelated runs", &a, &b);
}

fn open(path: &Path) -> MemoryReport {
    let source = resolve_report(Some(path)).expect("a report");
    MemoryReport::open(&source, 0).expect("opens")
}

fn reports(before: &Path, after: &Path) {
    for path in [before, after] {
        let report = open(path);
        let start = Instant::now();
        read_peaks(&report).expect("reads");
        let operations = report.operations.len();
        println!("explain --peak {}: {operations} operations, {:.2} s", path.display(), start.elapsed().as_secs_f64());
    }
    for path in [before, after] {
        let report = open(path);
        let start = Instant::now();
        let memory = report.passes().run_memory(&AtomicBool::new(false), &mut |_| {}).expect("reads");
        let (late, lines) = (memory.late.late.len(), memory.series.len());
        let took = start.elapsed().as_secs_f64();
        println!("run_memory {}: {lines} lines, {late} tensors held past their last use, {took:.2} s", path.display());
    }
    let start = Instant::now();
    let (_, text) = diff_reports((before, after), 0, false, &ExplainOptions::default()).expect("diffs");
    println!("diff: {:.2} s, {} lines; it leads with:", start.elapsed().as_secs_f64(), text.lines().count());
    for line in text.lines().take(3) {
        println!("  {line}");
    }
}

fn main() {
    alignments();
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let [before, after] = args.as_slice() {
        reports(Path::new(before), Path::new(after));
    }
}
