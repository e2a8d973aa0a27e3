//! `ttnn-tui mcp` over its real stdio, spoken to as an MCP client speaks (newline-delimited
//! JSON-RPC): the handshake, the eleven tools, an answer per tool equal to the CLI's `--json` for
//! the same question (or to what the recording rig wrote down), bad arguments as tool errors
//! with the CLI's message, bounded lists, and a report that changes between calls.

use crate::cli;
use crate::support;

use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;
use support::{ErrorRow, Op, ReportBuilder, Schema, TempDir};

/// The tools, in the order `tools/list` gives them (docs/rules/interfaces.md §2).
const TOOLS: [&str; 11] = [
    "list_failures",
    "explain_failure",
    "memory_after",
    "late_tensors",
    "peak",
    "headroom",
    "what_if",
    "explain_log",
    "find_operations",
    "operation_detail",
    "compare_runs",
];

/// A server process and the lines of its stdout, each checked to be a JSON-RPC message.
struct Session {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    next_id: u64,
}

impl Session {
    /// Starts `ttnn-tui mcp` and initializes it as a client of the handshake era does.
    fn start() -> Self {
        let mut child = Command::new(env!("CARGO_BIN_EXE_ttnn-tui"))
            .arg("mcp")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the binary runs");
        let stdout = child.stdout.take().expect("piped");
        let (send, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if send.send(line).is_err() {
                    break;
                }
            }
        });
        let stdin = child.stdin.take();
        let mut session = Self { child, stdin, lines, next_id: 0 };
        let init = session.request(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "0"}}),
        );
        assert_eq!(init["result"]["serverInfo"]["name"], "ttnn-tui", "{init}");
        assert!(init["result"]["capabilities"]["tools"].is_object(), "{init}");
        session.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        session
    }

    fn send(&mut self, message: &Value) {
        let stdin = self.stdin.as_mut().expect("open");
        writeln!(stdin, "{message}").expect("the server reads");
        stdin.flush().expect("the server reads");
    }

    /// Sends a request and returns its response; every line before it must be protocol too.
    fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let line = self.lines.recv_timeout(Duration::from_secs(120)).expect("the server answers");
            let message: Value =
                serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON on stdout ({e}): {line}"));
            assert_eq!(message["jsonrpc"], "2.0", "not JSON-RPC on stdout: {line}");
            if message["id"] == id {
                return message;
            }
        }
    }

    /// Calls a tool: whether it is a tool error, and its text.
    fn call(&mut self, tool: &str, arguments: Value) -> (bool, String) {
        let response = self.request("tools/call", json!({"name": tool, "arguments": arguments}));
        let result = &response["result"];
        let text = result["content"][0]["text"].as_str().unwrap_or_else(|| panic!("{response}")).to_string();
        (result["isError"] == true, text)
    }

    /// A tool's answer, parsed.
    fn answer(&mut self, tool: &str, arguments: Value) -> Value {
        let (error, text) = self.call(tool, arguments);
        assert!(!error, "{tool}: {text}");
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{tool} answered no JSON ({e}): {text}"))
    }

    /// A tool error's text.
    fn refusal(&mut self, tool: &str, arguments: Value) -> String {
        let (error, text) = self.call(tool, arguments);
        assert!(error, "{tool} answered: {text}");
        text
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        drop(self.stdin.take());
        let status = self.child.wait().expect("the server ends when its input closes");
        if !std::thread::panicking() {
            assert!(status.success(), "the server ended with {status}");
        }
    }
}

/// The real fixtures (`fixtures/real/*/db.sqlite`), sorted.
fn real_fixtures() -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir("fixtures/real")
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("db.sqlite").exists())
        .collect();
    dirs.sort();
    assert!(dirs.len() >= 10, "{dirs:?}");
    dirs
}

fn fixture(name: &str) -> String {
    format!("fixtures/real/{name}")
}

/// The CLI's JSON for the same question.
fn cli_json(args: &[&str]) -> Value {
    let o = cli::run(args, None);
    assert!(o.status.code().is_some_and(|c| c <= 1), "{args:?}: {}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{args:?}: {e}"))
}

