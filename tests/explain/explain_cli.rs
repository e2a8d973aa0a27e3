//! `ttnn-tui explain` end to end: the text and JSON contract on the demo, options, exit codes,
//! and bad inputs (one-line errors naming the file, never a panic, never a write).

use crate::cli;
use crate::support;

use cli::run;
use std::path::Path;
use std::process::Output;
use support::{ErrorRow, Graph, Op, ReportBuilder, Schema, TempDir};
use ttnn_tui::analysis::beside::NO_STACK_TRACES;

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).expect("utf-8")
}
fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).expect("utf-8")
}

/// Runs and checks the report folder is byte-identical afterwards, with no new files.
fn run_read_only(args: &[&str], dir: &Path) -> Output {
    let before = folder_bytes(dir);
    let output = run(args, None);
    assert_eq!(folder_bytes(dir), before, "the report folder changed");
    output
}

fn folder_bytes(dir: &Path) -> Vec<(std::path::PathBuf, Vec<u8>)> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .map(|rd| rd.filter_map(Result::ok).map(|e| e.path()).collect())
        .unwrap_or_else(|_| Vec::new())
        .into_iter()
        .map(|p| {
            let bytes = std::fs::read(&p).unwrap_or_default();
            (p, bytes)
        })
        .collect();
    files.sort();
    files
}

const OOM_V3: &str = "TT_FATAL @ tt_metal/impl/allocator/bank_manager.cpp:486: false\ninfo:\nOut of Memory: Not enough space to allocate 3276800 B L1 buffer across 4 banks, where each bank needs to store 819200 B, but bank size is 1382720 B (allocated: 1000000 B, free: 382720 B, largest free block: 300000 B)\nbacktrace:\n --- build_Release/lib/libtt_metal.so(+0x570add) [0x7f0bc96eeadd]";

fn conv_report(dir: &Path) -> std::path::PathBuf {
    let graph = Graph::failed_conv2d().to_json();
    ReportBuilder::new(Schema::V2)
        .operation(Op::new(11, "ttnn.add"))
        .operation(Op::new(12, "ttnn.conv2d").graph(graph))
        .error(ErrorRow::new(12, "ttnn.conv2d", "RuntimeError", OOM_V3))
        .write_to(dir)
}

#[test]
fn the_issue_example_block() {
    let dir = TempDir::new("example");
    conv_report(dir.path());
    let o = run_read_only(&["explain", dir.path().to_str().unwrap()], dir.path());
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        format!(
            "1 operation with an error\n{NO_STACK_TRACES}\nOperation 12 ttnn.conv2d: Out of memory\n  Requested 3.13 MiB L1 across 4 banks (800 KiB per bank, bank size 1.32 MiB); free 374 KiB, largest free block 293 KiB\n  Not enough free space. Short by 426 KiB per bank: needs 800 KiB, 374 KiB free. An interleaved L1 buffer can use only the part of that free space inside the interleaved region, so it may be short by more.\n  Failed in Conv2dDeviceOperation\n"
        )
    );
}

#[test]
fn demo_text_and_json() {
    let text = run(&["explain", "--demo"], None);
    assert_eq!(text.status.code(), Some(0), "{}", stderr(&text));
    insta::assert_snapshot!("demo_explain_text", stdout(&text));
    let hex = run(&["explain", "--demo", "--hex"], None);
    insta::assert_snapshot!("demo_explain_text_hex", stdout(&hex));
    let json = run(&["explain", "--demo", "--json"], None);
    assert_eq!(json.status.code(), Some(0));
    let value: serde_json::Value = serde_json::from_str(&stdout(&json)).expect("valid JSON");
    // `--demo` opens the embedded demo performance report too, which links.
    assert_eq!(value["perf_report"]["link"], "linked");
    insta::assert_snapshot!("demo_explain_json", stdout(&json));
}

