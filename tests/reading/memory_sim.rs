//! The memory at a failure on simulated runs, for every writer era of docs/rules/memory.md §1: what the
//! simulation knew when the operation failed against what the library rebuilds from the
//! report the run left.

use crate::support;

use support::sim::{Era, Options, Sim, SimOp, Truth};
use support::{BufferType, ReadOnly, TempDir};
use ttnn_tui::analysis::memory::MemoryAtFailure;
use ttnn_tui::report::{FailureMemory, MemoryReport, resolve_report};

const L1: BufferType = BufferType::L1;

/// A small model on device `d`: a weight in L1, a chain of operations leaving stale tensors,
/// a `ttnn.deallocate`, then an operation whose output does not fit after its own temporary.
fn chain(sim: &mut Sim, d: u64) {
    sim.weight("w", d, L1, 131_072);
    sim.run(SimOp::new("ttnn.to_layout", "TilizeDeviceOperation").on(d).input("w").output("x", L1, 262_144));
    let matmul = SimOp::new("ttnn.matmul", "MatmulDeviceOperation").on(d).input("x").input("w");
    sim.run(matmul.temp(L1, 65_536).output("y", L1, 327_680));
    sim.run(SimOp::new("ttnn.relu", "UnaryDeviceOperation").on(d).input("y").output("z", L1, 196_608));
    sim.deallocate("x");
    sim.run(SimOp::new("ttnn.add", "BinaryNgDeviceOperation").on(d).input("z").input("w").output("r", L1, 98_304));
}

fn model(era: Era, options: Options) -> Sim {
    let mut sim = Sim::new(era, options, 1);
    chain(&mut sim, 0);
    sim.fail(failing(0));
    sim
}

fn failing(d: u64) -> SimOp {
    SimOp::new("ttnn.conv2d", "Conv2dDeviceOperation").on(d).input("r").temp(L1, 32_768).output("c", L1, 720_896)
}

/// The written report, opened; dropping it checks the folder was left byte for byte as it was.
fn open(sim: &Sim) -> ReadOnly<MemoryReport> {
    let dir = TempDir::new("memory-sim");
    sim.report().write_to(dir.path());
    let report = ReadOnly::read(dir.path(), || MemoryReport::open(&resolve_report(Some(dir.path())).unwrap(), 0));
    report.unwrap().owning(dir)
}

fn memory(report: &MemoryReport, truth: &Truth) -> FailureMemory {
    let index = report.operation_index(truth.operation_id).unwrap();
    report.pictures().at_failure(index, None).unwrap()
}

fn found(m: FailureMemory) -> MemoryAtFailure {
    match m {
        FailureMemory::Found(m) => *m,
        other => panic!("no memory section: {other:?}"),
    }
}

/// (address, size, tensor, stale) of the live buffers, by address.
fn live(m: &MemoryAtFailure) -> Vec<(u64, u64, Option<u64>, bool)> {
    let mut v: Vec<_> = m.live_buffers.iter().map(|b| (b.address, b.size_per_bank, b.tensor_id, b.stale)).collect();
    v.sort_unstable();
    v
}

fn truth_live(t: &Truth) -> Vec<(u64, u64, Option<u64>, bool)> {
    t.live.iter().map(|b| (b.address, b.size, b.tensor, b.stale)).collect()
}

#[test]
fn decorator_with_errors_rebuilds_the_moment_exactly() {
    let sim = model(Era::DecoratorWithErrors, Options::default());
    let truth = sim.truth.clone().unwrap();
    let report = open(&sim);
    let m = found(memory(&report, &truth));
    assert_eq!(m.basis.as_str(), "after_failure_snapshot");
    assert_eq!(m.map.region.bounds(), Some(truth.region));
    assert!(
        truth.live.iter().any(|b| b.stale) && truth.live.iter().any(|b| b.own) && truth.live.iter().any(|b| b.input)
    );
    assert_eq!(truth.to_free.as_ref().map(Vec::len), Some(2));
    assert_exact(&m, &truth);
}

