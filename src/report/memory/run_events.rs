//! The run's allocation events, read once (docs/true-peak.md): every operation's graph and
//! `buffers` snapshot side by side, in operation order, into the pure rule's `RunEvents`, with
//! each device's layout, each tensor's last use, and where the run itself failed. The true peak
//! and the headroom search both work from this, in memory.

use super::questions::Passes;
use crate::analysis::memory::DeviceFacts;
use crate::analysis::memory::peak::{DeviceLayout, FirstFailure, Records, RunEvents};
use crate::analysis::memory::usage::MemoryUsage;
use crate::analysis::memory::whatif::default_dram_base;
use crate::analysis::memory::whatif::{OperationRecord, Place};
use crate::analysis::memory::{chip_alias, region};
use crate::analysis::messages::failure::BufferType;
use crate::analysis::messages::reason::explain;
use crate::report::database::uint;
use crate::report::error::ReportError;
use std::collections::HashMap;
use std::sync::atomic::AtomicBool;

/// What the true peak and the headroom are computed from.
#[derive(Debug, Clone, Default)]
pub struct RunFacts {
    /// The events.
    pub events: RunEvents,
    /// Each device's allocators and grid.
    pub layouts: Vec<DeviceLayout>,
    /// Each tensor's last operation id as an input (`ttnn.deallocate` left out).
    pub last_use: HashMap<u64, u64>,
    /// The L1 allocator's step per bank: 32 B on Wormhole, 64 B on Blackhole (measured with the
    /// rig, fixtures/headroom/).
    pub l1_alignment: u64,
    /// The DRAM allocator's step per bank (tt-metal's DRAM alignment: 32 B on Wormhole, 64 B on
    /// Blackhole; not measured).
    pub dram_alignment: u64,
    /// Where the run failed, per place: the first failure of each.
    pub failures: Vec<(Place, FirstFailure)>,
}

/// The usage pass's sums and the run's events, as `--peak` reads them.
#[derive(Debug, Clone)]
pub struct WholeRun {
    /// The sums of every `buffers` row, as `Usage::read` gives them.
    pub usage: MemoryUsage,
    /// The run's events.
    pub facts: RunFacts,
    /// Both came from one read of `buffers`.
    pub one_read: bool,
}

impl<'r> Passes<'r> {
    /// Reads every graph and snapshot once into the run's events.
    pub fn run_facts(&self) -> Result<RunFacts, ReportError> {
        Ok(self.run_facts_and_usage(false, &mut None)?.0)
    }

    /// The run's events and the usage pass's sums (`Usage::read` from a fresh
    /// [`MemoryUsage`]), from one read of `buffers` when the tables allow it (`whole_run.rs`),
    /// else from two: what `--peak` asks.
    pub fn usage_and_run_facts(&self) -> Result<WholeRun, ReportError> {
        self.usage_and_run_facts_beside(&mut || {})
    }

    /// [`Self::usage_and_run_facts`], with `beside` run on this thread while the read runs on
    /// another, when it is on the worker pool (else `beside` is not run).
    pub fn usage_and_run_facts_beside(&self, beside: &mut dyn FnMut()) -> Result<WholeRun, ReportError> {
        let (facts, usage) = self.run_facts_and_usage(true, &mut Some(beside))?;
        let one_read = usage.is_some();
        let usage = match usage {
            Some(usage) => usage,
            None => {
                let mut usage = MemoryUsage::default();
                self.report.usage().read(&mut usage, &AtomicBool::new(false), &mut |_| {})?;
                usage
            }
        };
        Ok(WholeRun { usage, facts, one_read })
    }

    /// The run's facts, and with `with_usage` the usage when it came from the same read.
    fn run_facts_and_usage(
        &self,
        with_usage: bool,
        beside: &mut Option<&mut dyn FnMut()>,
    ) -> Result<(RunFacts, Option<MemoryUsage>), ReportError> {
        let read = ReportError::read("the run's records");
        let snapshots = self.report.replays().records_snapshots().map_err(&read)?;
        let facts: Vec<DeviceFacts> = self.report.devices.iter().map(|d| d.facts()).collect();
        let banks = facts.iter().map(|f| f.l1_num_banks).max().unwrap_or(64);
        // One chip named by two ids (docs/rules/memory.md §2, `chip_alias`): 0 and 1 are one
        // device unless a snapshot holds both.
        let single = chip_alias(&facts, self.report.devices.first().map_or(0, |d| d.device_id), &[]).is_some();
        let mut usage = (with_usage && snapshots).then(MemoryUsage::default);
        // Each tensor's last use is read beside the pass too, when something is.
        let mut last_use = None;
        let mut work = beside.take().map(|work| {
            || {
                work();
                last_use = Some(self.last_uses());
            }
        });
        let mut beside_pass = work.as_mut().map(|w| w as &mut dyn FnMut());
        let (mut events, mut both) = self.read_events(single, banks, snapshots, &mut usage, &mut beside_pass)?;
        if single && both.0 {
            // Two ids hold buffers in one snapshot: two devices after all.
            (events, both) = self.read_events(false, banks, snapshots, &mut None, &mut None)?;
        }
        let device = both.1.or(self.report.devices.first().map(|d| d.device_id)).unwrap_or(0);
        if single && !both.0 {
            events.relabel(device);
        }
        let blackhole = self.report.devices.iter().any(|d| d.l1_num_banks > 64);
        let failures = self.failures(single.then_some(device));
        let layouts = self.layouts(&events, single.then_some(device));
        let last_use = match last_use {
            Some(read) => read,
            None => self.last_uses(),
        };
        let facts = RunFacts {
            last_use: last_use.map_err(&read)?,
            events,
            layouts,
            l1_alignment: if blackhole { 64 } else { 32 },
            dram_alignment: if blackhole { 64 } else { 32 },
            failures,
        };
        Ok((facts, usage))
    }