/// The CLI's one-line error for the same question.
fn cli_error(args: &[&str]) -> String {
    let o = cli::run(args, None);
    assert_ne!(o.status.code(), Some(0), "{args:?}");
    String::from_utf8_lossy(&o.stderr).lines().next().unwrap_or_default().to_string()
}

/// An answer without its `left_out`, which must say nothing was cut.
fn whole(mut answer: Value) -> Value {
    let left_out = answer.as_object_mut().unwrap().remove("left_out");
    assert_eq!(left_out, Some(json!({})), "{answer}");
    answer
}

/// A CLI entry without its memory section (what `list_failures` leaves out).
fn without_memory(entry: &Value) -> Value {
    let mut entry = entry.clone();
    for key in ["memory", "fixes", "memory_at_start"] {
        entry.as_object_mut().unwrap().remove(key);
    }
    entry
}

fn truth(name: &str) -> Value {
    serde_json::from_slice(&std::fs::read(format!("fixtures/real/{name}/truth.json")).unwrap()).unwrap()
}

#[test]
fn the_eleven_tools_say_what_they_answer() {
    let mut s = Session::start();
    let listed = s.request("tools/list", json!({}));
    let tools = listed["result"]["tools"].as_array().unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, TOOLS);
    for tool in tools {
        let description = tool["description"].as_str().unwrap();
        assert!(description.len() > 150, "{description}");
        assert_eq!(tool["inputSchema"]["type"], "object", "{tool}");
        assert_eq!(tool["annotations"]["readOnlyHint"], true, "{tool}");
        for (name, property) in tool["inputSchema"]["properties"].as_object().unwrap() {
            assert!(property["description"].as_str().is_some_and(|d| !d.is_empty()), "{name} of {tool}");
        }
    }
    let by_name = |n: &str| tools.iter().find(|t| t["name"] == n).unwrap()["description"].as_str().unwrap().to_string();
    // What an answer cannot say is said with it.
    assert!(by_name("peak").contains("do not read headroom from it"));
    assert!(by_name("headroom").contains("It cannot see dataflow buffers that no graph records"));
    assert!(by_name("compare_runs").contains("operations are matched by name, not by what they computed"));
    assert!(by_name("what_if").contains("it cannot say"));
    let required = |n: &str| tools.iter().find(|t| t["name"] == n).unwrap()["inputSchema"]["required"].clone();
    assert_eq!(required("explain_failure"), json!(["report", "operation_id"]));
    assert_eq!(required("what_if"), json!(["report", "operation_id", "fixes"]));
    assert_eq!(required("explain_log"), json!(["path"]));
}

#[test]
fn list_failures_and_explain_failure_answer_as_explain_json_on_every_real_fixture() {
    let mut s = Session::start();
    for dir in real_fixtures() {
        let report = dir.to_str().unwrap();
        let cli = cli_json(&["explain", "--json", report]);
        let listed = whole(s.answer("list_failures", json!({"report": report, "limit": 500})));
        assert_eq!(listed["memory_report"], cli["memory_report"], "{report}");
        assert_eq!(listed["errors_recorded"], true, "{report}");
        assert_eq!(listed["unattached_errors"], cli["unattached_errors"], "{report}");
        let entries = cli["operations"].as_array().unwrap();
        let expected: Vec<Value> = entries.iter().map(without_memory).collect();
        assert_eq!(listed["operations"].as_array().unwrap(), &expected, "{report}");
        for entry in entries {
            let id = entry["operation_id"].clone();
            let explained =
                whole(s.answer("explain_failure", json!({"report": report, "operation_id": id, "limit": 500})));
            assert_eq!(&explained, entry, "{report} operation {id}");
        }
    }
}

