//! The allocation-failure callout above the perf table, and each failed operation's perf status
//! (docs/rules/reference.md §10).

use super::link::LinkMap;
use crate::analysis::messages::failure::AllocationFailure;
use crate::analysis::messages::reason::CalloutBody;
use serde::Serialize;

/// How many failures the callout lists before `And {n} more, …`.
pub(crate) const LISTED_FAILURES: usize = 5;

/// An operation of the memory report with its attached error's allocation failure.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FailedOperation {
    /// `operation_id`.
    pub id: u64,
    /// The operation's name.
    pub name: String,
    /// The parsed allocation failure.
    pub failure: AllocationFailure,
    /// Its failed device operations (docs/rules/reference.md §3.5), in captured order.
    pub failed_device_operations: Vec<String>,
}

/// A failure with its row counts in the linked perf report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FailureListing {
    /// The failed operation.
    pub(crate) operation: FailedOperation,
    /// Entries of the merged mapping: earlier device operations that ran and have a row.
    pub(crate) ran: usize,
    /// Entries of the current view's mapping (equals `ran` when devices are merged).
    pub(crate) linked: usize,
}

/// Counts the rows of every failed operation (in id order) in the merged and the current view's
/// mappings.
pub fn failure_listings(failed: &[FailedOperation], merged: &LinkMap, view: &LinkMap) -> Vec<FailureListing> {
    failed
        .iter()
        .map(|op| FailureListing {
            operation: op.clone(),
            ran: merged.rows_of(op.id).len(),
            linked: view.rows_of(op.id).len(),
        })
        .collect()
}

/// The status sentence that replaces `Failed in …` in the perf callout.
pub(crate) fn status_sentence(failed_device_operations: &[String], ran: usize, linked: usize) -> String {
    let within = if failed_device_operations.is_empty() {
        String::new()
    } else {
        format!(" in {}", failed_device_operations.join(", "))
    };
    if ran == 0 && failed_device_operations.is_empty() {
        "The memory report recorded no device ops for it, so no row in this report is linked to it.".to_string()
    } else if ran == 0 {
        format!("Failed{within} before reaching the device, so it has no row in this report.")
    } else {
        let ops = if ran == 1 { "op" } else { "ops" };
        let rows = if linked == 1 { "row" } else { "rows" };
        format!("Failed{within}; {ran} earlier device {ops} ran, so it has {linked} {rows} in this report.")
    }
}

/// One listed failure: the link to its operation and the callout body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CalloutListing {
    /// The operation to jump to.
    pub(crate) operation_id: u64,
    /// `{operation id} {operation name}`.
    pub label: String,
    /// The failure body, the status sentence as its last line.
    pub body: CalloutBody,
}

/// The danger callout above the perf table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PerfCallout {
    /// `{n} allocation failure(s) recorded in the linked memory report`.
    pub title: String,
    /// The first five failures.
    pub listings: Vec<CalloutListing>,
    /// `And {n − 5} more, listed with their errors in the operations view.`, past five.
    pub more: Option<String>,
}

/// The callout, or none when the reports are not linked or nothing failed to allocate.
pub fn perf_callout(listings: &[FailureListing], linked: bool, hex: bool) -> Option<PerfCallout> {
    if !linked || listings.is_empty() {
        return None;
    }
    let n = listings.len();
    let title = if n == 1 {
        "1 allocation failure recorded in the linked memory report".to_string()
    } else {
        format!("{n} allocation failures recorded in the linked memory report")
    };
    let shown = listings
        .iter()
        .take(LISTED_FAILURES)
        .map(|l| {
            let op = &l.operation;
            let status = status_sentence(&op.failed_device_operations, l.ran, l.linked);
            CalloutListing {
                operation_id: op.id,
                label: format!("{} {}", op.id, op.name),
                body: CalloutBody::new(&op.failure, hex, &op.failed_device_operations, Some(status)),
            }
        })
        .collect();
    let more = (n > LISTED_FAILURES)
        .then(|| format!("And {} more, listed with their errors in the operations view.", n - LISTED_FAILURES));
    Some(PerfCallout { title, listings: shown, more })
}

/// An operation's perf status for `explain --perf` JSON.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PerfStatus {
    /// Earlier device operations that ran and have a row (merged mapping).
    pub(crate) ran_device_operations: usize,
    /// Rows linked to the operation in the current view.
    pub(crate) linked_rows: usize,
    /// The status sentence.
    pub(crate) status: String,
    /// Ids of the rows flagged `Op failed`, as text.
    pub op_failed_row_ids: Vec<String>,
}

