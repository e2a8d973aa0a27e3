//! Where to free memory (issue 16) on simulated runs: `explain --late --json` against what the
//! simulation knows — every tensor it kept past its last use, until when, and what freeing it
//! there (or all of them) takes off the peak of its device and buffer type.

use crate::cli;
use crate::support;

use cli::run;
use serde_json::Value;
use support::sim::{Era, Mesh, Options, Sim, SimOp};
use support::{BufferType, TempDir};

const L1: BufferType = BufferType::L1;
const DRAM: BufferType = BufferType::Dram;

/// `explain --late --json` on the report the run left.
fn late_json(sim: &Sim) -> Value {
    let dir = TempDir::new("late-sim");
    sim.report().write_to(dir.path());
    let o = run(&["explain", "--late", "--json", dir.path().to_str().unwrap()], None);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).unwrap()
}

/// One `late` entry as a row, to compare without caring for the order of equal savings.
type Row = (u64, String, u64, u64, u64, Option<u64>, u64, u64, u64);

fn rows(value: &Value) -> Vec<Row> {
    let u = |v: &Value| v.as_u64().unwrap();
    let mut out: Vec<Row> = value["late"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                u(&e["device_id"]),
                e["buffer_type"].as_str().unwrap().to_string(),
                u(&e["address"]),
                u(&e["size_per_bank"]),
                u(&e["tensor_id"]),
                e["producer_operation_id"].as_u64(),
                u(&e["last_use_operation_id"]),
                u(&e["held_until_operation_id"]),
                u(&e["peak_saving_per_bank"]),
            )
        })
        .collect();
    out.sort();
    out
}

/// The JSON of a run equals the simulation's truth: the late list (and its order, biggest saving
/// first), each entry's shape and source line, and the summary of every line.
fn assert_late_truth(sim: &Sim) -> Value {
    let value = late_json(sim);
    let mut expected: Vec<Row> = sim
        .late_truth()
        .iter()
        .map(|t| {
            let kind = t.buffer_type.token().to_string();
            (t.device, kind, t.address, t.size, t.tensor, t.producer, t.last_use, t.held_until, t.peak_saving)
        })
        .collect();
    expected.sort();
    assert!(!expected.is_empty(), "a scenario with nothing held past its last use checks little");
    assert_eq!(rows(&value), expected);
    let late = value["late"].as_array().unwrap();
    let savings: Vec<u64> = late.iter().map(|e| e["peak_saving_per_bank"].as_u64().unwrap()).collect();
    assert!(savings.windows(2).all(|w| w[0] >= w[1]), "biggest peak saving first: {savings:?}");
    for e in late {
        let size = e["size_per_bank"].as_u64().unwrap();
        // The report's `Shape([n])`, written as the text writes it.
        assert_eq!(e["shape"], format!("[{size}]"));
        let line = 100 + e["last_use_operation_id"].as_u64().unwrap();
        let source = sim.options.stack_traces.then(|| format!("block.py:{line}"));
        assert_eq!(e["source"].as_str(), source.as_deref());
    }
    let mut summary: Vec<(u64, String, u64, u64)> = value["late_summary"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            let u = |k: &str| s[k].as_u64().unwrap();
            let kind = s["buffer_type"].as_str().unwrap().to_string();
            (u("device_id"), kind, u("peak_per_bank"), u("peak_if_all_freed_per_bank"))
        })
        .collect();
    summary.sort();
    let mut truth: Vec<(u64, String, u64, u64)> = sim
        .late_summary_truth()
        .into_iter()
        .map(|s| (s.device, s.buffer_type.token().to_string(), s.peak, s.peak_if_all_freed))
        .collect();
    truth.sort();
    assert_eq!(summary, truth);
    value
}

