//! Per-operation details read only when an operation is shown: stack traces, arguments and
//! `buffers` rows.

use super::ReportError;
use super::database::{int, text, uint};
use super::memory::MemoryReport;
use crate::analysis::failure::BufferType;
use crate::analysis::graph::{GraphError, GraphNode};
use crate::analysis::sanitize::{sanitize_line, sanitize_text};
use rusqlite::params;
use rusqlite::types::ValueRef;
use std::collections::HashMap;

/// One `buffers` row: a device buffer live after an operation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BufferRecord {
    /// `device_id`.
    pub(crate) device_id: u64,
    /// Bank-relative base address.
    pub address: u64,
    /// Bytes per bank.
    pub max_size_per_bank: u64,
    /// The buffer type, from an integer code or a name; `Err` keeps an unknown value as written.
    pub buffer_type: Result<BufferType, String>,
    /// `buffer_layout` (TensorMemoryLayout code), when recorded.
    pub buffer_layout: Option<i64>,
}

impl MemoryReport {
    /// One `WHERE` condition selecting an operation's rows of `table` (`0` when it has none).
    pub(super) fn rows_condition(&self, table: &str, id: u64) -> rusqlite::Result<String> {
        let conditions = self.operation_rows(table, &[id])?;
        Ok(if conditions.is_empty() { "0".to_string() } else { conditions.join(" OR ") })
    }

    /// The stack traces of some operations (by index), sanitised; empty when none is stored.
    pub fn stack_traces(&self, indexes: &[usize]) -> Result<HashMap<usize, String>, ReportError> {
        let mut out = HashMap::new();
        if !self.schema.has_table("stack_traces") || indexes.is_empty() {
            return Ok(out);
        }
        let columns =
            self.schema.select_list("stack_traces", &[("operation_id", "0"), ("stack_trace", "''"), ("rank", "0")]);
        let ids: Vec<u64> = indexes.iter().map(|&i| self.operations[i].id).collect();
        let read = || -> rusqlite::Result<HashMap<u64, Vec<(u32, String)>>> {
            let mut by_id: HashMap<u64, Vec<(u32, String)>> = HashMap::new();
            for condition in self.operation_rows("stack_traces", &ids)? {
                let sql = format!("SELECT {columns} FROM stack_traces WHERE {condition} ORDER BY rowid");
                let mut stmt = self.conn.prepare(&sql)?;
                let mut rows = stmt.query([])?;
                while let Some(r) = rows.next()? {
                    let id = uint(r.get_ref(0)?);
                    by_id.entry(id).or_default().push((int(r.get_ref(2)?) as u32, text(r.get_ref(1)?)));
                }
            }
            Ok(by_id)
        };
        let by_id = read().map_err(ReportError::read("stack traces"))?;
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
        if !self.schema.has_table("operation_arguments") {
            return Ok(Vec::new());
        }
        let op = &self.operations[index];
        let columns = self.schema.select_list("operation_arguments", &[("name", "''"), ("value", "''")]);
        let filter = self.schema.rank_filter("operation_arguments");
        let rows = self.rows_condition("operation_arguments", op.id).map_err(ReportError::read("arguments"))?;
        let sql = format!("SELECT {columns} FROM operation_arguments WHERE ({rows}) AND {filter} ORDER BY rowid");
        let read = || -> rusqlite::Result<Vec<(String, String)>> {
            let mut stmt = self.conn.prepare(&sql)?;
            let rows = stmt.query_map(params![op.rank], |r| {
                Ok((sanitize_line(&text(r.get_ref(0)?)), sanitize_text(&text(r.get_ref(1)?))))
            })?;
            rows.collect()
        };
        read().map_err(ReportError::read("arguments"))
    }

    /// The `buffers` rows of an operation (by index), in table order; read only when asked for.
    pub fn buffers(&self, index: usize) -> Result<Vec<BufferRecord>, ReportError> {
        let op = &self.operations[index];
        let rows = self.buffer_rows(op.id, op.rank, None, |r| {
            Ok(BufferRecord {
                device_id: uint(r.get_ref(0)?),
                address: uint(r.get_ref(1)?),
                max_size_per_bank: uint(r.get_ref(2)?),
                buffer_type: buffer_type(r.get_ref(3)?),
                buffer_layout: match r.get_ref(4)? {
                    ValueRef::Null => None,
                    v => Some(int(v)),
                },
            })
        });
        rows.map_err(ReportError::read("buffers"))
    }