#[test]
fn the_late_list_the_peaks_and_a_what_if_answer_as_the_cli() {
    let mut s = Session::start();
    for name in ["stale_chain", "a_l1_add_oom", "small_model_lifetime"] {
        let report = fixture(name);
        let cli = cli_json(&["explain", "--json", "--late", "--peak", &report]);
        let late = whole(s.answer("late_tensors", json!({"report": report, "limit": 500})));
        assert_eq!(
            late,
            json!({"late": cli["late"], "late_summary": cli["late_summary"], "late_failures": cli["late_failures"]})
        );
        let peak = s.answer("peak", json!({"report": report}));
        let m = &cli["memory_report"];
        let expected = json!({"peak": m["peak"], "true_peak": m["true_peak"], "tightest": m["tightest"]});
        assert_eq!(peak, expected, "{report}");
        let headroom = s.answer("headroom", json!({"report": report}));
        assert_eq!(headroom, cli_json(&["headroom", "--json", &report]), "{report}");
        assert_eq!(headroom["headroom"][0]["per_bank"], 0, "{report}: a run that failed");
    }
    let report = fixture("a_l1_add_oom");
    let cli = cli_json(&["whatif", "--json", &report, "--operation", "11", "--free", "8@10", "--free-late"]);
    let answer =
        s.answer("what_if", json!({"report": report, "operation_id": 11, "fixes": ["free 8@10", "free-late"]}));
    assert_eq!(answer, cli);
    assert_eq!(answer["outcome"], "fits", "{answer}");
    assert_eq!(answer["request"], json!({"fits": true, "address": 1105920}), "{answer}");
    // An input of the failed add freed before it reads it is refused, with the fix that can
    // (real tt-metal: "Input Tensor A is not allocated", fixtures/rerun/a_l1_add_oom__free_fill0_input).
    let text = s.refusal("what_if", json!({"report": report, "operation_id": 11, "fixes": ["free 2@10"]}));
    assert_eq!(text, cli_error(&["whatif", &report, "--operation", "11", "--free", "2@10"]));
    assert_eq!(
        text,
        "error: free 2@10: tensor 2 is an input of the failed operation 11 ttnn.add: it stays live until the operation reads it, so freeing it makes no room; keeping it in DRAM can (--to-dram 2): fixtures/real/a_l1_add_oom/db.sqlite"
    );
    // The operation's outcome, not the request's: stale_chain's freed chain fails on its
    // dataflow buffers (fixtures/rerun/stale_chain__free_late).
    let report = fixture("stale_chain");
    let answer = s.answer("what_if", json!({"report": report, "operation_id": 5, "fixes": ["free-late"]}));
    assert_eq!(answer, cli_json(&["whatif", "--json", &report, "--operation", "5", "--free-late"]));
    assert_eq!(
        (&answer["outcome"], &answer["request"]),
        (&json!("unknown"), &json!({"fits": true, "address": 112640}))
    );
    // Only one device and buffer type of the late list (stale_chain's six are all L1).
    let report = fixture("stale_chain");
    let all = whole(s.answer("late_tensors", json!({"report": report})));
    assert_eq!(all["late"].as_array().unwrap().len(), 6);
    let l1 = whole(s.answer("late_tensors", json!({"report": report, "buffer_type": "l1", "device_id": 1})));
    assert_eq!(l1, all);
    let dram = whole(s.answer("late_tensors", json!({"report": report, "buffer_type": "DRAM"})));
    assert_eq!(dram["late"], json!([]));
    assert!(dram["late_summary"].as_array().unwrap().iter().all(|t| t["buffer_type"] == "DRAM"), "{dram}");
    let elsewhere = whole(s.answer("late_tensors", json!({"report": report, "device_id": 0})));
    assert_eq!(elsewhere, json!({"late": [], "late_summary": [], "late_failures": []}));
}

#[test]
fn explain_log_answers_as_explain_log_json() {
    let mut s = Session::start();
    for log in ["fixtures/logs/pytest_session.log", "fixtures/logs/tt_fatal_only.log", "fixtures/logs/wrapped.log"] {
        let cli = cli_json(&["explain", "--json", "--log", log]);
        let answer = whole(s.answer("explain_log", json!({"path": log})));
        assert_eq!(answer, cli, "{log}");
    }
}

