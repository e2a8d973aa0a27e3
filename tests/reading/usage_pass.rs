//! Memory over the run on real databases: the per-operation sums of all of `buffers` against
//! what the fixture wrote, progress, cancelling and resuming, the worker thread, ranks, and the
//! chart line a report gives (failures, carried figures, region ceiling).

use crate::support;

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use support::{Alloc, BufferRow, BufferType, Device, ErrorRow, Graph, Layout, Op, ReportBuilder, Schema, TempDir};
use ttnn_tui::analysis::memory::usage::MemoryUsage;
use ttnn_tui::analysis::memory::usage_series::{Ceiling, CeilingSource, UsageBasis};
use ttnn_tui::analysis::messages::failure::BufferType as Type;
use ttnn_tui::report::memory::usage::UsageProgress;
use ttnn_tui::report::{MemoryReport, ReportError, resolve_report};
use ttnn_tui::tui::worker::{Update, Worker, no_waker};
use ttnn_tui::tui::{RunOverTime, UsageOutput, UsagePass, start_worker};

const OOM_L1: &str = "TT_FATAL @ tt_metal/impl/allocator/bank_manager.cpp:486: false\ninfo:\nOut of Memory: Not enough space to allocate 3276800 B L1 buffer across 4 banks, where each bank needs to store 819200 B, but bank size is 1382720 B (allocated: 1000000 B, free: 382720 B, largest free block: 300000 B)\nbacktrace:\n --- build_Release/lib/libtt_metal.so(+0x570add) [0x7f0bc96eeadd]";

/// Operations with snapshots; the one after them fails.
const OPS: i64 = 600;
/// Buffers live after each operation.
const LIVE: usize = 120;
/// The operation whose snapshot holds device 0 only.
const DEVICE_0_ONLY: i64 = 300;
/// The `buffers` rows written: every live buffer after each operation, but device 1's half
/// after `DEVICE_0_ONLY`.
const ROWS: u64 = OPS as u64 * LIVE as u64 - LIVE as u64 / 2;

/// What the fixture wrote: the sum of `max_size_per_bank` per (operation, device, type code).
type Sums = BTreeMap<(u64, u64, i64), u64>;

/// A two-device run: each operation's snapshot lists `LIVE` buffers over DRAM, L1 and L1_SMALL
/// (device 1's types stored as names), two of which change size per operation; then operation
/// 601 fails to allocate L1 on device 1, without a snapshot, as the writers before the `errors`
/// table left it.
fn run() -> (ReportBuilder, Sums) {
    let types = [BufferType::Dram, BufferType::L1, BufferType::L1Small];
    let mut sizes: Vec<u64> = (0..LIVE as u64).map(|i| 2048 * (1 + i % 7)).collect();
    let mut seed = 0x2545_F491_4F6C_DD1Du64;
    let mut expected = Sums::new();
    let mut builder = ReportBuilder::new(Schema::V2).device(Device::wormhole(0)).device(Device::wormhole(1));
    for id in 1..=OPS {
        for _ in 0..2 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            sizes[(seed % LIVE as u64) as usize] = 32 * (1 + seed % 4096);
        }
        let mut rows = Vec::new();
        for (i, &size) in sizes.iter().enumerate() {
            let (device, ty) = ((i % 2) as u64, types[i % 3]);
            if device == 1 && id == DEVICE_0_ONLY {
                continue;
            }
            let row = BufferRow::new(ty, 1_000 + 100_000 * i as i64, size as i64).device(device as i64);
            rows.push(if device == 1 { row.text_type() } else { row });
            *expected.entry((id as u64, device, ty.code())).or_default() += size;
        }
        builder = builder.operation(Op::new(id, "ttnn.add").buffers(rows));
    }
    let graph = Graph::new()
        .capture_start()
        .start("ttnn.matmul")
        .start("MatmulDeviceOperation")
        .alloc(Alloc::new(65_536, 500_000, BufferType::L1, Layout::Interleaved).device(1))
        .aborted_end("MatmulDeviceOperation", Some("Out of Memory"))
        .aborted_end("ttnn.matmul", Some("Out of Memory"))
        .capture_end()
        .to_json();
    let builder = builder.operation(Op::new(OPS + 1, "ttnn.matmul").graph(graph)).error(ErrorRow::new(
        OPS + 1,
        "ttnn.matmul",
        "RuntimeError",
        OOM_L1,
    ));
    (builder, expected)
}

