//! `ttnn-tui explain --log` end to end on the fixture logs of `fixtures/logs/` (built from the
//! real messages of docs/rules/messages.md §R by `tests/support/logs.rs`): the exact JSON of each, the text
//! form, standard input, exit codes, and a text file given as a REPORT.

use crate::cli;
use crate::support;

use cli::run;
use std::path::Path;
use std::process::{Command, Output, Stdio};

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).expect("utf-8")
}

fn fixture(name: &str) -> String {
    format!("fixtures/logs/{name}")
}

/// Runs in the crate's folder, so fixture paths print as `fixtures/logs/…`.
fn run_here(args: &[&str]) -> Output {
    run(args, Some(Path::new(env!("CARGO_MANIFEST_DIR"))))
}

#[test]
fn the_fixture_logs_are_what_the_builder_builds() {
    for (name, text) in support::logs::fixture_logs() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(fixture(name));
        let committed = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(committed == text, "{name} differs from tests/support/logs.rs: run `cargo run --example gen_logs`");
    }
}

/// Every fixture log's JSON is the expected one beside it (`UPDATE_LOG_FIXTURES=1` rewrites them;
/// read every change).
#[test]
fn every_fixture_log_gives_its_expected_json() {
    for (name, expected_code) in [
        ("pytest_session.log", 0),
        ("ci_timestamps.log", 0),
        ("wrapped.log", 0),
        ("tt_fatal_only.log", 1),
        ("pytest_tt_fatal.log", 1),
    ] {
        let o = run_here(&["explain", "--log", &fixture(name), "--json"]);
        assert_eq!(o.status.code(), Some(expected_code), "{name}");
        let json_path = Path::new(env!("CARGO_MANIFEST_DIR")).join(fixture(&name.replace(".log", ".json")));
        if std::env::var_os("UPDATE_LOG_FIXTURES").is_some() {
            std::fs::write(&json_path, &o.stdout).unwrap();
        }
        let expected = std::fs::read_to_string(&json_path).unwrap_or_default();
        assert_eq!(stdout(&o), expected, "{name}");
    }
}

