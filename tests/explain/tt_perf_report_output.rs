//! tt-perf-report 1.4.0's and 1.4.1's own `--csv` outputs of the demo's perf report, as they wrote
//! them (`fixtures/demo-perf/tt-perf-report-1.4.*.csv`; the commands are in that folder's README):
//! the default output, whose Matmul, Conv2d and Halo op codes carry a size or config, and the
//! `--raw-op-codes` one. Both link to the demo memory report and `explain` says what it says
//! with the raw CSV (docs/rules/reference.md §13.4, docs/rules/formats.md §5).

use crate::cli;

use cli::run;
use std::path::{Path, PathBuf};
use ttnn_tui::analysis::perf::report_rows::PerfRow;
use ttnn_tui::report::perf::perf_report::PerfReport;

/// tt-perf-report's default `--csv` output.
const DEFAULT: &str = "tt-perf-report-1.4.0.csv";
/// Its output with `--raw-op-codes`.
const RAW_OP_CODES: &str = "tt-perf-report-1.4.0-raw-op-codes.csv";

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/demo-perf").join(name)
}

fn stdout(args: &[&str]) -> String {
    let o = run(args, None);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout).expect("utf-8")
}

/// `explain --demo` with the embedded raw CSV, and with `--perf` on an output: the link line
/// names the file, everything else is the same.
fn assert_explains_like_the_raw_csv(name: &str) {
    let raw = stdout(&["explain", "--demo"]);
    let path = fixture(name);
    let path = path.to_str().unwrap();
    let text = stdout(&["explain", "--demo", "--perf", path]);
    let (raw_lines, lines): (Vec<&str>, Vec<&str>) = (raw.lines().collect(), text.lines().collect());
    assert_eq!(lines[1], format!("Data linked between memory and performance reports: {path}"));
    assert_eq!(
        raw_lines[1],
        "Data linked between memory and performance reports: demo-perf/ops_perf_results_2026_11_29_10_12_00.csv"
    );
    assert_eq!((lines[0], &lines[2..]), (raw_lines[0], &raw_lines[2..]), "{name}");
    assert!(
        text.contains(
            "\n  Failed in Conv2dDeviceOperation; 1 earlier device op ran, so it has 1 row in this report.\n"
        ),
        "{text}"
    );
    let json = |args: &[&str]| -> serde_json::Value { serde_json::from_str(&stdout(args)).unwrap() };
    let raw = json(&["explain", "--demo", "--json"]);
    let output = json(&["explain", "--demo", "--perf", path, "--json"]);
    assert_eq!(output["perf_report"]["link"], "linked");
    assert_eq!(output["operations"], raw["operations"], "{name}");
}

#[test]
fn the_default_output_links_like_the_raw_csv() {
    assert_explains_like_the_raw_csv(DEFAULT);
}

#[test]
fn the_raw_op_codes_output_links_like_the_raw_csv() {
    assert_explains_like_the_raw_csv(RAW_OP_CODES);
}

/// tt-perf-report 1.4.1 writes the same outputs of the one-device demo as 1.4.0, and they link.
#[test]
fn the_1_4_1_outputs_are_1_4_0_s_on_one_device_and_link() {
    for (new, old) in [("tt-perf-report-1.4.1.csv", DEFAULT), ("tt-perf-report-1.4.1-raw-op-codes.csv", RAW_OP_CODES)] {
        let read = |name: &str| std::fs::read_to_string(fixture(name)).unwrap();
        assert_eq!(read(new), read(old), "{new}");
        assert_explains_like_the_raw_csv(new);
    }
}

fn two_devices(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/demo-perf-2dev").join(name)
}

