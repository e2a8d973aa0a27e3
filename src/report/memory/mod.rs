//! The TT-NN memory report (`db.sqlite`): its core (`memory_report.rs`, what is read at open),
//! the readers asked of it (details, snapshots, graphs, tensors, usage), the questions that
//! combine them (`Pictures`: the memory at a failure; `Late`: where to free memory; `Replays`:
//! what if; `Passes`: the whole run), a report still being written, and a log or Python calls
//! beside it (docs/architecture.md, "The report's core and its questions").

pub mod details;
pub mod devices;
mod failure_marks;
pub mod graph_only;
mod graph_ties;
pub mod graphs;
pub mod late;
pub mod log_beside;
mod log_join;
pub mod memory_report;
mod operation_stream;
pub mod operation_tensors;
pub mod pictures;
pub(crate) mod python_io;
pub mod questions;
pub mod recent;
pub mod rows;
pub mod run_events;
pub mod run_memory;
mod second;
mod tables_at_open;
pub mod tensor_detail;
pub(crate) mod tensor_index;
mod tensor_links;
mod tensor_rows;
pub mod tensors;
pub mod usage;
mod walk;
pub mod watch;
mod watch_state;
pub mod whatif;
mod whatif_device;
mod whatif_fixes;
mod whatif_late;
mod whatif_shared;
mod whole_run;

#[cfg(test)]
mod rank_tests;
