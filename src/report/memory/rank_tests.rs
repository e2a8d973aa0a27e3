//! How a report's tables are read when they carry `rank` columns.

use crate::report::{MemoryReport, resolve_report};
use std::path::Path;

/// ttnn 0.81's writer gives every table a `rank` column and writes rank 0 only: its tables
/// are searched by rowid span as a report without ranks is, never scanned per operation.
#[test]
fn a_single_rank_report_with_rank_columns_is_read_by_rowid_span() {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/models/bert_base_1000_ops");
    let report = MemoryReport::open(&resolve_report(Some(&folder)).unwrap(), 0).unwrap();
    let store = &report.store;
    assert!(store.schema.has_column("buffers", "rank") && store.schema.has_column("captured_graph", "rank"));
    assert!(store.one_rank && store.rows_in_operation_order);
    assert!(!store.ranked("buffers") && !store.ranked("captured_graph"));
    let span = store.rowid_span("captured_graph", 100..=100).unwrap();
    assert!(matches!(span, Some(Some((start, end))) if end == start + 1), "{span:?}");
    let conditions = store.operation_rows("buffers", &[100, 101]).unwrap();
    assert!(conditions.iter().all(|c| c.starts_with("rowid >= ")), "{conditions:?}");
}
