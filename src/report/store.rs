//! The open report's database as every question reads it: the read-only connection, the
//! schema as found, the rank read, and the cheapest way to select the rows of some operations
//! (by index, by rowid span, or by a scan) — never a scan of a big table on a user's key when
//! an index or the table's order allows better.

use super::database::{RowSpan, Schema, int, operation_row_span, tables_indexed_by, text, uint};
use super::id_lists::{IN_LIST_CHUNK, id_list};
use super::rowid_ranges::{ChunkFold, RowidPass, fold_in_rowid_order};
use rusqlite::Connection;
use std::collections::HashMap;

/// `buffers` rowids per chunk of a whole-table pass (about 5 ms of reading): the cancel flag is
/// looked at between chunks, and no lock is held between them, so a writer using a rollback
/// journal is never kept waiting long.
pub(crate) const PASS_CHUNK: i64 = 1 << 14;

/// Operation ids at most this far apart are looked up as one run of rows.
const RUN_GAP: u64 = 16;

/// The read-only connection of a memory report and what queries of it need to know.
pub(crate) struct Store {
    /// The read-only connection.
    pub(crate) conn: Connection,
    /// Tables and columns as found (columns vary by era).
    pub(crate) schema: Schema,
    /// The rank read.
    pub(crate) rank: u32,
    /// Tables with an index starting with `operation_id`.
    indexed_by_operation: Vec<String>,
    /// Whether `operations` is stored in id order, so rowid searches may be trusted.
    pub(crate) rows_in_operation_order: bool,
    /// Whether `operations` holds the rows of one rank only (a single-host report, whatever its
    /// `rank` columns say), so the per-operation tables' rows are in operation order as in a
    /// report without ranks.
    pub(crate) one_rank: bool,
    /// The database file, for the connections of a whole-table pass's workers (none: held in
    /// memory, read on one thread).
    pub(crate) database: Option<std::path::PathBuf>,
    /// Threads of a whole-table pass (`--threads`; the machine's cores by default).
    pub(crate) threads: usize,
    /// `buffers` rowids per chunk of a whole-table pass.
    pub(crate) chunk: i64,
}

impl Store {
    /// A store over a connection: reads the schema and which tables are indexed by operation.
    pub(crate) fn new(conn: Connection, rank: u32) -> rusqlite::Result<Self> {
        let schema = Schema::read(&conn)?;
        let indexed_by_operation = tables_indexed_by(&conn, "operation_id")?;
        let threads = super::rowid_ranges::default_threads();
        Ok(Self {
            conn,
            schema,
            rank,
            indexed_by_operation,
            rows_in_operation_order: false,
            one_rank: false,
            database: None,
            threads,
            chunk: PASS_CHUNK,
        })
    }

    /// Runs `f` in one read transaction on the store's connection (unless one is open): each
    /// statement outside one takes and drops the file lock and reads the database header again,
    /// and a failure's answer asks thousands. Held for one answer only, so a run still writing
    /// its report is never kept waiting long (docs/performance.md).
    pub(crate) fn in_one_read<T>(&self, f: impl FnOnce() -> T) -> T {
        let began = self.conn.is_autocommit() && self.conn.execute_batch("BEGIN").is_ok();
        let out = f();
        if began && !self.conn.is_autocommit() {
            // A read transaction commits nothing; an error here leaves nothing to undo.
            let _ = self.conn.execute_batch("COMMIT");
        }
        out
    }

    /// Reads and folds every chunk of `pass` in rowid order on the store's threads, each worker
    /// on a read-only connection of its own (see [`fold_in_rowid_order`]).
    pub(crate) fn fold_in_rowid_order<C: Send>(
        &self,
        pass: &RowidPass<'_>,
        fold: &ChunkFold<'_, C>,
        consume: &mut dyn FnMut(i64, C) -> std::ops::ControlFlow<()>,
    ) -> rusqlite::Result<bool> {
        let connect = self.connector();
        let threads = if self.database.is_some() { self.threads } else { 1 };
        fold_in_rowid_order(&self.conn, Some(&connect), threads, pass, fold, consume)
    }

