//! Attaching error rows to operations: id and name must both match, the first row wins, with the
//! rank-0 fallback; and which rows one rank's view lists (docs/rules/reference.md §2.1–§2.3).

use crate::analysis::int_hash::IntMap;

/// The identity of an operation, for attachment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct OperationKey<'a> {
    /// `operations.operation_id`.
    pub(crate) id: u64,
    /// `operations.name`.
    pub(crate) name: &'a str,
    /// `operations.rank` (0 without the column).
    pub(crate) rank: u32,
}

/// The identity of an error row, for attachment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ErrorKey<'a> {
    /// `errors.operation_id`; none when NULL (such a row never attaches).
    pub(crate) operation_id: Option<u64>,
    /// `errors.operation_name`.
    pub(crate) operation_name: &'a str,
    /// `errors.rank` (0 without the column).
    pub(crate) rank: u32,
    /// `error_type` is `incomplete_operation`: the operation started and never completed.
    pub(crate) incomplete: bool,
}

/// The `error_type` of the row graph_report writes for an operation that started and never
/// completed (docs/rules/formats.md §2.5).
pub(crate) const INCOMPLETE_OPERATION: &str = "incomplete_operation";

/// The result of attachment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Attachment {
    /// For each operation, the index of its error row.
    pub(crate) error_of_operation: Vec<Option<usize>>,
    /// For each error row, whether some operation picked it.
    pub(crate) attached: Vec<bool>,
}

/// Attaches error rows (in table order) to operations.
pub(crate) fn attach_errors(operations: &[OperationKey<'_>], errors: &[ErrorKey<'_>]) -> Attachment {
    let mut by_id_rank: IntMap<(u64, u32), Vec<usize>> = IntMap::default();
    for (i, e) in errors.iter().enumerate() {
        if let Some(id) = e.operation_id {
            by_id_rank.entry((id, e.rank)).or_default().push(i);
        }
    }
    let mut attached = vec![false; errors.len()];
    let error_of_operation = operations
        .iter()
        .map(|op| {
            let exact = by_id_rank.get(&(op.id, op.rank)).into_iter().flatten();
            let fallback = (op.rank != 0).then(|| by_id_rank.get(&(op.id, 0))).flatten().into_iter().flatten();
            let picked = exact.chain(fallback).copied().find(|&i| errors[i].operation_name == op.name);
            if let Some(i) = picked {
                attached[i] = true;
            }
            picked
        })
        .collect();
    Attachment { error_of_operation, attached }
}