/// The perf status of an operation of the linked memory report: `failed_device_operations` from
/// §3.5, and whether its attached error is an allocation failure (which flags its rows).
pub fn perf_status_for_operation(
    operation_id: u64,
    failed_device_operations: &[String],
    allocation_failure: bool,
    merged: &LinkMap,
    view: &LinkMap,
) -> PerfStatus {
    let ran = merged.rows_of(operation_id).len();
    let rows = view.rows_of(operation_id);
    let op_failed_row_ids = if allocation_failure { rows.iter().map(u64::to_string).collect() } else { Vec::new() };
    PerfStatus {
        ran_device_operations: ran,
        linked_rows: rows.len(),
        status: status_sentence(failed_device_operations, ran, rows.len()),
        op_failed_row_ids,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::messages::failure::parse_allocation_failure;

    fn failure() -> AllocationFailure {
        parse_allocation_failure(
            "Out of Memory: Not enough space to allocate 2147483648 B DRAM buffer across 12 banks, \
             where each bank needs to store 178958336 B, but bank size is 1071181792 B",
        )
        .expect("a kind-1 message")
    }

    fn failed(id: u64, names: &[&str]) -> FailedOperation {
        FailedOperation {
            id,
            name: format!("ttnn.op{id}"),
            failure: failure(),
            failed_device_operations: names.iter().map(|n| n.to_string()).collect(),
        }
    }

    #[test]
    fn the_three_status_sentences() {
        assert_eq!(
            status_sentence(&[], 0, 0),
            "The memory report recorded no device ops for it, so no row in this report is linked to it."
        );
        let matmul = ["MatmulDeviceOperation".to_string()];
        assert_eq!(
            status_sentence(&matmul, 0, 0),
            "Failed in MatmulDeviceOperation before reaching the device, so it has no row in this report."
        );
        assert_eq!(
            status_sentence(&matmul, 1, 1),
            "Failed in MatmulDeviceOperation; 1 earlier device op ran, so it has 1 row in this report."
        );
        assert_eq!(status_sentence(&[], 2, 4), "Failed; 2 earlier device ops ran, so it has 4 rows in this report.");
        let two = ["A".to_string(), "B".to_string()];
        assert_eq!(
            status_sentence(&two, 0, 0),
            "Failed in A, B before reaching the device, so it has no row in this report."
        );
    }

    #[test]
    fn callout_title_listings_and_more() {
        let mut merged = LinkMap::default();
        merged.insert(3, 7);
        let listings = failure_listings(
            &(1..=7).map(|i| failed(i, &["MatmulDeviceOperation"])).collect::<Vec<_>>(),
            &merged,
            &merged,
        );
        assert!(perf_callout(&listings, false, false).is_none());
        let callout = perf_callout(&listings, true, false).unwrap();
        assert_eq!(callout.title, "7 allocation failures recorded in the linked memory report");
        assert_eq!(callout.listings.len(), 5);
        assert_eq!(callout.listings[0].label, "1 ttnn.op1");
        assert_eq!(
            callout.listings[2].body.last_line.as_deref(),
            Some("Failed in MatmulDeviceOperation; 1 earlier device op ran, so it has 1 row in this report.")
        );
        assert_eq!(callout.listings[0].body.lines()[0], "Out of memory");
        assert_eq!(callout.more.as_deref(), Some("And 2 more, listed with their errors in the operations view."));
        let one = perf_callout(&listings[..1], true, false).unwrap();
        assert_eq!(one.title, "1 allocation failure recorded in the linked memory report");
        assert_eq!(one.more, None);
        assert!(perf_callout(&[], true, false).is_none());
    }

    #[test]
    fn a_circular_buffer_larger_than_its_buffer_is_listed_like_any_failure() {
        let cb = parse_allocation_failure(
            "Cannot set to globally allocated buffer. Circular buffer size 28672 B exceeds allocated L1 buffer size of 4096 B",
        )
        .expect("a kind-5 message");
        let failed = FailedOperation { failure: cb, ..failed(4, &["BinaryDeviceOperation"]) };
        let listings = failure_listings(&[failed], &LinkMap::default(), &LinkMap::default());
        let callout = perf_callout(&listings, true, false).unwrap();
        assert_eq!(callout.title, "1 allocation failure recorded in the linked memory report");
        assert_eq!(
            callout.listings[0].body.lines(),
            [
                "Circular buffer larger than its L1 buffer",
                "A circular buffer of 28 KiB is set on an L1 buffer of 4 KiB per bank",
                "Larger than its buffer. The circular buffer lives inside a tensor's L1 buffer, which holds 4 KiB per bank; it needs 24 KiB more. A larger shard for that tensor, or a smaller circular buffer (a smaller block), fits.",
                "Failed in BinaryDeviceOperation before reaching the device, so it has no row in this report.",
            ]
        );
    }

    #[test]
    fn perf_status_lists_the_op_failed_rows() {
        let mut merged = LinkMap::default();
        merged.insert(2, 2);
        merged.insert(2, 4);
        let mut view = merged.clone();
        view.insert(2, 3);
        let status = perf_status_for_operation(2, &["MatmulDeviceOperation".into()], true, &merged, &view);
        assert_eq!(status.ran_device_operations, 2);
        assert_eq!(status.linked_rows, 3);
        assert_eq!(status.op_failed_row_ids, ["2", "4", "3"]);
        assert_eq!(
            status.status,
            "Failed in MatmulDeviceOperation; 2 earlier device ops ran, so it has 3 rows in this report."
        );
        assert!(perf_status_for_operation(2, &[], false, &merged, &view).op_failed_row_ids.is_empty());
    }
}
