//! The run's one read of both tables: every operation's graph and snapshot given in order, as
//! `visit_operations` over the whole run gives them, while every `buffers` row is added to the
//! usage pass's sums (and each buffer's run, when followed) in rowid order, as `Usage::read`
//! adds them — `--peak`'s sums and events, `--late`'s runs and recorded sequence. Only for
//! tables read by rowid span (written in operation order, no rank column, no index on
//! `operation_id`); otherwise the caller reads the two apart.
//!
//! The read is prepared on the report's thread ([`RunRead`]: statements, rowid ranges, the
//! operations) and needs nothing else of the report, so with a worker pool it can run on a
//! thread of its own while the report's thread does other work (`visit_run_beside`).

use super::memory_report::Operation;
use super::operation_stream::{
    GRAPH_CHUNK, GraphRow, Next, buffer_columns, flat_next, graph_columns, graph_nodes_row, graph_text_row, next_of,
    snapshot_row, walk_operations,
};
use super::questions::Passes;
use crate::analysis::memory::SnapshotRow;
use crate::analysis::memory::usage::MemoryUsage;
use crate::analysis::memory::usage::UsagePart;
use crate::analysis::memory::whatif::OperationRecord;
use crate::report::database::rowid_range;
use crate::report::error::ReportError;
use crate::report::rowid_ranges::{FoldedChunks, OrderedChunks, RowidPass, SharedFold};
use rusqlite::{Connection, Rows};
use std::ops::{ControlFlow, RangeInclusive};
use std::sync::Arc;

/// A chunk of `buffers` as a worker hands it over: its rows, and their sums made there.
type RowsAndUsage = (Vec<(u64, SnapshotRow)>, UsagePart);

/// What an operation's records are given to, on whichever thread reads them.
pub(super) type Visit<'a> = dyn FnMut(&OperationRecord<'_>) + Send + 'a;

/// Opens a worker's connection.
type Connector = Box<dyn Fn() -> rusqlite::Result<Connection> + Send + Sync>;

/// Decodes a chunk's rows and, with `sum`, sums them as `Usage::read` would.
fn rows_and_usage(rows: &mut Rows<'_>, sum: bool) -> rusqlite::Result<RowsAndUsage> {
    let (mut out, mut part) = (Vec::new(), UsagePart::default());
    while let Some(r) = rows.next()? {
        let (op, row) = snapshot_row(r)?;
        if sum {
            part.add(op, row.device_id, row.buffer_type, (row.address, row.size_per_bank));
        }
        out.push((op, row));
    }
    Ok((out, part))
}

/// Adds a row to the usage as `Usage::read` does.
fn add_row(usage: &mut MemoryUsage, op: u64, row: &SnapshotRow) {
    usage.add(op, row.device_id, row.buffer_type, (row.address, row.size_per_bank));
}

/// The columns of `buffers` both readings need: without one of them the two are read apart
/// (each fills a missing column its own way).
const BUFFER_COLUMNS: [&str; 5] = ["operation_id", "device_id", "address", "max_size_per_bank", "buffer_type"];

/// The run's one read, prepared: its statements and rowid ranges, and the operations it walks.
pub(super) struct RunRead<'r> {
    operations: &'r [Operation],
    ids: RangeInclusive<u64>,
    graph_sql: String,
    buffer_sql: String,
    rank: [i64; 1],
    /// `buffers`' rowids, first and last.
    rows: (i64, i64),
    /// `captured_graph`'s rowid span `[start, end)`, when it has rows of the run.
    graphs: Option<(i64, i64)>,
    chunk: i64,
    threads: usize,
    /// A worker's connection; none for a database held in memory.
    connect: Option<Connector>,
}

