//! `free-late` at every failure in one replay per device (`Late::at_failures`)
//! gives each failure the answer its own replay gives (`Late::at_failures_one_by_one`, what
//! `ttnn-tui whatif --free-late` runs): on simulated runs with several failures on two devices,
//! in L1 and DRAM, with and without snapshots, and on every committed report.

use crate::support;

use std::path::{Path, PathBuf};
use support::sim::{Era, Options, Sim, SimOp};
use support::{BufferType, TempDir};
use ttnn_tui::report::{MemoryReport, resolve_report};

const L1: BufferType = BufferType::L1;
const DRAM: BufferType = BufferType::Dram;

/// Both ways on one report; how many failures were replayed.
fn assert_single_pass_agrees(folder: &Path) -> usize {
    let source = resolve_report(Some(folder)).expect("a report");
    let report = MemoryReport::open(&source, 0).expect("opens");
    let (findings, replay) = report.late().list().expect("the late list reads");
    let single = report.late().at_failures(&findings, replay.as_ref()).expect("one pass");
    let one_by_one = report.late().at_failures_one_by_one(&findings, replay.as_ref()).expect("one by one");
    assert_eq!(single, one_by_one, "{}", folder.display());
    assert_eq!(findings.failures, single, "the findings carry the single pass: {}", folder.display());
    single.iter().filter(|f| f.answer.is_some()).count()
}

/// A block on device `d` that leaves tensors held past their last use, `k` distinguishing
/// the names of each repetition.
fn block(sim: &mut Sim, d: u64, k: usize) {
    let (a, h, h2, o) = (format!("a{k}"), format!("h{k}"), format!("h2{k}"), format!("o{k}"));
    sim.weight(&a, d, L1, 32_768);
    sim.run(SimOp::new("ttnn.matmul", "MatmulDeviceOperation").on(d).input(&a).input("w").output(&h, L1, 131_072));
    let add = SimOp::new("ttnn.add", "BinaryNgDeviceOperation").on(d).input(&h).input("w");
    sim.run(add.temp(L1, 16_384).output(&h2, L1, 65_536));
    sim.run(SimOp::new("ttnn.relu", "UnaryDeviceOperation").on(d).input(&h2).output(&o, DRAM, 1 << 20));
}

fn l1_failure(d: u64) -> SimOp {
    SimOp::new("ttnn.conv2d", "Conv2dDeviceOperation").on(d).input("w").temp(L1, 16_384).output("c", L1, 1_200_000)
}

fn dram_failure(d: u64) -> SimOp {
    SimOp::new("ttnn.concat", "ConcatDeviceOperation").on(d).input("w").output("big", DRAM, 1_072_000_000)
}

/// Several failures on two devices, each after more tensors are left held.
fn several_failures(era: Era) -> Sim {
    let mut sim = Sim::new(era, Options { stack_traces: true, ..Options::default() }, 2);
    for d in [0, 1] {
        sim.weight("w", d, L1, 65_536);
    }
    for k in 0..3 {
        block(&mut sim, 0, k);
        block(&mut sim, 1, k);
        sim.fail(l1_failure(0));
        sim.fail(l1_failure(1));
        if k == 1 {
            sim.fail(dram_failure(0));
        }
    }
    sim
}

#[test]
fn several_failures_on_two_devices_agree_in_every_era() {
    for era in [Era::Importer, Era::DecoratorWithErrors, Era::GraphOnly] {
        let dir = TempDir::new("late-single-pass");
        several_failures(era).report().write_to(dir.path());
        let replayed = assert_single_pass_agrees(dir.path());
        // Failures 2 and 3 of a device fork the replay that answered its first.
        assert!(replayed >= 4, "{era:?}: {replayed} failures replayed");
    }
}

#[test]
fn every_committed_report_agrees() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let mut folders: Vec<PathBuf> = Vec::new();
    for group in ["real", "rerun", "releases", "demo"] {
        let Ok(entries) = std::fs::read_dir(root.join(group)) else { continue };
        for e in entries.flatten() {
            let path = e.path();
            if path.join("db.sqlite").is_file() {
                folders.push(path);
            } else if let Ok(inner) = std::fs::read_dir(&path) {
                folders.extend(inner.flatten().map(|e| e.path()).filter(|p| p.join("db.sqlite").is_file()));
            }
        }
        if root.join(group).join("db.sqlite").is_file() {
            folders.push(root.join(group));
        }
    }
    assert!(folders.len() > 30, "{} reports found", folders.len());
    let replayed: usize = folders.iter().map(|f| assert_single_pass_agrees(f)).sum();
    assert!(replayed >= 3, "{replayed} failures replayed over every report");
}