#[test]
fn operations_their_pages_and_the_memory_after_them_agree_with_what_the_rig_recorded() {
    let mut s = Session::start();
    let (name, report) = ("a_l1_add_oom", fixture("a_l1_add_oom"));
    let truth = truth(name);
    let failed = truth["failure"]["operation_id"].as_u64().unwrap();
    // Every operation, by id, with its error.
    let found = whole(s.answer("find_operations", json!({"report": report})));
    let listed: Vec<(u64, String, bool)> = found["operations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| {
            (o["operation_id"].as_u64().unwrap(), o["operation_name"].as_str().unwrap().into(), o["has_error"] == true)
        })
        .collect();
    let recorded: Vec<(u64, String, bool)> = truth["report_operations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| {
            let id = o["operation_id"].as_u64().unwrap();
            (id, o["name"].as_str().unwrap().into(), id == failed)
        })
        .collect();
    assert_eq!(listed, recorded);
    let adds = s.answer("find_operations", json!({"report": report, "name_contains": "ADD"}));
    assert_eq!(adds["operations"].as_array().unwrap().len(), 1, "{adds}");
    // The failed operation's page: its inputs are the tensors the script gave it.
    let tensors = truth["tensors"].as_array().unwrap();
    let by_label = |label: &str| tensors.iter().find(|t| t["label"] == label).unwrap().clone();
    let op = truth["operations"].as_array().unwrap().iter().find(|o| o["operation_id"] == failed).unwrap();
    let page = whole(s.answer("operation_detail", json!({"report": report, "operation_id": failed})));
    assert_eq!(page["operation_name"], "ttnn.add");
    assert_eq!(page["has_error"], true);
    assert!(page["arguments"].as_array().unwrap().len() >= 2, "{page}");
    let inputs = page["inputs"].as_array().unwrap();
    assert_eq!(inputs.len(), op["inputs"].as_array().unwrap().len(), "{page}");
    for (input, label) in inputs.iter().zip(op["inputs"].as_array().unwrap()) {
        let t = by_label(label.as_str().unwrap());
        assert_eq!(input["tensor_id"], t["tensor_id"], "{input}");
        assert_eq!(input["shape"].as_str().unwrap().trim_start_matches("Shape(").trim_end_matches(')'), t["shape"]);
        assert_eq!(input["dtype"].as_str().unwrap().replace("::", "."), t["dtype"]);
        assert_eq!(input["buffer_type"], t["buffer_type"]);
        assert_eq!(input["addresses"][0]["address"], t["address"], "{input}");
    }
    // After the last fill: every fill tensor's buffer live in L1 at its address, 128 KiB per
    // bank, each held by the tensor the script made. (The last fill's own buffer is named after
    // the tensor its captured graph shows, which is not the id of its output_tensors row: only
    // the buffers of earlier operations are compared by tensor.)
    let after = whole(s.answer("memory_after", json!({"report": report, "operation_id": failed - 1})));
    assert_eq!(after["memory"]["buffer_type"], "L1", "{after}");
    let buffers = after["memory"]["live_buffers"].as_array().unwrap();
    let fills: Vec<&Value> = tensors
        .iter()
        .filter(|t| t["buffer_type"] == "L1" && t["producer_operation_id"].as_u64().is_some_and(|p| p < failed))
        .collect();
    let mut addresses: Vec<u64> = buffers.iter().map(|b| b["address"].as_u64().unwrap()).collect();
    let mut expected: Vec<u64> = fills.iter().map(|t| t["address"].as_u64().unwrap()).collect();
    addresses.sort_unstable();
    expected.sort_unstable();
    assert_eq!(addresses, expected);
    for t in fills.iter().filter(|t| t["producer_operation_id"].as_u64() < Some(failed - 1)) {
        let held = buffers.iter().find(|b| b["address"] == t["address"]).unwrap();
        assert_eq!(held["tensor_id"], t["tensor_id"], "{held}");
        assert_eq!(held["size_per_bank"], t["size_per_bank"], "{held}");
    }
    let places = after["places"].as_array().unwrap();
    assert!(places.contains(&json!({"device_id": 0, "buffer_type": "L1"})), "{after}");
}