/// The check, holders and advice of a picture that matches the allocator exactly.
fn assert_exact(m: &MemoryAtFailure, truth: &Truth) {
    assert_eq!((m.device_id, m.buffer_type.token()), (truth.device, truth.buffer_type.token()));
    assert_eq!(live(m), truth_live(truth));
    assert_eq!(m.map.used_per_bank, truth.allocated);
    assert_eq!(m.map.largest_free_block, Some(truth.largest_free));
    assert_eq!(m.check.status.as_str(), "exact");
    assert_eq!(m.fit.as_ref().ok().map(|f| f.free.clone()), truth.to_free);
    for (b, t) in m.live_buffers.iter().zip(&truth.live) {
        let b = m.live_buffers.iter().find(|x| x.address == t.address).unwrap_or(b);
        assert_eq!(
            (b.producer_operation_id, b.last_use_operation_id, b.input_of_operation),
            (t.producer, t.last_use, t.input),
            "{t:?}"
        );
        assert_eq!(b.is_this_operation(), t.own, "{t:?}");
    }
}

#[test]
fn the_importer_era_reads_the_same() {
    let sim = model(Era::Importer, Options::default());
    let truth = sim.truth.clone().unwrap();
    let report = open(&sim);
    assert_eq!(report.schema_version.as_deref(), Some("2.1"));
    let m = found(memory(&report, &truth));
    assert_eq!(m.basis.as_str(), "after_failure_snapshot");
    assert_exact(&m, &truth);
}

#[test]
fn before_the_errors_table_the_earlier_snapshot_misses_the_operation_s_own_buffers() {
    let sim = model(Era::DecoratorBeforeErrors { errors_table: true }, Options::default());
    let truth = sim.truth.clone().unwrap();
    let report = open(&sim);
    let m = found(memory(&report, &truth));
    assert_eq!((m.basis.as_str(), m.snapshot_operation_id), ("earlier_snapshot", Some(truth.operation_id - 1)));
    let mut without_own: Vec<_> =
        truth.live.iter().filter(|b| !b.own).map(|b| (b.address, b.size, b.tensor, b.stale)).collect();
    without_own.sort_unstable();
    assert_eq!(live(&m), without_own);
    // The allocator also counted the temporary the operation held when it failed.
    let own: u64 = truth.live.iter().filter(|b| b.own).map(|b| b.size).sum();
    assert!(own > m.check.tolerance);
    assert_eq!(m.check.status.as_str(), "under_counted");
    assert_eq!(m.check.allocated.unwrap() - m.map.used_per_bank, own);
}

#[test]
fn without_an_errors_table_there_is_nothing_to_explain() {
    let sim = model(Era::DecoratorBeforeErrors { errors_table: false }, Options::default());
    let truth = sim.truth.clone().unwrap();
    let report = open(&sim);
    assert!(report.errors.is_empty());
    assert_eq!(memory(&report, &truth), FailureMemory::Absent);
}

#[test]
fn graph_only_replays_every_graph_once() {
    let sim = model(Era::GraphOnly, Options::default());
    let truth = sim.truth.clone().unwrap();
    let report = open(&sim);
    assert_eq!(memory(&report, &truth), FailureMemory::NeedsReplay);
    let cancel = std::sync::atomic::AtomicBool::new(true);
    assert_eq!(report.graphs().graph_only_pass(&mut |_, _| {}, &cancel).unwrap(), None);
    let mut calls = Vec::new();
    let cancel = std::sync::atomic::AtomicBool::new(false);
    let replay =
        report.graphs().graph_only_pass(&mut |done, total| calls.push((done, total)), &cancel).unwrap().unwrap();
    assert_eq!(calls.last(), Some(&(6, 6)));
    assert_eq!(replay.graphs, 6);
    let index = report.operation_index(truth.operation_id).unwrap();
    let m = found(report.pictures().at_failure(index, Some(&replay)).unwrap());
    assert_eq!(m.basis.as_str(), "graph_only");
    // The weight was placed before any recorded operation: no graph shows it.
    let weight = sim.tensor("w");
    let mut seen: Vec<_> = truth
        .live
        .iter()
        .filter(|b| b.address != weight.address)
        .map(|b| (b.address, b.size, b.tensor, b.stale))
        .collect();
    seen.sort_unstable();
    assert_eq!(live(&m), seen);
    assert_eq!(m.check.allocated.unwrap() - m.map.used_per_bank, weight.per_bank);
    assert_eq!(m.check.status.as_str(), "under_counted");
    // The bytes used after each operation: after ttnn.add, x is gone and r is there.
    let after_add: Vec<u64> = replay.usage.iter().filter(|u| u.operation_id == 5).map(|u| u.used_per_bank).collect();
    assert_eq!(after_add, [327_680 + 196_608 + 98_304]);
}

