//! Memory over the run: the one feature that reads all of `buffers`, in one streaming pass in
//! rowid order, with progress and cancellation, meant for a worker thread ([`UsageWorker`]).

use super::ReportError;
use super::database::{int, rowid_range, uint};
use super::details::buffer_type;
use super::memory::MemoryReport;
use crate::analysis::failure::{BufferType, FailureKind};
use crate::analysis::graph::NodeType;
use crate::analysis::usage::MemoryUsage;
use crate::analysis::usage_series::{FailureMark, L1Layout, UsageSeries, region_ceiling};
use rusqlite::params;
use rusqlite::types::ValueRef;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::thread::JoinHandle;

/// Rowids read per statement. Between statements no lock is held, so a writer using a rollback
/// journal is never kept waiting long.
const CHUNK: i64 = 1 << 16;
/// Rows between two looks at the cancel flag (well under a millisecond of reading).
const CANCEL_EVERY: u32 = 1 << 12;

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

impl MemoryReport {
    /// Adds the `buffers` rows stored after `usage.next_rowid` to `usage`: one pass in rowid
    /// order, reporting progress after each chunk of rowids and stopping within a few thousand
    /// rows once `cancel` is set (`Err(ReportError::Cancelled)`; `usage` then holds what was
    /// read, and a later call goes on from there). Rows of other ranks are skipped.
    pub fn read_usage(
        &self,
        usage: &mut MemoryUsage,
        cancel: &AtomicBool,
        progress: &mut dyn FnMut(UsageProgress),
    ) -> Result<(), ReportError> {
        let read = ReportError::read("buffers");
        let range = match self.schema.has_table("buffers") {
            true => rowid_range(&self.conn, "buffers").map_err(&read)?,
            false => None,
        };
        let Some((first, last)) = range.map(|(first, last)| (first.max(usage.next_rowid), last)) else {
            progress(UsageProgress::default());
            return Ok(());
        };
        let total = u64::try_from(last - first + 1).unwrap_or(0);
        let columns = self.schema.select_list(
            "buffers",
            &[("operation_id", "0"), ("device_id", "0"), ("buffer_type", "NULL"), ("max_size_per_bank", "0")],
        );
        let filter = self.schema.rank_filter("buffers");
        let sql = format!("SELECT rowid, {columns} FROM buffers WHERE rowid >= ?2 AND rowid < ?3 AND {filter}");
        let mut stmt = self.conn.prepare(&sql).map_err(&read)?;
        let mut start = first;
        progress(UsageProgress { done: 0, total });
        while start <= last {
            let end = start.saturating_add(CHUNK).min(last.saturating_add(1));
            let mut rows = stmt.query(params![self.rank, start, end]).map_err(&read)?;
            let mut since_check = 0;
            while let Some(r) = rows.next().map_err(&read)? {
                since_check += 1;
                if since_check == CANCEL_EVERY {
                    since_check = 0;
                    if cancel.load(Ordering::Relaxed) {
                        usage.flush();
                        return Err(ReportError::Cancelled);
                    }
                }
                let ty = match r.get_ref(3).map_err(&read)? {
                    ValueRef::Integer(code) => BufferType::from_code(code),
                    other => buffer_type(other).ok(),
                };
                let value = |i| r.get_ref(i).map(uint).map_err(&read);
                usage.add(value(1)?, value(2)?, ty, value(4)?);
                usage.next_rowid = int(r.get_ref(0).map_err(&read)?) + 1;
            }
            usage.next_rowid = end;
            start = end;
            usage.flush();
            progress(UsageProgress { done: u64::try_from(end - first).unwrap_or(0), total });
            if cancel.load(Ordering::Relaxed) && start <= last {
                return Err(ReportError::Cancelled);
            }
        }
        Ok(())
    }

    /// Every operation with an attached error, with the device and buffer type it failed on:
    /// the type from an allocation failure's message (L1 for circular buffers), the device
    /// from the last allocation node of its graph, else the only device; unknown ones stay none.
    pub fn failure_marks(&self) -> Vec<FailureMark> {
        let only_device = (self.devices.len() == 1).then(|| self.devices[0].device_id);
        (0..self.operations.len())
            .filter_map(|i| {
                let error = self.error_of(i)?;
                let buffer_type = error.failure.as_ref().and_then(|f| match f.kind {
                    FailureKind::CircularBuffersBeyondL1 | FailureKind::CircularBuffersClash => Some(BufferType::L1),
                    _ => f.figures.buffer_type,
                });
                let graph_device = self.error_graphs.get(&i).and_then(|g| g.as_ref().ok()).and_then(|nodes| {
                    let allocations = [NodeType::BufferAllocate, NodeType::CircularBufferAllocate];
                    nodes.iter().rev().filter(|n| allocations.iter().any(|t| n.is(*t))).find_map(|n| n.device_id)
                });
                let device_id = graph_device.or(only_device);
                Some(FailureMark { operation_id: self.operations[i].id, device_id, buffer_type })
            })
            .collect()
    }

