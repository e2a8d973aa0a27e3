//! The terminal UI: tabs drawn to a `TestBackend` (insta at 120×40 and tiny sizes), the views held to explain, and a real terminal (tmux).
//!
//! One test binary of the layer (docs/testing.md); each module was a test file of its own.

#[path = "../cli/mod.rs"]
mod cli;
#[path = "../live/mod.rs"]
mod live;
#[path = "../real_support/mod.rs"]
mod real_support;
#[path = "../tui_support/mod.rs"]
mod tui_support;
use tui_support::support;

mod real_tui;
mod tmux;
mod tui_beyond;
mod tui_compare;
mod tui_core_grid;
mod tui_fixes;
mod tui_memory;
mod tui_no_color;
mod tui_operations;
mod tui_over_time;
mod tui_perf_figures;
mod tui_performance;
mod tui_real_releases;
mod tui_releases;
mod tui_robustness;
mod tui_tree;
mod tui_unattached;
mod views_agree;

/// The test binary run again as a writer process (see `tests/live`).
#[test]
fn live_writer() {
    live::writer_entry();
}