#[test]
fn compare_runs_answers_as_diff_json_on_real_runs_and_their_reruns() {
    let mut s = Session::start();
    for (before, after) in [
        ("stale_chain", "stale_chain__free_late"),
        ("a_l1_add_oom", "a_l1_add_oom__output_to_dram"),
        ("l1_small_oom", "l1_small_oom__l1_small_4096"),
    ] {
        let before = fixture(before);
        let after = format!("fixtures/rerun/{after}");
        let cli = cli_json(&["diff", "--json", &before, &after]);
        let answer = s.answer("compare_runs", json!({"before": before, "after": after}));
        assert_eq!(answer, cli, "{before} -> {after}");
    }
    // The real re-run of stale_chain with every late tensor freed: the matmul's out-of-memory is
    // gone and its circular buffers clash instead (docs/rules/memory.md §9's measured outcome).
    let answer = s.answer(
        "compare_runs",
        json!({"before": fixture("stale_chain"), "after": "fixtures/rerun/stale_chain__free_late"}),
    );
    assert_eq!(answer["failures"]["gone"][0]["kind"], "bank_out_of_memory", "{answer}");
    assert_eq!(answer["failures"]["new"][0]["operation_id"], 11, "{answer}");
    assert_eq!(answer["next"]["operation_id"], 11, "{answer}");
}

#[test]
fn bad_arguments_are_tool_errors_with_the_cli_message_and_the_server_goes_on() {
    let mut s = Session::start();
    let report = fixture("a_l1_add_oom");
    let good = |s: &mut Session| {
        let listed = s.answer("list_failures", json!({"report": fixture("a_l1_add_oom")}));
        assert_eq!(listed["operations"].as_array().unwrap().len(), 1);
    };
    let missing = "fixtures/real/no_such_report";
    assert_eq!(s.refusal("list_failures", json!({"report": missing})), cli_error(&["explain", missing]));
    good(&mut s);
    assert_eq!(
        s.refusal("explain_failure", json!({"report": report, "operation_id": 999})),
        cli_error(&["explain", &report, "--operation", "999"])
    );
    let db = format!("{report}/db.sqlite");
    assert_eq!(
        s.refusal("explain_failure", json!({"report": report, "operation_id": 3})),
        format!("error: operation 3 ttnn.empty has no error: {db}")
    );
    good(&mut s);
    let log = "fixtures/logs/no_such.log";
    assert_eq!(s.refusal("explain_log", json!({"path": log})), cli_error(&["explain", "--log", log]));
    assert_eq!(
        s.refusal("list_failures", json!({"report": report, "log": log})),
        cli_error(&["explain", &report, "--log", log])
    );
    good(&mut s);
    assert_eq!(
        s.refusal("what_if", json!({"report": report, "operation_id": 11, "fixes": ["free x@3"]})),
        cli_error(&["whatif", &report, "--operation", "11", "--free", "x@3"])
    );
    assert_eq!(
        s.refusal("what_if", json!({"report": report, "operation_id": 3, "fixes": ["free-late"]})),
        cli_error(&["whatif", &report, "--operation", "3", "--free-late"])
    );
    // A fix that cannot act on the run is refused, not replayed as a no-op.
    let text = s.refusal("what_if", json!({"report": report, "operation_id": 11, "fixes": ["free 999"]}));
    assert_eq!(text, cli_error(&["whatif", &report, "--operation", "11", "--free", "999"]));
    assert!(text.starts_with("error: free 999: tensor 999 is not in the report: "), "{text}");
    good(&mut s);
    let text = s.refusal("list_failures", json!({"report": report, "operation_id": 3}));
    assert!(
        text.starts_with("error: the arguments of list_failures do not read: unknown field `operation_id`"),
        "{text}"
    );
    let text = s.refusal("explain_failure", json!({"report": report}));
    assert_eq!(text, "error: the arguments of explain_failure do not read: missing field `operation_id`");
    let text = s.refusal("memory_after", json!({"report": report, "operation_id": 3, "buffer_type": "SRAM"}));
    assert_eq!(text, "error: no buffer type \"SRAM\": one of L1, DRAM, L1_SMALL, TRACE");
    let text = s.refusal("memory_after", json!({"report": report, "operation_id": 3, "device_id": 7}));
    assert!(
        text.starts_with(
            "error: operation 3 ttnn.empty holds nothing on device 7 L1 after it (its snapshot holds: device 0 L1"
        ),
        "{text}"
    );
    let missing = fixture("no_such_report");
    assert_eq!(
        s.refusal("compare_runs", json!({"before": report, "after": missing})),
        cli_error(&["diff", &report, &missing])
    );
    // An unknown tool is a protocol error; the server still answers.
    let unknown = s.request("tools/call", json!({"name": "drop_tables", "arguments": {}}));
    assert!(unknown["error"]["message"].as_str().unwrap().contains("no tool named \"drop_tables\""), "{unknown}");
    good(&mut s);
}

