//! The TT-NN memory report: operations, errors and devices read at start; graphs, stack traces
//! and arguments read when an operation is shown (docs/rules/reference.md §1–§2).

use super::details::Details;
use super::devices::Device;
use super::graphs::{ErrorGraphs, Graphs};
use super::rows::{SnapshotCache, Snapshots};
use super::tensors::{TensorCache, Tensors};
use super::usage::{MarkCache, Usage};
use crate::analysis::attach::{ErrorKey, OperationKey, attach_errors, rows_of_rank, unrecorded_failure, unrecorded_id};
pub use crate::analysis::model::{ErrorRecord, Operation};
use crate::report::database::{open_database, open_error};
use crate::report::error::ReportError;
use crate::report::locate::{ReportSource, report_name_from_config, report_name_from_folder};
use crate::report::store::Store;
use rusqlite::{Connection, MAIN_DB};
use std::path::Path;

/// The embedded demo report (`fixtures/demo/`).
static DEMO_DATABASE: &[u8] = include_bytes!("../../../fixtures/demo/db.sqlite");
/// The embedded demo report's config file.
static DEMO_CONFIG: &str = include_str!("../../../fixtures/demo/config.json");

/// Why a non-zero `--rank` is refused on a report without per-rank data (docs/rules/reference.md §1.4, in
/// the CLI's terms rather than the reference's web wording).
pub(crate) const NO_RANKS: &str = "this report stores no per-rank data";

/// An opened memory report.
pub struct MemoryReport {
    /// Where it came from.
    pub source: ReportSource,
    /// Display name: `report_name` of its config, else the folder name.
    pub name: String,
    /// `report_metadata.schema_version`, when recorded.
    pub schema_version: Option<String>,
    /// Warnings about the report as a whole (e.g. `Incompatible report version`).
    pub warnings: Vec<String>,
    /// Operations of the rank, by `operation_id`.
    pub operations: Vec<Operation>,
    /// Error rows of the rank, in table order.
    pub errors: Vec<ErrorRecord>,
    /// Devices of the rank.
    pub devices: Vec<Device>,
    /// Captured graphs of the operations with an error, by operation index.
    pub(super) error_graphs: ErrorGraphs,
    /// The database every question reads.
    pub(super) store: Store,
    /// What a watched report has read so far (`open_watched`); none otherwise.
    pub(super) watch: Option<super::watch_state::WatchState>,
    /// The tensors' index, built by [`Tensors`] on the first question that needs it.
    pub(super) tensor_cache: TensorCache,
    /// Where each error is marked on the memory over the run, found on the first question.
    pub(super) marks: MarkCache,
    /// The DRAM base rows, read once (`Snapshots::lowest_dram_address`).
    pub(super) snapshot_cache: SnapshotCache,
    /// The log given beside the report (`--log`), joined to its operations.
    pub(super) log: Option<std::sync::Arc<super::log_beside::LogBeside>>,
    /// The failures of that log no operation took (indexes into its failures).
    pub(super) unjoined_log: Vec<usize>,
}

impl MemoryReport {
    /// Opens a report read-only for one rank, reading only what the first screen needs.
    pub fn open(source: &ReportSource, rank: u32) -> Result<Self, ReportError> {
        Self::open_with(source, rank, false)
    }

    /// Opens a report; `watch` also starts [`MemoryReport::poll_changes`] (see `watch.rs`).
    pub(super) fn open_with(source: &ReportSource, rank: u32, watch: bool) -> Result<Self, ReportError> {
        let mut immutable = false;
        let (conn, path, name) = match source {
            ReportSource::File { database, folder } => {
                let conn;
                (conn, immutable) = open_database(database)?;
                let name = report_name_from_folder(folder, rank)
                    .unwrap_or_else(|| crate::report::locate::folder_name(folder, database));
                (conn, database.clone(), name)
            }
            ReportSource::Demo => {
                let mut conn = Connection::open_in_memory().map_err(|e| open_error(e, Path::new("demo"), false))?;
                conn.deserialize_bytes(MAIN_DB, DEMO_DATABASE).map_err(|e| open_error(e, Path::new("demo"), false))?;
                let name = report_name_from_config(DEMO_CONFIG).unwrap_or_else(|| "demo".into());
                (conn, "demo".into(), name)
            }
        };
        Self::read(conn, source, &path, name, rank, watch.then_some(immutable))
    }