    /// The `buffers` rows of an operation id and rank, at most `limit` of them, in table order,
    /// each made by `row` from the columns device_id, address, max_size_per_bank, buffer_type,
    /// buffer_layout.
    pub(super) fn buffer_rows<T>(
        &self,
        operation_id: u64,
        rank: u32,
        limit: Option<usize>,
        mut row: impl FnMut(&rusqlite::Row<'_>) -> rusqlite::Result<T>,
    ) -> rusqlite::Result<Vec<T>> {
        if !self.schema.has_table("buffers") {
            return Ok(Vec::new());
        }
        let columns = self.schema.select_list(
            "buffers",
            &[
                ("device_id", "0"),
                ("address", "0"),
                ("max_size_per_bank", "0"),
                ("buffer_type", "NULL"),
                ("buffer_layout", "NULL"),
            ],
        );
        let filter = self.schema.rank_filter("buffers");
        let rows = self.rows_condition("buffers", operation_id)?;
        let limit = limit.map_or_else(String::new, |n| format!(" LIMIT {n}"));
        let sql = format!("SELECT {columns} FROM buffers WHERE ({rows}) AND {filter} ORDER BY rowid{limit}");
        let mut stmt = self.conn.prepare(&sql)?;
        let mapped = stmt.query_map(params![rank], |r| row(r))?;
        mapped.collect()
    }
}

/// A buffer type stored as an integer code `0..4` or as a name (`'L1'`); other values pass
/// through unchanged (behaviour.md §1.3.3).
pub(super) fn buffer_type(value: rusqlite::types::ValueRef<'_>) -> Result<BufferType, String> {
    match value {
        ValueRef::Integer(code) => BufferType::from_code(code).ok_or_else(|| code.to_string()),
        ValueRef::Text(t) => {
            let name = String::from_utf8_lossy(t);
            BufferType::from_token(name.trim()).ok_or_else(|| sanitize_line(&name))
        }
        other => Err(text(other)),
    }
}

/// An operation's captured graph, or why it cannot be read.
pub(crate) type GraphResult = Result<Vec<GraphNode>, GraphError>;

impl MemoryReport {
    /// Every operation's captured graph, in operation order, read in one pass over the table and
    /// parsed as it is read by `parse` (e.g. `parse_scopes`), keeping only what `summarise` makes
    /// of each graph, so the nodes of 100 k graphs are never held at once (linking keeps a few
    /// names per graph). For each operation the first row of its rank wins, else the first row for
    /// its id; an operation without a graph is summarised from no nodes.
    pub fn map_graphs<T>(
        &self,
        parse: fn(&str) -> GraphResult,
        mut summarise: impl FnMut(usize, GraphResult) -> T,
    ) -> Result<Vec<T>, ReportError> {
        // Per operation: what was made of the graph taken so far, and whether its row had the
        // operation's rank.
        let mut taken: Vec<Option<(bool, T)>> = std::iter::repeat_with(|| None).take(self.operations.len()).collect();
        self.for_each_graph(|_, id, rank, text| {
            let first = self.operations.partition_point(|o| o.id < id);
            let same_id = self.operations[first..].iter().take_while(|o| o.id == id);
            for (offset, (op, slot)) in same_id.zip(&mut taken[first..]).enumerate() {
                let rank_matches = op.rank == rank;
                if matches!(slot, Some((true, _))) || (slot.is_some() && !rank_matches) {
                    continue;
                }
                *slot = Some((rank_matches, summarise(first + offset, parse(text))));
            }
            true
        })
        .map_err(ReportError::read("captured graphs"))?;
        Ok(taken
            .into_iter()
            .enumerate()
            .map(|(i, t)| match t {
                Some((_, summary)) => summary,
                None => summarise(i, Ok(Vec::new())),
            })
            .collect())
    }

    /// Streams every `captured_graph` row in rowid order, one at a time, as (rowid, operation
    /// id, rank, text); `visit` returns false to stop. Nothing is kept between rows.
    pub(super) fn for_each_graph(&self, mut visit: impl FnMut(i64, u64, u32, &str) -> bool) -> rusqlite::Result<()> {
        if !self.schema.has_table("captured_graph") {
            return Ok(());
        }
        let columns = self
            .schema
            .select_list("captured_graph", &[("operation_id", "0"), ("captured_graph", "''"), ("rank", "0")]);
        let mut stmt = self.conn.prepare(&format!("SELECT rowid, {columns} FROM captured_graph ORDER BY rowid"))?;
        let mut rows = stmt.query([])?;
        while let Some(r) = rows.next()? {
            let (rowid, id, rank) = (int(r.get_ref(0)?), uint(r.get_ref(1)?), int(r.get_ref(3)?) as u32);
            let text: std::borrow::Cow<'_, str> = match r.get_ref(2)? {
                ValueRef::Text(bytes) => String::from_utf8_lossy(bytes),
                other => text(other).into(),
            };
            if !visit(rowid, id, rank, &text) {
                break;
            }
        }
        Ok(())
    }
}