#[test]
fn lists_are_cut_at_the_limit_and_the_answer_says_what_was_left_out() {
    let mut s = Session::start();
    let report = fixture("a_l1_add_oom");
    let cli = cli_json(&["explain", "--json", &report]);
    let live = cli["operations"][0]["memory"]["live_buffers"].as_array().unwrap().len();
    assert!(live > 3, "{live}");
    let cut = s.answer("explain_failure", json!({"report": report, "operation_id": 11, "limit": 3}));
    assert_eq!(
        cut["memory"]["live_buffers"],
        json!(cli["operations"][0]["memory"]["live_buffers"].as_array().unwrap()[..3])
    );
    assert_eq!(cut["left_out"]["memory.live_buffers"], live - 3, "{cut}");
    let found = s.answer("find_operations", json!({"report": report, "limit": 4}));
    assert_eq!(found["operations"].as_array().unwrap().len(), 4);
    assert_eq!(found["left_out"], json!({"operations": 7}));
    let none = s.answer("list_failures", json!({"report": report, "limit": 0}));
    assert_eq!(none["operations"], json!([]));
    assert_eq!(none["left_out"], json!({"operations": 1}));
    // At most 500, whatever is asked: every one of the 11 operations fits.
    let all = s.answer("find_operations", json!({"report": report, "limit": 100_000}));
    assert_eq!(all["operations"].as_array().unwrap().len(), 11);
}

const OOM: &str = "Out of Memory: Not enough space to allocate 3276800 B L1 buffer across 4 banks, where each bank needs to store 819200 B, but bank size is 1382720 B (allocated: 1000000 B, free: 382720 B, largest free block: 300000 B)";

#[test]
fn a_report_the_run_adds_to_is_followed_and_a_replaced_one_opened_again() {
    let dir = TempDir::new("mcp-changes");
    let db = ReportBuilder::new(Schema::V2)
        .operation(Op::new(1, "ttnn.add"))
        .operation(Op::new(2, "ttnn.conv2d"))
        .error(ErrorRow::new(2, "ttnn.conv2d", "RuntimeError", OOM))
        .write_to(dir.path());
    let report = dir.path().to_str().unwrap().to_string();
    let ids = |s: &mut Session| -> Vec<u64> {
        let listed = s.answer("list_failures", json!({"report": report}));
        listed["operations"].as_array().unwrap().iter().map(|o| o["operation_id"].as_u64().unwrap()).collect()
    };
    let mut s = Session::start();
    assert_eq!(ids(&mut s), [2]);
    // The run writes on: an operation and its failure, committed by another connection.
    let mut writer = rusqlite::Connection::open(&db).unwrap();
    ReportBuilder::new(Schema::V2)
        .operation(Op::new(3, "ttnn.matmul"))
        .error(ErrorRow::new(3, "ttnn.matmul", "RuntimeError", OOM))
        .append_to(&mut writer);
    drop(writer);
    assert_eq!(ids(&mut s), [2, 3]);
    // A new run replaces the report: it is read again, not followed.
    let next = TempDir::new("mcp-changes-next");
    let replacement = ReportBuilder::new(Schema::V2)
        .operation(Op::new(7, "ttnn.linear"))
        .error(ErrorRow::new(7, "ttnn.linear", "RuntimeError", OOM))
        .write_to(next.path());
    std::fs::rename(&replacement, &db).unwrap();
    assert_eq!(ids(&mut s), [7]);
    assert!(!Path::new(&format!("{}-wal", db.display())).exists(), "reading wrote nothing beside the report");
}

