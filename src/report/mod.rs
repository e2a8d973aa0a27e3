//! Read-only loading of TT-NN reports, tolerant of every schema era: opening and locating a
//! report here, the memory report (`db.sqlite`) and its questions in `memory/`, the performance
//! report and its link to the memory report in `perf/`.

pub mod database;
pub mod error;
pub(crate) mod id_lists;
pub mod locate;
pub mod memory;
pub mod pending;
pub mod perf;
pub mod rowid_ranges;
mod store;

pub use error::ReportError;
pub use locate::{Located, ReportSource, locate_report, resolve_report};
pub use memory::graph_only::{GraphOnlyPass, OperationUsage};
pub use memory::log_beside::LogBeside;
pub use memory::memory_report::{ErrorRecord, MemoryReport, Operation};
pub use memory::pictures::FailureMemory;
pub use memory::run_memory::RunMemory;
pub use memory::whatif::{WhatIf, WhatIfOptions};
