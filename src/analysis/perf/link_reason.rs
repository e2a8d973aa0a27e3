//! Why two loaded reports did not link: one line a user can act on, beside the reference's
//! `Unable to link active memory and performance reports` (docs/rules/reference.md §8.1, §9).

use super::report_rows::PerfRow;
use crate::analysis::format::counted;

/// The rows of the performance report as the table counts them: every row of the link view
/// (signposts included, host ops hidden), of which the signposts are not compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct RowCount {
    /// Rows of the link view, as the Performance tab's title counts them.
    pub(crate) rows: usize,
    /// Signposts among them, left out of the alignment.
    pub(crate) signposts: usize,
}

/// Why the alignment of docs/rules/reference.md §9 gave no mapping.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum LinkFailure {
    /// The performance report has a header and no rows (docs/rules/reference.md §8.1): the link is
    /// `unavailable`.
    NoRows,
    /// The memory report has no operations.
    NoOperations,
    /// No device operation completed in the memory report (no captured graphs, or every
    /// operation failed before its first device operation ended).
    NoCompletedDeviceOperations,
    /// Every row matched its device operation, but the memory report has more device operations
    /// than the performance report has rows to compare.
    MoreDeviceOperations {
        /// Completed device operations in the list compared.
        device_operations: usize,
        /// The performance report's rows.
        rows: RowCount,
    },
    /// A device operation and the row at its position differ.
    Difference {
        /// Completed device operations in the list compared.
        device_operations: usize,
        /// The performance report's rows.
        rows: RowCount,
        /// The ID of the first row that differs, as the table's ID column shows it (its line
        /// in the profiler's CSV).
        row_id: u64,
        /// The memory report's device operation at that position.
        memory: String,
        /// The row's raw op code.
        perf: String,
    },
}

impl LinkFailure {
    /// The one-line reason, e.g. `12 device operations completed in the memory report, 10 rows in
    /// the performance report (1 signpost among them, not compared); first difference at ID 5:
    /// MatmulDeviceOperation vs SoftmaxDeviceOperation`. The rows are counted as the table's
    /// title counts them, and a row is named by the table's ID.
    pub(crate) fn text(&self) -> String {
        let counts = |device_operations: usize, rows: RowCount| {
            let signposts = match rows.signposts {
                0 => String::new(),
                n => format!(" ({} among them, not compared)", counted(n, "signpost", "signposts")),
            };
            format!(
                "{} completed in the memory report, {} in the performance report{signposts}",
                counted(device_operations, "device operation", "device operations"),
                counted(rows.rows, "row", "rows"),
            )
        };
        match self {
            Self::NoRows => "the performance report has no rows".to_string(),
            Self::NoOperations => "the memory report has no operations".to_string(),
            Self::NoCompletedDeviceOperations => "no device operation completed in the memory report".to_string(),
            Self::MoreDeviceOperations { device_operations, rows } => {
                let compared = if rows.signposts == 0 { "rows" } else { "rows to compare" };
                format!("{}; more device operations than {compared}", counts(*device_operations, *rows))
            }
            Self::Difference { device_operations, rows, row_id, memory, perf } => {
                format!("{}; first difference at ID {row_id}: {memory} vs {perf}", counts(*device_operations, *rows))
            }
        }
    }
}

