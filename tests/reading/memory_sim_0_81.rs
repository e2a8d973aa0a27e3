//! The memory at a failure on simulated runs of what real ttnn 0.81 writes (docs/rules/memory.md §1): a
//! single chip opened as a mesh (graph buffer nodes say 1, circular-buffer nodes 0, the tables 0
//! or 1), the failed operation's buffers freed inside `Tensor::deallocate` scopes, DRAM placed
//! from a reserved base. The simulation knows the truth; the library rebuilds it from the report.

use crate::support;

use support::sim::{DRAM_BANK, DRAM_BASE, Era, Mesh, Options, Sim, SimOp, Truth};
use support::{BufferType, ReadOnly, TempDir};
use ttnn_tui::analysis::memory::MemoryAtFailure;
use ttnn_tui::report::{FailureMemory, MemoryReport, resolve_report};

const L1: BufferType = BufferType::L1;
const DRAM: BufferType = BufferType::Dram;

fn mesh(tables: u64) -> Options {
    Options { mesh: Some(Mesh { tables }), ..Options::default() }
}

/// Weights, a chain leaving stale tensors, a deallocation; then an operation whose output does
/// not fit after its own temporary and first output.
fn run(options: Options) -> Sim {
    let mut sim = Sim::new(Era::Importer, options, 1);
    sim.weight("w", 0, L1, 131_072);
    sim.run(SimOp::new("ttnn.to_layout", "TilizeDeviceOperation").input("w").output("x", L1, 262_144));
    sim.run(SimOp::new("ttnn.matmul", "MatmulDeviceOperation").input("x").input("w").output("y", L1, 327_680));
    sim.deallocate("x");
    sim.run(SimOp::new("ttnn.add", "BinaryNgDeviceOperation").input("y").input("w").output("r", L1, 98_304));
    let failing = SimOp::new("ttnn.conv2d", "Conv2dDeviceOperation").input("r").temp(L1, 32_768);
    sim.fail(failing.output("h", L1, 65_536).output("c", L1, 720_896));
    sim
}

fn open(sim: &Sim) -> ReadOnly<MemoryReport> {
    let dir = TempDir::new("memory-sim-081");
    sim.report().write_to(dir.path());
    let report = ReadOnly::read(dir.path(), || MemoryReport::open(&resolve_report(Some(dir.path())).unwrap(), 0));
    report.unwrap().owning(dir)
}

fn memory(sim: &Sim) -> (MemoryAtFailure, Truth) {
    let truth = sim.truth.clone().unwrap();
    let report = open(sim);
    let index = report.operation_index(truth.operation_id).unwrap();
    match report.pictures().at_failure(index, None).unwrap() {
        FailureMemory::Found(m) => (*m, truth),
        other => panic!("no memory section: {other:?}"),
    }
}

/// The picture matches the truth: place, live buffers and holders, the allocator's figures.
fn assert_exact(m: &MemoryAtFailure, truth: &Truth) {
    assert_eq!((m.device_id, m.buffer_type.token()), (truth.device, truth.buffer_type.token()));
    let mut live: Vec<_> = m.live_buffers.iter().map(|b| (b.address, b.size_per_bank, b.tensor_id)).collect();
    live.sort_unstable();
    let want: Vec<_> = truth.live.iter().map(|b| (b.address, b.size, b.tensor)).collect();
    assert_eq!(live, want);
    for t in &truth.live {
        let b = m.live_buffers.iter().find(|b| b.address == t.address).unwrap();
        assert_eq!((b.is_this_operation(), b.input_of_operation, b.stale), (t.own, t.input, t.stale), "{t:?}");
    }
    assert_eq!(m.map.region.bounds(), Some(truth.region));
    assert_eq!((m.map.used_per_bank, m.map.largest_free_block), (truth.allocated, Some(truth.largest_free)));
    assert_eq!(m.check.status.as_str(), "exact");
}

#[test]
fn an_l1_failure_on_a_chip_opened_as_a_mesh_reads_the_tables_device() {
    let sim = run(Options { no_failure_snapshot: true, ..mesh(0) });
    let (m, truth) = memory(&sim);
    assert_eq!(truth.device, 0);
    assert!(truth.live.iter().filter(|b| b.own).count() == 2);
    assert_eq!(m.basis.as_str(), "earlier_snapshot_and_graph");
    assert_exact(&m, &truth);
    // A single chip is one device to the user (issue 30 §4.5): no note on the ids its records use.
    assert_eq!((m.notes.as_slice(), m.named_device()), (&[][..], 0));
}

/// On a chip opened as a mesh the tables may name it by two ids, and an address is held under
/// one of them only: the recent tenants' walk back answers from the id that holds it
/// (docs/rules/memory.md §2, §4), the failed operation's own buffers at addresses no tensor ever
/// held included, without reading every tensor.
#[test]
fn the_recent_tenants_answer_for_a_chip_named_by_two_ids() {
    for tables in [0, 1] {
        let mut sim = Sim::new(Era::Importer, mesh(tables), 1);
        sim.run(SimOp::new("ttnn.from_torch", "CopyDeviceOperation").output("x", L1, 262_144));
        sim.run(SimOp::new("ttnn.relu", "UnaryDeviceOperation").input("x").output("y", L1, 327_680));
        sim.run(SimOp::new("ttnn.add", "BinaryNgDeviceOperation").input("y").output("r", L1, 98_304));
        let failing = SimOp::new("ttnn.conv2d", "Conv2dDeviceOperation").input("r").temp(L1, 32_768);
        sim.fail(failing.output("h", L1, 65_536).output("c", L1, 720_896));
        let truth = sim.truth.clone().unwrap();
        assert!(truth.live.iter().any(|b| b.own) && truth.live.iter().any(|b| b.stale), "{tables}");
        let report = open(&sim);
        let index = report.operation_index(truth.operation_id).unwrap();
        let FailureMemory::Found(m) = report.pictures().at_failure(index, None).unwrap() else { panic!("{tables}") };
        assert_exact(&m, &truth);
        assert!(!report.reads_every_tensor(), "{tables}");
    }
}

