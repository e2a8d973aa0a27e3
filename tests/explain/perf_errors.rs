//! Errors a user can meet on the performance side, and the `--rank` refusal, through the binary:
//! one line on stderr naming the file, what to do where it helps, and the exit code. A report
//! named with `--perf` that cannot be read is an error (exit 1); one found by looking around is
//! skipped with a warning and the memory report still opens (docs/rules/reference.md §8.1).

use crate::cli;
use crate::support;

use cli::run;
use std::path::Path;
use std::process::Output;
use support::perf::{Era, PerfCsv, Row};
use support::{ErrorRow, Op, ReportBuilder, Schema, TempDir};
use ttnn_tui::analysis::beside::NO_STACK_TRACES;

fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).expect("utf-8")
}

/// Asserts exit 1, nothing printed, and exactly `line` on stderr.
fn assert_refused(o: &Output, line: &str) {
    assert_eq!(text(&o.stderr), format!("{line}\n"));
    assert_eq!(o.status.code(), Some(1));
    assert!(o.stdout.is_empty(), "{}", text(&o.stdout));
}

const OOM: &str = "TT_FATAL @ tt_metal/impl/allocator/bank_manager.cpp:486: false\ninfo:\nOut of Memory: Not enough space to allocate 3276800 B L1 buffer across 4 banks, where each bank needs to store 819200 B, but bank size is 1382720 B (allocated: 1000000 B, free: 382720 B, largest free block: 300000 B)";

fn memory_report(dir: &Path) {
    ReportBuilder::new(Schema::V2)
        .operation(Op::new(1, "ttnn.matmul"))
        .error(ErrorRow::new(1, "ttnn.matmul", "RuntimeError", OOM))
        .write_to(dir);
}

const HINT: &str = "pass an ops_perf_results*.csv or its profiler report folder";

#[test]
fn a_named_perf_report_that_cannot_be_read_exits_1_with_its_path() {
    let dir = TempDir::new("named-perf");
    let d = dir.path();
    let missing = d.join("ops_perf_results.csv");
    let o = run(&["explain", "--demo", "--perf", missing.to_str().unwrap()], None);
    assert_refused(&o, &format!("error: no such file or folder: {}", missing.display()));

    let empty = d.join("ops_perf_results_empty.csv");
    std::fs::write(&empty, "").unwrap();
    let o = run(&["explain", "--demo", "--perf", empty.to_str().unwrap()], None);
    assert_refused(&o, &format!("error: empty file, not a perf report: {} ({HINT})", empty.display()));

    let binary = d.join("ops_perf_results_binary.csv");
    std::fs::write(&binary, [0u8, 159, 146, 150, 0x1b, b'[', b'2', b'J', 10, 255, 254]).unwrap();
    let o = run(&["explain", "--demo", "--perf", binary.to_str().unwrap()], None);
    assert_refused(
        &o,
        &format!("error: no `OP CODE` column: not a tt-metal ops perf report: {} ({HINT})", binary.display()),
    );

    let folder = d.join("profiler-folder");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(folder.join("profile_log_device.csv"), "ARCH: wormhole_b0, CHIP_FREQ[MHz]: 1000\n").unwrap();
    let o = run(&["explain", "--demo", "--perf", folder.to_str().unwrap()], None);
    assert_refused(
        &o,
        &format!(
            "error: no ops_perf_results*.csv in this folder: {} (pass a profiler report folder (generated/profiler/reports/<date>) or its CSV)",
            folder.display()
        ),
    );
}

#[test]
fn a_perf_report_found_by_looking_around_is_skipped_with_a_warning() {
    let cwd = TempDir::new("found-perf");
    memory_report(&cwd.path().join("generated/ttnn/reports/run"));
    let folder = cwd.path().join("generated/profiler/reports/2026_11_29_10_12_00");
    std::fs::create_dir_all(&folder).unwrap();
    let csv = folder.join("ops_perf_results_2026_11_29_10_12_00.csv");
    std::fs::write(&csv, "").unwrap();
    let o = run(&["explain"], Some(cwd.path()));
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert_eq!(
        text(&o.stderr),
        format!(
            "note: opening the newest report in generated/ttnn/reports: run\nwarning: skipping the newest performance report: empty file, not a perf report: {} ({HINT})\n",
            {
                Path::new("generated/profiler/reports/2026_11_29_10_12_00/ops_perf_results_2026_11_29_10_12_00.csv")
                    .display()
            }
        )
    );
    let stdout = text(&o.stdout);
    let expected = format!("1 operation with an error\n{NO_STACK_TRACES}\nOperation 1 ttnn.matmul: Out of memory\n");
    assert!(stdout.starts_with(&expected), "{stdout}");

    // One with a header and no rows is read: an empty report, the link unavailable.
    PerfCsv::new(Era::Y2026).write(&folder, "ops_perf_results_2026_11_29_10_12_00.csv");
    let o = run(&["explain"], Some(cwd.path()));
    assert_eq!(text(&o.stderr), "note: opening the newest report in generated/ttnn/reports: run\n");
    let stdout = text(&o.stdout);
    assert_eq!(
        stdout.lines().take(4).collect::<Vec<_>>(),
        [
            "1 operation with an error",
            NO_STACK_TRACES,
            "Unable to link active memory and performance reports: generated/profiler/reports/2026_11_29_10_12_00/ops_perf_results_2026_11_29_10_12_00.csv",
            "  the performance report has no rows",
        ]
    );
}

#[test]
fn rows_with_missing_cells_warn_with_the_path() {
    let dir = TempDir::new("ragged-one");
    let mut csv = PerfCsv::new(Era::Y2025);
    csv.push(Row { truncate: Some(3), ..Row::device("MatmulDeviceOperation", 0, 5_000) });
    let perf = csv.write(dir.path(), "ops_perf_results.csv");
    let o = run(&["explain", "--demo", "--perf", perf.to_str().unwrap()], None);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(
        text(&o.stderr),
        format!("warning: 1 row has missing or extra cells, read as far as they go: {}\n", perf.display())
    );
}

#[test]
fn a_rank_of_a_report_without_ranks_is_refused_in_the_cli_terms() {
    let dir = TempDir::new("rank-refused");
    memory_report(dir.path());
    let o = run(&["explain", dir.path().to_str().unwrap(), "--rank", "1"], None);
    assert_refused(
        &o,
        &format!(
            "error: this report stores no per-rank data, so --rank 1 cannot be read: {} (omit --rank, or use --rank 0)",
            dir.path().join("db.sqlite").display()
        ),
    );
    let o = run(&["--rank", "0", "explain", dir.path().to_str().unwrap()], None);
    assert_eq!(o.status.code(), Some(0));
}