/// Which error rows one rank's view lists (docs/rules/reference.md §2.1): the rank's own rows and the rank-0
/// rows the fallback attached; every row when the `errors` table has no `rank` column (its rows
/// belong to every rank, attached or not).
pub(crate) fn rows_of_rank(
    errors: &[ErrorKey<'_>],
    attachment: &Attachment,
    rank: u32,
    table_has_rank: bool,
) -> Vec<bool> {
    errors
        .iter()
        .zip(&attachment.attached)
        .map(|(e, &attached)| !table_has_rank || e.rank == rank || attached)
        .collect()
}

/// The error of the operation that started and never completed and has no `operations` row
/// (docs/rules/reference.md §13.5, ttnn 0.67–0.78): the last `incomplete_operation` row among those the view
/// lists, when it names an operation (a nameless row never attaches, §2.2), no operation picked
/// it and its id is NULL, 0 or one no operation has. That operation is the one numbered one past
/// the last recorded one; none when there is no such row.
pub(crate) fn unrecorded_failure(
    operations: &[OperationKey<'_>],
    errors: &[ErrorKey<'_>],
    attachment: &Attachment,
    listed: &[bool],
) -> Option<usize> {
    let last = (0..errors.len()).rev().find(|&i| errors[i].incomplete && listed[i])?;
    if errors[last].operation_name.is_empty() {
        return None;
    }
    let carried = match errors[last].operation_id {
        None | Some(0) => false,
        Some(id) => operations.iter().any(|op| op.id == id),
    };
    (!attachment.attached[last] && !carried).then_some(last)
}

/// The id an unrecorded operation gets: one past the last recorded operation's (the number later
/// releases give it), 1 when none is recorded.
pub(crate) fn unrecorded_id(operations: &[OperationKey<'_>]) -> u64 {
    operations.iter().map(|op| op.id).max().map_or(1, |last| last.saturating_add(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn op(id: u64, name: &str) -> OperationKey<'_> {
        OperationKey { id, name, rank: 0 }
    }
    fn err(operation_id: u64, operation_name: &str) -> ErrorKey<'_> {
        ErrorKey { operation_id: Some(operation_id), operation_name, rank: 0, incomplete: false }
    }

    /// docs/rules/reference.md §14.7, operations (1, ttnn.add), (2, ttnn.conv2d), (10000, ttnn.matmul).
    fn ops() -> Vec<OperationKey<'static>> {
        vec![op(1, "ttnn.add"), op(2, "ttnn.conv2d"), op(10000, "ttnn.matmul")]
    }

    #[test]
    fn id_and_name_match() {
        let a = attach_errors(&ops(), &[err(2, "ttnn.conv2d")]);
        assert_eq!(a.error_of_operation, vec![None, Some(0), None]);
        assert_eq!(a.attached, vec![true]);
    }

    #[test]
    fn orphans_at_base_ids_never_attach() {
        for id in [0, 10000] {
            let a = attach_errors(&ops(), &[err(id, "ttnn.conv2d")]);
            assert_eq!(a.error_of_operation, vec![None, None, None]);
            assert_eq!(a.attached, vec![false]);
        }
    }

    #[test]
    fn empty_names_never_attach() {
        let a = attach_errors(&ops(), &[err(1, "")]);
        assert_eq!(a.attached, vec![false]);
    }

    /// docs/rules/reference.md §13.4: a NULL id is no id, not 0; it attaches to nothing, not even to an
    /// operation 0 of the same name.
    #[test]
    fn a_null_id_never_attaches() {
        let operations = [op(0, "ttnn.add"), op(1, "ttnn.add")];
        let null = ErrorKey { operation_id: None, operation_name: "ttnn.add", rank: 0, incomplete: false };
        let a = attach_errors(&operations, &[null, err(0, "ttnn.add")]);
        assert_eq!(a.error_of_operation, vec![Some(1), None]);
        assert_eq!(a.attached, vec![false, true]);
        assert_eq!(rows_of_rank(&[null], &attach_errors(&operations, &[null]), 0, false), vec![true]);
    }

    #[test]
    fn the_first_row_wins() {
        let a = attach_errors(&ops(), &[err(2, "ttnn.conv2d"), err(2, "ttnn.conv2d")]);
        assert_eq!(a.error_of_operation[1], Some(0));
        assert_eq!(a.attached, vec![true, false]);
    }

    #[test]
    fn no_errors_table_means_no_errors() {
        let a = attach_errors(&ops(), &[]);
        assert_eq!(a.error_of_operation, vec![None, None, None]);
        assert!(a.attached.iter().all(|&picked| picked));
    }

    #[test]
    fn operations_sharing_an_id_get_their_own_row() {
        let a = attach_errors(&[op(10001, "ttnn.add"), op(10001, "ttnn.mul")], &[err(10001, "ttnn.mul")]);
        assert_eq!(a.error_of_operation, vec![None, Some(0)]);
    }

    #[test]
    fn ranks_and_the_rank_zero_fallback() {
        let ranked = |id, name, rank| OperationKey { id, name, rank };
        let e = |operation_id, operation_name, rank| ErrorKey {
            operation_id: Some(operation_id),
            operation_name,
            rank,
            incomplete: false,
        };
        // Each rank sees its own rows.
        let errors = [e(1, "op_r0", 0), e(2, "op_r1", 1)];
        assert_eq!(attach_errors(&[ranked(1, "op_r0", 0)], &errors[..1]).attached, vec![true]);
        assert_eq!(attach_errors(&[ranked(2, "op_r1", 1)], &errors[1..]).attached, vec![true]);
        // A rank-0 row attaches to a rank-1 operation with the same id and name, never without the name.
        assert_eq!(attach_errors(&[ranked(3, "x", 1)], &[e(3, "x", 0)]).error_of_operation, vec![Some(0)]);
        assert_eq!(attach_errors(&[ranked(3, "x", 1)], &[e(3, "y", 0)]).error_of_operation, vec![None]);
        // An exact-rank row wins over a rank-0 row, whatever the table order.
        assert_eq!(
            attach_errors(&[ranked(3, "x", 1)], &[e(3, "x", 0), e(3, "x", 1)]).error_of_operation,
            vec![Some(1)]
        );
    }

    /// docs/rules/reference.md §2.1: operations at ranks 0 and 1, `errors` rows (3, ttnn.add) and
    /// (3, ttnn.softmax) without a rank column (read as rank 0), rank-1 operation 3 named
    /// ttnn.softmax: the rank-1 view lists both rows, ttnn.softmax attached, ttnn.add not.
    #[test]
    fn an_errors_table_without_rank_belongs_to_every_rank() {
        let rank_one = [OperationKey { id: 3, name: "ttnn.softmax", rank: 1 }];
        let errors = [err(3, "ttnn.add"), err(3, "ttnn.softmax")];
        let a = attach_errors(&rank_one, &errors);
        assert_eq!(a.error_of_operation, vec![Some(1)]);
        assert_eq!(a.attached, vec![false, true]);
        assert_eq!(rows_of_rank(&errors, &a, 1, false), vec![true, true]);
        // With a rank column, the same rows at rank 0 are rank 0's: only the attached one is listed.
        assert_eq!(rows_of_rank(&errors, &a, 1, true), vec![false, true]);
        // Rank 0 lists its own rows either way.
        let none = attach_errors(&[], &errors);
        assert_eq!(rows_of_rank(&errors, &none, 0, true), vec![true, true]);
    }

    fn incomplete(operation_id: Option<u64>, operation_name: &str) -> ErrorKey<'_> {
        ErrorKey { operation_id, operation_name, rank: 0, incomplete: true }
    }

    fn unrecorded(operations: &[OperationKey<'_>], errors: &[ErrorKey<'_>]) -> Option<usize> {
        let attachment = attach_errors(operations, errors);
        let listed = rows_of_rank(errors, &attachment, 0, false);
        unrecorded_failure(operations, errors, &attachment, &listed)
    }

    /// docs/rules/reference.md §13.5: ttnn 0.67–0.78 leave one row `(0, 'ttnn.add', 'incomplete_operation',
    /// …)` and no `operations` row for the failed operation; it is the one after the last recorded.
    #[test]
    fn an_incomplete_row_at_a_base_id_is_the_unrecorded_operation() {
        let operations = ops();
        for id in [Some(0), None, Some(7)] {
            let errors = [err(1, "ttnn.add"), incomplete(id, "ttnn.conv2d")];
            assert_eq!(unrecorded(&operations, &errors), Some(1), "{id:?}");
        }
        assert_eq!(unrecorded_id(&operations), 10001);
        assert_eq!(unrecorded_id(&[]), 1);
    }

    /// Only the last row of the kind is the operation that never completed; an operation that
    /// carries it (its row attached, or a row at its id) is recorded.
    #[test]
    fn only_the_last_unattached_incomplete_row_not_carried_by_an_operation() {
        let operations = ops();
        let errors = [incomplete(Some(0), "ttnn.matmul"), incomplete(Some(0), "ttnn.softmax"), err(2, "x")];
        assert_eq!(unrecorded(&operations, &errors), Some(1));
        // Attached to operation 2 by id and name: recorded.
        assert_eq!(unrecorded(&operations, &[incomplete(Some(2), "ttnn.conv2d")]), None);
        // At the id of a recorded operation of another name: that row is not this one's.
        assert_eq!(unrecorded(&operations, &[incomplete(Some(2), "ttnn.add")]), None);
        // No such row, only other kinds, or a nameless last row.
        assert_eq!(unrecorded(&operations, &[err(0, "ttnn.add")]), None);
        assert_eq!(unrecorded(&operations, &[incomplete(Some(0), "ttnn.add"), incomplete(Some(0), "")]), None);
        assert_eq!(unrecorded(&operations, &[]), None);
    }
}