#[test]
fn the_after_failure_snapshot_adds_the_outputs_freed_in_tensor_deallocate_scopes() {
    let sim = run(mesh(0));
    let (m, truth) = memory(&sim);
    assert_eq!(m.basis.as_str(), "after_failure_snapshot");
    assert_exact(&m, &truth);
}

#[test]
fn buffers_unwound_without_a_record_are_live_at_the_failure() {
    for options in
        [Options { silent_unwinding: true, ..mesh(0) }, Options { silent_unwinding: true, ..Options::default() }]
    {
        let sim = run(options);
        let (m, truth) = memory(&sim);
        assert_eq!(m.basis.as_str(), "after_failure_snapshot");
        assert_exact(&m, &truth);
    }
}

#[test]
fn a_circular_buffer_clash_after_a_program_compiled_reads_the_mesh_s_rows() {
    let mut sim = Sim::new(Era::Importer, mesh(1), 1);
    sim.weight("w", 0, L1, 131_072);
    sim.run(SimOp::new("ttnn.to_layout", "TilizeDeviceOperation").input("w").output("x", L1, 262_144));
    sim.fail(SimOp::new("ttnn.softmax", "SoftmaxDeviceOperation").input("x").cbs(&[700_000, 500_000]));
    let (m, truth) = memory(&sim);
    assert_eq!((truth.device, m.device_id), (1, 1));
    let clash = m.circular_buffers.clone().unwrap();
    assert_eq!((Some(clash.region_end), clash.clashing.clone()), (truth.region_end, truth.clashing.clone()));
    assert_eq!(clash.circular_buffers.len(), 2);
    // The tables' id 1 stays the JSON's; text names the single chip device 0, without a note.
    assert_eq!((m.notes.as_slice(), m.named_device()), (&[][..], 0));
}

#[test]
fn the_dram_base_is_found_in_the_first_rows_after_its_buffer_is_gone() {
    let mut sim = Sim::new(Era::Importer, Options { no_failure_snapshot: true, ..mesh(0) }, 1);
    sim.weight("a", 0, DRAM, 100_000_000);
    sim.weight("w", 0, DRAM, 300_000_000);
    sim.run(SimOp::new("ttnn.to_layout", "TilizeDeviceOperation").input("a").output("x", DRAM, 200_000_000));
    sim.deallocate("a");
    sim.run(SimOp::new("ttnn.relu", "UnaryDeviceOperation").input("x").output("z", DRAM, 150_000_000));
    sim.fail(SimOp::new("ttnn.matmul", "MatmulDeviceOperation").input("z").input("w").output("o", DRAM, 450_000_000));
    let (m, truth) = memory(&sim);
    assert_eq!(truth.region, (DRAM_BASE, DRAM_BASE + DRAM_BANK));
    // The lowest address S0 holds is above the base: the first rows of `buffers` say where it is.
    assert!(truth.live.iter().all(|b| b.address > DRAM_BASE));
    assert_exact(&m, &truth);
}

#[test]
fn without_snapshots_the_dram_base_comes_from_the_replayed_graphs() {
    let mut sim = Sim::new(Era::GraphOnly, Options::default(), 1);
    sim.run(SimOp::new("ttnn.from_torch", "CopyDeviceOperation").output("a", DRAM, 100_000_000));
    sim.run(SimOp::new("ttnn.to_layout", "TilizeDeviceOperation").input("a").output("x", DRAM, 200_000_000));
    sim.deallocate("a");
    sim.run(SimOp::new("ttnn.relu", "UnaryDeviceOperation").input("x").output("z", DRAM, 150_000_000));
    sim.fail(SimOp::new("ttnn.matmul", "MatmulDeviceOperation").input("z").output("o", DRAM, 800_000_000));
    let truth = sim.truth.clone().unwrap();
    let report = open(&sim);
    let index = report.operation_index(truth.operation_id).unwrap();
    let cancel = std::sync::atomic::AtomicBool::new(false);
    let replay = report.graphs().graph_only_pass(&mut |_, _| {}, &cancel).unwrap().unwrap();
    let FailureMemory::Found(m) = report.pictures().at_failure(index, Some(&replay)).unwrap() else { panic!() };
    assert_eq!(m.basis.as_str(), "graph_only");
    // The first buffer, at the base, was freed before the failure: only the graphs show it.
    assert!(truth.live.iter().all(|b| b.address > DRAM_BASE));
    assert_exact(&m, &truth);
}

#[test]
fn the_chart_marks_a_failure_on_the_mesh_on_the_chip_s_line() {
    let sim = run(Options { no_failure_snapshot: true, ..mesh(0) });
    let truth = sim.truth.clone().unwrap();
    let report = open(&sim);
    let mut usage = ttnn_tui::analysis::memory::usage::MemoryUsage::default();
    report.usage().read(&mut usage, &std::sync::atomic::AtomicBool::new(false), &mut |_| {}).unwrap();
    let series = report.usage().series(&usage, 0, ttnn_tui::analysis::messages::failure::BufferType::L1);
    let marked: Vec<u64> = series.failures.iter().map(|&i| series.points[i].operation_id).collect();
    assert_eq!(marked, [truth.operation_id]);
}