#[test]
fn two_hundred_calls_in_one_session() {
    let mut s = Session::start();
    let report = fixture("l1_fragmented");
    let first = s.answer("list_failures", json!({"report": report}));
    let peak = s.answer("peak", json!({"report": report}));
    assert!(!peak["peak"].as_array().unwrap().is_empty(), "{peak}");
    for i in 0..200 {
        match i % 4 {
            0 => assert_eq!(s.answer("list_failures", json!({"report": report})), first),
            1 => assert!(
                !s.answer("find_operations", json!({"report": report}))["operations"].as_array().unwrap().is_empty()
            ),
            2 => assert!(
                s.refusal("explain_failure", json!({"report": report, "operation_id": 100_000 + i}))
                    .starts_with("error: no operation ")
            ),
            _ => assert_eq!(s.answer("peak", json!({"report": report})), peak),
        }
    }
}

#[test]
fn an_operation_page_gives_its_perf_rows_as_explain_links_them() {
    let mut s = Session::start();
    let cli = cli_json(&["explain", "--json", "fixtures/demo", "--perf", "fixtures/demo-perf"]);
    let mut linked_any = false;
    for entry in cli["operations"].as_array().unwrap() {
        let id = entry["operation_id"].clone();
        let args = json!({"report": "fixtures/demo", "operation_id": id, "perf": "fixtures/demo-perf"});
        let page = whole(s.answer("operation_detail", args));
        assert_eq!(page["perf"]["link"], cli["perf_report"]["link"], "{page}");
        let rows = page["perf"]["rows"].as_array().unwrap();
        assert_eq!(rows.len() as u64, entry["perf"]["linked_rows"].as_u64().unwrap(), "operation {id}: {page}");
        let ids: Vec<String> = rows.iter().map(|r| r["id"].to_string()).collect();
        assert_eq!(json!(ids), entry["perf"]["op_failed_row_ids"], "operation {id}");
        linked_any |= !rows.is_empty();
    }
    assert!(linked_any);
    // Without a performance report the page has no perf key; one that cannot be read is refused.
    let page = s.answer("operation_detail", json!({"report": "fixtures/demo", "operation_id": 7}));
    assert!(page.get("perf").is_none(), "{page}");
    let missing = "fixtures/demo-perf/none.csv";
    assert_eq!(
        s.refusal("operation_detail", json!({"report": "fixtures/demo", "operation_id": 7, "perf": missing})),
        cli_error(&["explain", "fixtures/demo", "--perf", missing])
    );
}

#[test]
fn report_text_reaching_the_agent_is_sanitised() {
    let dir = TempDir::new("mcp-hostile");
    let message = format!("\x1b]52;c;cm0gLXJmIH4=\x07\u{202E}{OOM}\x1b[2J");
    ReportBuilder::new(Schema::V2)
        .operation(Op::new(1, "ttnn.conv2d\x1b[31m"))
        .error(ErrorRow::new(1, "ttnn.conv2d\x1b[31m", "Runtime\x1b[31mError", &message))
        .error(ErrorRow::new(0, "\x1b[1mttnn.x", "Trace\u{2066}Error", "\x1b]0;title\x07Creating trace buffers\x07"))
        .write_to(dir.path());
    let report = dir.path().to_str().unwrap();
    let mut s = Session::start();
    let hostile = ['\x1b', '\x07', '\u{202E}', '\u{2066}', '\u{9b}'];
    for (tool, args) in [
        ("list_failures", json!({"report": report})),
        ("explain_failure", json!({"report": report, "operation_id": 1})),
        ("find_operations", json!({"report": report})),
        ("operation_detail", json!({"report": report, "operation_id": 1})),
    ] {
        let answer = s.answer(tool, args).to_string();
        let parsed: Value = serde_json::from_str(&answer).unwrap();
        let texts = strings(&parsed);
        for bad in hostile {
            assert!(texts.iter().all(|t| !t.contains(bad)), "{bad:?} in {tool}: {texts:?}");
        }
        assert!(answer.contains("ttnn.conv2d"), "{answer}");
    }
    let path = format!("{report}/\x1b[2Jnothing");
    let refused = s.refusal("list_failures", json!({"report": path}));
    assert!(hostile.iter().all(|c| !refused.contains(*c)), "{refused:?}");
}

