//! The operations a what-if replays, read in one pass each over `captured_graph` and `buffers`:
//! both tables are written in operation order, so the two are read side by side, one
//! operation's graph and snapshot at a time, and nothing but the replay's own state is held.

use super::memory_report::MemoryReport;
use crate::analysis::graph::nodes::parse_graph;
use crate::analysis::memory::SnapshotRow;
use crate::analysis::memory::whatif::{OperationRecord, WhatIfRun};
use crate::report::database::{buffer_type, int, signed, text, uint};
use crate::report::error::ReportError;
use rusqlite::Rows;
use std::ops::Range;

/// A row read ahead of the operation being replayed: its operation id and what it holds.
type Ahead<T> = Option<(u64, T)>;

impl MemoryReport {
    /// Gives `run` every operation of `range` (indexes, ascending), each with its graph (the
    /// row of its rank, else the first) and, when the report keeps snapshots, its `buffers` rows.
    pub(super) fn replay_operations(
        &self,
        run: &mut WhatIfRun,
        range: Range<usize>,
        snapshots: bool,
    ) -> Result<(), ReportError> {
        self.visit_operations(range, snapshots, &mut |record| run.operation(record))
    }

    /// Gives `visit` every operation of `range` as [`Self::replay_operations`] does.
    pub(super) fn visit_operations(
        &self,
        range: Range<usize>,
        snapshots: bool,
        visit: &mut dyn FnMut(&OperationRecord<'_>),
    ) -> Result<(), ReportError> {
        let read = ReportError::read("the run's records");
        if range.is_empty() {
            return Ok(());
        }
        let ids = self.operations[range.start].id..=self.operations[range.end - 1].id;
        let conn = &self.store.conn;
        let schema = &self.store.schema;
        let rank = self.rank();
        let condition = |table: &str| match schema.has_table(table) {
            true => self.store.range_condition(table, ids.clone()).map_err(&read),
            false => Ok(None),
        };
        let mut graph_stmt = match condition("captured_graph")? {
            Some((condition, order)) => {
                let columns = schema
                    .select_list("captured_graph", &[("operation_id", "0"), ("captured_graph", "''"), ("rank", "0")]);
                let sql = format!("SELECT {columns} FROM captured_graph WHERE {condition} ORDER BY {order}");
                Some(conn.prepare(&sql).map_err(&read)?)
            }
            _ => None,
        };
        let mut buffer_stmt = match condition("buffers")? {
            Some((condition, order)) if snapshots => {
                let columns = schema.select_list(
                    "buffers",
                    &[
                        ("operation_id", "0"),
                        ("device_id", "0"),
                        ("address", "0"),
                        ("max_size_per_bank", "0"),
                        ("buffer_type", "NULL"),
                        ("buffer_layout", "NULL"),
                    ],
                );
                let filter = schema.rank_filter("buffers");
                let sql = format!("SELECT {columns} FROM buffers WHERE {condition} AND {filter} ORDER BY {order}");
                Some(conn.prepare(&sql).map_err(&read)?)
            }
            _ => None,
        };
        let mut graphs = match graph_stmt.as_mut() {
            Some(stmt) => Some(stmt.query([]).map_err(&read)?),
            None => None,
        };
        let mut rows = match buffer_stmt.as_mut() {
            Some(stmt) => Some(stmt.query([rank]).map_err(&read)?),
            None => None,
        };
        let (mut graph_ahead, mut row_ahead): (Ahead<(u32, String)>, Ahead<SnapshotRow>) = (None, None);
        for i in range {
            let op = &self.operations[i];
            let texts = take_while_id(&mut graphs, &mut graph_ahead, op.id, graph_row).map_err(&read)?;
            let text = texts.iter().find(|(r, _)| *r == op.rank).or_else(|| texts.first()).map(|(_, t)| t.as_str());
            let graph = match text {
                Some(t) if !t.trim().is_empty() => parse_graph(t).unwrap_or_default(),
                _ => Vec::new(),
            };
            // An operation without rows wrote no snapshot (docs/rules/memory.md §3.1): not an empty one.
            let snapshot = match rows {
                Some(_) => Some(take_while_id(&mut rows, &mut row_ahead, op.id, snapshot_row).map_err(&read)?),
                None => None,
            }
            .filter(|rows| !rows.is_empty());
            visit(&OperationRecord {
                operation_id: op.id,
                graph: &graph,
                through: None,
                snapshot: snapshot.as_deref(),
                failed: false,
            });
        }
        Ok(())
    }
}

/// The rows of operation `id` from a stream in operation order: rows of earlier ids (an
/// operation of another rank, or one not replayed) are skipped, the first row of a later id is
/// kept for the next call.
fn take_while_id<T>(
    rows: &mut Option<Rows<'_>>,
    ahead: &mut Ahead<T>,
    id: u64,
    read: fn(&rusqlite::Row<'_>) -> rusqlite::Result<(u64, T)>,
) -> rusqlite::Result<Vec<T>> {
    let mut out = Vec::new();
    let Some(rows) = rows.as_mut() else { return Ok(out) };
    loop {
        let next = match ahead.take() {
            Some(row) => Some(row),
            None => match rows.next()? {
                Some(r) => Some(read(r)?),
                None => None,
            },
        };
        match next {
            Some((row_id, value)) if row_id == id => out.push(value),
            Some((row_id, _)) if row_id < id => {}
            Some(later) => {
                *ahead = Some(later);
                return Ok(out);
            }
            None => return Ok(out),
        }
    }
}

fn graph_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<(u64, (u32, String))> {
    Ok((uint(r.get_ref(0)?), (int(r.get_ref(2)?) as u32, text(r.get_ref(1)?))))
}

fn snapshot_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<(u64, SnapshotRow)> {
    Ok((
        uint(r.get_ref(0)?),
        SnapshotRow {
            device_id: uint(r.get_ref(1)?),
            address: signed(r.get_ref(2)?),
            size_per_bank: signed(r.get_ref(3)?),
            buffer_type: buffer_type(r.get_ref(4)?).ok(),
            layout: signed(r.get_ref(5)?),
        },
    ))
}
