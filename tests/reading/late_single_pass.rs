//! `free-late` at every failure in one replay per device (`MemoryReport::late_failures`)
//! gives each failure the answer its own replay gives (`late_failures_one_by_one`, what
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
    let (findings, replay) = report.late_list_and_replay().expect("the late list reads");
    let single = report.late_failures(&findings, replay.as_ref()).expect("one pass");
    let one_by_one = report.late_failures_one_by_one(&findings, replay.as_ref()).expect("one by one");
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