#[test]
fn without_tensor_rows_only_the_graphs_name_holders() {
    let sim = model(Era::DecoratorWithErrors, Options { no_tensor_rows: true, ..Options::default() });
    let truth = sim.truth.clone().unwrap();
    let report = open(&sim);
    let m = found(memory(&report, &truth));
    // No `tensors` row places a tensor: a holder is named only where its producer's captured
    // graph ties it to its buffer (docs/rules/memory.md §4), and then it is the truth's; the rest have none.
    for b in &m.live_buffers {
        let seen = truth.live.iter().find(|t| t.address == b.address).unwrap();
        if b.tensor_id.is_some() {
            assert_eq!(
                (b.tensor_id, b.stale, b.input_of_operation),
                (seen.tensor, seen.stale, seen.input),
                "{}",
                b.address
            );
        } else {
            assert!(!b.stale && !b.input_of_operation);
        }
    }
    assert_eq!(m.check.status.as_str(), "exact");
    // Without holders nothing is pinned; the cheapest set is still the two stale tensors.
    assert_eq!(m.fit.as_ref().ok().map(|f| f.free.clone()), truth.to_free);
}

#[test]
fn without_a_devices_row_the_l1_region_is_unknown() {
    let sim = model(Era::DecoratorWithErrors, Options { no_devices_row: true, ..Options::default() });
    let truth = sim.truth.clone().unwrap();
    let report = open(&sim);
    let m = found(memory(&report, &truth));
    assert_eq!(live(&m), truth_live(&truth));
    assert_eq!((m.map.region.bounds(), m.map.largest_free_block), (None, None));
    assert_eq!(m.map.used_per_bank, truth.allocated);
    assert_eq!(m.check.status.as_str(), "unchecked");
    assert_eq!(m.fit, Err(ttnn_tui::analysis::memory::NoFit::RegionUnknown));
}

#[test]
fn two_devices_keep_their_own_maps() {
    let mut sim = Sim::new(Era::DecoratorWithErrors, Options::default(), 2);
    // Device 0 first, with other addresses; then the chain fails on device 1.
    sim.weight("v", 0, L1, 65_536);
    sim.run(SimOp::new("ttnn.embedding", "EmbeddingsDeviceOperation").input("v").output("e", L1, 200_000));
    chain(&mut sim, 1);
    sim.fail(failing(1));
    let truth = sim.truth.clone().unwrap();
    assert_eq!(truth.device, 1);
    let report = open(&sim);
    let m = found(memory(&report, &truth));
    assert_exact(&m, &truth);
}

#[test]
fn a_dram_failure_maps_dram_from_the_message() {
    const DRAM: BufferType = BufferType::Dram;
    let mut sim = Sim::new(Era::DecoratorWithErrors, Options::default(), 1);
    sim.weight("w", 0, DRAM, 300_000_000);
    sim.run(SimOp::new("ttnn.to_layout", "TilizeDeviceOperation").input("w").output("x", DRAM, 200_000_000));
    sim.run(SimOp::new("ttnn.matmul", "MatmulDeviceOperation").input("x").output("y", DRAM, 250_000_000));
    sim.deallocate("x");
    sim.run(SimOp::new("ttnn.relu", "UnaryDeviceOperation").input("y").output("z", DRAM, 150_000_000));
    sim.fail(SimOp::new("ttnn.matmul", "MatmulDeviceOperation").input("z").input("w").output("o", DRAM, 400_000_000));
    let truth = sim.truth.clone().unwrap();
    assert!(truth.to_free.is_some());
    let report = open(&sim);
    let m = found(memory(&report, &truth));
    assert_eq!(m.map.region.source.map(|s| s.as_str()), Some("message"));
    assert_eq!(
        m.map.region.bounds(),
        Some((support::sim::DRAM_BASE, support::sim::DRAM_BASE + support::sim::DRAM_BANK))
    );
    assert_exact(&m, &truth);
}

