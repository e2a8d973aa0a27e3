//! The what-if replay on simulated runs (issue 20 §3). The simulation places buffers by the
//! policy tt-metal was measured to follow (docs/rules/memory.md §9), so a run and the same run with a fix
//! applied are both known: the replay of the first, with the fix, must say what the second did
//! — and, with no fix, put every recorded allocation where the first put it.

use crate::support;

use proptest::prelude::*;
use support::sim::{Era, Mesh, Options, Sim, SimOp};
use support::{BufferType, ReadOnly, TempDir};
use ttnn_tui::analysis::memory::whatif::{Fix, Outcome, ReplayCheck};
use ttnn_tui::report::{MemoryReport, WhatIf, WhatIfOptions, resolve_report};

const L1: BufferType = BufferType::L1;
const KIB: u64 = 1024;

/// The request placed where the simulation placed it. The simulation allocates no circular
/// buffers, so the replay may say `unknown` for them (docs/rules/memory.md §9.3: none recorded in
/// the run and little room left below the request), never that the request does not fit.
fn placed(a: &ttnn_tui::analysis::memory::whatif::Answer) -> bool {
    use ttnn_tui::analysis::memory::whatif::WhatIfNote;
    let unrecorded = |n: &WhatIfNote| matches!(n, WhatIfNote::CircularBuffersUnrecorded { .. });
    a.request_fits == Some(true) && (a.outcome == Outcome::Fits || a.notes.iter().any(unrecorded))
}

/// One operation of a generated script.
#[derive(Debug, Clone)]
enum Step {
    /// An operation reading up to two live tensors (by position among them), with a temporary
    /// and an output of these sizes (KiB per bank).
    Run { inputs: Vec<usize>, temp: Option<u64>, output: u64 },
    /// `ttnn.deallocate` of a live tensor.
    Deallocate(usize),
}

/// A script: a weight, its steps, then an operation whose output (KiB per bank) is meant not
/// to fit.
#[derive(Debug, Clone)]
struct Script {
    weight: Option<u64>,
    steps: Vec<Step>,
    failing: u64,
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        3 => (prop::collection::vec(0usize..8, 0..3), prop::option::of(1u64..4), 2u64..9)
            .prop_map(|(inputs, temp, output)| Step::Run { inputs, temp: temp.map(|t| t * 16), output: output * 32 }),
        1 => (0usize..8).prop_map(Step::Deallocate),
    ]
}

fn script() -> impl Strategy<Value = Script> {
    (prop::option::of(1u64..5), prop::collection::vec(step(), 3..14), 4u64..20)
        .prop_map(|(weight, steps, failing)| Script { weight: weight.map(|w| w * 32), steps, failing: failing * 64 })
}

/// What running a script gave: the simulation, the live tensors' names, and the last operation
/// id after each step.
struct Ran {
    sim: Sim,
    /// Names of the tensors live, in creation order.
    live: Vec<String>,
    /// The id of the last operation run once each step is done.
    after_step: Vec<u64>,
    /// The step each tensor was made at and the last step that read it.
    steps_of: std::collections::HashMap<String, (usize, usize)>,
}

/// The failing operation: reads the newest live tensor, asks for `failing` KiB per bank.
fn failing_op(live: &[String], failing: u64) -> SimOp {
    let mut op = SimOp::new("ttnn.conv2d", "Conv2dDeviceOperation").on(0);
    if let Some(last) = live.last() {
        op = op.input(last);
    }
    op.output("out", L1, failing * KIB)
}

/// Runs a script up to (not including) its failing operation; `free_after`: a tensor freed
/// outside any record right after the step of that index (the fix as the re-run applies it).
/// None when an operation of the script does not fit (the script is not a good example).
fn run_script(script: &Script, era: Era, options: Options, free_after: Option<(usize, &str)>) -> Option<Ran> {
    run_with(script, era, options, free_after, None)
}