    /// One pass over the records; also says whether a snapshot held valid buffers of two device
    /// ids, and the first device id a snapshot row named. With `usage` (a fresh one), every
    /// `buffers` row is also added to it in the same read when the tables allow; else it is
    /// left none. `beside` is taken when the read runs on another thread (`visit_run_beside`).
    fn read_events(
        &self,
        single: bool,
        banks: u64,
        snapshots: bool,
        usage: &mut Option<MemoryUsage>,
        beside: &mut Option<&mut dyn FnMut()>,
    ) -> Result<(RunEvents, (bool, Option<u64>)), ReportError> {
        let mut events = RunEvents::new(single.then_some(0), banks);
        let (mut two, mut first) = (false, None);
        let mut visit = |record: &OperationRecord<'_>| {
            if let Some(rows) = record.snapshot {
                let mut ids = rows.iter().filter(|r| r.valid().is_some()).map(|r| r.device_id);
                if let Some(id) = ids.next() {
                    first = first.or(Some(id));
                    two |= ids.any(|other| other != id);
                }
            }
            events.operation(&Records {
                operation_id: record.operation_id,
                graph: record.graph,
                snapshot: record.snapshot,
            });
        };
        let fused = match usage.as_mut() {
            Some(usage) => self.visit_run_beside(usage, &mut visit, beside)?,
            None => false,
        };
        if !fused {
            *usage = None;
            self.visit_operations(0..self.report.operations.len(), snapshots, &mut visit)?;
        }
        Ok((events, (two, first)))
    }

    /// Each device's layout: L1 and L1_SMALL from its `devices` row, DRAM from a DRAM failure's
    /// bank size (from the lowest DRAM address recorded, else the release's base).
    fn layouts(&self, events: &RunEvents, single: Option<u64>) -> Vec<DeviceLayout> {
        let bank = self
            .report
            .errors
            .iter()
            .filter_map(|e| e.failure.as_ref())
            .filter(|f| f.figures.buffer_type == Some(BufferType::Dram))
            .filter_map(|f| f.figures.bank_size)
            .max();
        let rows: Vec<_> = match single {
            Some(_) => self.report.devices.iter().take(1).collect(),
            None => self.report.devices.iter().collect(),
        };
        rows.into_iter()
            .map(|d| {
                let id = single.unwrap_or(d.device_id);
                let dram_base = events
                    .buffers
                    .iter()
                    .filter(|x| x.place == (id, BufferType::Dram))
                    .map(|x| x.address)
                    .min()
                    .unwrap_or_else(|| default_dram_base(self.report.schema_version.as_deref()));
                // The one region formula (docs/rules/memory.md §2); an empty region is none here.
                let facts = d.facts();
                let span = |t| region(t, Some(&facts), bank, Some(dram_base)).bounds().filter(|(s, e)| e > s);
                let (gx, gy) = d.compute_grid;
                DeviceLayout {
                    device_id: id,
                    l1: span(BufferType::L1),
                    l1_small: span(BufferType::L1Small),
                    dram: span(BufferType::Dram),
                    grid: (gx > 0 && gy > 0).then_some((gx as u32, gy as u32)),
                }
            })
            .collect()
    }

    /// The run's own allocation failures, the first per place.
    fn failures(&self, single: Option<u64>) -> Vec<(Place, FirstFailure)> {
        let marks = self.report.usage().failure_marks();
        let mut out: Vec<(Place, FirstFailure)> = Vec::new();
        for mark in marks {
            let Some(i) = self.report.operation_index(mark.operation_id) else { continue };
            let Some(failure) = self.report.operations[i].error.and_then(|e| self.report.errors[e].failure.as_ref())
            else {
                continue;
            };
            let Some(t) = mark.buffer_type else { continue };
            let place = (single.or(mark.device_id).unwrap_or(0), t);
            if out.iter().all(|(p, _)| *p != place) {
                let reason = explain(failure, false).map(|e| e.reason);
                out.push((place, FirstFailure { operation_id: mark.operation_id, kind: failure.kind, reason }));
            }
        }
        out
    }

    /// Each tensor's last operation id as an input, `ttnn.deallocate` left out.
    fn last_uses(&self) -> rusqlite::Result<HashMap<u64, u64>> {
        let mut out = HashMap::new();
        if !self.report.store.schema.has_table("input_tensors") {
            return Ok(out);
        }
        let columns =
            self.report.store.schema.select_list("input_tensors", &[("tensor_id", "0"), ("operation_id", "0")]);
        let mut stmt = self.report.store.conn.prepare(&format!("SELECT {columns} FROM input_tensors"))?;
        let mut rows = stmt.query([])?;
        while let Some(r) = rows.next()? {
            let (tensor, op) = (uint(r.get_ref(0)?), uint(r.get_ref(1)?));
            let deallocate = self.report.operation_index(op).is_some_and(|i| {
                matches!(self.report.operations[i].name.as_ref(), "ttnn.deallocate" | "ttnn::deallocate")
            });
            if !deallocate {
                let last = out.entry(tensor).or_insert(op);
                *last = (*last).max(op);
            }
        }
        Ok(out)
    }
}