/// A run long enough that its whole-run passes cross many chunk boundaries: `blocks` blocks on
/// each of two devices, failures between them.
fn long_run(blocks: usize) -> Sim {
    let mut sim = Sim::new(Era::Importer, Options { stack_traces: true, ..Options::default() }, 2);
    for d in [0, 1] {
        sim.weight("w", d, L1, 65_536);
    }
    for k in 0..blocks {
        block(&mut sim, 0, k);
        block(&mut sim, 1, k);
        // Held past their last use for two blocks, then deallocated: L1 never fills.
        if k >= 2 {
            for name in ["a", "h", "h2", "o"] {
                sim.deallocate(&format!("{name}{}", k - 2));
                sim.deallocate(&format!("{name}{}", k - 2));
            }
        }
        if k % 40 == 39 {
            sim.fail(l1_failure(k as u64 % 2));
        }
    }
    sim.fail(dram_failure(0));
    sim
}

/// The whole-run passes read `buffers` (and the free-late replay `captured_graph`) in rowid
/// chunks on a pool of workers, merged in order (issue 29): at 1, 2 and 3 threads, in chunks of
/// 64 rowids, the usage pass's sums (with each buffer's run, added row by row; and alone, each
/// chunk summed on its worker and the parts added in order, which must give the row-by-row
/// sums), `--peak`, `--late` (with free-late replayed at each
/// failure), `whatif --free-late` at the last failure and `headroom` (each place searched on a
/// thread of its own) are the same as the one-thread pass.
#[test]
fn every_thread_count_gives_the_one_thread_answers() {
    let dir = TempDir::new("late-threads");
    long_run(120).report().write_to(dir.path());
    let source = resolve_report(Some(dir.path())).expect("a report");
    let answers = |threads: usize| {
        let mut report = MemoryReport::open(&source, 0).expect("opens");
        report.set_threads(threads);
        report.set_pass_chunk(64);
        let mut usage = ttnn_tui::analysis::memory::usage::MemoryUsage::with_runs();
        let never = std::sync::atomic::AtomicBool::new(false);
        report.usage().read(&mut usage, &never, &mut |_| {}).expect("the pass reads");
        let mut sums = ttnn_tui::analysis::memory::usage::MemoryUsage::default();
        report.usage().read(&mut sums, &never, &mut |_| {}).expect("the pass reads");
        let mut row_by_row = usage.clone();
        row_by_row.runs = None;
        assert!(sums == row_by_row, "the sums summed in parts at {threads} threads are the row-by-row sums");
        let peaks = serde_json::to_string(&ttnn_tui::answer::read_peaks(&report).expect("peaks")).unwrap();
        let late = serde_json::to_string(&ttnn_tui::answer::read_late(&report).expect("late")).unwrap();
        let last = (0..report.operations.len()).rev().find(|&i| report.error_of(i).is_some()).expect("a failure");
        let options = ttnn_tui::report::WhatIfOptions::default();
        let free_late = report.replays().what_if(last, &[ttnn_tui::analysis::memory::whatif::Fix::FreeLate], &options);
        let headroom = ttnn_tui::answer::read_headroom(&report).expect("headroom");
        (usage, peaks, late, format!("{:?}", free_late.expect("replays").answer), headroom)
    };
    let one = answers(1);
    assert!(one.0.rows > 64 * 20, "{} rows: the pass crosses many chunks", one.0.rows);
    assert!(one.2.contains("\"outcome\""), "free-late is replayed at the failures: {}", one.2);
    assert!(one.4.headroom.len() >= 2, "several places searched: {:?}", one.4.headroom);
    for threads in [2, 3] {
        let many = answers(threads);
        assert!(many.0 == one.0, "the sums and runs at {threads} threads");
        assert_eq!(many.1, one.1, "--peak at {threads} threads");
        assert_eq!(many.2, one.2, "--late at {threads} threads");
        assert_eq!(many.3, one.3, "whatif --free-late at {threads} threads");
        assert_eq!(many.4, one.4, "headroom (its places searched on {threads} threads)");
    }
}