/// [`run_script`], with the tensor `in_dram` made in DRAM instead of L1 (the `to-dram` fix as
/// a re-run applies it): its DRAM size is its bytes over 12 banks in 2 KiB pages.
fn run_with(
    script: &Script,
    era: Era,
    options: Options,
    free_after: Option<(usize, &str)>,
    in_dram: Option<&str>,
) -> Option<Ran> {
    let mut sim = Sim::new(era, options, 1);
    // The tensors as the script sees them: one freed by the fix stays named here, so every
    // later step picks the same tensors as in the first run (a deallocate of it is a no-op).
    let mut live: Vec<String> = Vec::new();
    let mut freed: Vec<String> = Vec::new();
    let mut after_step = Vec::new();
    let mut steps_of = std::collections::HashMap::new();
    if let Some(w) = script.weight.filter(|_| era != Era::GraphOnly) {
        sim.weight("w", 0, L1, w * KIB);
        live.push("w".into());
        steps_of.insert("w".to_string(), (0, 0));
    }
    for (i, step) in script.steps.iter().enumerate() {
        match step {
            Step::Run { inputs, temp, output } => {
                let name = format!("t{i}");
                let mut op = SimOp::new(["ttnn.matmul", "ttnn.add", "ttnn.relu"][i % 3], "DeviceOperation").on(0);
                let mut picked: Vec<&String> = inputs.iter().filter_map(|&k| live.get(k % live.len().max(1))).collect();
                picked.dedup();
                for input in picked {
                    assert!(!freed.contains(input), "the fix frees a tensor only after its last use");
                    op = op.input(input);
                    steps_of.entry(input.clone()).and_modify(|(_, last)| *last = i);
                }
                if let Some(t) = temp {
                    op = op.temp(L1, t * KIB);
                }
                op = match in_dram == Some(name.as_str()) {
                    true => op.output(&name, BufferType::Dram, (output * KIB * 64).div_ceil(2048).div_ceil(12) * 2048),
                    false => op.output(&name, L1, output * KIB),
                };
                if !fits(&sim, &op) {
                    return None;
                }
                sim.run(op);
                steps_of.insert(name.clone(), (i, i));
                live.push(name);
            }
            Step::Deallocate(k) if !live.is_empty() => {
                let name = live.remove(k % live.len());
                if !freed.contains(&name) {
                    sim.deallocate(&name);
                }
            }
            Step::Deallocate(_) => {}
        }
        after_step.push(sim.operations_run());
        if let Some((after, name)) = free_after
            && after == i
            && live.iter().any(|t| t == name)
        {
            freed.push(name.to_string());
            sim.outside_free(name);
        }
    }
    live.retain(|t| !freed.contains(t));
    Some(Ran { sim, live, after_step, steps_of })
}

/// Whether an operation's temporaries and outputs, in order, fit now.
fn fits(sim: &Sim, op: &SimOp) -> bool {
    placements(sim, op).iter().all(Option::is_some)
}

/// Where the operation's temporaries then outputs would go, in order (none from the first that
/// does not fit).
fn placements(sim: &Sim, op: &SimOp) -> Vec<Option<u64>> {
    let (mut l1, mut dram) = (sim.allocator_copy(0, L1), sim.allocator_copy(0, BufferType::Dram));
    let mut out = Vec::new();
    for (bt, size) in op.temps.iter().copied().chain(op.outputs.iter().map(|o| (o.1, o.2))) {
        let placed = if bt == BufferType::Dram { dram.allocate(size) } else { l1.allocate(size) };
        out.push(placed);
        if placed.is_none() {
            break;
        }
    }
    out
}

fn open(sim: &Sim) -> ReadOnly<MemoryReport> {
    let dir = TempDir::new("whatif-sim");
    sim.report().write_to(dir.path());
    let report = ReadOnly::read(dir.path(), || MemoryReport::open(&resolve_report(Some(dir.path())).unwrap(), 0));
    report.unwrap().owning(dir)
}

fn what_if(report: &MemoryReport, operation_id: u64, fixes: &[Fix]) -> WhatIf {
    let index = report.operation_index(operation_id).expect("the failed operation");
    let options = WhatIfOptions { late: None, from_start: true };
    report.replays().what_if(index, fixes, &options).expect("the replay answers")
}