#[test]
fn the_pytest_session_as_text() {
    let o = run_here(&["explain", "--log", &fixture("pytest_session.log")]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(
        stdout(&o),
        "2 allocation failures in this log (76 lines).

Line 36: ttnn.conv2d at models/x/model.py:46: Out of memory
  Requested 3.07 GiB DRAM across 12 banks (261.96 MiB per bank, bank size 1,022.17 MiB); free 273.68 MiB, largest free block 206.47 MiB
  Fragmented. 273.68 MiB free per bank, but no single block holds 261.96 MiB; the largest is 206.47 MiB.
  Test: test_conv_block
  Also on line 42.

Line 68: ttnn.add at models/x/model.py:61: Circular buffers clash with L1 buffers
  Circular buffers on [(x=0,y=0) - (x=4,y=0)] end at 654368, past an L1 buffer at 622592
  Overlaps an L1 buffer. The circular buffers overlap the L1 buffer at 622592 by 31 KiB.
  Test: test_add_residual

For what held the memory, record a report (README, \"Recording a report\") and run `ttnn-tui explain REPORT`.
"
    );
    let o = run_here(&["explain", "--log", &fixture("pytest_session.log"), "--hex"]);
    assert!(stdout(&o).contains("end at 0x9FC20, past an L1 buffer at 0x98000\n"), "{}", stdout(&o));
}

/// Messages broken over lines by the people who pasted them (K01, C06, A15) are found on the line
/// where they begin, explained beyond the reference (docs/rules/reference.md §13.1, whitespace collapsed).
#[test]
fn wrapped_messages_are_found_where_they_begin() {
    let o = run_here(&["explain", "--log", &fixture("wrapped.log"), "--json"]);
    assert_eq!(o.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let failures = v["failures"].as_array().unwrap();
    let lines: Vec<u64> = failures.iter().map(|f| f["line"].as_u64().unwrap()).collect();
    assert_eq!(lines, [3, 11, 16]);
    let summaries: Vec<&str> = failures.iter().map(|f| f["allocation_failure"]["summary"].as_str().unwrap()).collect();
    assert_eq!(
        summaries,
        [
            "Circular buffers on [0-0 - 10-9] end at 1563264, past an L1 buffer at 1563072",
            "Circular buffers on [0-0 - 7-7] grow to 5.32 MiB, beyond the L1 size of 1.43 MiB",
            "Requested 5.09 GiB DRAM across 12 banks (434.64 MiB per bank, bank size 1,024 MiB)",
        ]
    );
    assert!(failures.iter().all(|f| f["allocation_failure"]["beyond_reference"] == true));
    assert_eq!(failures[0]["message"], support::logs::K01);
    assert_eq!(
        failures[1]["message"],
        "Statically allocated circular buffers on core range [0-0 - 7-7] grow to\n5576032 B which is beyond max L1 size of 1499136 B"
    );
}

#[test]
fn a_log_without_an_allocation_failure_names_the_last_other_error() {
    let o = run_here(&["explain", "--log", &fixture("tt_fatal_only.log")]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stdout(&o),
        "No allocation failure in this log (9 lines).
The last other error, on line 5: Creating trace buffers of size 36410368B on MeshDevice 0, but only 33000000B is allocated for trace region.
"
    );
}

/// A pytest session that died in a `TT_FATAL` of its own (not an allocation failure): the error
/// named is the check's message where the traceback gives it, not pytest's summary line (which
/// repeats its cut first line) nor the logger's copy.
#[test]
fn a_pytest_session_names_the_checks_message_not_its_summary() {
    let o = run_here(&["explain", "--log", &fixture("pytest_tt_fatal.log")]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stdout(&o),
        "No allocation failure in this log (39 lines).\nThe last other error, on line 27: All Tensors should have same dtypes.\n"
    );
}

#[test]
fn standard_input_and_invalid_utf8() {
    let mut log = b"\xff\xfe junk\r\n".to_vec();
    log.extend_from_slice(support::logs::M03.as_bytes());
    log.extend_from_slice(b"\r\n");
    let mut child = Command::new(env!("CARGO_BIN_EXE_ttnn-tui"))
        .args(["explain", "--log", "-", "--json"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), &log).unwrap();
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["log"]["path"], "-");
    assert_eq!(v["log"]["lines"], 2);
    assert_eq!(v["failures"][0]["line"], 2);
    assert_eq!(v["failures"][0]["message"], support::logs::M03);
    assert_eq!(
        v["failures"][0]["allocation_failure"]["reason_detail"],
        "273.68 MiB free per bank, but no single block holds 261.96 MiB; the largest is 206.47 MiB."
    );
}

#[test]
fn an_empty_or_unreadable_log() {
    let dir = support::TempDir::new("empty-log");
    let empty = dir.path().join("empty.log");
    std::fs::write(&empty, "").unwrap();
    let o = run(&["explain", "--log", empty.to_str().unwrap()], None);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stdout(&o),
        "No allocation failure in this log (0 lines).\nNo other error either (no TT_FATAL, TT_THROW or Python exception line).\n"
    );
    let o = run(&["explain", "--log", dir.path().join("missing.log").to_str().unwrap()], None);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.starts_with("error: cannot read the log (") && err.contains("missing.log"), "{err}");
    assert!(stdout(&o).is_empty());
    let o = run(&["explain", "--log", "x.log", "--demo"], None);
    assert_eq!(o.status.code(), Some(2), "a usage error");
}

#[test]
fn a_log_given_as_a_report_leads_to_log() {
    let o = run_here(&["explain", &fixture("pytest_session.log")]);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(
        err,
        "error: this is not a TT-NN memory report; to explain a log, use --log: fixtures/logs/pytest_session.log\n"
    );
}
