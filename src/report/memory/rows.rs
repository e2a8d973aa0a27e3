//! The `buffers` rows the memory rules read (docs/rules/memory.md §3.1): an operation's own snapshot, cut
//! at a bound with a note, and the greatest earlier operation with rows for a device, found
//! without scanning the table — by its `operation_id` index, else walking back over rowids from
//! the operation's first row (the table is written in operation order), for a bounded number of
//! rows.

use crate::analysis::int_hash::IntMap;
use crate::analysis::memory::{MemoryNote, SnapshotRow, valid_buffer};
use crate::analysis::messages::failure::BufferType;
use crate::analysis::model::Operation;
use crate::report::database::buffer_type;
use crate::report::database::{RowSpan, int, operation_row_span, rowid_range, signed, uint};
use crate::report::error::ReportError;
use crate::report::store::Store;
use rusqlite::params;
use rusqlite::types::ValueRef;
use std::cell::RefCell;
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

/// At most this many `buffers` rows of one operation are read for a picture of memory.
pub(crate) const SNAPSHOT_ROWS: usize = 250_000;

/// At most this many `buffers` rows are walked back over to find an earlier snapshot of a device.
pub(crate) const EARLIER_SEARCH_ROWS: usize = 200_000;

/// At most this many `buffers` rows, from the start of the table, are read to find the DRAM
/// base of a device.
pub(crate) const DRAM_BASE_ROWS: i64 = 200_000;

/// What the snapshots keep with the report between questions (a watched report drops it when
/// rows are added): the DRAM rows among the first [`DRAM_BASE_ROWS`] of `buffers` by device
/// (operation id, lowest address up to it), read once for the report's rank — every failure's
/// DRAM base asks it —, and the last operations' snapshots read: the questions about one
/// failure (its picture, its device, each fix's checkpoint) read the same few again and again.
#[derive(Debug, Default)]
pub(crate) struct SnapshotCache {
    /// Shared with the report's second connection ([`SnapshotCache::sharing_dram_base`]): one
    /// read of the rows serves both threads, the later one waiting for it.
    dram_base: Arc<Mutex<Option<Arc<DramBase>>>>,
    recent: RefCell<VecDeque<Kept>>,
}

/// The DRAM rows by device: each operation id with rows and the lowest address up to it.
type DramBase = IntMap<u64, Vec<(u64, u64)>>;

impl SnapshotCache {
    /// An empty cache that shares this one's DRAM base, read or to read.
    pub(crate) fn sharing_dram_base(&self) -> Self {
        Self { dram_base: self.dram_base.clone(), recent: RefCell::default() }
    }
}

/// A snapshot kept: its operation and rank, its rows and the note of rows cut.
type Kept = ((u64, u32), (Arc<Vec<SnapshotRow>>, Option<MemoryNote>));

/// How many snapshots are kept.
const KEPT_SNAPSHOTS: usize = 8;

/// The earlier snapshot of a device, as found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Earlier {
    /// The greatest operation id below N with rows for the device.
    Found(u64),
    /// No operation below N has rows for the device.
    None,
    /// The search stopped after this many rows.
    Stopped(usize),
}

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

/// The `buffers` snapshots of a report (docs/rules/memory.md §1): an operation's rows, the earlier
/// snapshot of a device, whether a device has rows before an operation, the lowest DRAM address;
/// a question asked of the report's store.
pub struct Snapshots<'a> {
    pub(super) store: &'a Store,
    pub(super) cache: &'a SnapshotCache,
}