#[test]
fn a_circular_buffer_clash_names_the_l1_buffers_in_the_way() {
    let mut sim = Sim::new(Era::DecoratorWithErrors, Options::default(), 1);
    chain(&mut sim, 0);
    sim.fail(
        SimOp::new("ttnn.softmax", "SoftmaxDeviceOperation")
            .input("r")
            .output("p", L1, 100_000)
            .cbs(&[300_000, 300_000]),
    );
    let truth = sim.truth.clone().unwrap();
    let report = open(&sim);
    let m = found(memory(&report, &truth));
    assert_eq!(live(&m), truth_live(&truth));
    let c = m.circular_buffers.clone().unwrap();
    assert_eq!(Some(c.region_end), truth.region_end);
    assert_eq!(c.clashing, truth.clashing);
    assert_eq!(c.lowest_l1_address, truth.live.first().map(|b| b.address));
    assert_eq!(c.circular_buffers.len(), 2);
    assert!(c.clashing.len() >= 2);
}

#[test]
fn buffers_allocated_or_freed_outside_any_record_are_caught_by_the_snapshot() {
    let mut sim = Sim::new(Era::DecoratorWithErrors, Options::default(), 1);
    sim.weight("w", 0, L1, 131_072);
    sim.run(SimOp::new("ttnn.to_layout", "TilizeDeviceOperation").input("w").output("x", L1, 262_144));
    sim.outside_alloc("cache", 0, L1, 163_840);
    sim.run(SimOp::new("ttnn.matmul", "MatmulDeviceOperation").input("x").input("w").output("y", L1, 327_680));
    sim.outside_free("x");
    sim.run(SimOp::new("ttnn.add", "BinaryNgDeviceOperation").input("y").input("w").output("r", L1, 98_304));
    sim.fail(failing(0));
    let truth = sim.truth.clone().unwrap();
    let cache = sim.outside_address("cache");
    assert!(truth.live.iter().any(|b| b.address == cache && b.tensor.is_none()));
    let report = open(&sim);
    let m = found(memory(&report, &truth));
    assert_exact(&m, &truth);
}

#[test]
fn a_v2_message_is_explained_from_the_map() {
    let sim = model(Era::DecoratorWithErrors, Options { v2_message: true, ..Options::default() });
    let truth = sim.truth.clone().unwrap();
    let report = open(&sim);
    let m = found(memory(&report, &truth));
    assert_eq!(m.check.status.as_str(), "unchecked");
    assert_eq!(live(&m), truth_live(&truth));
    // Not enough free space: the region's free bytes are below the request.
    let need = truth.need.unwrap();
    assert!(truth.region.1 - truth.region.0 - truth.allocated < need);
    assert_eq!(m.reason.as_ref().map(|e| e.reason.label()), Some("Not enough free space"));
}

