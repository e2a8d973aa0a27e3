//! `ttnn-tui explain --peak`: each device's peak use per buffer type, in text and in the JSON
//! contract, on a report whose sums are known by construction.

use crate::cli;
use crate::support;

use cli::run;
use serde_json::json;
use std::sync::atomic::AtomicBool;
use support::{BufferRow, Device, Op, ReportBuilder, Schema, TempDir};
use ttnn_tui::analysis::memory::usage::MemoryUsage;
use ttnn_tui::analysis::messages::failure::BufferType;
use ttnn_tui::report::{MemoryReport, resolve_report};

/// Three operations on one Wormhole. After each, in bytes per bank:
/// 1: L1 4 096, DRAM 10 000; 2: L1 4 096 + 8 192, DRAM 10 000;
/// 3: L1 8 192, DRAM 20 000 + 1 000, L1_SMALL 2 048.
fn report(dir: &std::path::Path) {
    ReportBuilder::new(Schema::V2)
        .device(Device::wormhole(0))
        .operation(
            Op::new(1, "ttnn.to_device")
                .buffers(vec![BufferRow::l1(1_400_000, 4_096), BufferRow::dram(1_048_640, 10_000)]),
        )
        .operation(Op::new(2, "ttnn.matmul").buffers(vec![
            BufferRow::l1(1_400_000, 4_096),
            BufferRow::l1(1_300_000, 8_192),
            BufferRow::dram(1_048_640, 10_000),
        ]))
        .operation(Op::new(3, "ttnn.add").buffers(vec![
            BufferRow::l1(1_300_000, 8_192),
            BufferRow::dram(10_000, 20_000),
            BufferRow::dram(30_000, 1_000),
            BufferRow::l1_small(1_470_000, 2_048),
        ]))
        .write_to(dir);
}

fn files(dir: &std::path::Path) -> Vec<(std::path::PathBuf, Vec<u8>)> {
    let mut out: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .map(|p| (p.clone(), std::fs::read(p).unwrap()))
        .collect();
    out.sort();
    out
}

#[test]
fn peak_lines_in_text() {
    let dir = TempDir::new("peak-text");
    report(dir.path());
    let before = files(dir.path());
    let o = run(&["explain", "--peak", dir.path().to_str().unwrap()], None);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(
        String::from_utf8(o.stdout).unwrap(),
        "No errors recorded in this report (3 operations).\n\
         L1 headroom on device 0: 1.29 MiB per bank (99 % of the 1.3 MiB bank); above it, operation 2 ttnn.matmul fails first: out of memory: not enough free space.\n\
         \x20 The replay does not put every allocation where the run did: this headroom is a model's.\n\
         L1_SMALL headroom on device 0: 30 KiB per bank (93 % of the 32 KiB bank); above it, operation 3 ttnn.add fails first: out of memory: not enough free space.\n\
         \x20 The replay does not put every allocation where the run did: this headroom is a model's.\n\
         DRAM headroom on device 0: unknown: the report does not record the DRAM bank size (only a DRAM failure's message gives it).\n\
         Peak DRAM use on device 0: 21 KiB per bank after operation 3 ttnn.add\n\
         Peak L1 use on device 0: 12 KiB per bank after operation 2 ttnn.matmul (0.9% of the 1.3 MiB region)\n\
         Peak L1_SMALL use on device 0: 2 KiB per bank after operation 3 ttnn.add (6.25% of the 32 KiB region)\n\
         True peak DRAM use on device 0: 21 KiB per bank inside operation 3 ttnn.add: circular buffers 0 B · its own buffers 21 KiB · live and used later 0 B · held past their last use 0 B\n\
         True peak L1 use on device 0: 12 KiB per bank inside operation 2 ttnn.matmul (0.9% of the 1.3 MiB bank; 1.29 MiB left): circular buffers 0 B · its own buffers 8 KiB · live and used later 4 KiB · held past their last use 0 B\n\
         True peak L1_SMALL use on device 0: 2 KiB per bank inside operation 3 ttnn.add (6.25% of the 32 KiB bank; 30 KiB left): circular buffers 0 B · its own buffers 2 KiB · live and used later 0 B · held past their last use 0 B\n\
         Tightest operations (L1 room left at their peak): 2 ttnn.matmul (1.29 MiB left), 3 ttnn.add (1.29 MiB left), 1 ttnn.to_device (1.3 MiB left)\n"
    );
    assert_eq!(files(dir.path()), before, "the report folder changed");
}