/// The JSON of a run equals the simulation's truth, the late list and summary
/// ([`assert_late_truth`]) and, at the failure, what freeing them all at their last use would
/// have done: the simulation re-run with each of them freed right after its last use
/// ([`fits_in_the_rerun`]) — the truth `free-late`'s replay must give.
fn assert_truth(sim: &Sim, script: &dyn Fn(&mut Sim), failing: Option<&SimOp>) {
    let value = assert_late_truth(sim);
    // Where the request lands. The simulation allocates no circular buffers, so the outcome may
    // be `unknown` for them (docs/rules/memory.md §9.3); `fits_if_all_freed` only where it lands.
    let at_failure: Vec<(u64, u64, Option<u64>)> = value["late_failures"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let fits = f["fits_if_all_freed"].as_bool().unwrap();
            assert!(!fits || f["address"].is_u64(), "{f}");
            (f["operation_id"].as_u64().unwrap(), f["held_past_last_use"].as_u64().unwrap(), f["address"].as_u64())
        })
        .collect();
    let expected: Vec<(u64, u64, Option<u64>)> = sim
        .truth
        .iter()
        .filter(|_| sim.era != Era::DecoratorBeforeErrors { errors_table: false })
        .filter(|t| t.need.is_some())
        .map(|t| {
            let stale = t.live.iter().filter(|b| b.stale).count() as u64;
            (t.operation_id, stale, rerun_placement(sim, script, failing.expect("the failing operation")))
        })
        .collect();
    assert_eq!(at_failure, expected);
}

/// The simulation run again with every tensor it held past its last use (on the failure's
/// device and buffer type, last used before the failure) freed right after that use: where the
/// request that failed lands now, when the failing operation's allocations up to it all fit.
fn rerun_placement(sim: &Sim, script: &dyn Fn(&mut Sim), failing: &SimOp) -> Option<u64> {
    let t = sim.truth.as_ref().expect("a failure");
    let mut rerun = Sim::new(sim.era, sim.options, sim.devices_count());
    for l in sim.late_truth() {
        if l.last_use < t.operation_id && (l.device, l.buffer_type) == (t.device, t.buffer_type) {
            rerun.free_after.entry(l.last_use).or_default().push(l.tensor);
        }
    }
    script(&mut rerun);
    let own = t.live.iter().filter(|b| b.own).count();
    let (mut l1, mut dram) = (rerun.allocator_copy(failing.device, L1), rerun.allocator_copy(failing.device, DRAM));
    let requests = failing.temps.iter().copied().chain(failing.outputs.iter().map(|o| (o.1, o.2)));
    let mut placed = None;
    for (bt, size) in requests.take(own + 1) {
        placed = Some(if bt == DRAM { dram.allocate(size) } else { l1.allocate(size) }?);
    }
    placed
}

/// A small model on device `d`: a weight, a chain of operations, a `ttnn.deallocate` long after
/// a tensor's last use, a buffer allocated and freed outside any record, a DRAM tensor.
fn model(sim: &mut Sim, d: u64) {
    sim.weight("w", d, L1, 65_536);
    sim.weight("a", d, L1, 32_768);
    sim.run(SimOp::new("ttnn.matmul", "MatmulDeviceOperation").on(d).input("a").input("w").output("h", L1, 262_144));
    let add = SimOp::new("ttnn.add", "BinaryNgDeviceOperation").on(d).input("h").input("w");
    sim.run(add.temp(L1, 16_384).output("h2", L1, 262_144));
    sim.run(SimOp::new("ttnn.relu", "UnaryDeviceOperation").on(d).input("h2").output("h3", L1, 524_288));
    sim.deallocate("h");
    sim.outside_alloc("cache", d, L1, 16_384);
    sim.run(SimOp::new("ttnn.to_memory_config", "CopyDeviceOperation").on(d).input("h3").output("s", DRAM, 1 << 20));
    sim.outside_free("cache");
    sim.run(SimOp::new("ttnn.softmax", "SoftmaxDeviceOperation").on(d).input("s").output("o", L1, 65_536).free("s"));
    sim.run(SimOp::new("ttnn.add", "BinaryNgDeviceOperation").on(d).input("o").input("w").output("p", L1, 32_768));
}

