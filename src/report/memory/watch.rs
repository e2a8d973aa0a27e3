//! A report that is still being written (`--watch`): `PRAGMA data_version` on the open read-only
//! connection says whether another connection committed since the last look; then only what is
//! new is read — operations and error rows past the last rowid seen, the captured graphs of
//! operations that gained an error — and the report is updated in place.

use super::memory_report::{MemoryReport, Operation};
use super::rows::SnapshotCache;
use super::tensors::TensorCache;
use super::usage::MarkCache;
use super::watch_state::{WatchState, file_identity};
use crate::report::database::{open_database, rowid_range, wal_writer_files_exist};
use crate::report::error::ReportError;
use crate::report::locate::ReportSource;
use rusqlite::ErrorCode;
use std::collections::HashSet;

/// What one poll found new.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WatchUpdate {
    /// Operations read for the first time. They are appended to `operations` unless
    /// `reordered` is set.
    pub new_operations: usize,
    /// Ids of the operations that gained an error, ascending.
    pub new_failures: Vec<u64>,
    /// Indexes in `errors` of the new error rows no operation picked.
    pub new_unattached: Vec<usize>,
    /// An operation arrived with an id below one already read: `operations` was sorted again
    /// and operation indexes kept from before the poll no longer hold.
    pub reordered: bool,
    /// The database was deleted and written again (ttnn's importer rewrites a report of an older
    /// schema): the report was opened again, and nothing read before holds (`reordered` too).
    pub replaced: bool,
}

/// Opens a report again as it was opened (same source, rank, watched or not): worker threads
/// need their own read-only connection.
#[derive(Debug, Clone)]
pub struct Reopener {
    source: ReportSource,
    rank: u32,
    watched: bool,
    /// The threads of its whole-table passes.
    threads: usize,
    /// The log given beside the report, joined again to the second connection's report.
    log: Option<std::sync::Arc<super::log_beside::LogBeside>>,
}

impl MemoryReport {
    /// Opens a report that may still be written, for [`MemoryReport::poll_changes`] (`--watch`);
    /// as read-only as [`MemoryReport::open`]: nothing is created beside the database.
    pub fn open_watched(source: &ReportSource, rank: u32) -> Result<Self, ReportError> {
        Self::open_with(source, rank, true)
    }

    /// True when the report was opened with [`MemoryReport::open_watched`].
    pub fn is_watched(&self) -> bool {
        self.watch.is_some()
    }

    /// How to open this report again, for a second connection on a worker thread.
    pub fn reopener(&self) -> Reopener {
        Reopener {
            source: self.source.clone(),
            rank: self.store.rank,
            watched: self.is_watched(),
            threads: self.threads(),
            log: self.log.clone(),
        }
    }

    /// Records what the opening transaction read, so polls read only what comes after.
    pub(super) fn start_watch(&mut self, immutable: bool) -> rusqlite::Result<()> {
        let mut state = WatchState {
            data_version: Some(self.store.conn.query_row("PRAGMA data_version", [], |r| r.get(0))?),
            operations_rowid: rowid_range(&self.store.conn, "operations")?.map_or(i64::MIN, |(_, last)| last),
            errors_rowid: i64::MIN,
            table_errors: Vec::new(),
            immutable,
            file: match &self.source {
                ReportSource::File { database, .. } => file_identity(database),
                ReportSource::Demo => None,
            },
        };
        if self.store.schema.has_table("errors") {
            state.errors_rowid = rowid_range(&self.store.conn, "errors")?.map_or(i64::MIN, |(_, last)| last);
            state.table_errors = self.read_errors(i64::MIN)?;
        }
        self.watch = Some(state);
        Ok(())
    }

