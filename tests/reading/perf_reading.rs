//! Reading perf CSVs of every era, ragged rows, tt-perf-report outputs, folders and refusals.

use crate::support;

use std::path::PathBuf;
use support::perf::{ANALYSED_HEADER, Era, PerfCsv, Row, analysed_row, header};
use ttnn_tui::report::perf::perf_report::{PerfReport, newest_ops_csv, newest_perf_folder};

fn temp_folder(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ttnn-tui-perf-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn open(csv: &PerfCsv, name: &str) -> PerfReport {
    let dir = temp_folder(name);
    PerfReport::open(&csv.write(&dir, "ops_perf_results.csv")).unwrap()
}

fn codes(rows: &[ttnn_tui::analysis::perf::report_rows::PerfRow]) -> Vec<(u64, String)> {
    rows.iter().map(|r| (r.id, r.op_code.to_string())).collect()
}

#[test]
fn headers_of_each_era() {
    assert!(!header(Era::Y2023).contains(&"DEVICE ID".to_string()));
    let h2026 = header(Era::Y2026);
    assert!(h2026.len() >= 285, "{} columns", h2026.len());
    assert!(h2026.contains(&"INPUT_11_MEMORY".to_string()) && h2026.contains(&"PROGRAM CACHE HIT".to_string()));
}

#[test]
fn era_2023_has_no_devices_and_keeps_host_order() {
    let mut csv = PerfCsv::new(Era::Y2023);
    csv.push(Row::device("B", 0, 2000).set("HOST START TS", 20));
    csv.push(Row::device("A", 0, 1000).set("HOST START TS", 10).set("PM IDEAL NS", 500));
    let report = open(&csv, "2023");
    assert_eq!(report.device_count(), 0);
    let rows = report.rows(true);
    assert_eq!(codes(&rows), [(3, "A".into()), (2, "B".into())]);
    assert_eq!(rows[0].pm_ideal_ns, Some(500.0));
    assert_eq!(rows[0].device_time_us, Some(1.0));
}

#[test]
fn era_2025_multi_device_with_a_collective() {
    let mut csv = PerfCsv::new(Era::Y2025);
    csv.push(Row::signpost("start"));
    csv.push(Row::device("MatmulDeviceOperation", 0, 1000));
    csv.push(Row::device("MatmulDeviceOperation", 1, 3000));
    csv.push(Row::host("aten::add (torch)"));
    csv.push(Row::device("AllGatherAsync", 0, 1000));
    csv.push(Row::device("AllGatherAsync", 1, 2000).set("OP TO OP LATENCY [ns]", 500));
    let report = open(&csv, "2025");
    assert_eq!(report.device_count(), 2);
    let merged = report.rows(true);
    assert_eq!(
        codes(&merged),
        [(2, "start (signpost)".into()), (4, "MatmulDeviceOperation".into()), (6, "AllGatherAsync".into())]
    );
    assert_eq!(merged[2].device_time_us, Some(1.5));
    let per_device = report.rows(false);
    assert_eq!(per_device.iter().map(|r| r.id).collect::<Vec<_>>(), [2, 3, 4, 6, 7]);
    assert!(report.has_per_device_view());
}

#[test]
fn era_2026_reads_hash_cache_hit_and_available_cores() {
    let mut csv = PerfCsv::new(Era::Y2026);
    let row = |hit: &str| {
        Row::device("MatmulDeviceOperation", 0, 90_000)
            .set("PROGRAM HASH", "7425838930976355737")
            .set("PROGRAM CACHE HIT", hit)
            .set("AVAILABLE WORKER CORE COUNT", 110)
            .set("PM IDEAL [ns]", 57924)
            .set("SFPU Util Min (%)", "12.5")
    };
    csv.push(row("False"));
    csv.push(row("True"));
    let rows = open(&csv, "2026").rows(true);
    assert_eq!(rows[0].program_hash.as_deref(), Some("7425838930976355737"));
    assert_eq!((rows[0].cache_hit, rows[1].cache_hit), (Some(false), Some(true)));
    assert_eq!(rows[0].available_cores, Some(110));
    assert_eq!(rows[0].cores, Some(64));
    assert_eq!(rows[0].pm_ideal_ns, Some(57924.0));
}

#[test]
fn ragged_rows_are_tolerated_and_counted() {
    let mut csv = PerfCsv::new(Era::Y2025);
    csv.push(Row::device("A", 0, 1000));
    csv.push(Row { truncate: Some(4), ..Row::device("B", 0, 1000) });
    csv.push(Row { extra: 3, ..Row::device("C", 0, 1000) });
    let report = open(&csv, "ragged");
    assert_eq!((report.data_rows, report.ragged_rows), (3, 2));
    let rows = report.rows(true);
    assert_eq!(rows.len(), 3);
    // The truncated row lost its duration: device time 0, as tt-perf-report reads a missing one;
    // and its host start, so the merged rows put it last (tt-perf-report 1.4.1's order).
    let b = rows.iter().position(|r| &*r.raw_op_code == "B").unwrap();
    assert_eq!((b, rows[b].device_time_us), (2, Some(0.0)));
}

#[test]
fn cells_are_unguarded_and_sanitised() {
    let mut csv = PerfCsv::new(Era::Y2025);
    csv.push(Row::device("'=Evil\u{1b}[31mOp", 0, 1000));
    let rows = open(&csv, "sanitise").rows(true);
    assert_eq!(&*rows[0].raw_op_code, "=EvilOp");
}

#[test]
fn refusals_name_the_column_and_file() {
    let dir = temp_folder("refuse");
    let no_op_code = dir.join("ops_perf_results_device_only.csv");
    std::fs::write(&no_op_code, "GLOBAL CALL COUNT,DEVICE KERNEL DURATION [ns]\n1024,100\n").unwrap();
    let error = PerfReport::open(&no_op_code).unwrap_err();
    assert!(error.to_string().starts_with("no `OP CODE` column"), "{error}");
    assert!(error.to_string().contains("ops_perf_results_device_only.csv"));
    let no_type = dir.join("no_type.csv");
    std::fs::write(&no_type, "OP CODE,GLOBAL CALL COUNT\nA,1\n").unwrap();
    assert!(PerfReport::open(&no_type).unwrap_err().to_string().contains("`OP TYPE`"));
    let empty = dir.join("ops_perf_results_empty.csv");
    std::fs::write(&empty, "").unwrap();
    assert_eq!(
        PerfReport::open(&empty).unwrap_err().to_string(),
        format!(
            "empty file, not a perf report: {} (pass an ops_perf_results*.csv or its profiler report folder)",
            empty.display()
        )
    );
    assert!(PerfReport::open(&dir.join("missing.csv")).unwrap_err().to_string().starts_with("no such file"));
}

#[test]
fn tt_perf_report_output_keeps_its_analytics() {
    let dir = temp_folder("analysed");
    let lines = [
        ANALYSED_HEADER.to_string(),
        analysed_row(2, ["", "", "start (signpost)", "", "", "", "", "start"]),
        analysed_row(
            3,
            ["60.0", "DRAM", "MatmulDeviceOperation", "93.8", "100", "81.2", "20.1", "MatmulDeviceOperation"],
        ),
        analysed_row(5, ["0.1", "HOST", "aten::add (torch)", "", "", "", "", "aten::add (torch)"]),
        analysed_row(7, ["39.9", "SLOW", "'-Neg", "61.7", "8", "", "", "-Neg"]),
    ];
    let path = dir.join("report.csv");
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    let report = PerfReport::open(&path).unwrap();
    assert!(report.is_analysed());
    let rows = report.rows(true);
    assert_eq!(rows.iter().map(|r| r.id).collect::<Vec<_>>(), [2, 3, 7]);
    assert!(rows[0].is_signpost());
    let analytics = rows[1].analytics.as_ref().unwrap();
    assert_eq!(
        (analytics.bound.as_deref(), analytics.dram_percent, analytics.flops_percent),
        (Some("DRAM"), Some(81.2), Some(20.1))
    );
    assert_eq!((rows[1].total_percent, rows[1].device_time_us, rows[1].cores), (Some(60.0), Some(93.8), Some(100)));
    assert_eq!(&*rows[2].op_code, "-Neg");
}

#[test]
fn folders_take_the_newest_csv_and_the_device_log() {
    let root = temp_folder("root");
    let old = root.join("2025_01_01_00_00_00");
    let new = root.join("name").join("2025_02_01_00_00_00");
    std::fs::create_dir_all(&old).unwrap();
    std::fs::create_dir_all(&new).unwrap();
    let mut csv = PerfCsv::new(Era::Y2025);
    csv.push(Row::device("A", 0, 1000));
    csv.write(&old, "ops_perf_results_2025_01_01_00_00_00.csv");
    std::thread::sleep(std::time::Duration::from_millis(20));
    csv.write(&new, "ops_perf_results.csv");
    std::thread::sleep(std::time::Duration::from_millis(20));
    let newest = csv.write(&new, "ops_perf_results_name_2025_02_01_00_00_00.csv");
    std::fs::write(
        new.join("profile_log_device.csv"),
        "ARCH: blackhole, CHIP_FREQ[MHz]: 1350, Max Compute Cores: 120\nx\n",
    )
    .unwrap();
    assert_eq!(newest_perf_folder(&root), Some(new.clone()));
    assert_eq!(newest_ops_csv(&new), Some(newest.clone()));
    let report = PerfReport::open(&new).unwrap();
    assert_eq!(report.path, newest);
    assert_eq!(report.device_log.as_ref().unwrap().arch.as_deref(), Some("blackhole"));
    assert_eq!(report.max_cores(&report.rows(true)), 120);
    let empty = temp_folder("empty");
    assert!(PerfReport::open(&empty).unwrap_err().to_string().starts_with("no ops_perf_results"));
}

/// docs/rules/reference.md §8.1: a header and no rows, as the profiler leaves it when the model died before
/// its first operation finished, is an empty report.
#[test]
fn a_header_without_rows_is_an_empty_report() {
    for era in [Era::Y2023, Era::Y2025, Era::Y2026] {
        let dir = temp_folder(&format!("header-only-{era:?}"));
        let report = PerfReport::open(&PerfCsv::new(era).write(&dir, "ops_perf_results.csv")).unwrap();
        assert_eq!((report.data_rows, report.ragged_rows), (0, 0));
        assert!(report.rows(true).is_empty() && report.rows(false).is_empty());
    }
    let dir = temp_folder("header-only-analysed");
    let analysed = dir.join("analysed.csv");
    std::fs::write(&analysed, format!("{ANALYSED_HEADER}\n")).unwrap();
    let report = PerfReport::open(&analysed).unwrap();
    assert!(report.is_analysed() && report.rows(true).is_empty());
}
