//! The real TT-NN reports under `fixtures/real/` (recorded by `fixtures/real/record_fixtures.py`
//! with the real ttnn 0.81.1 on a mock device) and what the recording script saw beside each
//! (`truth.json`): the expectations the real-report tests check ttnn-tui against.
#![allow(dead_code)]

use serde_json::Value;
use std::path::{Path, PathBuf};

/// Calls `$m!` with every recorded scenario (a folder under `fixtures/real/`), the one list
/// the real-report tests of every front end take their scenarios from.
#[macro_export]
macro_rules! each_real_scenario {
    ($m:ident) => {
        $m!(
            a_l1_add_oom,
            blackhole_l1_add_oom,
            c_cb_clash,
            cb_clash_own_output,
            dram_oom,
            l1_fragmented,
            l1_small_oom,
            matmul_beyond_l1,
            sharded_add_oom,
            small_model,
            softmax_cb_clash,
            stale_chain,
            stale_loop
        );
    };
}

macro_rules! scenario_names {
    ($($scenario:ident),*) => {
        /// Every recorded scenario; each has its tests in `real_explain.rs` and `real_tui.rs`.
        pub const SCENARIOS: &[&str] = &[$(stringify!($scenario)),*];
    };
}
each_real_scenario!(scenario_names);

/// The recordings of issue 21 (meshes, two cases that were wrong, `tensor_lifetime`); each has its
/// tests in `real_cases.rs`.
pub const CASES: [&str; 7] = [
    "empty_dealloc_oom",
    "mesh_n300",
    "mesh_submesh_1x1",
    "mesh_submeshes",
    "mesh_t3k",
    "null_address_input",
    "small_model_lifetime",
];

/// The folder holding one folder per recorded scenario.
pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures").join("real")
}

/// The report folder of a scenario.
pub fn folder(scenario: &str) -> PathBuf {
    fixtures().join(scenario)
}

/// What the recording script saw for a scenario, as it wrote it.
pub fn truth(scenario: &str) -> Value {
    let path = folder(scenario).join("truth.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// An integer of the truth, or None for a JSON null.
pub fn int(v: &Value) -> Option<u64> {
    if v.is_null() { None } else { Some(v.as_u64().unwrap_or_else(|| panic!("an integer: {v}"))) }
}

/// The failure the script caught.
pub fn failure(truth: &Value) -> &Value {
    &truth["failure"]
}

/// The failing operation's id in the report and its name.
pub fn failed_operation(truth: &Value) -> (u64, String) {
    let f = failure(truth);
    let id = int(&f["operation_id"]).expect("the script matched the failing operation to a report id");
    (id, f["operation_name"].as_str().expect("a name").to_string())
}

/// Blocks of an address map as `(address, size)`, ascending by address.
pub type Blocks = Vec<(u64, u64)>;

/// The allocator's blocks right after the failure: the allocated ones and the free ones.
pub fn allocator_blocks(truth: &Value) -> (Blocks, Blocks) {
    let blocks = truth["memory_at_failure"]["allocator"]["blocks"].as_array().cloned().unwrap_or_default();
    let pick = |allocated: bool| -> Blocks {
        blocks
            .iter()
            .filter(|b| b["allocated"].as_bool() == Some(allocated) && int(&b["size"]) != Some(0))
            .map(|b| (int(&b["address"]).unwrap(), int(&b["size"]).unwrap()))
            .collect()
    };
    (pick(true), pick(false))
}

/// The allocator region `[base, base + bank size)` of the failing buffer type, as the allocator
/// reports it.
pub fn allocator_region(truth: &Value) -> (u64, u64) {
    let view = &truth["memory_at_failure"]["allocator"];
    let base = int(&view["allocator_base_address"]).expect("a base");
    (base, base + int(&view["bank_size"]).expect("a bank size"))
}

/// The script's own record of a live buffer at `address` (its tensor, producer, last use, flags).
pub fn live_buffer_at(truth: &Value, address: u64) -> Option<&Value> {
    truth["memory_at_failure"]["live_buffers"].as_array()?.iter().find(|b| int(&b["address"]) == Some(address))
}

/// The addresses of the tensors the failing operation took as inputs and that live in the failing
/// buffer type.
pub fn input_addresses(truth: &Value) -> Vec<u64> {
    let bt = &failure(truth)["buffer_type"];
    let inputs: Vec<&str> = failure(truth)["inputs"].as_array().unwrap().iter().filter_map(Value::as_str).collect();
    let mut found: Vec<u64> = truth["tensors"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| inputs.contains(&t["label"].as_str().unwrap_or("")) && &t["buffer_type"] == bt)
        .filter_map(|t| int(&t["address"]))
        .collect();
    found.sort_unstable();
    found
}
