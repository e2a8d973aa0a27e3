//! Memory over the run: the one feature that reads all of `buffers`, in one streaming pass in
//! rowid order, with progress and cancellation, meant for a worker thread (`tui::worker`).

use super::devices::Device;
use super::graph_only::GraphOnlyPass;
use crate::analysis::memory::usage::{MemoryUsage, UsageKey, UsagePart};
use crate::analysis::memory::usage_series::{Ceiling, FailureMark, Peak, UsageSeries, peaks, region_ceiling};
use crate::analysis::messages::failure::BufferType;
use crate::analysis::model::Operation;
use crate::report::database::{buffer_type, rowid_range, signed, uint};
use crate::report::error::ReportError;
use crate::report::rowid_ranges::RowidPass;
use crate::report::store::Store;
use rusqlite::types::ValueRef;
use std::cell::OnceCell;
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicBool, Ordering};

/// One `buffers` row as the pass adds it: operation, device, buffer type (none: none of the
/// five), and address and bytes per bank as stored.
type BufferRow = (u64, u64, Option<BufferType>, (Option<i64>, Option<i64>));

/// Decodes a row of the pass's statement.
fn buffer_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<BufferRow> {
    let ty = match r.get_ref(2)? {
        ValueRef::Integer(code) => BufferType::from_code(code),
        other => buffer_type(other).ok(),
    };
    let value = |i| r.get_ref(i).map(uint);
    let raw = |i| r.get_ref(i).map(signed);
    Ok((value(0)?, value(1)?, ty, (raw(4)?, raw(3)?)))
}

/// Decodes every row of a chunk of the pass's statement.
fn decoded_rows(rows: &mut rusqlite::Rows<'_>) -> rusqlite::Result<Vec<BufferRow>> {
    let mut out = Vec::new();
    while let Some(r) = rows.next()? {
        out.push(buffer_row(r)?);
    }
    Ok(out)
}

/// Sums every row of a chunk of the pass's statement on its own.
fn usage_part(rows: &mut rusqlite::Rows<'_>) -> rusqlite::Result<UsagePart> {
    let mut part = UsagePart::default();
    while let Some(r) = rows.next()? {
        let (operation_id, device_id, ty, place) = buffer_row(r)?;
        part.add(operation_id, device_id, ty, place);
    }
    Ok(part)
}

/// How far a pass is: rowids passed out of the table's rowid range when the pass started.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct UsageProgress {
    /// Rowids passed.
    pub done: u64,
    /// The size of the rowid range (0: nothing to read).
    pub total: u64,
}

impl UsageProgress {
    /// The fraction done, 0.0 to 1.0 (1.0 when there is nothing to read).
    pub fn fraction(self) -> f64 {
        if self.total == 0 { 1.0 } else { (self.done as f64 / self.total as f64).min(1.0) }
    }
}

/// Where each error is marked on the memory over the run, each with its message's bank size:
/// found once (by the report, from every failure's place) and kept.
pub(crate) type MarkCache = OnceCell<Vec<MarkedFailure>>;

/// An error's mark on the memory over the run, with its allocation failure's bank size.
pub(crate) type MarkedFailure = (FailureMark, Option<u64>);

/// Finds the marks of every error when first asked (the report's `marked_failures`).
pub(crate) type FindMarks<'a> = Box<dyn Fn() -> &'a [MarkedFailure] + 'a>;

/// The memory over the run: the one pass over `buffers`, the chart lines (from its sums or from a
/// graph replay), peaks and region ceilings. A question asked of the report's store for its
/// operations and devices; where the errors are marked is found by the report when first needed.
pub struct Usage<'a> {
    pub(super) store: &'a Store,
    pub(super) operations: &'a [Operation],
    pub(super) devices: &'a [Device],
    /// The marks of every error with their bank sizes (see [`MarkCache`]).
    pub(super) marks: FindMarks<'a>,
}

