//! Read-only loading of TT-NN memory reports (and, later, performance reports), tolerant of
//! every schema era.

pub mod database;
pub mod details;
pub mod linked;
pub mod locate;
pub mod memory;
pub mod perf;
pub mod perf_csv;
pub mod tensors;

pub use details::BufferRecord;
pub use locate::{ReportSource, resolve_report};
pub use memory::{Device, ErrorRecord, MemoryReport, Operation};

use std::fmt;
use std::path::Path;

/// A report that could not be read: what went wrong, where, and what to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReportError {
    /// What went wrong.
    pub what: String,
    /// The file or folder concerned.
    pub path: String,
    /// What to do about it, when a hint helps.
    pub hint: Option<String>,
}

impl ReportError {
    /// An error about a path.
    pub fn new(what: impl Into<String>, path: &Path) -> Self {
        Self { what: what.into(), path: path.display().to_string(), hint: None }
    }

    /// Adds a hint.
    pub fn hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }
}

impl fmt::Display for ReportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = crate::analysis::sanitize::sanitize_line(&self.path);
        write!(f, "{}: {path}", self.what)?;
        if let Some(hint) = &self.hint {
            write!(f, " ({hint})")?;
        }
        Ok(())
    }
}

impl std::error::Error for ReportError {}

/// The metadata of a report path, or a one-line error: missing, or unreadable and why.
pub fn path_metadata(path: &Path) -> Result<std::fs::Metadata, ReportError> {
    std::fs::metadata(path).map_err(|e| {
        let what = if e.kind() == std::io::ErrorKind::NotFound {
            "no such file or folder".to_string()
        } else {
            format!("cannot read ({e})")
        };
        ReportError::new(what, path)
    })
}
