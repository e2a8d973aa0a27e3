//! Report loading: memory reports, captured graphs, tensors, perf CSVs, the usage pass, reports still being written, and the house rules that hold the layout.
//!
//! One test binary of the layer (docs/testing.md); each module was a test file of its own.

#[path = "../cli/mod.rs"]
mod cli;
#[path = "../live/mod.rs"]
mod live;
#[path = "../support/mod.rs"]
mod support;

mod demo_fixture;
mod demo_perf_fixture;
mod late_single_pass;
mod long_graphs;
mod memory_reading;
mod memory_sim;
mod memory_sim_0_81;
mod named_paths;
mod no_import_circle;
mod perf_linking;
mod perf_reading;
mod properties;
mod releases;
mod report_loading;
mod tensor_reading;
mod usage_pass;
mod watch_jobs;
mod watch_live;

/// The test binary run again as a writer process (see `tests/live`).
#[test]
fn live_writer() {
    live::writer_entry();
}