#[test]
fn json_contract_keys() {
    let json = run(&["explain", "--demo", "--json"], None);
    let value: serde_json::Value = serde_json::from_str(&stdout(&json)).unwrap();
    let keys = |v: &serde_json::Value| v.as_object().unwrap().keys().cloned().collect::<Vec<_>>();
    assert_eq!(keys(&value), ["memory_report", "perf_report", "operations", "unattached_errors"]);
    assert_eq!(keys(&value["memory_report"]), ["path", "rank", "operations", "errors", "schema_version"]);
    let op = &value["operations"][0];
    assert_eq!(
        keys(op),
        [
            "operation_id",
            "operation_name",
            "error_type",
            "message",
            "stack_trace",
            "allocation_failure",
            "recorded",
            "failed_device_operations",
            "perf",
            "memory",
            "fixes"
        ]
    );
    // docs/rules/memory.md §9.3: each advice line a replayed fix.
    let op13 = value["operations"].as_array().unwrap().iter().find(|o| o["operation_id"] == 13).unwrap();
    let fix = &op13["fixes"][0];
    assert_eq!(keys(fix), ["fix", "outcome", "address", "sentence"]);
    // docs/rules/memory.md §8: every key always present, in this order.
    let op13 = value["operations"].as_array().unwrap().iter().find(|o| o["operation_id"] == 13).unwrap();
    let memory = &op13["memory"];
    assert_eq!(
        keys(memory),
        [
            "device_id",
            "buffer_type",
            "mesh",
            "basis",
            "snapshot_operation_id",
            "region",
            "live_buffers",
            "used_per_bank",
            "free_blocks",
            "largest_free_block",
            "check",
            "reason",
            "reason_label",
            "fit",
            "circular_buffers"
        ]
    );
    assert_eq!(keys(&memory["region"]), ["start", "end", "source"]);
    assert_eq!(
        keys(&memory["live_buffers"][0]),
        [
            "address",
            "size_per_bank",
            "layout",
            "origin",
            "device_operation",
            "tensor_id",
            "shape",
            "dtype",
            "producer_operation_id",
            "producer_operation_name",
            "last_use_operation_id",
            "input_of_failed_operation",
            "stale"
        ]
    );
    assert_eq!(keys(&memory["check"]), ["status", "allocated", "free", "largest_free_block"]);
    assert_eq!(keys(&memory["fit"]), ["needed_per_bank", "free", "freed_per_bank", "block"]);
    assert_eq!(keys(&memory["fit"]["block"]), ["address", "size"]);
    let op28 = value["operations"].as_array().unwrap().iter().find(|o| o["operation_id"] == 28).unwrap();
    let circular = &op28["memory"]["circular_buffers"];
    assert_eq!(keys(circular), ["region_end", "lowest_l1_address", "clashing", "circular_buffers"]);
    assert_eq!(keys(&circular["circular_buffers"][0]), ["address", "size", "core_range", "device_operation"]);
    // No memory section without an allocation failure.
    let op26 = value["operations"].as_array().unwrap().iter().find(|o| o["operation_id"] == 26).unwrap();
    assert!(op26["memory"].is_null());
    let failure =
        value["operations"].as_array().unwrap().iter().find_map(|o| o["allocation_failure"].as_object()).unwrap();
    assert_eq!(
        failure.keys().cloned().collect::<Vec<_>>(),
        ["kind", "kind_label", "summary", "reason", "reason_label", "reason_detail", "beyond_reference", "figures"]
    );
    assert_eq!(
        keys(&failure["figures"]),
        [
            "buffer_type",
            "requested_bytes",
            "num_banks",
            "bytes_per_bank",
            "bank_size_bytes",
            "allocated_bytes",
            "free_bytes",
            "largest_free_block_bytes",
            "placeable_bytes",
            "largest_placeable_bytes",
            "core_range",
            "circular_buffer_region_end",
            "max_l1_bytes",
            "l1_buffer_address",
            "circular_buffer_size_bytes",
            "l1_buffer_size_bytes"
        ]
    );
    let unattached = &value["unattached_errors"][0];
    assert_eq!(
        keys(unattached),
        ["operation_id", "operation_name", "error_type", "message", "stack_trace", "allocation_failure"]
    );
}

