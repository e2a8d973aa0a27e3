//! Read-only loading of TT-NN memory reports (and, later, performance reports), tolerant of
//! every schema era.

pub mod database;
pub mod details;
pub mod devices;
pub mod graphs;
pub mod late;
pub mod linked;
pub mod locate;
pub mod log_beside;
mod log_join;
pub mod memory;
pub mod memory_recent;
pub mod memory_replay;
pub mod memory_rows;
pub mod memory_tensors;
pub mod memory_view;
pub mod pending;
pub mod perf;
pub mod perf_csv;
pub(crate) mod python_io;
pub mod run_memory;
mod store;
pub(crate) mod tensor_index;
pub mod tensors;
pub mod usage;
pub mod watch;
mod watch_state;
pub mod whatif;
mod whatif_range;

pub use locate::{Located, ReportSource, locate_report, resolve_report};
pub use log_beside::LogBeside;
pub use memory::{ErrorRecord, MemoryReport, Operation};
pub use memory_replay::{GraphReplay, OperationUsage};
pub use memory_view::FailureMemory;
pub use run_memory::RunMemory;
pub use whatif::{WhatIf, WhatIfOptions};

use std::path::Path;

/// What went wrong in the report layer: a report that could not be opened (what, where, what to
/// do), a table of an open report that could not be read, a captured graph that is invalid, or
/// a long read its caller cancelled.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReportError {
    /// The report could not be opened.
    #[error("{}", open_text(what, path, hint.as_deref()))]
    Open {
        /// What went wrong.
        what: String,
        /// The file or folder concerned.
        path: String,
        /// What to do about it, when a hint helps.
        hint: Option<String>,
    },
    /// A table of an opened report could not be read.
    #[error("cannot read {what} ({message})")]
    Read {
        /// What was being read, e.g. `arguments`.
        what: &'static str,
        /// SQLite's reason.
        message: String,
    },
    /// A captured graph is not valid JSON of nodes.
    #[error(transparent)]
    Graph(#[from] crate::analysis::graph::GraphError),
    /// A long read was cancelled by its caller.
    #[error("cancelled")]
    Cancelled,
}

impl ReportError {
    /// A report that cannot be opened, about a path.
    pub fn new(what: impl Into<String>, path: &Path) -> Self {
        Self::Open { what: what.into(), path: path.display().to_string(), hint: None }
    }

    /// Adds a hint to an opening error.
    pub(crate) fn hint(mut self, text: impl Into<String>) -> Self {
        if let Self::Open { hint, .. } = &mut self {
            *hint = Some(text.into());
        }
        self
    }

    /// A read of `what` that SQLite refused.
    pub(crate) fn read(what: &'static str) -> impl Fn(rusqlite::Error) -> Self {
        move |e| Self::Read { what, message: e.to_string() }
    }
}

/// `{what}: {path} ({hint})`, the path sanitised.
fn open_text(what: &str, path: &str, hint: Option<&str>) -> String {
    let path = crate::analysis::sanitize::sanitize_line(path);
    match hint {
        Some(hint) => format!("{what}: {path} ({hint})"),
        None => format!("{what}: {path}"),
    }
}

/// The metadata of a report path, or a one-line error: missing, or unreadable and why.
pub(crate) fn path_metadata(path: &Path) -> Result<std::fs::Metadata, ReportError> {
    std::fs::metadata(path).map_err(|e| {
        let what = if e.kind() == std::io::ErrorKind::NotFound {
            "no such file or folder".to_string()
        } else {
            format!("cannot read ({e})")
        };
        ReportError::new(what, path)
    })
}