fn open(dir: &std::path::Path) -> MemoryReport {
    MemoryReport::open(&resolve_report(Some(dir)).unwrap(), 0).unwrap()
}

/// The run written to a fresh folder (kept while the returned `TempDir` lives) and opened.
fn opened_run(tag: &str) -> (TempDir, MemoryReport, Sums) {
    let dir = TempDir::new(tag);
    let (builder, expected) = run();
    builder.write_to(dir.path());
    let report = open(dir.path());
    (dir, report, expected)
}

/// One whole pass, never cancelled.
fn whole_pass(report: &MemoryReport) -> MemoryUsage {
    let mut usage = MemoryUsage::default();
    report.usage().read(&mut usage, &AtomicBool::new(false), &mut |_| {}).unwrap();
    usage
}

/// The sums of a pass, in the fixture's terms.
fn sums_of(usage: &MemoryUsage) -> Sums {
    let mut out = Sums::new();
    for ((device, ty), list) in &usage.sums {
        let code = [Type::Dram, Type::L1, Type::SystemMemory, Type::L1Small, Type::Trace].iter().position(|t| t == ty);
        for (op, sum) in list {
            out.insert((*op, *device, code.unwrap() as i64), *sum);
        }
    }
    out
}

#[test]
fn the_sums_are_what_was_written_and_progress_covers_the_rowid_range() {
    let (_dir, report, expected) = opened_run("usage-sums");
    let mut usage = MemoryUsage::default();
    let mut seen = Vec::new();
    report.usage().read(&mut usage, &AtomicBool::new(false), &mut |p| seen.push(p)).unwrap();
    assert_eq!(sums_of(&usage), expected);
    let rows = ROWS;
    assert_eq!((usage.rows, usage.unknown_type_rows), (rows, 0));
    // Rowids 1..=rows, read in chunks of 16 384: a first report at 0, then one per chunk.
    let chunks = rows.div_ceil(16_384);
    assert_eq!(seen.len() as u64, chunks + 1);
    assert_eq!(seen[0], UsageProgress { done: 0, total: rows });
    assert_eq!(seen[1], UsageProgress { done: 16_384, total: rows });
    assert_eq!(*seen.last().unwrap(), UsageProgress { done: rows, total: rows });
    assert!(seen.windows(2).all(|w| w[0].done < w[1].done));
}

#[test]
fn a_cancelled_pass_stops_at_a_chunk_and_resumes_without_counting_twice() {
    let (_dir, report, expected) = opened_run("usage-cancel");
    let cancel = AtomicBool::new(false);
    let mut usage = MemoryUsage::default();
    let result = report.usage().read(&mut usage, &cancel, &mut |p| {
        if p.done > 0 {
            cancel.store(true, Ordering::Relaxed);
        }
    });
    assert_eq!(result, Err(ReportError::Cancelled));
    assert_eq!(usage.rows, 16_384);
    assert_ne!(sums_of(&usage), expected);
    cancel.store(false, Ordering::Relaxed);
    let mut resumed = Vec::new();
    report.usage().read(&mut usage, &cancel, &mut |p| resumed.push(p)).unwrap();
    assert_eq!(sums_of(&usage), expected);
    assert_eq!(usage.rows, ROWS);
    let rest = ROWS - 16_384;
    assert_eq!(resumed.first(), Some(&UsageProgress { done: 0, total: rest }));
    assert_eq!(resumed.last(), Some(&UsageProgress { done: rest, total: rest }));
    // Nothing new: a third call reads nothing.
    let before = usage.clone();
    report.usage().read(&mut usage, &cancel, &mut |_| {}).unwrap();
    assert_eq!(usage, before);
}

