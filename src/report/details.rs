//! Per-operation details read only when an operation is shown: stack traces and arguments.

use super::ReportError;
use super::database::text;
use super::store::Store;
use crate::analysis::model::Operation;
use crate::analysis::sanitize::{sanitize_line, sanitize_text};
use rusqlite::params;
use std::collections::HashMap;

/// Stack traces and arguments, read only when an operation is shown: a question asked of the
/// report's store for its operations.
pub struct Details<'a> {
    pub(super) store: &'a Store,
    pub(super) operations: &'a [Operation],
}

impl Details<'_> {
    /// The stack traces of some operations (by index), sanitised; empty when none is stored.
    pub fn stack_traces(&self, indexes: &[usize]) -> Result<HashMap<usize, String>, ReportError> {
        let mut out = HashMap::new();
        if !self.store.schema.has_table("stack_traces") || indexes.is_empty() {
            return Ok(out);
        }
        let ids: Vec<u64> = indexes.iter().map(|&i| self.operations[i].id).collect();
        let by_id = self
            .store
            .texts_by_operation("stack_traces", "stack_trace", &ids)
            .map_err(ReportError::read("stack traces"))?;
        for &i in indexes {
            let op = &self.operations[i];
            let rows = by_id.get(&op.id).map(Vec::as_slice).unwrap_or_default();
            // The last row of the operation's rank wins, with the rank-0 fallback.
            let trace =
                rows.iter().rev().find(|(r, _)| *r == op.rank).or_else(|| rows.iter().rev().find(|(r, _)| *r == 0));
            out.insert(i, trace.map(|(_, t)| sanitize_text(t)).unwrap_or_default());
        }
        Ok(out)
    }

    /// The arguments of an operation (by index): name and printed value, in table order.
    pub fn arguments(&self, index: usize) -> Result<Vec<(String, String)>, ReportError> {
        if !self.store.schema.has_table("operation_arguments") {
            return Ok(Vec::new());
        }
        let op = &self.operations[index];
        let columns = self.store.schema.select_list("operation_arguments", &[("name", "''"), ("value", "''")]);
        let filter = self.store.schema.rank_filter("operation_arguments");
        let rows = self.store.rows_condition("operation_arguments", op.id).map_err(ReportError::read("arguments"))?;
        let sql = format!("SELECT {columns} FROM operation_arguments WHERE ({rows}) AND {filter} ORDER BY rowid");
        let read = || -> rusqlite::Result<Vec<(String, String)>> {
            let mut stmt = self.store.conn.prepare(&sql)?;
            let rows = stmt.query_map(params![op.rank], |r| {
                Ok((sanitize_line(&text(r.get_ref(0)?)), sanitize_text(&text(r.get_ref(1)?))))
            })?;
            rows.collect()
        };
        read().map_err(ReportError::read("arguments"))
    }
}