#[test]
fn operation_option() {
    let dir = TempDir::new("operation");
    conv_report(dir.path());
    let path = dir.path().to_str().unwrap();
    let o = run_read_only(&["explain", path, "--operation", "12"], dir.path());
    assert!(stdout(&o).starts_with("Operation 12 ttnn.conv2d: Out of memory\n"));
    let o = run_read_only(&["explain", path, "--operation", "11"], dir.path());
    assert_eq!((o.status.code(), stdout(&o)), (Some(0), "Operation 11 ttnn.add has no error.\n".to_string()));
    let o = run_read_only(&["explain", path, "--operation", "99"], dir.path());
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(stderr(&o), format!("error: no operation 99 in this report: {path}/db.sqlite\n"));
}

#[test]
fn without_a_subcommand_and_not_a_terminal_the_text_is_printed() {
    let dir = TempDir::new("no-subcommand");
    conv_report(dir.path());
    let path = dir.path().to_str().unwrap();
    assert_eq!(stdout(&run(&[path], None)), stdout(&run(&["explain", path], None)));
}

#[test]
fn usage_errors_exit_2() {
    assert_eq!(run(&["explain", "--bogus"], None).status.code(), Some(2));
    assert_eq!(run(&["explain", "--demo", "--rank", "x"], None).status.code(), Some(2));
    let o = run(&["explain", "--demo", "--perf", "/nowhere/ops_perf_results.csv"], None);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(stderr(&o), "error: no such file or folder: /nowhere/ops_perf_results.csv\n");
}

/// Issue 30 §4.6: a subcommand's help lists its own options only, and its errors show its own
/// usage, not the top level's.
#[test]
fn each_subcommand_has_its_own_options_and_usage() {
    let o = run(&["whatif", "--free", "banana"], None);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o),
        "error: cannot read the fix \"free banana\": a whole number was expected\n\nUsage: ttnn-tui whatif [OPTIONS] [REPORT]\n\nFor more information, try '--help'.\n"
    );
    let help = |name: &str| stdout(&run(&[name, "--help"], None));
    let diff = help("diff");
    assert!(diff.contains("Usage: ttnn-tui diff [OPTIONS] <BEFORE> <AFTER>"), "{diff}");
    for flag in ["--demo", "--operation", "--log", "--perf", "--watch"] {
        assert!(!diff.contains(flag), "{flag} in\n{diff}");
        assert!(!help("mcp").contains(flag), "{flag} in mcp's help");
    }
    for flag in ["--color", "--perf", "--watch"] {
        assert!(!help("whatif").contains(flag), "{flag} in whatif's help");
    }
    let o = run(&["whatif", "--demo", "--color", "never"], None);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).starts_with("error: unexpected argument '--color' found"), "{}", stderr(&o));
    assert!(stderr(&o).contains("\nUsage: ttnn-tui whatif --demo [REPORT]\n"), "{}", stderr(&o));
}

#[test]
fn the_newest_report_under_the_default_root() {
    let cwd = TempDir::new("default-root");
    let o = run(&["explain"], Some(cwd.path()));
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(err.starts_with("error: no report given and none found: generated/ttnn/reports ("), "{err}");
    assert!(err.contains("--demo"));
    let root = cwd.path().join("generated/ttnn/reports");
    conv_report(&root.join("older_nov28_0900"));
    std::thread::sleep(std::time::Duration::from_millis(20));
    ReportBuilder::new(Schema::V2).operation(Op::new(1, "ttnn.add")).write_to(&root.join("newer_nov29_1000"));
    let o = run(&["explain", "--json"], Some(cwd.path()));
    let value: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(value["memory_report"]["path"], "generated/ttnn/reports/newer_nov29_1000/db.sqlite");
    assert_eq!(stderr(&o), "note: opening the newest report in generated/ttnn/reports: newer_nov29_1000\n");
}

