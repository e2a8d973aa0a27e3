//! ttnn-tui: explains TT-NN allocation failures from memory and performance reports.

pub mod analysis;
pub mod answer;
pub mod app;
pub mod cli;
pub mod explain;
pub mod mcp;
pub mod report;
pub mod tui;
pub mod ui;