/// Issue 27 §3: the demo on two devices in lock step (`fixtures/demo-perf-2dev/`, the slowest
/// device alternating). tt-perf-report 1.4.0 keeps each operation's slowest row and sorts by its
/// `ID`, so the operations device 1 was slowest on move below the others; 1.4.1 writes them in
/// host-start order, `ID` no longer ascending. The raw CSV and all four outputs link to the demo
/// memory report, each operation to its own device operation, and explain says what it says with
/// the one-device CSV.
#[test]
fn both_versions_outputs_of_a_two_device_run_link() {
    let ids =
        |name: &str| PerfReport::open(&two_devices(name)).unwrap().rows(true).iter().map(|r| r.id).collect::<Vec<_>>();
    let written = |name: &str| -> Vec<u64> {
        let text = std::fs::read_to_string(two_devices(name)).unwrap();
        text.lines().skip(1).filter_map(|l| l.split(',').next()?.parse().ok()).collect()
    };
    let v140 = written("tt-perf-report-1.4.0-raw-op-codes.csv");
    let v141 = written("tt-perf-report-1.4.1-raw-op-codes.csv");
    assert!(v140.windows(2).all(|w| w[0] < w[1]), "1.4.0 sorts by ID: {v140:?}");
    assert!(!v141.windows(2).all(|w| w[0] < w[1]), "1.4.1 keeps host-start order: {v141:?}");
    assert_eq!(v141[..4], [3, 31, 5, 33]);
    let mut same = v140.clone();
    same.sort_unstable();
    let mut other = v141.clone();
    other.sort_unstable();
    assert_eq!(same, other, "the same rows kept");
    // Read, every output's rows come in call order: 1.4.1's as written.
    let raw = ids("ops_perf_results_2026_11_29_10_12_00.csv");
    let device_rows: Vec<u64> = raw.iter().copied().filter(|id| *id != 2).collect();
    for name in [
        "tt-perf-report-1.4.0.csv",
        "tt-perf-report-1.4.0-raw-op-codes.csv",
        "tt-perf-report-1.4.1.csv",
        "tt-perf-report-1.4.1-raw-op-codes.csv",
    ] {
        assert_eq!(ids(name), device_rows, "{name}");
    }
    let raw_text = stdout(&["explain", "--demo"]);
    for name in [
        "ops_perf_results_2026_11_29_10_12_00.csv",
        "tt-perf-report-1.4.0.csv",
        "tt-perf-report-1.4.0-raw-op-codes.csv",
        "tt-perf-report-1.4.1.csv",
        "tt-perf-report-1.4.1-raw-op-codes.csv",
    ] {
        let path = two_devices(name);
        let path = path.to_str().unwrap();
        let text = stdout(&["explain", "--demo", "--perf", path]);
        let (raw_lines, lines): (Vec<&str>, Vec<&str>) = (raw_text.lines().collect(), text.lines().collect());
        assert_eq!(lines[1], format!("Data linked between memory and performance reports: {path}"), "{name}");
        assert_eq!((lines[0], &lines[2..]), (raw_lines[0], &raw_lines[2..]), "{name}");
    }
}

fn rows(name: &str) -> Vec<PerfRow> {
    let report = PerfReport::open(&fixture(name)).unwrap();
    assert!(report.is_analysed(), "{name}");
    report.rows(true)
}

/// The outputs are of the committed demo CSV: the same device rows (tt-perf-report leaves out
/// the signpost and everything before it), op codes, device times and call counts. Fails when the
/// demo's builder changes and the outputs were not made again.
#[test]
fn the_outputs_are_of_the_committed_demo_csv() {
    let demo = PerfReport::demo().unwrap().rows(true);
    let device_rows: Vec<&PerfRow> = demo.iter().filter(|r| !r.is_signpost()).collect();
    for name in [DEFAULT, RAW_OP_CODES] {
        let rows = rows(name);
        assert_eq!(rows.len(), device_rows.len(), "{name}");
        for (row, raw) in rows.iter().zip(&device_rows) {
            assert_eq!((row.id, &row.raw_op_code), (raw.id, &raw.raw_op_code), "{name}");
            assert_eq!(row.device_time_us, raw.device_time_us, "{name}: ID {}", row.id);
            assert_eq!(row.cores, raw.cores, "{name}: ID {}", row.id);
        }
    }
}

#[test]
fn matmul_conv_and_halo_op_codes_carry_a_suffix() {
    for name in [DEFAULT, RAW_OP_CODES] {
        let suffixed: Vec<(u64, String)> =
            rows(name).iter().filter(|r| r.op_code != r.raw_op_code).map(|r| (r.id, r.op_code.to_string())).collect();
        assert_eq!(
            suffixed[..3],
            [
                (5, "HaloDeviceOperation w=(7,7) s=(2,2) p=((3, 3), (3, 3)) d=(1,1) | HEIGHT_SHARDED".to_string()),
                (6, "Conv2dDeviceOperation 12544 x 1568 x 64 [ABH=7|7 SR]".to_string()),
                (8, "HaloDeviceOperation w=(3,3) s=(2,2) p=((1, 1), (1, 1)) d=(1,1) | HEIGHT_SHARDED".to_string()),
            ],
            "{name}"
        );
        let codes: Vec<&str> = suffixed.iter().map(|(_, code)| code.split(' ').next().unwrap()).collect();
        assert_eq!(codes.iter().filter(|c| **c == "MatmulDeviceOperation").count(), 4, "{name}");
        assert_eq!(codes.iter().filter(|c| **c == "Conv2dDeviceOperation").count(), 2, "{name}");
        assert_eq!(codes.iter().filter(|c| **c == "HaloDeviceOperation").count(), 4, "{name}");
    }
}
