//! What a scan of a log finds: each allocation failure with where it was seen, and what else the
//! log said when it holds none.

use super::context::OtherError;
use crate::analysis::messages::failure::AllocationFailure;

/// One allocation failure found in a log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogFailure {
    /// The 1-based line on which its message begins.
    pub line: u64,
    /// The lines where repeats of it begin.
    pub also_at: Vec<u64>,
    /// The TT-NN operation (`ttnn.conv2d`), when the traceback's source line shows it.
    pub operation_name: Option<String>,
    /// The innermost user frame, `path:line` as the log prints it.
    pub source: Option<String>,
    /// The pytest test, as pytest names it in its section headers.
    pub test: Option<String>,
    /// The message lines, cleaned (unsanitised: the caller sanitises for output).
    pub message: String,
    /// What the parser made of it.
    pub failure: AllocationFailure,
}

/// Everything a scan found.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct LogFindings {
    /// The failures, in order of first appearance.
    pub failures: Vec<LogFailure>,
    /// Lines read.
    pub lines: u64,
    /// When the log holds no allocation failure, its most likely other error (the last
    /// `TT_FATAL`/`TT_THROW` line, else a Python exception).
    pub other_error: Option<OtherError>,
    /// Failures beyond [`MAX_FAILURES`](super::MAX_FAILURES), not listed.
    pub failures_not_listed: u64,
    /// Repeat lines beyond [`MAX_REPEATS`](super::MAX_REPEATS) per failure, not listed.
    pub repeats_not_listed: u64,
}