#[test]
fn peak_list_in_json_only_when_asked() {
    let dir = TempDir::new("peak-json");
    report(dir.path());
    let path = dir.path().to_str().unwrap();
    let o = run(&["explain", "--json", "--peak", path], None);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let value: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        value["memory_report"]["peak"],
        json!([
            // No failure gives a DRAM bank size: its region is unknown.
            {"device_id": 0, "buffer_type": "DRAM", "operation_id": 3, "used_per_bank": 21_000,
             "region_per_bank": null, "region_source": null, "percent_of_region": null},
            // The text's `(0.9% of the 1.3 MiB region)` and `(6.25% of the 32 KiB region)`.
            {"device_id": 0, "buffer_type": "L1", "operation_id": 2, "used_per_bank": 12_288,
             "region_per_bank": 1_364_928, "region_source": "devices", "percent_of_region": 0.9},
            {"device_id": 0, "buffer_type": "L1_SMALL", "operation_id": 3, "used_per_bank": 2_048,
             "region_per_bank": 32_768, "region_source": "devices", "percent_of_region": 6.25},
        ])
    );
    let plain: serde_json::Value = serde_json::from_slice(&run(&["explain", "--json", path], None).stdout).unwrap();
    // The true peak inside operation 2: the same 12 KiB (no circular buffer, nothing freed inside).
    let l1 = &value["memory_report"]["true_peak"][1];
    assert_eq!((l1["buffer_type"].clone(), l1["operation_id"].clone()), (json!("L1"), json!(2)));
    assert_eq!(l1["peak_per_bank"], 12_288);
    assert_eq!(l1["composition"], json!({"circular_buffers": 0, "own": 8_192, "live": 4_096, "stale": 0}));
    assert_eq!(value["memory_report"]["tightest"][0]["room_per_bank"], 1_364_928 - 12_288);
    let mut expected = value.clone();
    expected["memory_report"].as_object_mut().unwrap().remove("peak");
    // A run without errors gives its headroom and true peaks with or without --peak (issue 31 §4).
    assert!(plain["memory_report"]["headroom"].is_array(), "{plain}");
    assert_eq!(plain, expected, "without --peak the document is the same, minus the after-operation peaks");
    assert!(plain["memory_report"].get("peak").is_none());
}

#[test]
fn a_report_without_buffers_has_no_peak() {
    let dir = TempDir::new("peak-none");
    ReportBuilder::new(Schema::V2).without_table("buffers").operation(Op::new(1, "ttnn.add")).write_to(dir.path());
    let o = run(&["explain", "--peak", dir.path().to_str().unwrap()], None);
    assert_eq!(
        String::from_utf8(o.stdout).unwrap(),
        "No errors recorded in this report (1 operation).\nNo peak memory use: the report has no buffers rows.\n"
    );
    let json = run(&["explain", "--json", "--peak", dir.path().to_str().unwrap()], None);
    let value: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(value["memory_report"]["peak"], json!([]));
}

/// One valid-row rule for every view (docs/rules/memory.md §3): a `buffers` row at address 0 is set aside
/// by the operation's picture (tab 4), the run over time (tab 5) and `--peak` alike, so the
/// three agree on that operation.
#[test]
fn a_row_at_address_0_is_set_aside_by_every_view() {
    let dir = TempDir::new("peak-address-0");
    ReportBuilder::new(Schema::V2)
        .device(Device::wormhole(0))
        .operation(Op::new(1, "ttnn.to_device").buffers(vec![BufferRow::l1(1_400_000, 4_096)]))
        .operation(Op::new(2, "ttnn.matmul").buffers(vec![
            BufferRow::l1(0, 65_536),
            BufferRow::l1(1_400_000, 4_096),
            BufferRow::l1(1_300_000, 8_192),
        ]))
        .write_to(dir.path());
    let report = MemoryReport::open(&resolve_report(Some(dir.path())).unwrap(), 0).unwrap();
    let picture = report.pictures().after_operation(1, None).unwrap().unwrap();
    assert_eq!((picture.operation_id, picture.live_buffers.len()), (2, 2));
    assert_eq!(picture.map.used_per_bank, 12_288);
    let mut usage = MemoryUsage::default();
    report.usage().read(&mut usage, &AtomicBool::new(false), &mut |_| {}).unwrap();
    let series = report.usage().series(&usage, 0, BufferType::L1);
    let after: Vec<_> = series.points.iter().map(|p| (p.operation_id, p.used_per_bank)).collect();
    assert_eq!(after, [(1, Some(4_096)), (2, Some(12_288))]);
    assert_eq!(series.set_aside_rows, 1);
    drop(report);
    let o = run(&["explain", "--peak", dir.path().to_str().unwrap()], None);
    assert_eq!(
        String::from_utf8(o.stdout).unwrap(),
        "No errors recorded in this report (2 operations).\n\
         L1 headroom on device 0: 1.29 MiB per bank (99 % of the 1.3 MiB bank); above it, operation 2 ttnn.matmul fails first: out of memory: not enough free space.\n\
         \x20 The replay does not put every allocation where the run did: this headroom is a model's.\n\
         Peak L1 use on device 0: 12 KiB per bank after operation 2 ttnn.matmul (0.9% of the 1.3 MiB region)\n\
         True peak L1 use on device 0: 12 KiB per bank inside operation 2 ttnn.matmul (0.9% of the 1.3 MiB bank; 1.29 MiB left): circular buffers 0 B · its own buffers 8 KiB · live and used later 4 KiB · held past their last use 0 B\n\
         Tightest operations (L1 room left at their peak): 2 ttnn.matmul (1.29 MiB left), 1 ttnn.to_device (1.3 MiB left)\n\
         1 buffers row with a missing, zero or negative address or size set aside\n"
    );
}
