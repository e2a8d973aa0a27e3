//! Print mode and the JSON contract for failures recognised beyond the reference (docs/rules/reference.md
//! §13): an old message without a bank size, in L1 (its reason comes from the map) and in DRAM
//! (its region is unknown), and a circular buffer larger than its L1 buffer (no memory section).

use crate::cli;
use crate::support;

use cli::run;
use serde_json::Value;
use std::path::PathBuf;
use support::{BufferRow, Device, ErrorRow, Op, ReportBuilder, Schema, TempDir};

const V0_L1: &str = "TT_THROW @ tt_metal/impl/allocator/allocator.cpp:118: tt::exception\ninfo:\nOut of Memory: Not enough space to allocate 57600000 B L1 buffer across 64 banks, where each bank needs to store 900000 B";
const V0_DRAM: &str = "Always | FATAL    | Out of Memory: Not enough space to allocate 536870912 B DRAM buffer across 12 banks, where each bank needs to store 44740608 B";
const CB_TOO_LARGE: &str = "TT_ASSERT @ tt_metal/impl/buffers/circular_buffer_types.cpp:129: false\ninfo:\nCannot set to globally allocated buffer. Circular buffer size 98304 B exceeds allocated L1 buffer bank size of 81920 B\nbacktrace:";

/// Operation 1 leaves one L1 buffer at the top of the region (101440–1466368); operations 2, 3
/// and 4 fail with the three messages.
fn report(dir: &TempDir) -> PathBuf {
    ReportBuilder::new(Schema::V2)
        .device(Device::wormhole(0))
        .operation(Op::new(1, "ttnn.relu").buffers(vec![BufferRow::l1(1_000_000, 466_368)]))
        .operation(Op::new(2, "ttnn.matmul"))
        .operation(Op::new(3, "ttnn.add"))
        .operation(Op::new(4, "ttnn.add"))
        .error(ErrorRow::new(2, "ttnn.matmul", "RuntimeError", V0_L1))
        .error(ErrorRow::new(3, "ttnn.add", "RuntimeError", V0_DRAM))
        .error(ErrorRow::new(4, "ttnn.add", "RuntimeError", CB_TOO_LARGE))
        .write_to(dir.path())
}

fn json(path: &std::path::Path) -> Value {
    let out = run(&["explain", "--json", path.to_str().unwrap()], None);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("JSON")
}

fn operation(document: &Value, id: u64) -> &Value {
    document["operations"].as_array().unwrap().iter().find(|o| o["operation_id"] == id).unwrap()
}

#[test]
fn a_circular_buffer_larger_than_its_buffer_prints_its_own_block() {
    let dir = TempDir::new("beyond-text");
    let path = report(&dir);
    let out = run(&["explain", "--operation", "4", path.to_str().unwrap()], None);
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "Operation 4 ttnn.add: Circular buffer larger than its L1 buffer\n  A circular buffer of 96 KiB is set on an L1 buffer of 80 KiB per bank\n  Larger than its buffer. The circular buffer lives inside a tensor's L1 buffer, which holds 80 KiB per bank; it needs 16 KiB more. A larger shard for that tensor, or a smaller circular buffer (a smaller block), fits.\nBeyond TT-NN Visualizer (operation 4): TT-NN Visualizer shows the message raw; ttnn-tui recognises it with a pattern of its own (beyond_reference: true in the JSON).\n"
    );
    let all = run(&["explain", path.to_str().unwrap()], None);
    let text = String::from_utf8_lossy(&all.stdout);
    assert!(text.starts_with("3 operations with errors\n"), "{text}");
    assert!(
        text.contains(
            "Operation 2 ttnn.matmul: Out of memory\n  Requested 54.93 MiB L1 across 64 banks (879 KiB per bank)\n"
        ),
        "{text}"
    );
    assert!(
        text.contains(
            "Operation 3 ttnn.add: Out of memory\n  Requested 512 MiB DRAM across 12 banks (42.67 MiB per bank)\n"
        ),
        "{text}"
    );
}

#[test]
fn json_marks_them_beyond_the_reference_with_every_figure() {
    let dir = TempDir::new("beyond-json");
    let document = json(&report(&dir));
    let cb = operation(&document, 4);
    let failure = &cb["allocation_failure"];
    assert_eq!(failure["kind"], "circular_buffer_exceeds_its_buffer");
    assert_eq!(failure["kind_label"], "Circular buffer larger than its L1 buffer");
    assert_eq!(failure["reason"], "larger_than_its_buffer");
    assert_eq!(failure["reason_label"], "Larger than its buffer");
    assert_eq!(failure["beyond_reference"], true);
    assert_eq!(failure["figures"]["circular_buffer_size_bytes"], 98304);
    assert_eq!(failure["figures"]["l1_buffer_size_bytes"], 81920);
    assert!(failure["figures"]["bank_size_bytes"].is_null());
    assert!(cb["memory"].is_null(), "no memory section for a circular buffer larger than its buffer");
    for id in [2, 3] {
        let failure = &operation(&document, id)["allocation_failure"];
        assert_eq!(
            (&failure["kind"], &failure["beyond_reference"]),
            (&Value::from("bank_out_of_memory"), &Value::from(true))
        );
        assert!(failure["reason"].is_null(), "no reason from a message without a bank size");
        let figures = &failure["figures"];
        for key in ["bank_size_bytes", "free_bytes", "circular_buffer_size_bytes", "l1_buffer_size_bytes"] {
            assert!(figures[key].is_null(), "{key} of operation {id}");
        }
    }
}

#[test]
fn without_a_bank_size_l1_takes_its_region_from_devices_and_dram_has_none() {
    let dir = TempDir::new("beyond-memory");
    let document = json(&report(&dir));
    let l1 = &operation(&document, 2)["memory"];
    assert_eq!((&l1["region"]["start"], &l1["region"]["end"]), (&Value::from(101440), &Value::from(1466368)));
    assert_eq!(l1["region"]["source"], "devices");
    // docs/rules/memory.md §5: the reason from the map, 900000 B needed, 1364928 − 466368 = 898560 B free.
    assert_eq!(l1["reason"], "not_enough_free_space");
    let dram = &operation(&document, 3)["memory"];
    assert!(dram["region"]["start"].is_null() && dram["region"]["source"].is_null(), "{dram}");
    assert_eq!(dram["check"]["status"], "unchecked");
    assert!(dram["reason"].is_null() && dram["fit"].is_null());
}