/// A folder of report folders (TT-NN's `generated/ttnn/reports`), named: its newest report is
/// explained, as with no argument, and a line on stderr says which; the same report as named
/// directly, which says nothing.
#[test]
fn a_folder_of_reports_opens_the_newest_and_says_which() {
    let cwd = TempDir::new("folder-of-reports");
    let root = cwd.path().join("reports");
    ReportBuilder::new(Schema::V2).operation(Op::new(1, "ttnn.add")).write_to(&root.join("older_nov28_0900"));
    std::thread::sleep(std::time::Duration::from_millis(20));
    conv_report(&root.join("newer_nov29_1000"));
    let o = run(&["explain", "reports"], Some(cwd.path()));
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stderr(&o), "note: opening the newest report in reports: newer_nov29_1000\n");
    let direct = run(&["explain", "reports/newer_nov29_1000"], Some(cwd.path()));
    assert_eq!(stdout(&o), stdout(&direct));
    assert!(
        stdout(&o).starts_with("1 operation with an error\nThis report records no stack traces")
            && stdout(&o).contains("\nOperation 12 ttnn.conv2d: Out of memory\n"),
        "{}",
        stdout(&o)
    );
    assert_eq!(stderr(&direct), "");
    // A folder with neither a database nor a report folder in it is still an error.
    std::fs::create_dir_all(cwd.path().join("empty")).unwrap();
    let o = run(&["explain", "empty"], Some(cwd.path()));
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stderr(&o),
        "error: no db.sqlite in this folder, nor a report folder: empty (pass a TT-NN report folder or its db.sqlite, or try --demo)\n"
    );
}

/// Asserts a one-line error naming the file and exit 1.
fn assert_error(o: &Output, what: &str, path: &str) {
    assert_eq!(o.status.code(), Some(1), "{}", stderr(o));
    let err = stderr(o);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with(&format!("error: {what}")), "{err}");
    assert!(err.contains(path), "{err}");
    assert!(stdout(o).is_empty());
}

#[test]
fn bad_inputs_give_one_line_errors() {
    let dir = TempDir::new("bad");
    let d = dir.path();
    let not_sqlite = d.join("notes.sqlite");
    std::fs::write(&not_sqlite, "this is not a database, just some text that is long enough to have a header....................................").unwrap();
    let empty = d.join("empty.sqlite");
    std::fs::write(&empty, "").unwrap();
    let o = run_read_only(&["explain", not_sqlite.to_str().unwrap()], d);
    assert_error(&o, "this is not a TT-NN memory report; to explain a log, use --log", not_sqlite.to_str().unwrap());
    let binary = d.join("image.sqlite");
    std::fs::write(&binary, [0x89u8, b'P', b'N', b'G', 0, 0, 0, 13].repeat(20)).unwrap();
    let o = run_read_only(&["explain", binary.to_str().unwrap()], d);
    assert_error(&o, "not an SQLite database", binary.to_str().unwrap());
    let o = run_read_only(&["explain", empty.to_str().unwrap()], d);
    assert_error(&o, "empty file, not a TT-NN memory report", empty.to_str().unwrap());
    let o = run(&["explain", d.join("missing").to_str().unwrap()], None);
    assert_error(&o, "no such file or folder", "missing");
    let o = run_read_only(&["explain", d.to_str().unwrap()], d);
    assert_error(&o, "no db.sqlite in this folder", d.to_str().unwrap());
}

