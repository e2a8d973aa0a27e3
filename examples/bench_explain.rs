//! Benchmark of print mode against the SQLite floor, on generated reports.
//!
//! ```sh
//! cargo run --release --example gen_report -- --ops 1000 --buffers-per-op 1000 /tmp/ttnn-1k
//! cargo run --release --example gen_report -- --ops 100000 --buffers-per-op 100 /tmp/ttnn-100k
//! cargo run --release --example bench_explain -- /tmp/ttnn-1k /tmp/ttnn-100k
//! ```
//!
//! For each report it times, over several runs (median): the floor — opening the database with
//! rusqlite and reading every row of `operations` and `errors`, and the failing operations'
//! captured graphs — and `explain --json` in process (open, load, collect, render), then the
//! same through the release binary.

#[path = "common/timing.rs"]
mod timing;

use rusqlite::{Connection, OpenFlags};
use std::path::{Path, PathBuf};
use std::time::Duration;
use ttnn_tui::explain::{ExplainOptions, collect, render_json};
use ttnn_tui::report::{MemoryReport, resolve_report};

const RUNS: usize = 15;

fn time(f: impl FnMut()) -> Duration {
    timing::time(RUNS, f)
}

/// The floor (issue 29): rusqlite reading every row of `operations` and `errors`, and the
/// captured graphs of the operations with an error, each found as cheaply as SQLite allows
/// (`captured_graph` has no index: its rows are in operation order, so a binary search on
/// rowid finds an operation's rows), nothing else.
fn floor(db: &Path) {
    let conn = Connection::open_with_flags(db, OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    let mut rows = 0usize;
    let mut stmt = conn.prepare("SELECT operation_id, name, duration FROM operations").unwrap();
    let mut q = stmt.query([]).unwrap();
    while let Some(r) = q.next().unwrap() {
        let _: (i64, String) = (r.get(0).unwrap(), r.get(1).unwrap());
        rows += 1;
    }
    let mut failed = Vec::new();
    let mut stmt = conn.prepare("SELECT * FROM errors").unwrap();
    let mut q = stmt.query([]).unwrap();
    while let Some(r) = q.next().unwrap() {
        let _: String = r.get(3).unwrap();
        failed.extend(r.get::<_, Option<i64>>(0).unwrap());
        rows += 1;
    }
    // The rowid range once (two bare min/max: SQLite answers each from the b-tree's edge; both
    // in one statement would scan the table).
    let edge = |sql: &str| conn.query_row(sql, [], |r| r.get::<_, Option<i64>>(0)).unwrap();
    let range = edge("SELECT min(rowid) FROM captured_graph").zip(edge("SELECT max(rowid) FROM captured_graph"));
    let graph_bytes: usize = range.map_or(0, |range| failed.iter().map(|&id| failed_graph(&conn, range, id)).sum());
    assert!(rows > 0);
    std::hint::black_box(graph_bytes);
}

/// The bytes of an operation's captured graph rows, found by a binary search on rowid in
/// `(first, last)`.
fn failed_graph(conn: &Connection, (first, last): (i64, i64), id: i64) -> usize {
    let (mut lo, mut hi) = (first, last + 1);
    let mut probe = conn.prepare_cached("SELECT operation_id FROM captured_graph WHERE rowid >= ?1 LIMIT 1").unwrap();
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        let at: i64 = probe.query_row([mid], |r| r.get(0)).unwrap();
        if at < id { lo = mid + 1 } else { hi = mid }
    }
    let mut read =
        conn.prepare_cached("SELECT operation_id, captured_graph FROM captured_graph WHERE rowid >= ?1").unwrap();
    let mut q = read.query([lo]).unwrap();
    let mut bytes = 0;
    while let Some(r) = q.next().unwrap() {
        if r.get::<_, i64>(0).unwrap() != id {
            break;
        }
        bytes += r.get::<_, String>(1).unwrap().len();
    }
    bytes
}

fn explain_in_process(folder: &Path) -> usize {
    let report = MemoryReport::open(&resolve_report(Some(folder)).unwrap(), 0).unwrap();
    let options = ExplainOptions::default();
    let explanation = collect(&report, None, &options).unwrap();
    render_json(&report, &explanation, &options).len()
}

fn explain_binary(folder: &Path) {
    let exe = std::env::current_exe().unwrap();
    let binary = exe.parent().and_then(Path::parent).map(|d| d.join("ttnn-tui")).unwrap();
    let out = std::process::Command::new(binary).args(["explain", "--json"]).arg(folder).output().unwrap();
    assert!(out.status.success());
}

fn count(db: &Path, table: &str) -> i64 {
    let conn = Connection::open_with_flags(db, OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    conn.query_row(&format!("SELECT count(*) FROM {table}"), [], |r| r.get(0)).unwrap()
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1000.0)
}

fn main() {
    let folders: Vec<PathBuf> = std::env::args().skip(1).map(PathBuf::from).collect();
    assert!(!folders.is_empty(), "usage: bench_explain REPORT_FOLDER...");
    println!(
        "| report | operations | buffers rows | db size | floor | explain --json (in process) | ratio | explain --json (binary) |"
    );
    println!("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
    for folder in folders {
        let db = folder.join("db.sqlite");
        let size = std::fs::metadata(&db).unwrap().len();
        let floor_time = time(|| floor(&db));
        let explain_time = time(|| {
            explain_in_process(&folder);
        });
        let binary_time = time(|| explain_binary(&folder));
        println!(
            "| {} | {} | {} | {:.1} GiB | {} | {} | {:.2}× | {} |",
            folder.display(),
            count(&db, "operations"),
            count(&db, "buffers"),
            size as f64 / (1u64 << 30) as f64,
            ms(floor_time),
            ms(explain_time),
            explain_time.as_secs_f64() / floor_time.as_secs_f64(),
            ms(binary_time),
        );
    }
}