fn failing(d: u64) -> SimOp {
    SimOp::new("ttnn.conv2d", "Conv2dDeviceOperation").on(d).input("p").temp(L1, 32_768).output("c", L1, 1_200_000)
}

fn traced() -> Options {
    Options { stack_traces: true, ..Options::default() }
}

#[test]
fn every_writer_era_gives_the_simulation_s_truth() {
    for era in [
        Era::DecoratorWithErrors,
        Era::Importer,
        Era::DecoratorBeforeErrors { errors_table: true },
        Era::DecoratorBeforeErrors { errors_table: false },
    ] {
        let mut sim = Sim::new(era, traced(), 1);
        model(&mut sim, 0);
        sim.fail(failing(0));
        assert_truth(&sim, &|s| model(s, 0), Some(&failing(0)));
    }
}

#[test]
fn a_run_that_ends_without_a_failure_holds_them_to_its_last_operation() {
    let mut sim = Sim::new(Era::DecoratorWithErrors, traced(), 1);
    model(&mut sim, 0);
    assert_truth(&sim, &|s| model(s, 0), None);
}

#[test]
fn two_devices_keep_their_own_lists_and_peaks() {
    let mut sim = Sim::new(Era::Importer, traced(), 2);
    model(&mut sim, 0);
    model(&mut sim, 1);
    sim.fail(failing(1));
    let script = |s: &mut Sim| {
        model(s, 0);
        model(s, 1);
    };
    assert_truth(&sim, &script, Some(&failing(1)));
}

#[test]
fn without_stack_traces_there_is_no_source_line() {
    let mut sim = Sim::new(Era::DecoratorWithErrors, Options::default(), 1);
    model(&mut sim, 0);
    sim.fail(failing(0));
    assert_truth(&sim, &|s| model(s, 0), Some(&failing(0)));
}

#[test]
fn a_chip_opened_as_a_mesh_reads_the_same() {
    for tables in [0, 1] {
        let options = Options { mesh: Some(Mesh { tables }), ..traced() };
        let mut sim = Sim::new(Era::Importer, options, 1);
        model(&mut sim, 0);
        sim.fail(failing(0));
        assert_truth(&sim, &|s| model(s, 0), Some(&failing(0)));
    }
}

#[test]
fn the_fit_advice_names_the_same_source_line_as_the_late_list() {
    let mut sim = Sim::new(Era::DecoratorWithErrors, traced(), 1);
    model(&mut sim, 0);
    let conv = SimOp::new("ttnn.conv2d", "Conv2dDeviceOperation").on(0).input("p").output("c", L1, 600_000);
    sim.fail(conv.clone());
    let truth = sim.truth.clone().unwrap();
    let relu_output = sim.tensor("h3");
    assert_eq!(truth.to_free, Some(vec![relu_output.address]), "the simulation frees the relu's output");
    assert_truth(&sim, &|s| model(s, 0), Some(&conv));
    let dir = TempDir::new("late-sim-advice");
    sim.report().write_to(dir.path());
    let o = run(&["explain", "--late", dir.path().to_str().unwrap()], None);
    let text = String::from_utf8(o.stdout).unwrap();
    // §6's buffer freed right before the failed operation: after operation 7, the line of the
    // model the late list names for operation 7 too (block.py:107).
    let advice = "  Freeing tensor 5 after operation 7 (block.py:107): the 586 KiB-per-bank request fits at 227392.";
    assert!(text.lines().any(|l| l == advice), "{text}");
    let late = "  ttnn.deallocate(…) after block.py:107 — tensor 7 (64 KiB per bank, [65536]) is last used by operation 7 ttnn.add and held until operation 8; freeing it there does not lower the L1 peak.";
    assert!(text.lines().any(|l| l == late), "{text}");
    let suggestion = "  ttnn.deallocate(…) after block.py:105 — tensor 5 (512 KiB per bank, [524288]) is last used by operation 5 ttnn.to_memory_config and held until operation 8; freeing it there does not lower the L1 peak.";
    assert!(text.lines().any(|l| l == suggestion), "{text}");
}