/// Every string of a JSON value (keys and values).
fn strings(value: &Value) -> Vec<String> {
    match value {
        Value::String(s) => vec![s.clone()],
        Value::Array(items) => items.iter().flat_map(strings).collect(),
        Value::Object(map) => map.iter().flat_map(|(k, v)| std::iter::once(k.clone()).chain(strings(v))).collect(),
        _ => Vec::new(),
    }
}

#[test]
fn the_server_takes_its_reports_from_the_calls_not_the_command_line() {
    for args in [&["--operation", "3", "mcp"][..], &["--demo", "mcp"], &["r", "mcp"]] {
        let o = cli::run(args, None);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert_eq!(
            String::from_utf8_lossy(&o.stderr),
            "error: `ttnn-tui mcp` takes no report or option: each tool call names its report\n"
        );
        assert!(o.stdout.is_empty(), "{args:?}");
    }
    // After `mcp`, an option is clap's usage error, with mcp's own usage (issue 30 §4.6).
    for (args, flag) in
        [(&["mcp", "--demo"][..], "--demo"), (&["mcp", "--log", "x.log"], "--log"), (&["mcp", "--rank", "1"], "--rank")]
    {
        let o = cli::run(args, None);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert_eq!(
            String::from_utf8_lossy(&o.stderr),
            format!(
                "error: unexpected argument '{flag}' found\n\nUsage: ttnn-tui mcp\n\nFor more information, try '--help'.\n"
            )
        );
        assert!(o.stdout.is_empty(), "{args:?}");
    }
    let o = cli::run(&["mcp", "--help"], None);
    let help = String::from_utf8(o.stdout).unwrap();
    assert!(help.contains("Usage: ttnn-tui mcp\n\nOptions:\n  -h, --help  Print help\n"), "{help}");
}

/// What a re-run of a real fixture did (`fixtures/rerun/NAME/rerun.json`).
fn rerun(name: &str) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/rerun").join(name).join("rerun.json");
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

/// Issue 28 §6 to an agent: the softmax whose dataflow buffers clash with the stale tensor 35 and
/// with its own output. `what_if` with both changes fits, the output in DRAM where real tt-metal
/// put it; each change alone does not fit, as its real re-run did not
/// (`fixtures/rerun/softmax_cb_clash__*`). Every answer is the CLI's.
#[test]
fn what_if_on_the_softmax_that_needs_both_changes() {
    let mut s = Session::start();
    let report = fixture("softmax_cb_clash");
    for (fixes, name) in [
        (vec!["free 35@13", "output-to-dram"], "free_low_and_output_to_dram"),
        (vec!["free 35@13"], "free_low"),
        (vec!["to-dram 35"], "low_to_dram"),
        (vec!["output-to-dram"], "output_to_dram"),
    ] {
        let answer = s.answer("what_if", json!({"report": report, "operation_id": 15, "fixes": fixes}));
        let real = rerun(&format!("softmax_cb_clash__{name}"));
        let mut args = vec!["whatif", "--json", &report, "--operation", "15"];
        let flags: Vec<String> =
            real["whatif"].as_array().unwrap().iter().map(|a| a.as_str().unwrap().into()).collect();
        args.extend(flags.iter().map(String::as_str));
        assert_eq!(answer, cli_json(&args), "{name}");
        let output = &answer["output"];
        assert_eq!((&answer["outcome"], &output["address"]), (&real["outcome"], &real["request"]["address"]), "{name}");
        assert_eq!(output["buffer_type"], real["request"]["buffer_type"], "{name}");
    }
    let explained = s.answer("explain_failure", json!({"report": report, "operation_id": 15}));
    let fixes: Vec<(&str, &str)> = explained["fixes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["fix"].as_str().unwrap(), f["outcome"].as_str().unwrap()))
        .collect();
    assert_eq!(
        fixes,
        [
            ("free 35@13, output-to-dram", "fits"),
            ("free 35@13", "does_not_fit"),
            ("to-dram 35", "does_not_fit"),
            ("output-to-dram", "does_not_fit")
        ]
    );
}
