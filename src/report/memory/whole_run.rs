//! `--peak`'s two questions in one read of `buffers`: the usage pass's sums (the peaks after each
//! operation) and the run's events (the true peaks inside them) both come from every `buffers`
//! row, so the rows the events read side by side with the graphs are also added to the usage,
//! in rowid order, as `Usage::read` adds them. Only for tables read by rowid span (written in
//! operation order, no rank column, no index on `operation_id`); otherwise the caller reads the
//! two apart.

use super::operation_stream::{
    GRAPH_CHUNK, GraphRow, Next, buffer_columns, flat_next, graph_columns, graph_nodes_row, graph_text_row, next_of,
    snapshot_row,
};
use super::questions::Passes;
use crate::analysis::memory::SnapshotRow;
use crate::analysis::memory::usage::MemoryUsage;
use crate::analysis::memory::usage::UsagePart;
use crate::analysis::memory::whatif::OperationRecord;
use crate::report::database::rowid_range;
use crate::report::error::ReportError;
use crate::report::rowid_ranges::{FoldedChunks, OrderedChunks, RowidPass, SharedFold};
use rusqlite::Rows;
use std::ops::ControlFlow;
use std::sync::Arc;

/// A chunk of `buffers` as a worker hands it over: its rows, and their sums made there.
type RowsAndUsage = (Vec<(u64, SnapshotRow)>, UsagePart);

/// Decodes a chunk's rows and sums them as `Usage::read` would.
fn rows_and_usage(rows: &mut Rows<'_>) -> rusqlite::Result<RowsAndUsage> {
    let (mut out, mut part) = (Vec::new(), UsagePart::default());
    while let Some(r) = rows.next()? {
        let (op, row) = snapshot_row(r)?;
        part.add(op, row.device_id, row.buffer_type, (row.address, row.size_per_bank));
        out.push((op, row));
    }
    Ok((out, part))
}

/// The columns of `buffers` both readings need: without one of them the two are read apart
/// (each fills a missing column its own way).
const BUFFER_COLUMNS: [&str; 5] = ["operation_id", "device_id", "address", "max_size_per_bank", "buffer_type"];

impl<'r> Passes<'r> {
    /// Gives `visit` every operation with its graph and snapshot, as `visit_operations` over the
    /// whole run does, while adding every `buffers` row to `usage` (a fresh one) in rowid order,
    /// as `Usage::read` does: one read of each table. False, with nothing read, when the tables
    /// are not read by rowid span.
    pub(super) fn visit_run_with_usage(
        &self,
        usage: &mut MemoryUsage,
        visit: &mut dyn FnMut(&OperationRecord<'_>),
    ) -> Result<bool, ReportError> {
        let read = ReportError::read("the run's records");
        let store = &self.report.store;
        let schema = &store.schema;
        let (Some(first), Some(last)) = (self.report.operations.first(), self.report.operations.last()) else {
            return Ok(false);
        };
        let ids = first.id..=last.id;
        if usage.next_rowid != 0 || !BUFFER_COLUMNS.iter().all(|c| schema.has_column("buffers", c)) {
            return Ok(false);
        }
        let (Some(Some(_)), Some(graphs)) = (
            store.rowid_span("buffers", ids.clone()).map_err(&read)?,
            store.rowid_span("captured_graph", ids.clone()).map_err(&read)?,
        ) else {
            return Ok(false);
        };
        let Some((first_row, last_row)) = rowid_range(&store.conn, "buffers").map_err(&read)? else { return Ok(false) };
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
        let rank = [i64::from(self.report.rank())];
        let buffer_pass =
            RowidPass { sql: &buffer_sql, binds: &rank, range: (first_row, last_row), chunk: store.chunk };
        let graph_pass = graphs.map(|(a, b)| RowidPass {
            sql: &graph_sql,
            binds: &[],
            range: (a, b - 1),
            chunk: GRAPH_CHUNK.min(store.chunk),
        });
        let mut each = |_: usize, record: &OperationRecord<'_>| {
            visit(record);
            ControlFlow::Continue(())
        };
        let range = 0..self.report.operations.len();
        if store.threads > 1 && store.database.is_some() {
            let connect = store.connector();
            let threads = store.threads;
            std::thread::scope(|scope| {
                let mut graph_chunks = graph_pass
                    .as_ref()
                    .map(|pass| OrderedChunks::start(scope, &connect, threads, pass, &graph_nodes_row));
                let fold: SharedFold<'_, RowsAndUsage> = Arc::new(rows_and_usage);
                let mut row_chunks = FoldedChunks::start_folding(scope, &connect, threads, &buffer_pass, fold);
                let (mut graph_buffer, mut row_buffer) = (Vec::new().into_iter(), Vec::new().into_iter());
                let mut next_graph = || flat_next(&mut graph_chunks, &mut graph_buffer);
                // Each chunk's sums, made on its worker, added as the chunk is taken; its rows of
                // the run's operations on to the walk.
                let mut next_row = || -> rusqlite::Result<Option<(u64, SnapshotRow)>> {
                    loop {
                        match row_buffer.next() {
                            Some((op, row)) if ids.contains(&op) => return Ok(Some((op, row))),
                            Some(_) => {}
                            None => match row_chunks.next() {
                                Some(chunk) => {
                                    let (rows, part) = chunk?.1;
                                    usage.add_part(part);
                                    row_buffer = rows.into_iter();
                                }
                                None => return Ok(None),
                            },
                        }
                    }
                };
                self.walk(range, &mut next_graph, Some(&mut next_row), None, &mut each)?;
                // Rows after the last operation's still count in the usage.
                while next_row().map_err(&read)?.is_some() {}
                Ok::<(), ReportError>(())
            })?;
        } else {
            // Every row to the usage; the rows of the run's operations on to the walk.
            let mut tap = |source: &mut Next<'_, SnapshotRow>| -> rusqlite::Result<Option<(u64, SnapshotRow)>> {
                while let Some((op, row)) = source()? {
                    usage.add(op, row.device_id, row.buffer_type, (row.address, row.size_per_bank));
                    if ids.contains(&op) {
                        return Ok(Some((op, row)));
                    }
                }
                Ok(None)
            };
            let conn = &store.conn;
            let mut graph_stmt = match &graph_pass {
                Some(pass) => Some(conn.prepare(pass.sql).map_err(&read)?),
                None => None,
            };
            let mut graph_rows = match (graph_stmt.as_mut(), &graph_pass) {
                (Some(stmt), Some(pass)) => Some(stmt.query([pass.range.0, pass.range.1 + 1]).map_err(&read)?),
                _ => None,
            };
            let mut buffer_stmt = conn.prepare(&buffer_sql).map_err(&read)?;
            let mut buffer_rows =
                Some(buffer_stmt.query([rank[0], first_row, last_row.saturating_add(1)]).map_err(&read)?);
            let mut next_graph = || next_of::<GraphRow>(&mut graph_rows, graph_text_row);
            let mut rows = || next_of(&mut buffer_rows, snapshot_row);
            let mut next_row = || tap(&mut rows);
            self.walk(range, &mut next_graph, Some(&mut next_row), None, &mut each)?;
            while next_row().map_err(&read)?.is_some() {}
        }
        usage.next_rowid = last_row.saturating_add(1);
        usage.flush();
        Ok(true)
    }
}