/// `--peak` reads `buffers` once for its two questions (`Passes::usage_and_run_facts`):
/// the usage pass's sums and the run's events from one read are those of the two read apart
/// (`Usage::read`, then `run_facts`), at 1, 2 and 3 threads in chunks of 64 rowids, on runs
/// with and without snapshots, one device and two.
#[test]
fn peak_s_one_read_gives_the_usage_and_the_events_read_apart() {
    let mut one_device = Sim::new(Era::Importer, Options { stack_traces: true, ..Options::default() }, 1);
    one_device.weight("w", 0, L1, 65_536);
    for k in 0..3 {
        block(&mut one_device, 0, k);
    }
    one_device.fail(l1_failure(0));
    let runs = [("long", long_run(40)), ("one device", one_device), ("graphs only", several_failures(Era::GraphOnly))];
    for (name, sim) in runs {
        let dir = TempDir::new("peak-one-read");
        sim.report().write_to(dir.path());
        let source = resolve_report(Some(dir.path())).expect("a report");
        for threads in [1, 2, 3] {
            let mut report = MemoryReport::open(&source, 0).expect("opens");
            report.set_threads(threads);
            report.set_pass_chunk(64);
            let run = report.passes().usage_and_run_facts().expect("the run reads");
            let mut apart = ttnn_tui::analysis::memory::usage::MemoryUsage::default();
            let never = std::sync::atomic::AtomicBool::new(false);
            report.usage().read(&mut apart, &never, &mut |_| {}).expect("the pass reads");
            let facts = report.passes().run_facts().expect("the events read");
            let snapshots = apart.rows > 0;
            assert_eq!(run.one_read, snapshots, "{name}: one read exactly when there are buffers rows");
            assert!(run.usage == apart, "{name}, {threads} threads: the usage");
            let (one, two) = (&run.facts, &facts);
            let what = format!("{name}, {threads} threads");
            assert_eq!(one.events.events, two.events.events, "{what}: the events");
            assert_eq!(one.events.buffers, two.events.buffers, "{what}: the buffers");
            assert_eq!(one.events.operations, two.events.operations, "{what}: the operations");
            assert_eq!(one.events.core_sets, two.events.core_sets, "{what}: the core sets");
            assert_eq!((&one.layouts, &one.failures), (&two.layouts, &two.failures), "{what}: layouts, failures");
            assert_eq!(one.last_use, two.last_use, "{what}: last uses");
            assert!(!run.facts.events.events.is_empty(), "{name}: the events were read");
        }
    }
}

/// `explain --peak --json` as the front end builds it (the operations' entries built while the
/// run is read on the worker pool, `read_peaks_beside`) is the document built one part after
/// the other at one thread: at 1, 2 and 3 threads, in chunks of 64 rowids.
#[test]
fn the_entries_built_beside_the_pass_give_the_same_document() {
    use ttnn_tui::explain::{ExplainOptions, collect, read_peaks, read_peaks_beside, render_json};
    let dir = TempDir::new("beside");
    long_run(120).report().write_to(dir.path());
    let source = resolve_report(Some(dir.path())).expect("a report");
    let options = ExplainOptions::default();
    let document = |threads: usize, beside: bool| {
        let mut report = MemoryReport::open(&source, 0).expect("opens");
        report.set_threads(threads);
        report.set_pass_chunk(64);
        let mut explanation = collect(&report, None, &options).expect("collects");
        let mut ahead = None;
        let peaks = match beside {
            true => read_peaks_beside(&report, &mut || ahead = Some(explanation.entries_ahead(&report, &options))),
            false => read_peaks(&report),
        };
        explanation.peaks = Some(peaks.expect("the run reads"));
        let built = ahead.as_ref().map(Vec::len);
        if let Some(entries) = ahead {
            explanation.keep_entries(entries);
        }
        (render_json(&report, &explanation, &options), built)
    };
    let (one, _) = document(1, false);
    assert!(one.contains("\"true_peak\"") && one.contains("\"memory\""), "{one}");
    for threads in [1, 2, 3] {
        let (beside, built) = document(threads, true);
        assert!(built.is_some_and(|n| n >= 3), "the entries were built beside the pass: {built:?}");
        assert_eq!(beside, one, "--peak at {threads} threads, entries built beside the pass");
    }
}
