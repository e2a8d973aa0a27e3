//! Benchmark of the memory-over-the-run pass (all of `buffers`) against SQLite's own `GROUP BY`,
//! and of a watch poll when nothing changed.
//!
//! ```sh
//! cargo build --release --examples
//! ./target/release/examples/bench_usage /work/bench/ttnn-100k
//! /usr/bin/time -v ./target/release/examples/bench_usage --pass-only /work/bench/ttnn-100k
//! ```
//!
//! In one run, on the same file, it times (median of `RUNS`, after one warm-up of each):
//! `Usage::read` from a fresh `MemoryUsage`; the same sums as SQLite computes them,
//! `SELECT operation_id, device_id, buffer_type, SUM(max_size_per_bank) FROM buffers GROUP BY
//! operation_id, device_id, buffer_type`, through rusqlite (the SQLite library ttnn-tui links,
//! read-only) and through the `sqlite3` command-line tool when it is installed (its own SQLite
//! version, process start included); then `poll_changes` on a watched report that nothing
//! writes. It prints the process's peak resident memory (VmHWM) after the pass, before the
//! `GROUP BY` runs, and how long a worker thread takes to stop once cancelled.
//! `--pass-only` runs one pass and nothing else, for `/usr/bin/time -v`.

#[path = "common/timing.rs"]
mod timing;

use rusqlite::{Connection, OpenFlags};
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};
use ttnn_tui::analysis::memory::usage::MemoryUsage;
use ttnn_tui::report::{MemoryReport, ReportError, resolve_report};
use ttnn_tui::tui::worker::{Update, no_waker};
use ttnn_tui::tui::{UsageOutput, UsagePass, start_worker};

const RUNS: usize = 5;
const GROUP_BY: &str = "SELECT operation_id, device_id, buffer_type, SUM(max_size_per_bank) FROM buffers \
                        GROUP BY operation_id, device_id, buffer_type";

fn time(f: impl FnMut()) -> Duration {
    timing::time(RUNS, f)
}

/// One whole pass; returns the sums and how many times progress was reported.
fn pass(report: &MemoryReport) -> (MemoryUsage, usize) {
    let mut usage = MemoryUsage::default();
    let mut calls = 0;
    report.usage().read(&mut usage, &AtomicBool::new(false), &mut |_| calls += 1).expect("the pass reads");
    (usage, calls)
}

/// SQLite's own GROUP BY through rusqlite: the number of groups.
fn group_by_rusqlite(db: &Path) -> usize {
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = Connection::open_with_flags(db, flags).expect("opens");
    let mut stmt = conn.prepare(GROUP_BY).expect("prepares");
    let mut rows = stmt.query([]).expect("runs");
    let mut groups = 0;
    while let Some(r) = rows.next().expect("steps") {
        let _: (i64, i64, i64) = (r.get(0).unwrap(), r.get(1).unwrap(), r.get(3).unwrap());
        groups += 1;
    }
    groups
}

/// The same GROUP BY through the sqlite3 tool, counting the groups; none when not installed.
fn group_by_cli(db: &Path) -> Option<usize> {
    let uri = format!("file:{}?mode=ro", db.display());
    let out = std::process::Command::new("sqlite3").arg(uri).arg(format!("{GROUP_BY};")).output().ok()?;
    out.status.success().then(|| out.stdout.iter().filter(|b| **b == b'\n').count())
}

fn ms(d: Duration) -> String {
    format!("{:.0} ms", d.as_secs_f64() * 1000.0)
}

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let pass_only = args.iter().any(|a| a == "--pass-only");
    args.retain(|a| a != "--pass-only");
    let [folder] = args.as_slice() else { panic!("usage: bench_usage [--pass-only] REPORT_FOLDER") };
    let source = resolve_report(Some(Path::new(folder))).expect("a report");
    let report = MemoryReport::open(&source, 0).expect("opens");
    if pass_only {
        let (usage, calls) = pass(&report);
        println!(
            "{} rows, {} lines, {calls} progress reports, peak RSS {}",
            usage.rows,
            usage.sums.len(),
            timing::peak_rss()
        );
        return;
    }
    let db = folder.to_string() + "/db.sqlite";
    let db = Path::new(&db);
    let (usage, calls) = pass(&report);
    let groups: usize = usage.sums.values().map(Vec::len).sum();
    println!("{} buffers rows, {groups} (operation, device, type) groups, {calls} progress reports", usage.rows);
    println!("peak RSS after one pass: {}", timing::peak_rss());
    let ours = time(|| drop(pass(&report)));
    assert_eq!(group_by_rusqlite(db), groups, "SQLite's GROUP BY finds the same groups");
    let theirs = time(|| {
        group_by_rusqlite(db);
    });
    println!("| | time | ratio to rusqlite's GROUP BY |");
    println!("| --- | ---: | ---: |");
    println!(
        "| read_usage (one pass, rowid order) | {} | {:.2}× |",
        ms(ours),
        ours.as_secs_f64() / theirs.as_secs_f64()
    );
    println!("| GROUP BY through rusqlite | {} | 1.00× |", ms(theirs));
    if let Some(cli_groups) = group_by_cli(db) {
        assert_eq!(cli_groups, groups, "sqlite3 finds the same groups");
        let cli = time(|| {
            group_by_cli(db);
        });
        println!(
            "| GROUP BY through the sqlite3 tool | {} | {:.2}× |",
            ms(cli),
            cli.as_secs_f64() / theirs.as_secs_f64()
        );
    }
    let mut latencies: Vec<Duration> = [0.05, 0.25, 0.5, 0.75, 0.9]
        .into_iter()
        .map(|fraction| {
            let mut worker = start_worker(UsagePass::new(MemoryUsage::default()), &report, 0, no_waker());
            loop {
                match worker.try_update() {
                    Some(Update::Progress { done, total }) if total > 0 && done as f64 / total as f64 >= fraction => {
                        break;
                    }
                    Some(Update::Progress { .. }) | None => std::thread::sleep(Duration::from_micros(200)),
                    Some(_) => panic!("the pass ended before {fraction} of it was read"),
                }
            }
            let start = Instant::now();
            worker.cancel();
            let Update::Done(UsageOutput { usage, read: result, .. }) = worker.wait() else {
                panic!("the pass answers")
            };
            let elapsed = start.elapsed();
            assert_eq!(result, Err(ReportError::Cancelled), "cancelled after {} rows", usage.rows);
            elapsed
        })
        .collect();
    latencies.sort();
    let latencies: Vec<String> = latencies.iter().map(|d| format!("{:.1} ms", d.as_secs_f64() * 1000.0)).collect();
    println!("cancel to result, worker thread, cancelled 5–90 % into the pass: {}", latencies.join(", "));
    let mut watched = MemoryReport::open_watched(&source, 0).expect("opens watched");
    let polls = 10_000;
    let start = Instant::now();
    for _ in 0..polls {
        assert!(watched.poll_changes().expect("polls").is_none());
    }
    println!("poll_changes, nothing changed: {:.1} µs a call", start.elapsed().as_secs_f64() * 1e6 / polls as f64);
}