impl Usage<'_> {
    /// Adds the `buffers` rows stored after `usage.next_rowid` to `usage`: one pass in rowid
    /// order, reporting progress after each chunk of rowids and stopping at the end of the
    /// chunk once `cancel` is set (`Err(ReportError::Cancelled)`; `usage` then holds what was
    /// read, and a later call goes on from there). Rows of other ranks are skipped. After any
    /// other error `usage` may hold part of a chunk: start again from `MemoryUsage::default()`.
    pub fn read(
        &self,
        usage: &mut MemoryUsage,
        cancel: &AtomicBool,
        progress: &mut dyn FnMut(UsageProgress),
    ) -> Result<(), ReportError> {
        let read = ReportError::read("buffers");
        let range = match self.store.schema.has_table("buffers") {
            true => rowid_range(&self.store.conn, "buffers").map_err(&read)?,
            false => None,
        };
        let Some((first, last)) = range.map(|(first, last)| (first.max(usage.next_rowid), last)) else {
            progress(UsageProgress::default());
            return Ok(());
        };
        let total = u64::try_from(last - first + 1).unwrap_or(0);
        let columns = self.store.schema.select_list(
            "buffers",
            &[
                ("operation_id", "0"),
                ("device_id", "0"),
                ("buffer_type", "NULL"),
                ("max_size_per_bank", "NULL"),
                ("address", "NULL"),
            ],
        );
        let filter = self.store.schema.rank_filter("buffers");
        let sql = format!("SELECT {columns} FROM buffers WHERE rowid >= ?2 AND rowid < ?3 AND {filter}");
        let pass = RowidPass {
            sql: &sql,
            binds: &[i64::from(self.store.rank)],
            range: (first, last),
            chunk: self.store.chunk,
        };
        progress(UsageProgress { done: 0, total });
        if cancel.load(Ordering::Relaxed) {
            usage.flush();
            return Err(ReportError::Cancelled);
        }
        let mut took = |end: i64, usage: &mut MemoryUsage| {
            usage.next_rowid = end;
            progress(UsageProgress { done: u64::try_from(end - first).unwrap_or(0), total });
            match cancel.load(Ordering::Relaxed) {
                true => ControlFlow::Break(()),
                false => ControlFlow::Continue(()),
            }
        };
        let whole = match usage.runs.is_some() {
            // Each buffer's run follows the rows one by one, in order: decoded on the workers,
            // added here.
            true => {
                self.store.fold_in_rowid_order(&pass, &|rows| decoded_rows(rows), &mut |end, rows: Vec<BufferRow>| {
                    for (operation_id, device_id, ty, place) in rows {
                        usage.add(operation_id, device_id, ty, place);
                    }
                    took(end, usage)
                })
            }
            // The sums alone: each chunk summed on its worker, the parts added here in order.
            false => self.store.fold_in_rowid_order(&pass, &usage_part, &mut |end, part| {
                usage.add_part(part);
                took(end, usage)
            }),
        }
        .map_err(&read)?;
        usage.flush();
        if !whole && usage.next_rowid <= last {
            return Err(ReportError::Cancelled);
        }
        Ok(())
    }

    /// Every operation with an attached error, with the device and buffer type it failed on:
    /// the failure's place of docs/rules/memory.md §2 (mesh ids included), as the memory at the failure
    /// names it (`analysis::memory::failure_mark_place`). Read once and kept; when the reads
    /// fail, every error is marked on every line.
    pub(crate) fn failure_marks(&self) -> Vec<FailureMark> {
        self.marked_failures().iter().map(|(mark, _)| *mark).collect()
    }

    /// The places of `failure_marks`, each with its message's bank size.
    fn marked_failures(&self) -> &[MarkedFailure] {
        (self.marks)()
    }

    /// The chart line of one device and buffer type from `usage`, one point per operation of
    /// the report (in `operations` order), with its failures and its region size.
    pub fn series(&self, usage: &MemoryUsage, device_id: u64, buffer_type: BufferType) -> UsageSeries {
        let ids: Vec<u64> = self.operations.iter().map(|o| o.id).collect();
        let ceiling = self.region_ceiling(device_id, buffer_type);
        UsageSeries::from_snapshots(usage, (device_id, buffer_type), &ids, &self.failure_marks(), ceiling)
    }

    /// The chart lines of every device and buffer type the replayed graphs held (a report
    /// without `buffers` rows), one point per operation, with their failures and region sizes.
    pub fn replay_series(&self, replay: &GraphOnlyPass) -> Vec<UsageSeries> {
        let after: Vec<(u64, UsageKey, u64)> =
            replay.usage.iter().map(|u| (u.operation_id, (u.device_id, u.buffer_type), u.used_per_bank)).collect();
        let mut keys: Vec<UsageKey> = after.iter().map(|a| a.1).collect();
        keys.sort_unstable();
        keys.dedup();
        let ids: Vec<u64> = self.operations.iter().map(|o| o.id).collect();
        let marks = self.failure_marks();
        keys.into_iter()
            .map(|key| UsageSeries::from_replay(&after, key, &ids, &marks, self.region_ceiling(key.0, key.1)))
            .collect()
    }

    /// The peak of every device and buffer type in `usage`, over the report's operations.
    pub fn peaks(&self, usage: &MemoryUsage) -> Vec<Peak> {
        let ids: Vec<u64> = self.operations.iter().map(|o| o.id).collect();
        peaks(usage, &ids)
    }

    /// The region size of a device's buffer type, when known (docs/rules/memory.md §2): L1 and L1_SMALL
    /// from the device's row; DRAM from the bank size the DRAM failures on the device give, when
    /// they agree.
    pub fn region_ceiling(&self, device_id: u64, buffer_type: BufferType) -> Option<Ceiling> {
        let row = self.devices.iter().find(|d| d.device_id == device_id).map(|d| d.facts());
        let mut bank_sizes = self
            .marked_failures()
            .iter()
            .filter(|(m, _)| m.buffer_type == Some(BufferType::Dram) && m.device_id.is_none_or(|d| d == device_id))
            .filter_map(|(_, bank_size)| *bank_size);
        let dram_bank_size = bank_sizes.next().filter(|first| bank_sizes.all(|s| s == *first));
        region_ceiling(buffer_type, row.as_ref(), dram_bank_size)
    }
}