impl Snapshots<'_> {
    /// An operation's `buffers` rows as stored (NULL and negative values kept), at most
    /// [`SNAPSHOT_ROWS`]; with a note when there were more.
    pub(crate) fn rows(
        &self,
        operation_id: u64,
        rank: u32,
    ) -> rusqlite::Result<(Vec<SnapshotRow>, Option<MemoryNote>)> {
        let (rows, note) = self.rows_shared(operation_id, rank)?;
        Ok((Arc::unwrap_or_clone(rows), note))
    }

    /// [`Self::rows`], the rows shared with the recent snapshots kept instead of copied (a
    /// failure's own snapshot can hold 300 000 rows).
    pub(crate) fn rows_shared(
        &self,
        operation_id: u64,
        rank: u32,
    ) -> rusqlite::Result<(Arc<Vec<SnapshotRow>>, Option<MemoryNote>)> {
        let key = (operation_id, rank);
        if let Some((_, kept)) = self.cache.recent.borrow().iter().find(|(k, _)| *k == key) {
            return Ok(kept.clone());
        }
        let (rows, note) = self.read_rows(operation_id, rank)?;
        let kept = (Arc::new(rows), note);
        let mut recent = self.cache.recent.borrow_mut();
        if recent.len() == KEPT_SNAPSHOTS {
            recent.pop_front();
        }
        recent.push_back((key, kept.clone()));
        Ok(kept)
    }

    /// [`Self::rows`], read.
    fn read_rows(&self, operation_id: u64, rank: u32) -> rusqlite::Result<(Vec<SnapshotRow>, Option<MemoryNote>)> {
        let mut rows = self.buffer_rows(operation_id, rank, Some(SNAPSHOT_ROWS + 1), |r| {
            Ok(SnapshotRow {
                device_id: uint(r.get_ref(0)?),
                address: signed(r.get_ref(1)?),
                size_per_bank: signed(r.get_ref(2)?),
                buffer_type: buffer_type(r.get_ref(3)?).ok(),
                layout: signed(r.get_ref(4)?),
            })
        })?;
        let cut = rows.len() > SNAPSHOT_ROWS;
        rows.truncate(SNAPSHOT_ROWS);
        // Kept among the recent snapshots: without the spare capacity of its growth.
        rows.shrink_to_fit();
        Ok((rows, cut.then_some(MemoryNote::SnapshotCut { operation_id, kept: SNAPSHOT_ROWS })))
    }

    /// The greatest operation id below `n` with a `buffers` row for `device` (rank `rank`).
    pub(crate) fn earlier(&self, n: u64, device: u64, rank: u32) -> rusqlite::Result<Earlier> {
        if !self.store.schema.has_table("buffers") || n == 0 {
            return Ok(Earlier::None);
        }
        let has_rank = self.store.schema.has_column("buffers", "rank");
        let ranked = if has_rank { "rank = ?2" } else { "(1 OR ?2)" };
        if self.store.is_indexed("buffers") {
            let sql = format!(
                "SELECT operation_id, device_id FROM buffers WHERE operation_id < ?1 AND {ranked} ORDER BY operation_id DESC"
            );
            return self.walk_back(&sql, params![n, rank], device);
        }
        if self.store.rows_in_operation_order && !self.store.ranked("buffers") {
            match operation_row_span(&self.store.conn, "buffers", 0..=n - 1)? {
                RowSpan::Empty => return Ok(Earlier::None),
                RowSpan::Rowids(_, end) => {
                    let sql = "SELECT operation_id, device_id FROM buffers WHERE rowid < ?1 AND (1 OR ?2) ORDER BY rowid DESC";
                    return self.walk_back(sql, params![end, rank], device);
                }
                RowSpan::Unknown => {}
            }
        }
        // Rows out of operation order, without an index: one scan, as for any lookup then.
        let sql =
            format!("SELECT max(operation_id) FROM buffers WHERE operation_id < ?1 AND device_id = ?3 AND {ranked}");
        let found: Option<i64> = self.store.conn.query_row(&sql, params![n, rank, device], |r| r.get(0))?;
        Ok(found.map_or(Earlier::None, |id| Earlier::Found(u64::try_from(id).unwrap_or(0))))
    }

    /// The lowest DRAM address of `device` in a valid row of an operation up to `n` (rank
    /// `rank`) among the first [`DRAM_BASE_ROWS`] rows of `buffers` (docs/rules/memory.md §2: the DRAM
    /// allocator's first buffer sits at its base, and the run's first rows record it); a bounded
    /// read, however large the table, made once for the report's rank ([`DramBaseCache`]).
    pub(crate) fn lowest_dram_address(&self, n: u64, device: u64, rank: u32) -> rusqlite::Result<Option<u64>> {
        let base = match rank == self.store.rank {
            true => {
                let mut kept = self.cache.dram_base.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
                match &*kept {
                    Some(base) => base.clone(),
                    None => kept.insert(Arc::new(self.dram_base_rows(rank)?)).clone(),
                }
            }
            false => Arc::new(self.dram_base_rows(rank)?),
        };
        let Some(lowest) = base.get(&device) else { return Ok(None) };
        let upto = lowest.partition_point(|&(operation_id, _)| operation_id <= n);
        Ok(upto.checked_sub(1).map(|i| lowest[i].1))
    }

    /// The valid DRAM rows among the first [`DRAM_BASE_ROWS`] rows of `buffers`, by device: each
    /// operation id with rows and the lowest address up to it, ascending.
    fn dram_base_rows(&self, rank: u32) -> rusqlite::Result<DramBase> {
        let has = |c: &str| self.store.schema.has_column("buffers", c);
        let mut out: IntMap<u64, Vec<(u64, u64)>> = IntMap::default();
        if !self.store.schema.has_table("buffers")
            || !["operation_id", "device_id", "address", "max_size_per_bank", "buffer_type"].iter().all(|c| has(c))
        {
            return Ok(out);
        }
        let Some((first, _)) = rowid_range(&self.store.conn, "buffers")? else { return Ok(out) };
        let filter = self.store.schema.rank_filter("buffers");
        let sql = format!(
            "SELECT operation_id, device_id, address, max_size_per_bank FROM buffers WHERE rowid >= ?2 \
             AND rowid < ?3 AND (buffer_type = 0 OR buffer_type = 'DRAM') AND {filter}"
        );
        let mut stmt = self.store.conn.prepare_cached(&sql)?;
        let mut rows = stmt.query(params![rank, first, first.saturating_add(DRAM_BASE_ROWS)])?;
        while let Some(r) = rows.next()? {
            if let Some((address, _)) = valid_buffer(signed(r.get_ref(2)?), signed(r.get_ref(3)?)) {
                out.entry(uint(r.get_ref(1)?)).or_default().push((uint(r.get_ref(0)?), address));
            }
        }
        for lowest in out.values_mut() {
            // Rows in operation order (every report written by one loop) need no sort: the
            // running minimum at an operation's last row is the same whatever its rows' order.
            if !lowest.is_sorted_by_key(|e| e.0) {
                lowest.sort_unstable();
            }
            // One entry per operation: its last, the lowest up to and with it.
            let mut so_far = u64::MAX;
            let mut kept = 0;
            for i in 0..lowest.len() {
                let (operation_id, address) = lowest[i];
                so_far = so_far.min(address);
                if kept > 0 && lowest[kept - 1].0 == operation_id {
                    kept -= 1;
                }
                lowest[kept] = (operation_id, so_far);
                kept += 1;
            }
            lowest.truncate(kept);
        }
        Ok(out)
    }

    /// Whether `device` has any `buffers` row of an operation before `n` (rank `rank`): one
    /// query that may scan the table, asked only when the bounded search stopped.
    pub(crate) fn has_rows(&self, n: u64, device: u64, rank: u32) -> rusqlite::Result<bool> {
        let filter = self.store.schema.rank_filter("buffers");
        let sql =
            format!("SELECT EXISTS(SELECT 1 FROM buffers WHERE device_id = ?2 AND operation_id < ?3 AND {filter})");
        self.store.conn.query_row(&sql, params![rank, device, n], |r| r.get(0))
    }

    /// Walks rows `(operation_id, device_id)` newest first until one is of `device`.
    fn walk_back(&self, sql: &str, params: impl rusqlite::Params, device: u64) -> rusqlite::Result<Earlier> {
        let mut stmt = self.store.conn.prepare_cached(sql)?;
        let mut rows = stmt.query(params)?;
        let mut seen = 0;
        while let Some(r) = rows.next()? {
            if uint(r.get_ref(1)?) == device {
                return Ok(Earlier::Found(uint(r.get_ref(0)?)));
            }
            seen += 1;
            if seen >= EARLIER_SEARCH_ROWS {
                return Ok(Earlier::Stopped(seen));
            }
        }
        Ok(Earlier::None)
    }

    /// The `buffers` rows of an operation, in table order; read only when asked for.
    pub fn buffers(&self, op: &Operation) -> Result<Vec<BufferRecord>, ReportError> {
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
    fn buffer_rows<T>(
        &self,
        operation_id: u64,
        rank: u32,
        limit: Option<usize>,
        mut row: impl FnMut(&rusqlite::Row<'_>) -> rusqlite::Result<T>,
    ) -> rusqlite::Result<Vec<T>> {
        if !self.store.schema.has_table("buffers") {
            return Ok(Vec::new());
        }
        let columns = self.store.schema.select_list(
            "buffers",
            &[
                ("device_id", "0"),
                ("address", "0"),
                ("max_size_per_bank", "0"),
                ("buffer_type", "NULL"),
                ("buffer_layout", "NULL"),
            ],
        );
        let filter = self.store.schema.rank_filter("buffers");
        let rows = self.store.rows_condition("buffers", operation_id)?;
        let limit = limit.map_or_else(String::new, |n| format!(" LIMIT {n}"));
        let sql = format!("SELECT {columns} FROM buffers WHERE ({rows}) AND {filter} ORDER BY rowid{limit}");
        let mut stmt = self.store.conn.prepare(&sql)?;
        let mapped = stmt.query_map(params![rank], |r| row(r))?;
        mapped.collect()
    }
}