    /// The chart line of one device and buffer type from `usage`, one point per operation of
    /// the report (in `operations` order), with its failures and its region size when known
    /// (L1, L1_SMALL: the device's row; DRAM: the bank size of a DRAM failure's message).
    pub fn usage_series(&self, usage: &MemoryUsage, device_id: u64, buffer_type: BufferType) -> UsageSeries {
        let l1 = self.devices.iter().find(|d| d.device_id == device_id).map(|d| L1Layout {
            first_cb_address: d.address_at_first_l1_cb_buffer,
            bank_size: d.l1_bank_size,
            worker_l1_size: d.worker_l1_size,
        });
        let dram_bank_size = self
            .errors
            .iter()
            .filter_map(|e| e.failure.as_ref())
            .find(|f| f.figures.buffer_type == Some(BufferType::Dram) && f.figures.bank_size.is_some())
            .and_then(|f| f.figures.bank_size);
        let ids: Vec<u64> = self.operations.iter().map(|o| o.id).collect();
        let ceiling = region_ceiling(buffer_type, l1, dram_bank_size);
        UsageSeries::from_snapshots(usage, (device_id, buffer_type), &ids, &self.failure_marks(), ceiling)
    }
}

/// A usage pass on its own thread, over a second connection to the report; dropping it cancels
/// the pass and waits for the thread (well under 100 ms).
pub struct UsageWorker {
    cancel: Arc<AtomicBool>,
    done: Arc<AtomicI64>,
    total: Arc<AtomicI64>,
    thread: Option<JoinHandle<(MemoryUsage, Result<(), ReportError>)>>,
}

impl UsageWorker {
    /// Starts a pass that continues `usage` (`MemoryUsage::default()` for a whole pass) on a
    /// report opened again like `report` ([`MemoryReport::reopen`]).
    pub fn start(report: &MemoryReport, usage: MemoryUsage) -> Self {
        let cancel = Arc::new(AtomicBool::new(false));
        let (done, total) = (Arc::new(AtomicI64::new(0)), Arc::new(AtomicI64::new(0)));
        let (source, rank, watched) = (report.source.clone(), report.rank, report.is_watched());
        let (flag, done_out, total_out) = (cancel.clone(), done.clone(), total.clone());
        let thread = std::thread::spawn(move || {
            let mut usage = usage;
            let opened =
                if watched { MemoryReport::open_watched(&source, rank) } else { MemoryReport::open(&source, rank) };
            let result = opened.and_then(|report| {
                report.read_usage(&mut usage, &flag, &mut |p| {
                    total_out.store(p.total as i64, Ordering::Relaxed);
                    done_out.store(p.done as i64, Ordering::Relaxed);
                })
            });
            (usage, result)
        });
        Self { cancel, done, total, thread: Some(thread) }
    }

    /// How far the pass is.
    pub fn progress(&self) -> UsageProgress {
        let read = |a: &AtomicI64| u64::try_from(a.load(Ordering::Relaxed)).unwrap_or(0);
        UsageProgress { done: read(&self.done), total: read(&self.total) }
    }

    /// Asks the pass to stop; [`UsageWorker::poll`] then soon gives `Err(ReportError::Cancelled)`
    /// with what was read.
    pub fn cancel(&self) {
        self.cancel.store(true, Ordering::Relaxed);
    }

    /// Once the thread has ended: the sums read (all, or as far as it got) and how it ended;
    /// `None` while it runs, and after the result was taken.
    pub fn poll(&mut self) -> Option<(MemoryUsage, Result<(), ReportError>)> {
        if !self.thread.as_ref()?.is_finished() {
            return None;
        }
        let stopped = || {
            let message = "the pass stopped unexpectedly".to_string();
            (MemoryUsage::default(), Err(ReportError::Read { what: "buffers", message }))
        };
        Some(self.thread.take()?.join().unwrap_or_else(|_| stopped()))
    }
}

impl Drop for UsageWorker {
    fn drop(&mut self) {
        self.cancel();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}