#[test]
fn a_truncated_database_is_refused() {
    let dir = TempDir::new("truncated");
    let src = TempDir::new("truncated-src");
    let mut builder = ReportBuilder::new(Schema::V2);
    for i in 0..400 {
        builder = builder.operation(Op::new(i, "ttnn.add").stack_trace(&"File \"m.py\", line 1\n".repeat(20)));
    }
    let db = builder.write_to(src.path());
    let bytes = std::fs::read(&db).unwrap();
    let cut = dir.path().join("db.sqlite");
    std::fs::write(&cut, &bytes[..bytes.len() / 3]).unwrap();
    let o = run_read_only(&["explain", dir.path().to_str().unwrap()], dir.path());
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    let err = stderr(&o);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("damaged") || err.contains("not an SQLite database"), "{err}");
    assert!(err.contains(cut.to_str().unwrap()));
}

#[test]
fn a_missing_operations_table_is_refused() {
    let dir = TempDir::new("no-operations");
    ReportBuilder::new(Schema::V2).without_table("operations").write_to(dir.path());
    let o = run_read_only(&["explain", dir.path().to_str().unwrap()], dir.path());
    assert_error(&o, "no operations table: not a TT-NN memory report", "db.sqlite");
}

#[test]
fn an_unreadable_folder_is_refused() {
    let dir = TempDir::new("unreadable");
    let report = dir.path().join("report");
    conv_report(&report);
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&report, std::fs::Permissions::from_mode(0o000)).unwrap();
    let privileged = std::fs::read_dir(&report).is_ok();
    let o = run(&["explain", report.to_str().unwrap()], None);
    std::fs::set_permissions(&report, std::fs::Permissions::from_mode(0o755)).unwrap();
    if privileged {
        // Root reads it anyway: then it must simply work.
        eprintln!("running as a privileged user: the folder stays readable, checking it opens");
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    } else {
        assert_error(&o, "", report.to_str().unwrap());
    }
}

#[test]
fn a_locked_database_is_refused_and_left_alone() {
    let dir = TempDir::new("locked");
    let db = conv_report(dir.path());
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute_batch("BEGIN EXCLUSIVE; INSERT INTO operations VALUES (99, 'ttnn.pending', 0.0);").unwrap();
    let o = run(&["explain", dir.path().to_str().unwrap()], None);
    assert_error(&o, "the database is locked by another process", "db.sqlite");
    conn.execute_batch("ROLLBACK").unwrap();
}

#[test]
fn an_invalid_graph_gives_a_partial_result() {
    let dir = TempDir::new("invalid-graph");
    ReportBuilder::new(Schema::V2)
        .operation(Op::new(3, "ttnn.linear").graph("[{\"node_type\": "))
        .error(ErrorRow::new(3, "ttnn.linear", "RuntimeError", OOM_V3))
        .write_to(dir.path());
    let o = run_read_only(&["explain", dir.path().to_str().unwrap()], dir.path());
    assert_eq!(o.status.code(), Some(0));
    let text = stdout(&o);
    assert!(
        text.starts_with(&format!(
            "1 operation with an error\n{NO_STACK_TRACES}\nOperation 3 ttnn.linear: Out of memory\n"
        )),
        "{text}"
    );
    assert!(text.contains("\n  Device operations unavailable: invalid captured graph JSON: "), "{text}");
}

#[test]
fn hostile_text_never_reaches_the_output() {
    let dir = TempDir::new("hostile");
    let message = format!("\x1b]52;c;cm0gLXJmIH4=\x07\u{202E}{OOM_V3}\x1b[2J");
    ReportBuilder::new(Schema::V2)
        .operation(Op::new(1, "ttnn.conv2d"))
        .error(ErrorRow::new(1, "ttnn.conv2d", "Runtime\x1b[31mError", &message))
        .error(ErrorRow::new(0, "\x1b[1mttnn.x", "Trace\u{2066}Error", "\x1b]0;title\x07Creating trace buffers\x07"))
        .write_to(dir.path());
    for args in [vec!["explain"], vec!["explain", "--json"]] {
        let mut args = args.clone();
        args.push(dir.path().to_str().unwrap());
        let out = stdout(&run_read_only(&args, dir.path()));
        for bad in ['\x1b', '\x07', '\u{202E}', '\u{2066}', '\u{9b}'] {
            assert!(!out.contains(bad), "{bad:?} in {out}");
        }
        assert!(out.contains("Out of memory"));
    }
}