    /// Opens a database held in memory (a copy of `bytes`) as the demo is opened, named `name`:
    /// for fuzzing and tests that mutate a report's bytes.
    pub fn from_bytes(bytes: &[u8], name: &str, rank: u32) -> Result<Self, ReportError> {
        let fail = |e: rusqlite::Error| open_error(e, Path::new(name), false);
        if bytes.is_empty() {
            return Err(ReportError::new("empty file, not a TT-NN memory report", Path::new(name)));
        }
        let mut conn = Connection::open_in_memory().map_err(fail)?;
        conn.deserialize_read_exact(MAIN_DB, bytes, bytes.len(), true).map_err(fail)?;
        Self::read(conn, &ReportSource::Demo, Path::new(name), name.to_string(), rank, None)
    }

    /// Reads what the first screen needs from an open connection; `watch` (whether the
    /// connection is immutable) starts watching for changes.
    fn read(
        conn: Connection,
        source: &ReportSource,
        path: &Path,
        name: String,
        rank: u32,
        watch: Option<bool>,
    ) -> Result<Self, ReportError> {
        let fail = |e: rusqlite::Error| open_error(e, path, false);
        // One read transaction for everything read at start: each statement outside one takes
        // and drops the file lock and revalidates the page cache. Reading writes nothing.
        conn.execute_batch("BEGIN").map_err(fail)?;
        let mut store = Store::new(conn, rank).map_err(fail)?;
        if let ReportSource::File { database, .. } = source {
            store.database = Some(database.clone());
        }
        if !store.schema.has_table("operations") {
            return Err(ReportError::new("no operations table: not a TT-NN memory report", path)
                .hint("point at the db.sqlite of a TT-NN report folder"));
        }
        if rank > 0 && !store.schema.has_column("operations", "rank") {
            let what = format!("{NO_RANKS}, so --rank {rank} cannot be read");
            return Err(ReportError::new(what, path).hint("omit --rank, or use --rank 0"));
        }
        let mut report = Self {
            source: source.clone(),
            name,
            schema_version: None,
            warnings: Vec::new(),
            operations: Vec::new(),
            errors: Vec::new(),
            devices: Vec::new(),
            error_graphs: ErrorGraphs::new(),
            store,
            watch: None,
            tensor_cache: TensorCache::default(),
            marks: MarkCache::default(),
            snapshot_cache: SnapshotCache::default(),
            log: None,
            unjoined_log: Vec::new(),
        };
        report.load().map_err(fail)?;
        if let Some(immutable) = watch {
            report.start_watch(immutable).map_err(fail)?;
        }
        report.store.conn.execute_batch("COMMIT").map_err(fail)?;
        Ok(report)
    }

    fn load(&mut self) -> rusqlite::Result<()> {
        self.schema_version = self.read_schema_version()?;
        if let Some(major) =
            self.schema_version.as_deref().and_then(|v| v.split('.').next()?.trim().parse::<u64>().ok())
            && major > 3
        {
            self.warnings.push("Incompatible report version".to_string());
        }
        let other_ranks;
        (self.operations, self.store.rows_in_operation_order, other_ranks) = self.read_operations(i64::MIN)?;
        self.store.one_rank = !other_ranks;
        let errors = self.read_errors(i64::MIN)?;
        self.attach(errors);
        self.mark_sharded_requests()?;
        self.devices = super::devices::read_devices(&self.store.conn, &self.store.schema, self.store.rank)?;
        self.error_graphs = self.graphs().read_with_errors()?;
        Ok(())
    }