fn eras() -> impl Strategy<Value = (Era, Options)> {
    prop_oneof![
        Just((Era::DecoratorWithErrors, Options::default())),
        Just((Era::Importer, Options::default())),
        Just((Era::Importer, Options { mesh: Some(Mesh { tables: 1 }), ..Options::default() })),
        Just((Era::DecoratorBeforeErrors { errors_table: true }, Options::default())),
        Just((Era::GraphOnly, Options::default())),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// With no fix, every recorded allocation lands where the simulation put it, and the
    /// request is refused as it was.
    #[test]
    fn with_no_fix_the_replay_reproduces_every_simulated_run(script in script(), (era, options) in eras()) {
        let Some(mut ran) = run_script(&script, era, options, None) else { return Ok(()) };
        let op = failing_op(&ran.live, script.failing);
        prop_assume!(!fits(&ran.sim, &op));
        let id = ran.sim.fail(op);
        let report = open(&ran.sim);
        let w = what_if(&report, id, &[]);
        prop_assert_eq!(w.answer.replay_check, ReplayCheck::Exact, "{:?}", w.answer);
        prop_assert_eq!(w.answer.outcome, Outcome::DoesNotFit);
        // A fix that frees nothing (no buffer lives at address 1) changes nothing.
        let nothing = what_if(&report, id, &[Fix::FreeBuffer { address: 1, after: id - 1 }]);
        prop_assert_eq!(nothing.answer.outcome, w.answer.outcome);
        prop_assert_eq!(nothing.answer.largest_free_block, w.answer.largest_free_block);
    }

    /// Freeing a live tensor after some operation: the replay says what the simulation re-run
    /// with that tensor freed there did with the request — where it went, or that it did not fit.
    #[test]
    fn a_freed_tensor_replays_as_the_rerun_places_it(
        script in script(),
        (era, options) in eras(),
        pick in 0usize..8,
        at in 0usize..14,
    ) {
        let Some(mut ran) = run_script(&script, era, options, None) else { return Ok(()) };
        let op = failing_op(&ran.live, script.failing);
        prop_assume!(!fits(&ran.sim, &op));
        // A tensor live at the failure, not its input, freed after a step at or after the one
        // that made it.
        let candidates: Vec<String> = ran.live.iter().filter(|t| Some(*t) != ran.live.last()).cloned().collect();
        prop_assume!(!candidates.is_empty());
        let name = candidates[pick % candidates.len()].clone();
        // After its last use (a fix must not free what the model still reads).
        let lo = ran.steps_of[&name].1;
        let after = lo + at % (script.steps.len() - lo);
        let tensor = ran.sim.tensor(&name).id;
        let Some(rerun) = run_script(&script, era, options, Some((after, &name))) else {
            return Ok(()); // the re-run failed earlier: a case for the next property
        };
        let failed_again = failing_op(&rerun.live, script.failing);
        let truth = placements(&rerun.sim, &failed_again).last().copied().flatten();
        // The operation ids of the first run: step `after` is operation `after_id`.
        let after_id = ran.after_step[after];
        prop_assume!(after_id > 0);
        let id = ran.sim.fail(op);
        let report = open(&ran.sim);
        let w = what_if(&report, id, &[Fix::Free { tensor, after: Some(after_id) }]);
        prop_assert_eq!(w.answer.replay_check, ReplayCheck::Exact);
        match truth {
            Some(address) => {
                prop_assert!(placed(&w.answer), "{:?}", w.answer);
                prop_assert_eq!(w.answer.address, Some(address));
            }
            None => prop_assert_eq!(w.answer.outcome, Outcome::DoesNotFit, "{:?}", w.answer),
        }
    }

    /// A tensor made in DRAM instead of L1: the replay says what the re-run did with the request.
    #[test]
    fn a_tensor_kept_in_dram_replays_as_the_rerun_places_it(
        script in script(),
        (era, options) in eras(),
        pick in 0usize..14,
    ) {
        let Some(mut ran) = run_script(&script, era, options, None) else { return Ok(()) };
        let op = failing_op(&ran.live, script.failing);
        prop_assume!(!fits(&ran.sim, &op));
        let made: Vec<String> = ran.steps_of.keys().filter(|t| t.starts_with('t')).cloned().collect();
        prop_assume!(!made.is_empty());
        let mut made = made;
        made.sort();
        let name = made[pick % made.len()].clone();
        let tensor = ran.sim.tensor_id(&name);
        let truth = match run_with(&script, era, options, None, Some(&name)) {
            Some(rerun) => placements(&rerun.sim, &failing_op(&rerun.live, script.failing)).last().copied().flatten(),
            None => None,
        };
        let id = ran.sim.fail(op);
        let report = open(&ran.sim);
        let w = what_if(&report, id, &[Fix::ToDram { tensor }]);
        prop_assert_eq!(w.answer.replay_check, ReplayCheck::Exact);
        match truth {
            Some(address) => {
                prop_assert!(placed(&w.answer), "{:?}", w.answer);
                prop_assert_eq!(w.answer.address, Some(address));
            }
            None => prop_assert_eq!(w.answer.outcome, Outcome::DoesNotFit, "{:?}", w.answer),
        }
    }
}
