//! Per-operation details read only when an operation is shown: stack traces and arguments.

use crate::analysis::model::{Operation, operation_index};
use crate::analysis::sanitize::{sanitize_line, sanitize_text};
use crate::analysis::stack::model_source_label;
use crate::report::database::text;
use crate::report::error::ReportError;
use crate::report::store::Store;
use rusqlite::params;
use std::collections::HashMap;

/// Stack traces and arguments, read only when an operation is shown: a question asked of the
/// report's store for its operations.
pub struct Details<'a> {
    pub(super) store: &'a Store,
    pub(super) operations: &'a [Operation],
    /// The report folder, where graph capture's Python calls may lie beside the database.
    pub(super) folder: Option<&'a std::path::Path>,
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

    /// Whether the report records any stack trace: a `stack_traces` row with text, or an error
    /// row's own (ttnn 0.66 and before keep the Python traceback there). Without one, no
    /// failure names the model's line.
    pub fn any_stack_trace(&self, errors: &[crate::analysis::model::ErrorRecord]) -> Result<bool, ReportError> {
        if errors.iter().any(|e| !e.stack_trace.trim().is_empty()) {
            return Ok(true);
        }
        if !self.store.schema.has_column("stack_traces", "stack_trace") {
            return Ok(false);
        }
        let sql = "SELECT EXISTS (SELECT 1 FROM stack_traces WHERE length(trim(stack_trace)) > 0)";
        self.store.conn.query_row(sql, [], |r| r.get(0)).map_err(ReportError::read("stack traces"))
    }

    /// The arguments of an operation (by index): name and printed value, in table order; for an
    /// operation the report did not record, from graph capture's Python calls beside the report
    /// (docs/rules/reference.md §13.5).
    pub fn arguments(&self, index: usize) -> Result<Vec<(String, String)>, ReportError> {
        let op = &self.operations[index];
        if !op.recorded {
            return Ok(self.python_call(index)?.map(|c| c.arguments).unwrap_or_default());
        }
        if !self.store.schema.has_table("operation_arguments") {
            return Ok(Vec::new());
        }
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

    /// The Python call graph capture kept of an operation (by index) the report did not record:
    /// the last call of its name; none for a recorded one, or without such a call.
    pub fn python_call(&self, index: usize) -> Result<Option<super::python_io::PythonCall>, ReportError> {
        let op = &self.operations[index];
        match self.folder {
            Some(folder) if !op.recorded => super::python_io::last_call(folder, &op.name),
            _ => Ok(None),
        }
    }

    /// The model's line (`analysis::stack::model_source_label`) of some operations, by id, read
    /// in one query; an operation without a stack trace, or without a line of the model in it, has
    /// none — and so have all when the stack traces cannot be read.
    pub(crate) fn model_sources(&self, ids: impl Iterator<Item = u64>) -> HashMap<u64, String> {
        let mut indexes: Vec<usize> = ids.filter_map(|id| operation_index(self.operations, id)).collect();
        indexes.sort_unstable();
        indexes.dedup();
        let traces = self.stack_traces(&indexes).unwrap_or_default();
        traces.iter().filter_map(|(&i, trace)| Some((self.operations[i].id, model_source_label(trace)?))).collect()
    }
}