#[test]
fn a_pass_cancelled_before_it_starts_reads_nothing() {
    let (_dir, report, _) = opened_run("usage-cancel-first");
    let mut usage = MemoryUsage::default();
    let result = report.usage().read(&mut usage, &AtomicBool::new(true), &mut |_| {});
    assert_eq!(result, Err(ReportError::Cancelled));
    assert_eq!(usage, MemoryUsage::default());
}

/// Waits for a worker's result, and the last progress it gave before it.
fn finish(worker: &mut Worker<UsageOutput>) -> (UsageOutput, UsageProgress) {
    let start = std::time::Instant::now();
    let mut last = UsageProgress::default();
    loop {
        match worker.try_update() {
            Some(Update::Done(done)) => return (done, last),
            Some(Update::Progress { done, total }) => last = UsageProgress { done, total },
            Some(Update::Lost) => panic!("the worker thread died"),
            None => std::thread::sleep(std::time::Duration::from_millis(5)),
        }
        assert!(start.elapsed().as_secs() < 60, "the worker never finished");
    }
}

#[test]
fn the_worker_thread_reads_the_same_sums_and_can_be_cancelled_and_resumed() {
    let (_dir, report, expected) = opened_run("usage-worker");
    let mut worker = start_worker(UsagePass::new(MemoryUsage::default()), &report, 0, no_waker());
    let (UsageOutput { usage, read: result, .. }, progress) = finish(&mut worker);
    assert_eq!(result, Ok(()));
    assert_eq!(sums_of(&usage), expected);
    assert_eq!(progress, UsageProgress { done: usage.rows, total: usage.rows }, "the last progress is complete");
    assert_eq!(worker.try_update(), None, "the result is given once");

    // Cancelled at once: the thread is still opening its connection, and stops before reading.
    let mut worker = start_worker(UsagePass::new(MemoryUsage::default()), &report, 0, no_waker());
    worker.cancel();
    let (UsageOutput { usage: partial, read: result, .. }, _) = finish(&mut worker);
    assert_eq!(result, Err(ReportError::Cancelled));
    assert!(partial.rows < usage.rows);
    let mut worker = start_worker(UsagePass::new(partial), &report, 0, no_waker());
    let (UsageOutput { usage: resumed, read: result, .. }, _) = finish(&mut worker);
    assert_eq!((sums_of(&resumed), result), (expected, Ok(())));
}

#[test]
fn the_chart_line_of_a_device_and_type() {
    let (_dir, report, expected) = opened_run("usage-series");
    let usage = whole_pass(&report);
    let series = report.usage().series(&usage, 1, Type::L1);
    assert_eq!((series.basis, series.points.len()), (UsageBasis::Snapshots, OPS as usize + 1));
    let l1 = |op: i64| expected[&(op as u64, 1, BufferType::L1.code())];
    let point = |op: i64| series.points[op as usize - 1];
    assert_eq!((point(1).used_per_bank, point(1).recorded), (Some(l1(1)), true));
    // Operation 300 did not touch device 1, and 601 failed without a snapshot: carried over.
    assert_eq!((point(DEVICE_0_ONLY).used_per_bank, point(DEVICE_0_ONLY).recorded), (Some(l1(299)), false));
    assert_eq!((point(OPS + 1).used_per_bank, point(OPS + 1).recorded), (Some(l1(OPS)), false));
    // The failure is on device 1 (its graph's allocation) and L1 (its message) only.
    assert_eq!(series.failures, vec![OPS as usize]);
    assert_eq!(report.usage().series(&usage, 0, Type::L1).failures, Vec::<usize>::new());
    assert_eq!(report.usage().series(&usage, 1, Type::Dram).failures, Vec::<usize>::new());
    let peak = (1..=OPS).filter(|&op| op != DEVICE_0_ONLY).max_by_key(|&op| (l1(op), -op)).unwrap();
    assert_eq!(series.peak_point().map(|p| (p.operation_id, p.used_per_bank)), Some((peak as u64, Some(l1(peak)))));
    // Wormhole: B = 1 364 928; L1_SMALL is [A+B, W) = [101 440 + 1 364 928, 1 499 136).
    assert_eq!(series.ceiling, Some(Ceiling { size: 1_364_928, source: CeilingSource::Devices }));
    let small = report.usage().series(&usage, 0, Type::L1Small).ceiling;
    assert_eq!(small, Some(Ceiling { size: 32_768, source: CeilingSource::Devices }));
    assert_eq!(report.usage().series(&usage, 0, Type::Dram).ceiling, None);
    let peaks = report.usage().peaks(&usage);
    assert_eq!(peaks.len(), 6);
    assert_eq!(
        peaks.iter().find(|p| (p.device_id, p.buffer_type) == (1, Type::L1)).map(|p| p.operation_id),
        Some(peak as u64)
    );
}