impl<'r> Passes<'r> {
    /// Gives `visit` every operation with its graph and snapshot, as `visit_operations` over the
    /// whole run does, while adding every `buffers` row to `usage` (a fresh one) in rowid order,
    /// as `Usage::read` does: one read of each table. When the read is on the worker pool,
    /// `beside` is taken and run on this thread while the read runs on another; else it is left.
    /// False, with nothing read, when the tables are not read by rowid span.
    pub(super) fn visit_run_beside(
        &self,
        usage: &mut MemoryUsage,
        visit: &mut Visit<'_>,
        beside: &mut Option<&mut dyn FnMut()>,
    ) -> Result<bool, ReportError> {
        if usage.next_rowid != 0 {
            return Ok(false);
        }
        let Some(read) = self.run_read()? else { return Ok(false) };
        match beside.take() {
            Some(work) if read.pooled() => std::thread::scope(|scope| {
                let pass = scope.spawn(|| read.visit(None, usage, visit));
                work();
                pass.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            })?,
            work => {
                *beside = work;
                read.visit(Some(&self.report.store.conn), usage, visit)?;
            }
        }
        Ok(true)
    }

    /// The run's one read, prepared; none when the tables are not read by rowid span.
    fn run_read(&self) -> Result<Option<RunRead<'r>>, ReportError> {
        let read = ReportError::read("the run's records");
        let store = &self.report.store;
        let schema = &store.schema;
        let (Some(first), Some(last)) = (self.report.operations.first(), self.report.operations.last()) else {
            return Ok(None);
        };
        let ids = first.id..=last.id;
        if !BUFFER_COLUMNS.iter().all(|c| schema.has_column("buffers", c)) {
            return Ok(None);
        }
        let (Some(Some(_)), Some(graphs)) = (
            store.rowid_span("buffers", ids.clone()).map_err(&read)?,
            store.rowid_span("captured_graph", ids.clone()).map_err(&read)?,
        ) else {
            return Ok(None);
        };
        let Some(rows) = rowid_range(&store.conn, "buffers").map_err(&read)? else { return Ok(None) };
        let between = format!("operation_id >= {} AND operation_id <= {}", ids.start(), ids.end());
        let graph_sql = format!(
            "SELECT {} FROM captured_graph WHERE rowid >= ?1 AND rowid < ?2 AND {between}",
            graph_columns(self.report)
        );
        let filter = schema.rank_filter("buffers");
        let buffer_sql = format!(
            "SELECT {} FROM buffers WHERE rowid >= ?2 AND rowid < ?3 AND {filter}",
            buffer_columns(self.report)
        );
        let connect: Option<Connector> = store.database.is_some().then(|| Box::new(store.connector()) as Connector);
        Ok(Some(RunRead {
            operations: &self.report.operations,
            ids,
            graph_sql,
            buffer_sql,
            rank: [i64::from(self.report.rank())],
            rows,
            graphs,
            chunk: store.chunk,
            threads: store.threads,
            connect,
        }))
    }
}

