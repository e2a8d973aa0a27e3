//! Print mode's part of docs/rules/reference.md §13.5 that is not an entry's: the log's failures no
//! operation took, after the report's blocks.

use super::log::failure_block;
use crate::analysis::format::counted;
use crate::analysis::sanitize::sanitize_line;
use crate::answer::LogFailureAnswer;
use crate::report::MemoryReport;

/// The log's failures no operation took, after the report's blocks, as log mode shows them.
pub(super) fn unjoined_text(report: &MemoryReport, hex: bool, paint: super::paint::Paint) -> String {
    let failures: Vec<_> = report.unjoined_log_failures().collect();
    let Some(log) = report.log().filter(|_| !failures.is_empty()) else { return String::new() };
    let mut out = format!(
        "\n{} in the log {} joined no operation of this report:\n",
        counted(failures.len(), "allocation failure", "allocation failures"),
        sanitize_line(&log.path)
    );
    for f in failures {
        out.push('\n');
        out.push_str(&failure_block(&LogFailureAnswer::new(f, hex), paint));
    }
    out
}

/// Appends the lines to a block, indented.
pub(super) fn push_lines(out: &mut String, lines: &[String]) {
    for line in lines {
        out.push_str("  ");
        out.push_str(line);
        out.push('\n');
    }
}
