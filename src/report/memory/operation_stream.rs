//! The operations of a range read in order (what a what-if replays, what `--peak`'s events and
//! the run over time walk), in one pass each over `captured_graph` and `buffers`:
//! both tables are written in operation order, so the two are read side by side, one
//! operation's graph and snapshot at a time, and nothing but the reader's own state is held.
//! A long range (a `free-late` from early in the run) is read on every core: each table's rowid
//! span in chunks on the report's worker pool (`report::rowid_ranges`), graphs parsed there,
//! handed over in order.

use super::memory_report::{MemoryReport, Operation};
use super::questions::Passes;
use super::whatif_shared::cancelled;
use crate::analysis::graph::nodes::{GraphNode, parse_graph};
use crate::analysis::memory::SnapshotRow;
use crate::analysis::memory::whatif::{OperationRecord, WhatIfReplay};
use crate::report::database::{buffer_type, int, signed, text, uint};
use crate::report::error::ReportError;
use crate::report::rowid_ranges::{OrderedChunks, RowidPass};
use rusqlite::Rows;
use std::ops::{ControlFlow, Range};
use std::sync::atomic::AtomicBool;

/// A row read ahead of the operation being replayed: its operation id and what it holds.
type Ahead<T> = Option<(u64, T)>;

/// The next row of a table in operation order, with its operation id (none: no more).
pub(super) type Next<'a, T> = dyn FnMut() -> rusqlite::Result<Option<(u64, T)>> + 'a;

/// A `captured_graph` row: its rank and its graph, as text or already parsed.
pub(super) type GraphRow = (u32, Graph);

/// A graph as read: its text (parsed when its operation takes it), or its nodes (parsed on a
/// worker of a parallel pass; an empty or invalid text gives none).
pub(super) enum Graph {
    Text(String),
    Nodes(Vec<GraphNode>),
}

/// Operations in a range at least this long are read on the worker pool (when it has more than
/// one thread).
const PARALLEL_FROM: usize = 256;

/// `captured_graph` rowids per chunk of a parallel read (graphs are large; a few hundred at once).
pub(super) const GRAPH_CHUNK: i64 = 256;

impl<'r> Passes<'r> {
    /// Gives `run` every operation of `range` (indexes, ascending), each with its graph (the
    /// row of its rank, else the first) and, when the report keeps snapshots, its `buffers` rows.
    pub(super) fn replay_operations(
        &self,
        run: &mut WhatIfReplay,
        range: Range<usize>,
        snapshots: bool,
    ) -> Result<(), ReportError> {
        self.stream_operations(range, snapshots, None, &mut |_, record| {
            run.operation(record);
            ControlFlow::Continue(())
        })
    }

