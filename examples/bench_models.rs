//! Benchmark of `explain` on the real-model fixtures (issue 27, "Speed": every real-model
//! fixture under 0.5 s): each folder of `fixtures/models/` with a `db.sqlite`, timed in process
//! (open, load, collect, render the text and the JSON; median of `RUNS` after a warm-up) and once
//! through the release binary (`explain`, the text), with its operations, `buffers` rows and size.
//!
//! ```sh
//! cargo build --release --example bench_models --bin ttnn-tui
//! ./target/release/examples/bench_models                 # every folder of fixtures/models/
//! ./target/release/examples/bench_models FOLDER…         # or the folders given
//! ```
//!
//! Prints the load average before and after (the machine is shared: figures under load are
//! pessimistic), one table row per fixture and `over 0.5 s: …` naming any fixture past the budget.

#[path = "common/timing.rs"]
mod timing;

use rusqlite::{Connection, OpenFlags};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use ttnn_tui::explain::{ExplainOptions, collect, render_json};
use ttnn_tui::report::{MemoryReport, resolve_report};

const RUNS: usize = 5;
const BUDGET: Duration = Duration::from_millis(500);

/// `explain --json` in process: open, load, collect, render.
fn explain_in_process(folder: &Path) -> usize {
    let report = MemoryReport::open(&resolve_report(Some(folder)).unwrap(), 0).unwrap();
    let options = ExplainOptions::default();
    let explanation = collect(&report, None, &options).unwrap();
    render_json(&report, &explanation, &options).len()
}

/// `ttnn-tui explain FOLDER` through the binary beside this example's folder, timed once.
fn explain_binary(folder: &Path) -> Option<Duration> {
    let exe = std::env::current_exe().ok()?;
    let binary = exe.parent().and_then(Path::parent).map(|d| d.join("ttnn-tui"))?;
    let start = Instant::now();
    let out = std::process::Command::new(binary).arg("explain").arg(folder).output().ok()?;
    out.status.success().then(|| start.elapsed())
}

fn count(db: &Path, table: &str) -> i64 {
    let conn = Connection::open_with_flags(db, OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    conn.query_row(&format!("SELECT count(*) FROM {table}"), [], |r| r.get(0)).unwrap_or(0)
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1000.0)
}

/// The folders given, else every fixture folder of `fixtures/models/` with a database.
fn folders() -> Vec<PathBuf> {
    let given: Vec<PathBuf> = std::env::args().skip(1).map(PathBuf::from).collect();
    if !given.is_empty() {
        return given;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures").join("models");
    let mut found: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap_or_else(|e| panic!("{}: {e}", root.display()))
        .filter_map(|e| Some(e.ok()?.path()))
        .filter(|p| p.join("db.sqlite").is_file())
        .collect();
    found.sort();
    found
}

/// The machine's load averages over 1, 5 and 15 minutes (`/proc/loadavg`), when it has them.
fn load_average() -> String {
    let text = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    let figures: Vec<&str> = text.split_whitespace().take(3).collect();
    if figures.len() == 3 { figures.join(" ") } else { "unknown".into() }
}

fn main() {
    println!("load average (1, 5, 15 min): {}", load_average());
    println!("| fixture | operations | buffers rows | db size | explain --json (in process) | explain (binary) |");
    println!("| --- | ---: | ---: | ---: | ---: | ---: |");
    let mut over = Vec::new();
    for folder in folders() {
        let db = folder.join("db.sqlite");
        let size = std::fs::metadata(&db).map(|m| m.len()).unwrap_or(0);
        let in_process = timing::time(RUNS, || {
            explain_in_process(&folder);
        });
        let binary = explain_binary(&folder);
        let name = folder.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        if in_process > BUDGET || binary.is_some_and(|b| b > BUDGET) {
            over.push(name.clone());
        }
        println!(
            "| {name} | {} | {} | {:.1} MB | {} | {} |",
            count(&db, "operations"),
            count(&db, "buffers"),
            size as f64 / 1e6,
            ms(in_process),
            binary.map_or_else(|| "–".to_string(), ms),
        );
    }
    println!("load average (1, 5, 15 min): {}", load_average());
    if over.is_empty() {
        println!("every fixture under {}", ms(BUDGET));
    } else {
        println!("over {}: {}", ms(BUDGET), over.join(", "));
    }
}