#[test]
fn each_heading_gives_the_source_location_of_the_list_label() {
    let dir = TempDir::new("source-location");
    let trace = "Traceback (most recent call last):\n  File \"/home/u/models/resnet/model.py\", line 66, in forward\n    x = ttnn.conv2d(x)\n  File \"/ttnn/op.py\", line 3, in __call__";
    ReportBuilder::new(Schema::V2)
        .operation(Op::new(11, "ttnn.add").stack_trace("File \"/a/add.py\", line 1"))
        .operation(Op::new(12, "ttnn.conv2d").stack_trace(trace))
        .operation(Op::new(13, "ttnn.relu").stack_trace("no place here"))
        .error(ErrorRow::new(12, "ttnn.conv2d", "RuntimeError", OOM_V3))
        .error(ErrorRow::new(13, "ttnn.relu", "RuntimeError", "TT_THROW @ a.cpp:1: bad\ninfo:\nrelu failed"))
        .error(ErrorRow::new(
            0,
            "ttnn.add",
            "incomplete_operation",
            "Operation 'ttnn.add' started but never completed (likely crashed)",
        ))
        .write_to(dir.path());
    let o = run_read_only(&["explain", dir.path().to_str().unwrap()], dir.path());
    let text = stdout(&o);
    let headings: Vec<&str> = text.lines().filter(|l| !l.starts_with("  ")).collect();
    // The operation that never completed is the one after the last recorded (docs/rules/reference.md
    // §13.5), never "operation 0".
    assert_eq!(
        headings,
        [
            "3 operations with errors",
            "Operation 12 ttnn.conv2d (model.py:66): Out of memory",
            "Operation 13 ttnn.relu: RuntimeError",
            "Operation 14 ttnn.add (not recorded): incomplete_operation",
        ]
    );
}

/// The options are global: before or after `explain`, with the same output.
#[test]
fn options_before_or_after_the_subcommand() {
    let expected = stdout(&run(&["explain", "--demo", "--hex"], None));
    for args in [
        &["--hex", "explain", "--demo"][..],
        &["--color", "never", "--hex", "explain", "--demo"],
        &["explain", "--demo", "--hex", "--color", "never"],
        &["--demo", "--hex", "explain"],
    ] {
        let o = run(args, None);
        assert_eq!(o.status.code(), Some(0), "{args:?}: {}", stderr(&o));
        assert_eq!(stdout(&o), expected, "{args:?}");
    }
    let o = run(&["--color", "never", "explain", "--demo"], None);
    assert_eq!((o.status.code(), stdout(&o)), (Some(0), stdout(&run(&["explain", "--demo"], None))));
    // Without the subcommand, printing (stdout is not a terminal) takes them too.
    assert_eq!(stdout(&run(&["--demo", "--hex", "--color", "never"], None)), expected);
    // REPORT and --demo still exclude each other when the subcommand stands between them.
    let o = run(&["--demo", "explain", "some/report"], None);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).starts_with("error: the argument '--demo' cannot be used with '[REPORT]'"), "{}", stderr(&o));
}

/// Runs the binary with `NO_COLOR` set to `no_color`.
fn run_with_no_color(args: &[&str], no_color: &str) -> Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_ttnn-tui")).args(args).env("NO_COLOR", no_color).output().unwrap()
}

/// The text without its SGR sequences.
fn without_sgr(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find("\x1b[") {
        out.push_str(&rest[..at]);
        let end = rest[at..].find('m').expect("an SGR sequence ends in m");
        rest = &rest[at + end + 1..];
    }
    out + rest
}