    /// Gives `visit` every operation of `range` as [`Self::replay_operations`] does.
    pub(super) fn visit_operations(
        &self,
        range: Range<usize>,
        snapshots: bool,
        visit: &mut dyn FnMut(&OperationRecord<'_>),
    ) -> Result<(), ReportError> {
        self.stream_operations(range, snapshots, None, &mut |_, record| {
            visit(record);
            ControlFlow::Continue(())
        })
    }

    /// Reads every operation of `range` (indexes, ascending) once, graph parsed and snapshot
    /// read, and gives each to `each` with its index; stops when `each` breaks, and between
    /// operations once `cancel` is set (`Err(ReportError::Cancelled)`).
    pub(super) fn stream_operations(
        &self,
        range: Range<usize>,
        snapshots: bool,
        cancel: Option<&AtomicBool>,
        each: &mut dyn FnMut(usize, &OperationRecord<'_>) -> ControlFlow<()>,
    ) -> Result<(), ReportError> {
        let read = ReportError::read("the run's records");
        if range.is_empty() {
            return Ok(());
        }
        if let Some(spans) = self.parallel_spans(&range, snapshots).map_err(&read)? {
            return self.stream_in_parallel(range, spans, cancel, each);
        }
        let ids = self.report.operations[range.start].id..=self.report.operations[range.end - 1].id;
        let conn = &self.report.store.conn;
        let schema = &self.report.store.schema;
        let rank = self.report.rank();
        let condition = |table: &str| match schema.has_table(table) {
            true => self.report.store.range_condition(table, ids.clone()).map_err(&read),
            false => Ok(None),
        };
        let mut graph_stmt = match condition("captured_graph")? {
            Some((condition, order)) => {
                let sql = format!(
                    "SELECT {} FROM captured_graph WHERE {condition} ORDER BY {order}",
                    graph_columns(self.report)
                );
                Some(conn.prepare(&sql).map_err(&read)?)
            }
            _ => None,
        };
        let mut buffer_stmt = match condition("buffers")? {
            Some((condition, order)) if snapshots => {
                let filter = schema.rank_filter("buffers");
                let columns = buffer_columns(self.report);
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
        let with_rows = rows.is_some();
        let mut next_graph = || next_of(&mut graphs, graph_text_row);
        let mut next_row = || next_of(&mut rows, snapshot_row);
        let next_row: Option<&mut Next<'_, SnapshotRow>> = if with_rows { Some(&mut next_row) } else { None };
        self.walk(range, &mut next_graph, next_row, cancel, each)
    }

    /// The rowid spans of `captured_graph` and `buffers` (none: no rows to read) that hold the
    /// operations of `range`, when they are to be read on the worker pool: a long range, more
    /// than one thread, tables in operation order.
    fn parallel_spans(&self, range: &Range<usize>, snapshots: bool) -> rusqlite::Result<Option<Spans>> {
        let store = &self.report.store;
        if range.len() < PARALLEL_FROM || store.threads < 2 || store.database.is_none() {
            return Ok(None);
        }
        let ids = self.report.operations[range.start].id..=self.report.operations[range.end - 1].id;
        let Some(graphs) = store.rowid_span("captured_graph", ids.clone())? else { return Ok(None) };
        let rows = match snapshots {
            true => match store.rowid_span("buffers", ids.clone())? {
                Some(span) => span,
                None => return Ok(None),
            },
            false => None,
        };
        Ok(Some(Spans { ids: (*ids.start(), *ids.end()), graphs, rows }))
    }

    /// [`Self::stream_operations`] over both tables read on the worker pool.
    fn stream_in_parallel(
        &self,
        range: Range<usize>,
        spans: Spans,
        cancel: Option<&AtomicBool>,
        each: &mut dyn FnMut(usize, &OperationRecord<'_>) -> ControlFlow<()>,
    ) -> Result<(), ReportError> {
        let (first, last) = spans.ids;
        let between = format!("operation_id >= {first} AND operation_id <= {last}");
        let graph_sql = format!(
            "SELECT {} FROM captured_graph WHERE rowid >= ?1 AND rowid < ?2 AND {between}",
            graph_columns(self.report)
        );
        let filter = self.report.store.schema.rank_filter("buffers");
        let buffer_sql = format!(
            "SELECT {} FROM buffers WHERE {filter} AND rowid >= ?2 AND rowid < ?3 AND {between}",
            buffer_columns(self.report)
        );
        let rank = [i64::from(self.report.rank())];
        let graph_pass = spans.graphs.map(|(a, b)| RowidPass {
            sql: &graph_sql,
            binds: &[],
            range: (a, b - 1),
            chunk: GRAPH_CHUNK.min(self.report.store.chunk),
        });
        let buffer_pass = spans.rows.map(|(a, b)| RowidPass {
            sql: &buffer_sql,
            binds: &rank,
            range: (a, b - 1),
            chunk: self.report.store.chunk,
        });
        let connect = self.report.store.connector();
        let threads = self.report.store.threads;
        std::thread::scope(|scope| {
            let mut graph_chunks =
                graph_pass.as_ref().map(|pass| OrderedChunks::start(scope, &connect, threads, pass, &graph_nodes_row));
            let mut row_chunks =
                buffer_pass.as_ref().map(|pass| OrderedChunks::start(scope, &connect, threads, pass, &snapshot_row));
            let mut graph_buffer = Vec::new().into_iter();
            let mut row_buffer = Vec::new().into_iter();
            let mut next_graph = || flat_next(&mut graph_chunks, &mut graph_buffer);
            let with_rows = row_chunks.is_some();
            let mut next_row = || flat_next(&mut row_chunks, &mut row_buffer);
            let next_row: Option<&mut Next<'_, SnapshotRow>> = if with_rows { Some(&mut next_row) } else { None };
            self.walk(range, &mut next_graph, next_row, cancel, each)
        })
    }

    /// The walk over the operations of `range` with their graphs and snapshots, however read.
    pub(super) fn walk(
        &self,
        range: Range<usize>,
        next_graph: &mut Next<'_, GraphRow>,
        next_row: Option<&mut Next<'_, SnapshotRow>>,
        cancel: Option<&AtomicBool>,
        each: &mut dyn FnMut(usize, &OperationRecord<'_>) -> ControlFlow<()>,
    ) -> Result<(), ReportError> {
        walk_operations(&self.report.operations, range, next_graph, next_row, cancel, each)
    }
}

/// The walk over `operations[range]` with their graphs and snapshots, however read (on any
/// thread: it needs nothing of the report but its operations).
pub(super) fn walk_operations(
    operations: &[Operation],
    range: Range<usize>,
    next_graph: &mut Next<'_, GraphRow>,
    mut next_row: Option<&mut Next<'_, SnapshotRow>>,
    cancel: Option<&AtomicBool>,
    each: &mut dyn FnMut(usize, &OperationRecord<'_>) -> ControlFlow<()>,
) -> Result<(), ReportError> {
    let read = ReportError::read("the run's records");
    let (mut graph_ahead, mut row_ahead): (Ahead<GraphRow>, Ahead<SnapshotRow>) = (None, None);
    for i in range {
        if cancelled(cancel) {
            return Err(ReportError::Cancelled);
        }
        let op = &operations[i];
        let mut texts = take_while_id(next_graph, &mut graph_ahead, op.id).map_err(&read)?;
        let at = texts.iter().position(|(r, _)| *r == op.rank).or(if texts.is_empty() { None } else { Some(0) });
        let graph = match at.map(|k| texts.swap_remove(k).1) {
            Some(Graph::Text(t)) if !t.trim().is_empty() => parse_graph(&t).unwrap_or_default(),
            Some(Graph::Nodes(nodes)) => nodes,
            _ => Vec::new(),
        };
        // An operation without rows wrote no snapshot (docs/rules/memory.md §3.1): not an empty one.
        let snapshot = match next_row.as_deref_mut() {
            Some(next) => Some(take_while_id(next, &mut row_ahead, op.id).map_err(&read)?),
            None => None,
        }
        .filter(|rows| !rows.is_empty());
        let record = OperationRecord {
            operation_id: op.id,
            graph: &graph,
            through: None,
            snapshot: snapshot.as_deref(),
            failed: false,
        };
        if each(i, &record).is_break() {
            break;
        }
    }
    Ok(())
}

/// The rowid spans `[start, end)` a parallel read covers: of `captured_graph`, and of `buffers`
/// (none: snapshots are not read), for the operations with ids in `ids`.
struct Spans {
    ids: (u64, u64),
    graphs: Option<(i64, i64)>,
    rows: Option<(i64, i64)>,
}

pub(super) fn graph_columns(report: &MemoryReport) -> String {
    report.store.schema.select_list("captured_graph", &[("operation_id", "0"), ("captured_graph", "''"), ("rank", "0")])
}

pub(super) fn buffer_columns(report: &MemoryReport) -> String {
    report.store.schema.select_list(
        "buffers",
        &[
            ("operation_id", "0"),
            ("device_id", "0"),
            ("address", "0"),
            ("max_size_per_bank", "0"),
            ("buffer_type", "NULL"),
            ("buffer_layout", "NULL"),
        ],
    )
}

/// The next row of a statement's rows, read by `read`.
pub(super) fn next_of<T>(
    rows: &mut Option<Rows<'_>>,
    read: fn(&rusqlite::Row<'_>) -> rusqlite::Result<(u64, T)>,
) -> rusqlite::Result<Option<(u64, T)>> {
    match rows.as_mut() {
        Some(rows) => rows.next()?.map(read).transpose(),
        None => Ok(None),
    }
}

/// The next row of a parallel read's chunks.
pub(super) fn flat_next<T: Send>(
    chunks: &mut Option<OrderedChunks<(u64, T)>>,
    buffer: &mut std::vec::IntoIter<(u64, T)>,
) -> rusqlite::Result<Option<(u64, T)>> {
    loop {
        if let Some(row) = buffer.next() {
            return Ok(Some(row));
        }
        match chunks.as_mut().and_then(Iterator::next) {
            Some(chunk) => *buffer = chunk?.1.into_iter(),
            None => return Ok(None),
        }
    }
}

/// The rows of operation `id` from a stream in operation order: rows of earlier ids (an
/// operation of another rank, or one not replayed) are skipped, the first row of a later id is
/// kept for the next call.
fn take_while_id<T>(next: &mut Next<'_, T>, ahead: &mut Ahead<T>, id: u64) -> rusqlite::Result<Vec<T>> {
    let mut out = Vec::new();
    loop {
        let row = match ahead.take() {
            Some(row) => Some(row),
            None => next()?,
        };
        match row {
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

pub(super) fn graph_text_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<(u64, GraphRow)> {
    Ok((uint(r.get_ref(0)?), (int(r.get_ref(2)?) as u32, Graph::Text(text(r.get_ref(1)?)))))
}

/// A graph row parsed on the worker that read it (an empty or invalid graph gives no nodes).
pub(super) fn graph_nodes_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<(u64, GraphRow)> {
    let t = text(r.get_ref(1)?);
    let nodes = if t.trim().is_empty() { Vec::new() } else { parse_graph(&t).unwrap_or_default() };
    Ok((uint(r.get_ref(0)?), (int(r.get_ref(2)?) as u32, Graph::Nodes(nodes))))
}

pub(super) fn snapshot_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<(u64, SnapshotRow)> {
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
