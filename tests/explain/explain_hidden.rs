//! `ttnn-tui explain` on what the reference hides (docs/rules/reference.md §13.4): what an unrecognised
//! message says rather than its first line, an error row without an operation id, and a report
//! older than the `errors` table.

use crate::cli;
use crate::support;

use cli::run;
use std::path::Path;
use std::process::Output;
use support::{ErrorRow, Op, ReportBuilder, Schema, TempDir};
use ttnn_tui::analysis::beside::NO_STACK_TRACES;

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).expect("utf-8")
}

/// Runs `explain` on a report folder with extra arguments; exit code 0 expected.
fn explain(dir: &Path, extra: &[&str]) -> String {
    let mut args = vec!["explain", dir.to_str().unwrap()];
    args.extend_from_slice(extra);
    let o = run(&args, None);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    stdout(&o)
}

/// A TT_FATAL whose location line says nothing (`bank_manager.cpp:439: false`) and whose message
/// runs over eleven lines before its backtrace.
fn long_fatal() -> String {
    let said: String =
        (1..=11).map(|k| format!("sub-device {k}: no L1 left for the global circular buffer\n")).collect();
    format!(
        "TT_FATAL @ /tt-metal/tt_metal/impl/allocator/bank_manager.cpp:439: false\ninfo:\n{said}backtrace:\n --- tt::tt_metal::BankManager::allocate_buffer\n --- libtt_metal.so(+0x570add)"
    )
}

#[test]
fn an_unrecognised_message_shows_what_it_says_not_its_location_line() {
    let dir = TempDir::new("hidden-raw");
    ReportBuilder::new(Schema::V2)
        .operation(Op::new(3, "ttnn.matmul"))
        .error(ErrorRow::new(3, "ttnn.matmul", "RuntimeError", &long_fatal()))
        .write_to(dir.path());
    let text = explain(dir.path(), &[]);
    let said: String =
        (1..=8).map(|k| format!("  sub-device {k}: no L1 left for the global circular buffer\n")).collect();
    assert_eq!(
        text,
        format!(
            "1 operation with an error\n{NO_STACK_TRACES}\nOperation 3 ttnn.matmul: RuntimeError\n{said}  … (3 more lines; --json has the whole message)\n"
        )
    );
    // The JSON keeps the whole message, wrapper and backtrace included.
    let json: serde_json::Value = serde_json::from_str(&explain(dir.path(), &["--json"])).unwrap();
    assert_eq!(json["operations"][0]["message"], long_fatal());
}

#[test]
fn an_error_without_an_operation_id_is_an_unknown_operation_not_operation_0() {
    let dir = TempDir::new("hidden-null-id");
    let thrown =
        "TT_THROW @ ttnn/core/device.cpp:88: tt::exception\ninfo:\nttnn.add: the device was closed\nbacktrace:\n --- x";
    // Rows whose `operation_id` is NULL, as a writer that did not know the operation leaves them.
    let null_id = |row: ErrorRow| ErrorRow { operation_id: None, ..row };
    ReportBuilder::new(Schema::V2)
        .operation(Op::new(0, "ttnn.add"))
        .operation(Op::new(1, "ttnn.mul"))
        .error(null_id(ErrorRow::new(0, "ttnn.add", "RuntimeError", thrown)))
        .error(null_id(ErrorRow::new(0, "", "TypeError", "no name")))
        .write_to(dir.path());
    // Operation 0 has the same name but not the row: a NULL id is no id.
    assert_eq!(
        explain(dir.path(), &[]),
        "No operation has an error, 2 errors not placed on an operation\n\
         Unattached error (Unknown operation ttnn.add, RuntimeError)\n  ttnn.add: the device was closed\n\
         Unattached error (Unknown operation, TypeError)\n  no name\n"
    );
    let json: serde_json::Value = serde_json::from_str(&explain(dir.path(), &["--json"])).unwrap();
    assert_eq!(json["operations"], serde_json::json!([]));
    let unattached = &json["unattached_errors"];
    assert_eq!(unattached.as_array().unwrap().len(), 2);
    assert!(unattached[0]["operation_id"].is_null(), "{unattached}");
    assert_eq!(unattached[0]["operation_name"], "ttnn.add");
    assert!(unattached[1]["operation_id"].is_null());
    assert_eq!(explain(dir.path(), &["--operation", "0"]), "Operation 0 ttnn.add has no error.\n");
}

#[test]
fn a_report_older_than_the_errors_table_says_it_does_not_record_errors() {
    let dir = TempDir::new("hidden-legacy");
    ReportBuilder::new(Schema::Legacy)
        .operation(Op::new(1, "ttnn.from_torch").duration(0.001))
        .operation(Op::new(2, "ttnn.add").duration(0.002))
        .operation(Op::new(3, "ttnn.conv2d"))
        .write_to(dir.path());
    assert_eq!(
        explain(dir.path(), &[]),
        "This report version does not record errors (3 operations); a failed operation shows only as an operation without a duration.\n"
    );
    assert_eq!(
        explain(dir.path(), &["--operation", "3"]),
        "Operation 3 ttnn.conv2d has no error recorded: this report version does not record errors.\n"
    );
    // A report with the table and no rows had no error.
    let dir = TempDir::new("hidden-no-rows");
    ReportBuilder::new(Schema::V2).operation(Op::new(1, "ttnn.add")).write_to(dir.path());
    assert_eq!(explain(dir.path(), &[]), "No errors recorded in this report (1 operation).\n");
}