#[test]
fn freeing_them_at_a_failure_is_not_always_enough() {
    let mut sim = Sim::new(Era::DecoratorWithErrors, traced(), 1);
    model(&mut sim, 0);
    // The inputs p (32 KiB) and the temporary (32 KiB) stay: 1.3 MiB cannot fit beside them,
    // whatever was freed before.
    let big =
        SimOp::new("ttnn.conv2d", "Conv2dDeviceOperation").on(0).input("p").temp(L1, 32_768).output("c", L1, 1_330_000);
    sim.fail(big.clone());
    assert_eq!(rerun_placement(&sim, &|s| model(s, 0), &big), None, "the re-run still fails");
    assert_truth(&sim, &|s| model(s, 0), Some(&big));
    let mut sim = Sim::new(Era::DecoratorWithErrors, traced(), 1);
    model(&mut sim, 0);
    let conv = SimOp::new("ttnn.conv2d", "Conv2dDeviceOperation").on(0).input("p").output("c", L1, 600_000);
    sim.fail(conv.clone());
    let address = rerun_placement(&sim, &|s| model(s, 0), &conv).expect("the re-run places the request");
    let dir = TempDir::new("late-sim-fits");
    sim.report().write_to(dir.path());
    let o = run(&["explain", "--late", dir.path().to_str().unwrap()], None);
    let text = String::from_utf8(o.stdout).unwrap();
    // Every tensor of the line held past its last use before the failure: the re-run frees them.
    let n = sim.late_truth().iter().filter(|l| l.last_use < 8 && l.buffer_type == L1).count();
    assert_eq!(n, 6, "five live at the failure, and h, freed by ttnn.deallocate two operations after its last use");
    let line = format!(
        "At operation 8 ttnn.conv2d: freeing all {n} at their last use: the 586 KiB-per-bank request fits at {address}."
    );
    assert!(text.lines().any(|l| l == line), "{line:?} in\n{text}");
}

#[test]
fn a_report_without_buffers_rows_is_read_from_its_replayed_graphs() {
    // No `buffers` rows: what the graphs allocated and freed is all there is (the weights were
    // placed before any graph, so they are not in the list, nor in the peaks).
    let mut sim = Sim::new(Era::GraphOnly, traced(), 1);
    model(&mut sim, 0);
    sim.fail(failing(0));
    let value = assert_late_truth(&sim);
    let weight = sim.tensor_id("a");
    assert!(value["late"].as_array().unwrap().iter().all(|e| e["tensor_id"] != weight));
    // At the failure, the graph-only picture counts the buffers the graphs held past their use.
    let truth = sim.truth.clone().unwrap();
    let held = truth.live.iter().filter(|b| b.stale && b.producer.is_some()).count() as u64;
    assert_eq!(value["late_failures"][0]["operation_id"], truth.operation_id);
    assert_eq!(value["late_failures"][0]["held_past_last_use"], held);
    // Two devices, no failure: each keeps its own list, to the end of the run.
    let mut sim = Sim::new(Era::GraphOnly, traced(), 2);
    model(&mut sim, 0);
    model(&mut sim, 1);
    assert_late_truth(&sim);
}

#[test]
fn a_chip_opened_as_a_mesh_without_buffers_rows_names_the_chip_the_tables_name() {
    // ttnn 0.81: graph buffer nodes on the mesh id 1; `devices` has the one row 0 (tables 0), or
    // rows 0 and 1 once a program compiled (tables 1).
    for tables in [0, 1] {
        let options = Options { mesh: Some(Mesh { tables }), ..traced() };
        let mut sim = Sim::new(Era::GraphOnly, options, 1);
        model(&mut sim, 0);
        sim.fail(failing(0));
        let value = assert_late_truth(&sim);
        assert!(value["late"].as_array().unwrap().iter().all(|e| e["device_id"] == tables));
    }
}
