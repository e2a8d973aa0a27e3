//! An allocator mode the replay does not model (docs/rules/memory.md §9.3; issue 28): a live
//! tensor whose buffer lies at different addresses on the chips the failed device names — banks
//! that do not move in lockstep, as tt-metal's per-core ("hybrid") allocation makes them
//! (`TT_METAL_ALLOCATOR_MODE_HYBRID`). Every answer is `unknown` with what was seen, never
//! `fits`, in `explain` and `whatif`, text and JSON.
//!
//! Not recorded for real: on ttnn 0.81.1's mock N150, `TT_METAL_ALLOCATOR_MODE_HYBRID=1` changes
//! no address (the same L1 placements with and without it), and per-core allocation is asked for
//! by a memory config flag Python does not expose (`ttnn.MemoryConfig` has no per-core argument;
//! ttnn's operations refuse per-core tensors unless they opt in). The report here is the
//! simulation of ttnn 0.81 on a single chip opened as a mesh (`tests/support/sim`), whose tensor
//! gets a second `device_tensors` row, under the chip's other id, at another address.

use crate::cli;
use crate::support;

use serde_json::Value;
use support::sim::{Era, Mesh, Options, Sim, SimOp};
use support::{BufferType, TempDir, folder_bytes};

const L1: BufferType = BufferType::L1;

/// A weight and a stale tensor in L1, then an add whose output does not fit; tensor `x` also at
/// `x + 4096` under device 0 (the tables say 1).
fn report(dir: &TempDir, differ: bool) -> (u64, u64, u64) {
    let mut sim = Sim::new(Era::Importer, Options { mesh: Some(Mesh { tables: 1 }), ..Options::default() }, 1);
    sim.weight("w", 0, L1, 131_072);
    sim.run(SimOp::new("ttnn.relu", "UnaryDeviceOperation").input("w").output("x", L1, 262_144));
    sim.run(SimOp::new("ttnn.exp", "UnaryDeviceOperation").input("w").output("y", L1, 131_072));
    sim.fail(SimOp::new("ttnn.add", "BinaryNgDeviceOperation").input("y").input("w").output("z", L1, 1_200_000));
    let failed = sim.truth.as_ref().unwrap().operation_id;
    let (x, at) = (sim.tensor_id("x"), sim.tensor("x").address);
    let mut builder = sim.report();
    if differ {
        builder = builder.sql(&format!("INSERT INTO device_tensors VALUES ({x}, 1, {at}), ({x}, 0, {})", at + 4096));
    }
    builder.write_to(dir.path());
    (failed, x, at)
}

fn run_ok(args: &[&str], dir: &TempDir) -> String {
    let before = folder_bytes(dir.path());
    let o = cli::run(args, None);
    assert_eq!(o.status.code(), Some(0), "{args:?}: {}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(folder_bytes(dir.path()), before, "the report stays as it was");
    String::from_utf8(o.stdout).unwrap()
}

#[test]
fn a_tensor_at_two_addresses_makes_every_answer_unknown() {
    let dir = TempDir::new("whatif-allocator-mode");
    let (failed, x, at) = report(&dir, true);
    let path = dir.path().to_string_lossy().into_owned();
    let why = format!("tensor {x} lies at {} on device 0 and at {at} on device 1", at + 4096);
    let said = format!("{why}: the replay does not model that allocator mode");
    let op = failed.to_string();
    let fix = format!("{x}@{}", failed - 1);
    let whatif: Value =
        serde_json::from_str(&run_ok(&["whatif", &path, "--operation", &op, "--free", &fix, "--json"], &dir)).unwrap();
    assert_eq!((whatif["outcome"].as_str(), &whatif["request"]), (Some("unknown"), &Value::Null), "{whatif}");
    assert_eq!(whatif["notes"], serde_json::json!([said]));
    let text = run_ok(&["whatif", &path, "--operation", &op, "--free", &fix], &dir);
    assert!(
        text.contains(&format!(
            "\n  Freeing tensor {x} after operation {}: the replay cannot tell: {said}.\n",
            failed - 1
        )),
        "{text}"
    );
    let explained: Value = serde_json::from_str(&run_ok(&["explain", "--json", &path], &dir)).unwrap();
    let fixes = explained["operations"][0]["fixes"].as_array().unwrap();
    assert!(!fixes.is_empty());
    for f in fixes {
        assert_eq!(f["outcome"], "unknown", "{f}");
        assert!(f["sentence"].as_str().unwrap().ends_with(&format!(": the replay cannot tell: {said}.")), "{f}");
    }
    // JSON only: the text says no line the user cannot act on, and no line says fits.
    let text = run_ok(&["explain", &path], &dir);
    assert!(!text.contains(" fits"), "{text}");
}

/// The same report with the tensor at one address: the replay answers (the control).
#[test]
fn the_same_run_in_lockstep_is_replayed() {
    let dir = TempDir::new("whatif-lockstep");
    let (failed, _, _) = report(&dir, false);
    let path = dir.path().to_string_lossy().into_owned();
    let whatif: Value = serde_json::from_str(&run_ok(
        &["whatif", &path, "--operation", &failed.to_string(), "--output-to-dram", "--json"],
        &dir,
    ))
    .unwrap();
    assert_eq!(whatif["outcome"], "fits", "{whatif}");
    assert_eq!(whatif["notes"], serde_json::json!([]));
}
