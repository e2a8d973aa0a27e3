//! Benchmark of the what-if replay (issue 20 §4) on a generated report:
//!
//! ```sh
//! cargo run --release --example gen_report -- --ops 200000 --buffers-per-op 500 --errors 80 --memory /tmp/big
//! cargo run --release --example bench_whatif -- /tmp/big
//! ```
//!
//! It reads the database file once (to warm the page cache), then times, in this order, each
//! once:
//! * a fix near the failure: the last failure's memory and its first advice's fixes replayed
//!   (`ttnn-tui whatif REPORT --operation N --free …`), with the process's peak resident memory
//!   after it (the target: under 2 s and 200 MB);
//! * `explain --late`: the late list with, at every failure, `free-late` replayed;
//! * `whatif --free-late` at the last failure;
//!
//! and prints the ratio of the last two (the target: at most 1.5×).

#[path = "common/timing.rs"]
mod timing;

use std::path::Path;
use std::time::{Duration, Instant};
use ttnn_tui::analysis::memory::whatif::{AdviceFor, AdviceKind, Fix, advice};
use ttnn_tui::explain::read_late;
use ttnn_tui::report::memory::whatif::WhatIfOptions;
use ttnn_tui::report::{MemoryReport, resolve_report};

fn secs(d: Duration) -> String {
    format!("{:.2} s", d.as_secs_f64())
}

fn timed<T>(f: impl FnOnce() -> T) -> (T, Duration) {
    let start = Instant::now();
    let out = f();
    (out, start.elapsed())
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [folder] = args.as_slice() else { panic!("usage: bench_whatif REPORT_FOLDER") };
    let source = resolve_report(Some(Path::new(folder))).expect("a report");
    let db = Path::new(folder).join("db.sqlite");
    let bytes = std::io::copy(&mut std::fs::File::open(&db).expect("db.sqlite"), &mut std::io::sink()).unwrap_or(0);
    let (report, open) = timed(|| MemoryReport::open(&source, 0).expect("opens"));
    let failed: Vec<usize> =
        (0..report.operations.len()).filter(|&i| report.error_of(i).is_some_and(|e| e.failure.is_some())).collect();
    let &index = failed.last().expect("a report with an allocation failure");
    let n = report.operations[index].id;
    println!(
        "{}: {} MB, {} operations, {} allocation failures; opened in {}; the last failure: operation {n}",
        db.display(),
        bytes >> 20,
        report.operations.len(),
        failed.len(),
        secs(open)
    );

    let (near, near_time) = timed(|| {
        let m = report.replays().failure_memory(index).expect("reads").expect("a memory picture");
        let previous = index.checked_sub(1).map(|i| report.operations[i].id);
        let op = AdviceFor { operation_name: &report.operations[index].name, previous, own_unrecorded: None };
        let candidates = advice(&m, op);
        // §6's buffers freed before the operation, as before the advice offered every change.
        let first = candidates.iter().position(|a| matches!(a.kind, AdviceKind::FreeBefore { .. }));
        let fixes: Vec<Fix> = first
            .or_else(|| candidates.iter().position(|a| !a.fixes.is_empty()))
            .map(|i| candidates[i].fixes.clone())
            .unwrap_or_else(|| {
                vec![Fix::FreeBuffer {
                    address: m.live_buffers.last().map_or(0, |b| b.address),
                    after: previous.unwrap_or(0),
                }]
            });
        let w = report.replays().what_if_at(index, &fixes, &WhatIfOptions::default(), Some(&m)).expect("replays");
        (fixes, w)
    });
    let (fixes, w) = near;
    let fixes: Vec<String> = fixes.iter().map(Fix::to_string).collect();
    println!(
        "| a fix near the failure ({}; replayed after {:?}) | {} | peak RSS {} | {} |",
        fixes.join(", "),
        w.replayed_after,
        secs(near_time),
        timing::peak_rss(),
        w.answer.outcome.as_str()
    );

    let (late, late_time) = timed(|| read_late(&report).expect("the late list reads"));
    let json = serde_json::to_value(&late).expect("serialises");
    let failures = json["late_failures"].as_array().cloned().unwrap_or_default();
    let replayed = failures.iter().filter(|f| !f["outcome"].is_null()).count();
    println!(
        "| explain --late ({} tensors; free-late replayed at {replayed} of {} failures) | {} | peak RSS {} |",
        late.late.len(),
        failures.len(),
        secs(late_time),
        timing::peak_rss()
    );

    let (free_late, free_late_time) =
        timed(|| report.replays().what_if(index, &[Fix::FreeLate], &WhatIfOptions::default()).expect("replays"));
    println!(
        "| whatif --free-late at operation {n} | {} | peak RSS {} | {} |",
        secs(free_late_time),
        timing::peak_rss(),
        free_late.answer.outcome.as_str()
    );
    println!(
        "whatif --free-late / explain --late = {:.2}× (target ≤ 1.5×)",
        free_late_time.as_secs_f64() / late_time.as_secs_f64()
    );
}