#[test]
fn a_v0_message_is_explained_from_the_map_beyond_the_reference() {
    // docs/rules/reference.md §13.3: no bank size and no free figures, so no reason from the message; the
    // L1 region comes from `devices`, and the map gives the reason (docs/rules/memory.md §5).
    let sim = model(Era::DecoratorWithErrors, Options { v0_message: true, ..Options::default() });
    let truth = sim.truth.clone().unwrap();
    let report = open(&sim);
    let failure = report.errors[0].failure.as_ref().expect("explained beyond the reference");
    let summary = ttnn_tui::analysis::messages::reason::summary(failure, false);
    assert!(summary.starts_with("Requested ") && !summary.contains("bank size"), "{summary}");
    assert!(ttnn_tui::analysis::messages::reason::explain(failure, false).is_none());
    let m = found(memory(&report, &truth));
    assert_eq!(m.map.region.bounds(), Some(truth.region));
    assert_eq!(m.check.status.as_str(), "unchecked");
    assert_eq!(live(&m), truth_live(&truth));
    assert_eq!(m.reason.as_ref().map(|e| e.reason.label()), Some("Not enough free space"));
}

/// Tenants are found among the link rows of the operations just before the failure; a weight
/// placed before the run and last used thousands of operations ago is found all the same (the
/// report's tensor index answers when the walk back gives up, past 2 048 operations).
#[test]
fn a_weight_used_long_ago_is_still_named() {
    let mut sim = Sim::new(Era::DecoratorWithErrors, Options::default(), 1);
    sim.weight("w", 0, L1, 131_072);
    sim.weight("a", 0, BufferType::Dram, 4096);
    sim.run(SimOp::new("ttnn.to_layout", "TilizeDeviceOperation").input("w").input("a").output("x", L1, 262_144));
    for k in 0..4100 {
        let (from, to) = if k % 2 == 0 { ("a", "b") } else { ("b", "a") };
        sim.run(
            SimOp::new("ttnn.relu", "UnaryDeviceOperation").input(from).output(to, BufferType::Dram, 4096).free(from),
        );
    }
    sim.run(SimOp::new("ttnn.add", "BinaryNgDeviceOperation").input("x").output("r", L1, 98_304));
    sim.fail(SimOp::new("ttnn.conv2d", "Conv2dDeviceOperation").input("r").temp(L1, 32_768).output("c", L1, 900_000));
    let truth = sim.truth.clone().unwrap();
    let weight = sim.tensor("w").id;
    assert!(truth.live.iter().any(|b| b.tensor == Some(weight) && b.last_use == Some(1)));
    let report = open(&sim);
    let m = found(memory(&report, &truth));
    assert_exact(&m, &truth);
    assert!(report.reads_every_tensor(), "the walk back cannot see the weight made before the run");
    // Asked again, the index built on the way answers the same.
    assert_eq!(found(memory(&report, &truth)), m);
}

/// A tensor the failed operation names by id (its input, its graph's tensor nodes) whose
/// production lies before the recent tenants' window — here a DRAM weight placed before the run
/// that an L1 failure reads — is read by id: the walk back still answers the live buffers'
/// holders, and the report never reads every tensor.
#[test]
fn a_tensor_the_failure_names_made_long_ago_is_read_by_id() {
    let mut sim = Sim::new(Era::DecoratorWithErrors, Options::default(), 1);
    sim.weight("k", 0, BufferType::Dram, 8192);
    sim.weight("a", 0, BufferType::Dram, 4096);
    for k in 0..4100 {
        let (from, to) = if k % 2 == 0 { ("a", "b") } else { ("b", "a") };
        sim.run(
            SimOp::new("ttnn.relu", "UnaryDeviceOperation").input(from).output(to, BufferType::Dram, 4096).free(from),
        );
    }
    sim.run(SimOp::new("ttnn.to_layout", "TilizeDeviceOperation").input("a").output("x", L1, 262_144));
    sim.run(SimOp::new("ttnn.add", "BinaryNgDeviceOperation").input("x").output("r", L1, 98_304));
    sim.fail(
        SimOp::new("ttnn.conv2d", "Conv2dDeviceOperation")
            .input("r")
            .input("k")
            .temp(L1, 32_768)
            .output("c", L1, 1_100_000),
    );
    let truth = sim.truth.clone().unwrap();
    assert!(truth.live.iter().any(|b| b.own) && truth.live.iter().any(|b| b.stale));
    let report = open(&sim);
    let m = found(memory(&report, &truth));
    assert_exact(&m, &truth);
    assert!(!report.reads_every_tensor());
}