    /// Looks whether another connection committed since the last call and, if so, reads what is
    /// new and updates the report in place: new operations are appended (an existing one gets
    /// its new duration), errors are attached again over all rows (errors may arrive for
    /// operations already read), the graphs of operations that gained an error are read, and
    /// `devices` is read again. Call it about twice a second: when nothing changed it costs one
    /// `PRAGMA` in a read transaction (under 15 µs on the 100 k-operation report). `None`:
    /// nothing committed (or the writer held the lock: the next call tries again), or the report
    /// is not watched.
    pub fn poll_changes(&mut self) -> Result<Option<WatchUpdate>, ReportError> {
        let Some(watch) = self.watch.as_mut() else { return Ok(None) };
        if let (ReportSource::File { database, .. }, Some(opened)) = (&self.source, watch.file) {
            match file_identity(database) {
                // Gone (being rewritten): the next poll looks again.
                None => return Ok(None),
                Some(now) if now != opened => return Ok(self.open_again()),
                Some(_) => {}
            }
        }
        if watch.immutable {
            // The writer's -wal and -shm appear when it connects: only then can a read-only
            // connection follow it without creating them.
            let ReportSource::File { database, .. } = &self.source else { return Ok(None) };
            if !wal_writer_files_exist(database) {
                return Ok(None);
            }
            let (conn, immutable) = open_database(database)?;
            (self.store.conn, watch.immutable, watch.data_version) = (conn, immutable, None);
        }
        let read = ReportError::read("the changes of a watched report");
        self.store.conn.execute_batch("BEGIN").map_err(&read)?;
        let result = self.read_changes();
        if result.is_ok() {
            self.store.conn.execute_batch("COMMIT").map_err(&read)?;
        } else if !self.store.conn.is_autocommit() {
            // An error may have ended the transaction already; the error to give is the first.
            let _ = self.store.conn.execute_batch("ROLLBACK");
        }
        match result {
            Err(e) if matches!(e.sqlite_error_code(), Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked)) => {
                Ok(None)
            }
            other => other.map_err(read),
        }
    }

    /// The report opened again from a database that replaced the one read: every operation
    /// new, the failures of operations that had none; none while the new file cannot be opened
    /// yet (its writer has not written its tables), so that the next poll tries again.
    fn open_again(&mut self) -> Option<WatchUpdate> {
        let mut fresh = Self::open_with(&self.source, self.store.rank, true).ok()?;
        if let Some(log) = &self.log {
            fresh.join_log(log.clone());
        }
        let had_error: HashSet<u64> = self.operations.iter().filter(|o| o.error.is_some()).map(|o| o.id).collect();
        let update = WatchUpdate {
            new_operations: fresh.operations.len(),
            new_failures: fresh
                .operations
                .iter()
                .filter(|o| o.error.is_some() && !had_error.contains(&o.id))
                .map(|o| o.id)
                .collect(),
            new_unattached: (0..fresh.errors.len()).filter(|&k| !fresh.errors[k].attached).collect(),
            reordered: true,
            replaced: true,
        };
        *self = fresh;
        Some(update)
    }

    /// Reads what is new, inside the poll's read transaction.
    fn read_changes(&mut self) -> rusqlite::Result<Option<WatchUpdate>> {
        let version: i64 = self.store.conn.query_row("PRAGMA data_version", [], |r| r.get(0))?;
        let Some(watch) = self.watch.as_ref() else { return Ok(None) };
        if watch.data_version == Some(version) {
            return Ok(None);
        }
        let (operations_after, errors_after) = (watch.operations_rowid, watch.errors_rowid);
        self.store.refresh()?;
        // Tensors and their links may have grown: the index of them is built again when asked.
        self.tensor_cache = TensorCache::default();
        // So may the errors and the `buffers` rows that place them.
        self.marks = MarkCache::default();
        // And the first rows, which give the DRAM base, while the table is short, and the
        // snapshots kept (the last operation's may have been read while it was written).
        self.snapshot_cache = SnapshotCache::default();
        let operations_rowid = rowid_range(&self.store.conn, "operations")?.map_or(operations_after, |(_, last)| last);
        let new_operations = if operations_rowid > operations_after {
            let (operations, _, other_ranks) = self.read_operations(operations_after)?;
            self.store.one_rank &= !other_ranks;
            operations
        } else {
            Vec::new()
        };
        let has_errors = self.store.schema.has_table("errors");
        let errors_rowid = match has_errors {
            true => rowid_range(&self.store.conn, "errors")?.map_or(errors_after, |(_, last)| last),
            false => errors_after,
        };
        let new_errors = if errors_rowid > errors_after { self.read_errors(errors_after)? } else { Vec::new() };
        let devices = super::devices::read_devices(&self.store.conn, &self.store.schema, self.store.rank)?;

        // Everything is read: from here on nothing fails, and the report changes.
        let mut update = WatchUpdate::default();
        let had_error: HashSet<u64> = self.operations.iter().filter(|o| o.error.is_some()).map(|o| o.id).collect();
        self.merge_operations(new_operations, &mut update);
        let Some(watch) = self.watch.as_mut() else { return Ok(None) };
        let first_new_error = watch.table_errors.len();
        watch.table_errors.extend(new_errors);
        let table_errors = watch.table_errors.clone();
        (watch.data_version, watch.operations_rowid, watch.errors_rowid) =
            (Some(version), operations_rowid, errors_rowid);
        let kept = self.attach(table_errors);
        self.mark_sharded_requests()?;
        update.new_unattached =
            kept[first_new_error..].iter().flatten().copied().filter(|&k| !self.errors[k].attached).collect();
        update.new_failures =
            self.operations.iter().filter(|o| o.error.is_some() && !had_error.contains(&o.id)).map(|o| o.id).collect();
        self.devices = devices;
        self.refresh_error_graphs();
        Ok(Some(update))
    }

    /// Adds operations read for the first time (an operation read again brings its new
    /// duration); when one comes before the last known, sorts them again and forgets what relied
    /// on the order (rowid searches, the error graphs by index).
    fn merge_operations(&mut self, new_operations: Vec<Operation>, update: &mut WatchUpdate) {
        // The unrecorded operation after the last is found again by the attachment that follows.
        self.operations.retain(|o| o.recorded);
        let last_id = self.operations.last().map(|o| o.id);
        for op in new_operations {
            match self.operation_index(op.id) {
                Some(i) => self.operations[i].duration = op.duration,
                None => {
                    update.reordered |= last_id.is_some_and(|last| op.id < last);
                    self.operations.push(op);
                    update.new_operations += 1;
                }
            }
        }
        if update.reordered {
            self.operations.sort_by_key(|o| o.id);
            self.store.rows_in_operation_order = false;
            self.error_graphs.clear();
        }
    }

    /// Reads the graphs of the operations with an error whose graph is not known yet, or was
    /// empty (its row may be committed after the error's).
    fn refresh_error_graphs(&mut self) {
        let wanted: Vec<usize> = (0..self.operations.len())
            .filter(|&i| self.operations[i].error.is_some())
            .filter(|i| self.error_graphs.get(i).is_none_or(|g| g.as_ref().is_ok_and(|g| g.is_empty())))
            .collect();
        if wanted.is_empty() {
            return;
        }
        match self.graphs().read(wanted.clone()) {
            Ok(graphs) => self.error_graphs.extend(graphs),
            // Unreadable now: the graphs are read when shown, and the next poll tries again.
            Err(_) => wanted.iter().for_each(|i| drop(self.error_graphs.remove(i))),
        }
    }
}

impl Reopener {
    /// A second read-only connection to the report.
    pub fn open(&self) -> Result<MemoryReport, ReportError> {
        let mut report = MemoryReport::open_with(&self.source, self.rank, self.watched)?;
        report.set_threads(self.threads);
        if let Some(log) = &self.log {
            report.join_log(log.clone());
        }
        Ok(report)
    }
}