#[test]
fn a_multi_host_report_sums_the_rank_asked_for() {
    let dir = TempDir::new("usage-rank");
    let op = |rank: i64, size: i64| Op::new(1, "ttnn.add").rank(rank).buffers(vec![BufferRow::l1(1_000, size)]);
    ReportBuilder::new(Schema::MultiHost).operation(op(0, 100)).operation(op(1, 7)).write_to(dir.path());
    let usage = whole_pass(&MemoryReport::open(&resolve_report(Some(dir.path())).unwrap(), 1).unwrap());
    assert_eq!(usage.sums.get(&(0, Type::L1)), Some(&vec![(1, 7)]));
    assert_eq!(usage.rows, 1);
}

#[test]
fn a_report_without_buffers_gives_no_figures() {
    let dir = TempDir::new("usage-none");
    ReportBuilder::new(Schema::V2).without_table("buffers").operation(Op::new(1, "ttnn.add")).write_to(dir.path());
    let report = open(dir.path());
    let mut usage = MemoryUsage::default();
    let mut seen = Vec::new();
    report.usage().read(&mut usage, &AtomicBool::new(false), &mut |p| seen.push(p)).unwrap();
    assert_eq!((usage, seen), (MemoryUsage::default(), vec![UsageProgress { done: 0, total: 0 }]));
}

#[test]
fn a_report_can_move_to_a_worker_thread() {
    fn send<T: Send>(_: &T) {}
    send(&MemoryReport::open(&ttnn_tui::report::ReportSource::Demo, 0).unwrap());
}

#[test]
fn a_circular_buffer_larger_than_its_buffer_is_marked_on_the_l1_line_only() {
    let dir = TempDir::new("usage-cb-too-large");
    let cb = "Cannot set to globally allocated buffer. Circular buffer size 98304 B exceeds allocated L1 buffer bank size of 81920 B";
    ReportBuilder::new(Schema::V2)
        .device(Device::wormhole(0))
        .operation(
            Op::new(1, "ttnn.add").buffers(vec![BufferRow::l1(1_000_000, 4096), BufferRow::dram(2_000_000, 4096)]),
        )
        .operation(Op::new(2, "ttnn.add"))
        .error(ErrorRow::new(2, "ttnn.add", "RuntimeError", cb))
        .write_to(dir.path());
    let report = open(dir.path());
    let usage = whole_pass(&report);
    assert_eq!(report.usage().series(&usage, 0, Type::L1).failures, vec![1]);
    assert_eq!(report.usage().series(&usage, 0, Type::Dram).failures, Vec::<usize>::new());
}

#[test]
fn the_worker_finds_the_tensors_held_past_their_last_use_from_the_same_pass() {
    let report = MemoryReport::open(&ttnn_tui::report::ReportSource::Demo, 0).unwrap();
    let mut worker = start_worker(UsagePass::new(MemoryUsage::with_runs()), &report, 0, no_waker());
    let (UsageOutput { usage, read: result, run }, _) = finish(&mut worker);
    assert_eq!(result, Ok(()));
    let run = run.expect("the run over time, found on the worker");
    assert_eq!(run, RunOverTime::of_usage(&report, &usage), "what the pass finds in place");
    let late = run.late.expect("the late tensors read");
    assert_eq!(late, report.late().findings(&usage).unwrap());
    let ids: Vec<u64> = late.late.iter().filter(|t| t.buffer_type == Type::L1).map(|t| t.tensor_id).collect();
    assert_eq!(ids, vec![2004, 2007, 2008, 2022, 2021, 2020, 2016], "biggest peak saving first, as tab 5 lists them");
}
