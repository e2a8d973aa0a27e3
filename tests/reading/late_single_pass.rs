//! `free-late` at every failure in one replay per device (`Late::at_failures`)
//! gives each failure the answer its own replay gives (`Late::at_failures_one_by_one`, what
//! `ttnn-tui whatif --free-late` runs): on simulated runs with several failures on two devices,
//! in L1 and DRAM, with and without snapshots, and on every committed report.

use crate::support;

use std::path::{Path, PathBuf};
use support::sim::{Era, Options, Sim, SimOp};
use support::{BufferType, TempDir};
use ttnn_tui::report::memory::late::take_replays_from_memory;
use ttnn_tui::report::{MemoryReport, resolve_report};

const L1: BufferType = BufferType::L1;
const DRAM: BufferType = BufferType::Dram;

/// Both ways on one report; how many failures were replayed, and how many replays `list` gave
/// the run it recorded in its read (the others read the tables again, as `at_failures` does).
fn assert_single_pass_agrees(folder: &Path) -> (usize, usize) {
    let source = resolve_report(Some(folder)).expect("a report");
    let report = MemoryReport::open(&source, 0).expect("opens");
    take_replays_from_memory();
    let (findings, replay) = report.late().list().expect("the late list reads");
    let from_memory = take_replays_from_memory();
    let single = report.late().at_failures(&findings, replay.as_ref()).expect("one pass");
    let one_by_one = report.late().at_failures_one_by_one(&findings, replay.as_ref()).expect("one by one");
    assert_eq!(single, one_by_one, "{}", folder.display());
    assert_eq!(findings.failures, single, "the findings carry the single pass: {}", folder.display());
    (single.iter().filter(|f| f.answer.is_some()).count(), from_memory)
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
        let (replayed, from_memory) = assert_single_pass_agrees(dir.path());
        // Failures 2 and 3 of a device fork the replay that answered its first.
        assert!(replayed >= 4, "{era:?}: {replayed} failures replayed");
        // With snapshots, one read records the run for both devices' replays.
        let recorded = if era == Era::GraphOnly { 0 } else { 2 };
        assert_eq!(from_memory, recorded, "{era:?}: replays given the recorded run");
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
    let (replayed, from_memory) = folders
        .iter()
        .map(|f| assert_single_pass_agrees(f))
        .fold((0, 0), |(r, m), (replayed, from_memory)| (r + replayed, m + from_memory));
    assert!(replayed >= 3, "{replayed} failures replayed over every report");
    assert!(from_memory >= 5, "{from_memory} replays given the recorded run over every report");
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

/// `explain --peak --json` and `explain --late --json` as the front end builds them (the
/// operations' entries built while the run is read on the worker pool, `read_peaks_beside`,
/// `read_late_beside`; the late list's replays given their operations from the run recorded in
/// that read) are the documents built one part after the other, the replays reading the tables
/// again: at 1, 2 and 3 threads, in chunks of 64 rowids.
#[test]
fn the_entries_built_beside_the_pass_give_the_same_documents() {
    use ttnn_tui::explain::{ExplainOptions, collect, read_late_beside, read_peaks_beside, render_json};
    let dir = TempDir::new("beside");
    long_run(120).report().write_to(dir.path());
    let source = resolve_report(Some(dir.path())).expect("a report");
    let options = ExplainOptions::default();
    let document = |threads: usize, late: bool| {
        let mut report = MemoryReport::open(&source, 0).expect("opens");
        report.set_threads(threads);
        report.set_pass_chunk(64);
        let mut explanation = collect(&report, None, &options).expect("collects");
        let mut ahead = None;
        let mut first = || ahead = Some(explanation.entries_ahead(&report, &options));
        match late {
            false => explanation.peaks = Some(read_peaks_beside(&report, &mut first).expect("the run reads")),
            true => explanation.late = Some(read_late_beside(&report, &mut first).expect("the run reads")),
        }
        let built = ahead.as_ref().map(Vec::len);
        if let Some(entries) = ahead {
            explanation.keep_entries(entries);
        }
        (render_json(&report, &explanation, &options), built)
    };
    // The parts one after the other: the entries as they are written, the replays from the tables.
    let apart = |late: bool| {
        let mut report = MemoryReport::open(&source, 0).expect("opens");
        report.set_threads(1);
        let mut explanation = collect(&report, None, &options).expect("collects");
        match late {
            false => explanation.peaks = Some(ttnn_tui::answer::read_peaks(&report).expect("peaks")),
            true => {
                let (mut findings, graph_pass) = report.late().list().expect("the late list");
                findings.failures = report.late().at_failures(&findings, graph_pass.as_ref()).expect("replays");
                let ids: Vec<u64> = findings.late.iter().map(|t| t.tensor_id).collect();
                let lifetimes = report.late().lifetimes(&ids).expect("lifetimes");
                findings.lifetime = ttnn_tui::analysis::memory::late::check_lifetimes(&findings.late, &lifetimes);
                explanation.late = Some(ttnn_tui::answer::LateAnswer::new(&report, &findings));
            }
        }
        render_json(&report, &explanation, &options)
    };
    for late in [false, true] {
        let one = apart(late);
        assert!(one.contains("\"memory\"") && one.contains(if late { "\"late_failures\"" } else { "\"true_peak\"" }));
        for threads in [1, 2, 3] {
            take_replays_from_memory();
            let (beside, built) = document(threads, late);
            // At one thread nothing runs beside the pass: the entries are built as they are written.
            assert_eq!(built.is_some_and(|n| n >= 3), threads > 1, "entries built beside the pass: {built:?}");
            assert_eq!(beside, one, "late {late}, {threads} threads");
            if late {
                assert_eq!(take_replays_from_memory(), 1, "the replay was given the recorded run");
            }
        }
    }
}