impl RunRead<'_> {
    /// Whether the read is on the worker pool (more than one thread, a database file).
    fn pooled(&self) -> bool {
        self.threads > 1 && self.connect.is_some()
    }

    fn buffer_pass(&self) -> RowidPass<'_> {
        RowidPass { sql: &self.buffer_sql, binds: &self.rank, range: self.rows, chunk: self.chunk }
    }

    fn graph_pass(&self) -> Option<RowidPass<'_>> {
        let chunk = GRAPH_CHUNK.min(self.chunk);
        self.graphs.map(|(a, b)| RowidPass { sql: &self.graph_sql, binds: &[], range: (a, b - 1), chunk })
    }

    /// The read: on the worker pool when [`Self::pooled`], else on `conn`.
    fn visit(
        &self,
        conn: Option<&Connection>,
        usage: &mut MemoryUsage,
        visit: &mut Visit<'_>,
    ) -> Result<(), ReportError> {
        let mut each = |_: usize, record: &OperationRecord<'_>| {
            visit(record);
            ControlFlow::Continue(())
        };
        match (self.pooled(), conn) {
            (false, Some(conn)) => self.read_here(conn, usage, &mut each)?,
            _ => self.read_pooled(usage, &mut each)?,
        }
        usage.next_rowid = self.rows.1.saturating_add(1);
        usage.flush();
        Ok(())
    }

    /// Both tables in rowid chunks on the worker pool, graphs parsed there; the `buffers` rows
    /// summed there too unless each buffer's run is followed (its rows are then added here).
    fn read_pooled(
        &self,
        usage: &mut MemoryUsage,
        each: &mut dyn FnMut(usize, &OperationRecord<'_>) -> ControlFlow<()>,
    ) -> Result<(), ReportError> {
        let read = ReportError::read("the run's records");
        let connect = self.connect.as_deref().ok_or_else(|| read(rusqlite::Error::InvalidQuery))?;
        let (buffer_pass, graph_pass) = (self.buffer_pass(), self.graph_pass());
        let with_runs = usage.runs.is_some();
        let ids = &self.ids;
        std::thread::scope(|scope| {
            let mut graph_chunks = graph_pass
                .as_ref()
                .map(|pass| OrderedChunks::start(scope, connect, self.threads, pass, &graph_nodes_row));
            let fold: SharedFold<'_, RowsAndUsage> = Arc::new(move |rows| rows_and_usage(rows, !with_runs));
            let mut row_chunks = FoldedChunks::start_folding(scope, connect, self.threads, &buffer_pass, fold);
            let (mut graph_buffer, mut row_buffer) = (Vec::new().into_iter(), Vec::new().into_iter());
            let mut next_graph = || flat_next(&mut graph_chunks, &mut graph_buffer);
            // Each chunk's sums, made on its worker, added as the chunk is taken (or its rows one
            // by one); its rows of the run's operations on to the walk.
            let mut next_row = || -> rusqlite::Result<Option<(u64, SnapshotRow)>> {
                loop {
                    match row_buffer.next() {
                        Some((op, row)) if ids.contains(&op) => return Ok(Some((op, row))),
                        Some(_) => {}
                        None => match row_chunks.next() {
                            Some(chunk) => {
                                let (rows, part) = chunk?.1;
                                match with_runs {
                                    true => rows.iter().for_each(|(op, row)| add_row(usage, *op, row)),
                                    false => usage.add_part(part),
                                }
                                row_buffer = rows.into_iter();
                            }
                            None => return Ok(None),
                        },
                    }
                }
            };
            let range = 0..self.operations.len();
            walk_operations(self.operations, range, &mut next_graph, Some(&mut next_row), None, each)?;
            // Rows after the last operation's still count in the usage.
            while next_row().map_err(&read)?.is_some() {}
            Ok(())
        })
    }

    /// Both tables read on `conn`, on this thread.
    fn read_here(
        &self,
        conn: &Connection,
        usage: &mut MemoryUsage,
        each: &mut dyn FnMut(usize, &OperationRecord<'_>) -> ControlFlow<()>,
    ) -> Result<(), ReportError> {
        let read = ReportError::read("the run's records");
        let ids = &self.ids;
        // Every row to the usage; the rows of the run's operations on to the walk.
        let mut tap = |source: &mut Next<'_, SnapshotRow>| -> rusqlite::Result<Option<(u64, SnapshotRow)>> {
            while let Some((op, row)) = source()? {
                add_row(usage, op, &row);
                if ids.contains(&op) {
                    return Ok(Some((op, row)));
                }
            }
            Ok(None)
        };
        let mut graph_stmt = match &self.graphs {
            Some(_) => Some(conn.prepare(&self.graph_sql).map_err(&read)?),
            None => None,
        };
        let mut graph_rows = match (graph_stmt.as_mut(), self.graphs) {
            (Some(stmt), Some((a, b))) => Some(stmt.query([a, b]).map_err(&read)?),
            _ => None,
        };
        let mut buffer_stmt = conn.prepare(&self.buffer_sql).map_err(&read)?;
        let (first, last) = self.rows;
        let mut buffer_rows = Some(buffer_stmt.query([self.rank[0], first, last.saturating_add(1)]).map_err(&read)?);
        let mut next_graph = || next_of::<GraphRow>(&mut graph_rows, graph_text_row);
        let mut rows = || next_of(&mut buffer_rows, snapshot_row);
        let mut next_row = || tap(&mut rows);
        let range = 0..self.operations.len();
        walk_operations(self.operations, range, &mut next_graph, Some(&mut next_row), None, each)?;
        while next_row().map_err(&read)?.is_some() {}
        Ok(())
    }
}