    /// This store again on a read-only connection of its own ([`Self::connector`]), with its
    /// settings; none for a database held in memory or one that cannot be opened again.
    pub(crate) fn second(&self) -> Option<Store> {
        let mut store = Store::new(self.connector()().ok()?, self.rank).ok()?;
        store.database = self.database.clone();
        store.rows_in_operation_order = self.rows_in_operation_order;
        store.one_rank = self.one_rank;
        store.threads = self.threads;
        store.chunk = self.chunk;
        Some(store)
    }

    /// Opens another read-only connection to the report's database, for a pass's worker.
    pub(crate) fn connector(&self) -> impl Fn() -> rusqlite::Result<Connection> + Send + Sync + use<> {
        let database = self.database.clone();
        move || {
            let Some(path) = database.as_deref() else { return Err(rusqlite::Error::InvalidPath("memory".into())) };
            super::database::open_database(path).map(|(conn, _)| conn).map_err(|e| {
                let code = rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_CANTOPEN);
                rusqlite::Error::SqliteFailure(code, Some(e.to_string()))
            })
        }
    }

    /// The rowid span `[start, end)` of the rows of the operations with ids in `ids` (none
    /// inside: no such row), when `table` is read by rowid span (as [`Self::range_condition`]
    /// reads it); none when it is not.
    pub(crate) fn rowid_span(
        &self,
        table: &str,
        ids: std::ops::RangeInclusive<u64>,
    ) -> rusqlite::Result<Option<Option<(i64, i64)>>> {
        if !self.schema.has_table(table) {
            return Ok(Some(None));
        }
        if !self.by_rowid_span(table) {
            return Ok(None);
        }
        Ok(match operation_row_span(&self.conn, table, ids)? {
            RowSpan::Rowids(start, end) => Some(Some((start, end))),
            RowSpan::Empty => Some(None),
            RowSpan::Unknown => None,
        })
    }

    /// Whether `table`'s rows of several ranks may interleave: it has a `rank` column and the
    /// report holds more than one rank (operation ids restart on every rank, so its rowids are not
    /// in operation order).
    pub(crate) fn ranked(&self, table: &str) -> bool {
        self.schema.has_column(table, "rank") && !self.one_rank
    }

    /// Whether the rows of some operations in `table` are found by a rowid search: no
    /// `operation_id` index to use instead, and rows stored in operation order (`operations` in
    /// id order, one rank).
    fn by_rowid_span(&self, table: &str) -> bool {
        !self.is_indexed(table) && self.rows_in_operation_order && !self.ranked(table)
    }

    /// Whether `table` has an index starting with `operation_id`.
    pub(crate) fn is_indexed(&self, table: &str) -> bool {
        self.indexed_by_operation.iter().any(|t| t == table)
    }

    /// Reads the schema and the indexes again (a watched report's writer may have added tables).
    pub(crate) fn refresh(&mut self) -> rusqlite::Result<()> {
        self.schema = Schema::read(&self.conn)?;
        self.indexed_by_operation = tables_indexed_by(&self.conn, "operation_id")?;
        Ok(())
    }

    /// `WHERE` conditions that together select the rows of some operations in `table`, as cheaply
    /// as the table allows: by index, by rowid span (tables in operation order), or by a scan.
    pub(crate) fn operation_rows(&self, table: &str, ids: &[u64]) -> rusqlite::Result<Vec<String>> {
        let list = |ids: &[u64]| id_list(ids.iter().copied());
        let by_list =
            |ids: &[u64]| ids.chunks(IN_LIST_CHUNK).map(|chunk| format!("operation_id IN ({})", list(chunk))).collect();
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        if !self.by_rowid_span(table) {
            return Ok(by_list(ids));
        }
        // Ids close together (the visible rows of a list) share one span: two searches a run.
        let mut sorted = ids.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        let mut conditions = Vec::new();
        for run in sorted.chunk_by(|a, b| b - a <= RUN_GAP) {
            let (first, last) = (run[0], run[run.len() - 1]);
            match operation_row_span(&self.conn, table, first..=last)? {
                RowSpan::Rowids(start, end) => {
                    conditions.push(format!("rowid >= {start} AND rowid < {end} AND operation_id IN ({})", list(run)))
                }
                RowSpan::Empty => {}
                RowSpan::Unknown => return Ok(by_list(ids)),
            }
        }
        Ok(conditions)
    }

    /// The text column `column` of the rows of some operations in `table`, with each row's rank
    /// (0 without a `rank` column), by operation id, in table order; empty without the table.
    pub(crate) fn texts_by_operation(
        &self,
        table: &str,
        column: &str,
        ids: &[u64],
    ) -> rusqlite::Result<HashMap<u64, Vec<(u32, String)>>> {
        let mut out: HashMap<u64, Vec<(u32, String)>> = HashMap::new();
        if !self.schema.has_table(table) {
            return Ok(out);
        }
        let columns = self.schema.select_list(table, &[("operation_id", "0"), (column, "''"), ("rank", "0")]);
        for condition in self.operation_rows(table, ids)? {
            let sql = format!("SELECT {columns} FROM {table} WHERE {condition} ORDER BY rowid");
            let mut stmt = self.conn.prepare(&sql)?;
            let mut rows = stmt.query([])?;
            while let Some(r) = rows.next()? {
                out.entry(uint(r.get_ref(0)?)).or_default().push((int(r.get_ref(2)?) as u32, text(r.get_ref(1)?)));
            }
        }
        Ok(out)
    }

    /// A `WHERE` condition and an `ORDER BY` that read the rows of the operations with ids in
    /// `ids` in operation order, as cheaply as the table allows: a rowid span of a table in
    /// operation order, else its `operation_id` index, else a scan sorted by id. None when the
    /// span is empty.
    pub(crate) fn range_condition(
        &self,
        table: &str,
        ids: std::ops::RangeInclusive<u64>,
    ) -> rusqlite::Result<Option<(String, &'static str)>> {
        let (first, last) = (*ids.start(), *ids.end());
        let between = format!("operation_id >= {first} AND operation_id <= {last}");
        if self.by_rowid_span(table) {
            match operation_row_span(&self.conn, table, ids)? {
                RowSpan::Rowids(start, end) => {
                    return Ok(Some((format!("rowid >= {start} AND rowid < {end} AND {between}"), "rowid")));
                }
                RowSpan::Empty => return Ok(None),
                RowSpan::Unknown => {}
            }
        }
        Ok(Some((between, "operation_id, rowid")))
    }

    /// The `value` of the rows of `table` whose `name` is `name`, of some operations, with their
    /// ranks, by operation id (the arguments table's layout).
    pub(crate) fn texts_by_operation_named(
        &self,
        table: &str,
        name: &str,
        ids: &[u64],
    ) -> rusqlite::Result<HashMap<u64, Vec<(u32, String)>>> {
        let mut out: HashMap<u64, Vec<(u32, String)>> = HashMap::new();
        if !self.schema.has_column(table, "name") || !self.schema.has_column(table, "value") {
            return Ok(out);
        }
        let columns = self.schema.select_list(table, &[("operation_id", "0"), ("value", "''"), ("rank", "0")]);
        for condition in self.operation_rows(table, ids)? {
            let sql = format!("SELECT {columns} FROM {table} WHERE ({condition}) AND name = ?1 ORDER BY rowid");
            let mut stmt = self.conn.prepare(&sql)?;
            let mut rows = stmt.query([name])?;
            while let Some(r) = rows.next()? {
                out.entry(uint(r.get_ref(0)?)).or_default().push((int(r.get_ref(2)?) as u32, text(r.get_ref(1)?)));
            }
        }
        Ok(out)
    }

    /// One `WHERE` condition selecting an operation's rows of `table` (`0` when it has none).
    pub(crate) fn rows_condition(&self, table: &str, id: u64) -> rusqlite::Result<String> {
        let conditions = self.operation_rows(table, &[id])?;
        Ok(if conditions.is_empty() { "0".to_string() } else { conditions.join(" OR ") })
    }
}
