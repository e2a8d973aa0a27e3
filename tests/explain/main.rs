//! The print front end: `explain`, `whatif`, `--late`, `--peak`, `--log`, `--follow`, perf reports, on reports built by the test support.
//!
//! One test binary of the layer (docs/testing.md); each module was a test file of its own.

#[path = "../cli/mod.rs"]
mod cli;
#[path = "../live/mod.rs"]
mod live;
#[path = "../support/mod.rs"]
mod support;

mod demo_replay;
mod entries_beside;
mod explain_beyond;
mod explain_cli;
mod explain_hidden;
mod explain_json_bytes;
mod explain_log;
mod explain_peak;
mod explain_perf;
mod explain_unreadable;
mod follow_live;
mod late_sim;
mod perf_errors;
mod snippet_report;
mod tt_perf_report_output;
mod whatif_allocator_mode;
mod whatif_sim;

/// The test binary run again as a writer process (see `tests/live`).
#[test]
fn live_writer() {
    live::writer_entry();
}