/// `--color always` colours the text (headings bold, the kind red, the reason's label bold) and
/// is otherwise the plain text; `auto` (piped here) and `never` do not, `NO_COLOR` turns `auto`
/// off but not `always`, and JSON is never coloured.
#[test]
fn color_always_colours_the_text_and_nothing_else_does() {
    let plain = stdout(&run(&["explain", "--demo"], None));
    assert!(!plain.contains('\x1b'));
    let coloured = stdout(&run(&["explain", "--demo", "--color", "always"], None));
    assert!(
        coloured.contains(
            "\x1b[1mOperation 7 ttnn.conv2d (model.py:46)\x1b[0m: \x1b[1;31mCircular buffers beyond L1\x1b[0m\n"
        ),
        "{coloured}"
    );
    assert!(
        coloured
            .contains("\n  \x1b[1mBeyond the end of L1.\x1b[0m The circular buffers run 236 KiB past the end of L1.\n"),
        "{coloured}"
    );
    assert!(coloured.contains("\x1b[1mOperation 26 ttnn.matmul (model.py:67)\x1b[0m: \x1b[1;31mRuntimeError\x1b[0m\n"));
    assert_eq!(without_sgr(&coloured), plain);
    assert_eq!(stdout(&run_with_no_color(&["explain", "--demo", "--color", "always"], "1")), coloured);
    for args in [&["explain", "--demo", "--color", "never"][..], &["explain", "--demo", "--color", "auto"]] {
        assert_eq!(stdout(&run_with_no_color(args, "1")), plain, "{args:?}");
    }
    assert_eq!(stdout(&run(&["explain", "--demo", "--color", "never"], None)), plain);
    let json = stdout(&run(&["explain", "--demo", "--json", "--color", "always"], None));
    assert!(!json.contains('\x1b'));
    // A log's text too.
    let log = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/logs/wrapped.log");
    let log = log.to_str().unwrap();
    let coloured = stdout(&run(&["explain", "--log", log, "--color", "always"], None));
    assert!(
        coloured.contains("\x1b[1mLine 3: \x1b[0m\x1b[1;31mCircular buffers clash with L1 buffers\x1b[0m\n"),
        "{coloured}"
    );
    assert_eq!(without_sgr(&coloured), stdout(&run(&["explain", "--log", log], None)));
}

/// Demo operation 8 (L1_SMALL): the message's bank size is the region its memory section reads
/// from the devices row, as on real tt-metal, where the L1_SMALL bank is `l1_small_size` and
/// the region `[A+B, W)`.
#[test]
fn the_demo_l1_small_failure_has_the_region_its_message_gives() {
    let o = run(&["explain", "--demo", "--operation", "8", "--json"], None);
    let value: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let entry = &value["operations"][0];
    let bank = entry["allocation_failure"]["figures"]["bank_size_bytes"].as_u64().unwrap();
    let region = &entry["memory"]["region"];
    assert_eq!((bank, region["start"].as_u64().unwrap(), region["end"].as_u64().unwrap()), (32768, 1466368, 1499136));
    assert_eq!(entry["memory"]["check"]["status"], "exact");
    let text = stdout(&run(&["explain", "--demo", "--operation", "8"], None));
    assert!(
        text.contains("  Larger than an empty bank. Needs 40 KiB per bank, more than an empty bank holds (32 KiB): it cannot fit in this buffer type spread across 64 banks.\n"),
        "{text}"
    );
    assert!(
        text.contains("  The 40 KiB request is larger than the whole region (32 KiB): no freeing makes it fit.\n"),
        "{text}"
    );
    // What does make it fit: a larger L1_SMALL, replayed.
    assert!(
        text.contains("  Opening the device with l1_small_size=40960 (at least what the operation's L1_SMALL buffers the report shows need, each aligned to 32 B; the operation may need more): the 40 KiB-per-bank L1_SMALL request fits at 1458176, but ttnn.conv2d used 96 KiB of circular buffers at operation 4 and only 55 KiB would be left below it: the operation would fail on its circular buffers.\n"),
        "{text}"
    );
}
