//! What a memory report holds once read: its operations and error rows, sanitised, as plain data
//! the rules, the print mode and the terminal UI share.

use crate::analysis::messages::failure::AllocationFailure;
use std::sync::Arc;

/// One operation of the report, in `operation_id` order.
#[derive(Debug, Clone, PartialEq)]
pub struct Operation {
    /// `operation_id`.
    pub id: u64,
    /// The operation's name, e.g. `ttnn.conv2d`.
    pub name: Arc<str>,
    /// `duration` in seconds, when recorded.
    pub(crate) duration: Option<f64>,
    /// The rank the operation belongs to.
    pub rank: u32,
    /// Index into the report's errors of the error attached to it.
    pub error: Option<usize>,
    /// False for the operation that started and never completed without an `operations` row
    /// (docs/rules/reference.md §13.5): known only from its `incomplete_operation` error.
    pub recorded: bool,
}

/// One `errors` row, sanitised, with its allocation failure when it is one.
#[derive(Debug, Clone, PartialEq)]
pub struct ErrorRecord {
    /// `errors.operation_id` (for orphans, a base id such as 0 or 10000); none when NULL, which
    /// is not operation 0 (0 can be a real id, docs/rules/reference.md §13.4).
    pub operation_id: Option<u64>,
    /// `errors.operation_name`; may be empty.
    pub operation_name: String,
    /// `error_type`, e.g. `RuntimeError` or `incomplete_operation`.
    pub error_type: String,
    /// The whole stored text, sanitised.
    pub message: String,
    /// The error's stack trace, sanitised; may be empty.
    pub(crate) stack_trace: String,
    /// `timestamp` as stored.
    pub(crate) timestamp: String,
    /// The row's rank.
    pub(crate) rank: u32,
    /// The allocation failure recognised in the message.
    pub failure: Option<AllocationFailure>,
    /// True when an operation picked this row.
    pub attached: bool,
    /// Where a log given beside the report shows this failure (docs/rules/reference.md §13.5); none
    /// without a log, or when no failure of the log joined this error.
    pub log: Option<Box<LogPlace>>,
}

/// Where in a log given beside the report an operation's failure was seen, sanitised.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogPlace {
    /// The log's path as given (`-` for standard input).
    pub path: String,
    /// The 1-based line on which the message begins.
    pub line: u64,
    /// The lines where repeats of it begin.
    pub also_at: Vec<u64>,
    /// The innermost user frame of its traceback, `path:line`.
    pub source: Option<String>,
    /// The pytest test.
    pub test: Option<String>,
    /// The report recorded no allocator message for the operation: the log's is the one shown.
    pub message_from_log: bool,
}

impl ErrorRecord {
    /// Whether the row says its operation started and never completed (docs/rules/formats.md §2.5).
    pub fn is_incomplete(&self) -> bool {
        self.error_type == crate::analysis::attach::INCOMPLETE_OPERATION
    }
}

/// What print mode and the UI say of a report older than the `errors` table (docs/rules/formats.md §2.3,
/// Legacy): no error there is not the same as none.
pub const ERRORS_NOT_RECORDED: &str = "This report version does not record errors";

/// Index of the operation with this id in operations sorted by id, when there is one.
pub(crate) fn operation_index(operations: &[Operation], id: u64) -> Option<usize> {
    let start = operations.partition_point(|o| o.id < id);
    (operations.get(start)?.id == id).then_some(start)
}

/// The line of an error message worth quoting: the text after `info:` when the message is a
/// TT_FATAL/TT_THROW dump, else its first non-blank line.
pub fn first_line(message: &str) -> &str {
    let mut lines = message.lines();
    while let Some(line) = lines.next() {
        if let Some(rest) = line.trim_start().strip_prefix("info:") {
            let rest = rest.trim();
            if !rest.is_empty() {
                return rest;
            }
            return lines.find(|l| !l.trim().is_empty()).map(str::trim).unwrap_or("");
        }
    }
    message.lines().find(|l| !l.trim().is_empty()).map(str::trim).unwrap_or("")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_line_after_info() {
        assert_eq!(
            first_line("TT_THROW @ a.cpp:1: tt::exception\ninfo:\nttnn.matmul: bad\nbacktrace:"),
            "ttnn.matmul: bad"
        );
        assert_eq!(first_line("TT_FATAL @ b:4: false\ninfo: Out of Memory: x"), "Out of Memory: x");
        assert_eq!(first_line("\n  Shape mismatch\nmore"), "Shape mismatch");
        assert_eq!(first_line(""), "");
    }

    #[test]
    fn operation_index_finds_ids_and_only_them() {
        let op = |id| Operation { id, name: "".into(), duration: None, rank: 0, error: None, recorded: true };
        let operations = [op(1), op(4), op(9)];
        assert_eq!(operation_index(&operations, 4), Some(1));
        assert_eq!(operation_index(&operations, 5), None);
        assert_eq!(operation_index(&operations, 10), None);
    }
}