/// Why none of `attempts` (the memory-side name lists tried, in order) aligned with the alignable
/// `rows` (signposts left out). The attempt that matched the longest run of rows from the start
/// is described; the earliest wins a tie. `total_rows` counts every row of the link view,
/// signposts included; `has_operations` says whether the memory report has any.
pub(crate) fn diagnose(
    attempts: &[Vec<&str>],
    rows: &[&PerfRow],
    total_rows: usize,
    has_operations: bool,
) -> LinkFailure {
    if total_rows == 0 {
        return LinkFailure::NoRows;
    }
    if !has_operations {
        return LinkFailure::NoOperations;
    }
    let count = RowCount { rows: total_rows, signposts: total_rows.saturating_sub(rows.len()) };
    let mut best: Option<(usize, LinkFailure)> = None;
    for list in attempts.iter().filter(|l| !l.is_empty()) {
        let device_operations = list.len();
        let difference = list.iter().zip(rows).position(|(name, row)| *row.raw_op_code != **name);
        let (matched, failure) = match difference {
            Some(k) => (
                k,
                LinkFailure::Difference {
                    device_operations,
                    rows: count,
                    row_id: rows[k].id,
                    memory: list[k].to_string(),
                    perf: rows[k].raw_op_code.to_string(),
                },
            ),
            None => (rows.len(), LinkFailure::MoreDeviceOperations { device_operations, rows: count }),
        };
        if best.as_ref().is_none_or(|(m, _)| matched > *m) {
            best = Some((matched, failure));
        }
    }
    best.map_or(LinkFailure::NoCompletedDeviceOperations, |(_, failure)| failure)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::perf::report_rows::{DEVICE_OP_TYPE, SIGNPOST_OP_TYPE};

    fn row(id: u64, code: &str) -> PerfRow {
        PerfRow { id, raw_op_code: code.into(), op_type: DEVICE_OP_TYPE.into(), ..PerfRow::default() }
    }

    fn signpost(id: u64, text: &str) -> PerfRow {
        PerfRow { id, raw_op_code: text.into(), op_type: SIGNPOST_OP_TYPE.into(), ..PerfRow::default() }
    }

    #[test]
    fn the_texts() {
        assert_eq!(LinkFailure::NoRows.text(), "the performance report has no rows");
        assert_eq!(LinkFailure::NoOperations.text(), "the memory report has no operations");
        assert_eq!(
            LinkFailure::NoCompletedDeviceOperations.text(),
            "no device operation completed in the memory report"
        );
        let rows = RowCount { rows: 0, signposts: 0 };
        assert_eq!(
            LinkFailure::MoreDeviceOperations { device_operations: 1, rows }.text(),
            "1 device operation completed in the memory report, 0 rows in the performance report; more device operations than rows"
        );
        let rows = RowCount { rows: 27, signposts: 2 };
        assert_eq!(
            LinkFailure::MoreDeviceOperations { device_operations: 26, rows }.text(),
            "26 device operations completed in the memory report, 27 rows in the performance report (2 signposts among them, not compared); more device operations than rows to compare"
        );
        let difference = LinkFailure::Difference {
            device_operations: 12,
            rows: RowCount { rows: 10, signposts: 1 },
            row_id: 5,
            memory: "MatmulDeviceOperation".into(),
            perf: "SoftmaxDeviceOperation".into(),
        };
        assert_eq!(
            difference.text(),
            "12 device operations completed in the memory report, 10 rows in the performance report (1 signpost among them, not compared); first difference at ID 5: MatmulDeviceOperation vs SoftmaxDeviceOperation"
        );
    }

    #[test]
    fn rows_are_counted_as_the_table_counts_them_and_named_by_their_id() {
        // The table shows all four rows and their IDs; the signposts are not compared, and the
        // first difference is the row with ID 9, the third compared.
        let rows = [signpost(2, "start"), row(3, "A"), row(7, "B"), signpost(8, "block 1"), row(9, "C")];
        let table: Vec<&PerfRow> = rows.iter().collect();
        let alignable: Vec<&PerfRow> = rows.iter().filter(|r| !r.is_signpost()).collect();
        let failure = diagnose(&[vec!["A", "B", "X"]], &alignable, table.len(), true);
        assert_eq!(
            failure.text(),
            "3 device operations completed in the memory report, 5 rows in the performance report (2 signposts among them, not compared); first difference at ID 9: X vs C"
        );
    }

    #[test]
    fn the_attempt_that_went_furthest_is_described() {
        let rows = [row(2, "A"), row(3, "B"), row(5, "C")];
        let rows: Vec<&PerfRow> = rows.iter().collect();
        let start = vec!["A", "X", "C"];
        let end = vec!["A", "B", "Y", "D"];
        let failure = diagnose(&[start.clone(), end], &rows, 3, true);
        let count = RowCount { rows: 3, signposts: 0 };
        assert_eq!(
            failure,
            LinkFailure::Difference {
                device_operations: 4,
                rows: count,
                row_id: 5,
                memory: "Y".into(),
                perf: "C".into()
            }
        );
        // A tie goes to the earlier attempt.
        assert_eq!(
            diagnose(&[start.clone(), vec!["A", "Z"]], &rows, 3, true),
            LinkFailure::Difference {
                device_operations: 3,
                rows: count,
                row_id: 3,
                memory: "X".into(),
                perf: "B".into()
            }
        );
        let longer = vec!["A", "B", "C", "D"];
        assert_eq!(
            diagnose(&[longer], &rows, 3, true),
            LinkFailure::MoreDeviceOperations { device_operations: 4, rows: count }
        );
    }

    #[test]
    fn nothing_to_compare() {
        let rows = [row(2, "A")];
        let rows: Vec<&PerfRow> = rows.iter().collect();
        assert_eq!(diagnose(&[vec!["A"]], &[], 0, true), LinkFailure::NoRows);
        assert_eq!(diagnose(&[vec![]], &rows, 1, false), LinkFailure::NoOperations);
        assert_eq!(diagnose(&[vec![], vec![]], &rows, 1, true), LinkFailure::NoCompletedDeviceOperations);
    }
}