    /// Attaches error rows (in table order) to the operations, keeping the rank's rows; returns
    /// where each row went in `errors` (none: set aside). The operation that started and never
    /// completed without an `operations` row is added after the last (docs/rules/reference.md §13.5), again
    /// at each attachment.
    pub(super) fn attach(&mut self, mut errors: Vec<ErrorRecord>) -> Vec<Option<usize>> {
        self.operations.retain(|o| o.recorded);
        let op_keys: Vec<_> =
            self.operations.iter().map(|o| OperationKey { id: o.id, name: &o.name, rank: o.rank }).collect();
        let error_keys: Vec<_> = errors
            .iter()
            .map(|e| ErrorKey {
                operation_id: e.operation_id,
                operation_name: &e.operation_name,
                rank: e.rank,
                incomplete: e.is_incomplete(),
            })
            .collect();
        let mut attachment = attach_errors(&op_keys, &error_keys);
        let listed =
            rows_of_rank(&error_keys, &attachment, self.store.rank, self.store.schema.has_column("errors", "rank"));
        let unrecorded = unrecorded_failure(&op_keys, &error_keys, &attachment, &listed);
        let unrecorded_id = unrecorded_id(&op_keys);
        if let Some(i) = unrecorded {
            attachment.attached[i] = true;
        }
        for (e, attached) in errors.iter_mut().zip(&attachment.attached) {
            e.attached = *attached;
        }
        let mut new_index = vec![None; errors.len()];
        let mut kept = Vec::new();
        for (i, e) in errors.into_iter().enumerate() {
            if listed[i] {
                new_index[i] = Some(kept.len());
                kept.push(e);
            }
        }
        for (op, picked) in self.operations.iter_mut().zip(attachment.error_of_operation) {
            op.error = picked.and_then(|i| new_index[i]);
        }
        if let Some(i) = unrecorded {
            let error = &kept[new_index[i].unwrap_or_default()];
            self.operations.push(Operation {
                id: unrecorded_id,
                name: error.operation_name.as_str().into(),
                duration: None,
                rank: self.store.rank,
                error: new_index[i],
                recorded: false,
            });
        }
        self.errors = kept;
        self.apply_log();
        new_index
    }

    /// The error attached to an operation (by index).
    pub fn error_of(&self, index: usize) -> Option<&ErrorRecord> {
        self.operations[index].error.map(|e| &self.errors[e])
    }

    /// Whether the report can record errors: reports older than the `errors` table cannot.
    pub fn records_errors(&self) -> bool {
        self.store.schema.has_table("errors")
    }

    /// Error rows no operation picked, in table order.
    pub fn unattached_errors(&self) -> impl Iterator<Item = &ErrorRecord> {
        self.errors.iter().filter(|e| !e.attached)
    }

    /// The rank read.
    pub fn rank(&self) -> u32 {
        self.store.rank
    }

    /// Index of the operation with this id, when there is one.
    pub fn operation_index(&self, id: u64) -> Option<usize> {
        crate::analysis::model::operation_index(&self.operations, id)
    }

    /// Stack traces and arguments of shown operations.
    pub fn details(&self) -> Details<'_> {
        let folder = match &self.source {
            ReportSource::File { folder, .. } => Some(folder.as_path()),
            ReportSource::Demo => None,
        };
        Details { store: &self.store, operations: &self.operations, folder }
    }

    /// The `buffers` snapshots.
    pub fn snapshots(&self) -> Snapshots<'_> {
        Snapshots { store: &self.store, cache: &self.snapshot_cache }
    }

    /// Captured graphs: read, mapped in one pass, replayed from nothing.
    pub fn graphs(&self) -> Graphs<'_> {
        let Self { store, operations, errors, devices, error_graphs, .. } = self;
        Graphs { store, operations, errors, devices, error_graphs }
    }

    /// Tensors and their links.
    pub fn tensors(&self) -> Tensors<'_> {
        Tensors { store: &self.store, operations: &self.operations, cache: &self.tensor_cache }
    }

    /// Whether a question has read every tensor's rows (the tensor index of docs/rules/memory.md
    /// §4's holders), which the recent tenants' walk spares when it can answer.
    pub fn reads_every_tensor(&self) -> bool {
        self.tensor_cache.index_built()
    }

    /// Reads whole-table passes (the usage pass, `--peak`, `--late`, `free-late`) on `threads`
    /// workers (at least one); the machine's cores by default.
    pub fn set_threads(&mut self, threads: usize) {
        self.store.threads = threads.max(1);
    }

    /// The threads of a whole-table pass.
    pub fn threads(&self) -> usize {
        self.store.threads
    }

    /// Reads whole-table passes in chunks of `rowids` `buffers` rowids (16 384 by default; tests
    /// make them small to cross many chunk boundaries on a small report).
    pub fn set_pass_chunk(&mut self, rowids: i64) {
        self.store.chunk = rowids.max(1);
    }

    /// The memory over the run: the pass over `buffers`, its series and peaks, region ceilings.
    pub fn usage(&self) -> Usage<'_> {
        let (store, operations, devices) = (&self.store, self.operations.as_slice(), self.devices.as_slice());
        Usage { store, operations, devices, marks: Box::new(move || self.pictures().marked_failures()) }
    }
}
