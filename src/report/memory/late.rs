//! Where to free memory (issue 16): the report's side of `analysis::late` — the one pass over
//! `buffers` with each buffer's run, the tensors at the runs' addresses, and the shapes and
//! source lines of what was found.

use super::graph_only::GraphOnlyPass;
use super::pictures::FailureMemory;
use super::questions::Late;
use super::usage::UsageProgress;
use super::whatif::WhatIfOptions;
use crate::analysis::memory::late::{
    BufferRun, BufferRuns, LateAtFailure, LateFindings, TensorLifetime, find_late, late_at_failure,
};
use crate::analysis::memory::usage::MemoryUsage;
use crate::analysis::memory::whatif::{DeviceView, Fix, OperationRecord, RecordedRun};
use crate::analysis::memory::{DeviceFacts, MemoryAtFailure, chip_alias, chip_row, other_ids, tensors_on_the_chip};
use crate::analysis::messages::failure::BufferType;
use crate::analysis::sanitize::sanitize_line;
use crate::report::database::{opt_uint, text, uint};
use crate::report::error::ReportError;
use crate::report::id_lists::{IN_LIST_CHUNK, id_list};
use std::collections::BTreeSet;
use std::sync::atomic::AtomicBool;

impl<'r> Late<'r> {
    /// Reads every `buffers` row once (the usage pass, following each buffer's run) and finds
    /// the tensors held past their last use; also returns the usage, for the chart or the peaks.
    pub fn read(
        &self,
        cancel: &AtomicBool,
        progress: &mut dyn FnMut(UsageProgress),
    ) -> Result<(MemoryUsage, LateFindings), ReportError> {
        let mut usage = MemoryUsage::with_runs();
        self.report.usage().read(&mut usage, cancel, progress)?;
        let findings = self.findings(&usage)?;
        Ok((usage, findings))
    }

    /// The late list (`explain --late`): the tensors held past their last use and, at each
    /// failure, what freeing them would have done — from the `buffers` rows (one pass), else, on
    /// a report without them, from its graphs walked alone (as tab 5 charts it), with that pass.
    pub fn list(&self) -> Result<(LateFindings, Option<GraphOnlyPass>), ReportError> {
        self.list_beside(&mut || {})
    }

    /// [`Self::list`], with `beside` run on this thread while the run is read on the worker pool
    /// (else `beside` is not run).
    pub fn list_beside(&self, beside: &mut dyn FnMut()) -> Result<(LateFindings, Option<GraphOnlyPass>), ReportError> {
        let cancel = AtomicBool::new(false);
        let (usage, recorded) = self.read_recording(&mut Some(beside))?;
        let mut findings = self.tensors(&usage)?;
        findings.failures = self.at_failures_with(&findings, None, &recorded)?;
        drop(recorded);
        if usage.rows > 0 {
            return Ok((findings, None));
        }
        match self.report.graphs().graph_only_pass(&mut |_, _| {}, &cancel)? {
            Some(graph_pass) => Ok((self.from_graphs(&graph_pass)?, Some(graph_pass))),
            None => Ok((findings, None)),
        }
    }

    /// The usage pass following each buffer's run and, for the `free-late` replays, the run
    /// recorded as each failing device sees it: one read of both tables (`visit_run_beside`,
    /// `beside` taken when the read is on the worker pool). Read apart (`Usage::read`, nothing
    /// recorded) when the tables do not allow it or no failure names a device.
    fn read_recording(
        &self,
        beside: &mut Option<&mut dyn FnMut()>,
    ) -> Result<(MemoryUsage, Vec<RecordedRun>), ReportError> {
        let mut usage = MemoryUsage::with_runs();
        let operations = self.report.operations.len();
        // A few entries per operation; a run whose snapshots change more is read again instead.
        let limit = operations.saturating_mul(16).saturating_add(1 << 22);
        let mut recorded: Vec<RecordedRun> =
            self.views_to_record().into_iter().map(|view| RecordedRun::new(view, limit)).collect();
        let wanted = !recorded.is_empty();
        let mut record = |op: &OperationRecord<'_>| recorded.iter_mut().for_each(|r| r.record(op));
        let read = wanted && self.report.passes().visit_run_beside(&mut usage, &mut record, beside)?;
        if !read {
            recorded.clear();
            self.report.usage().read(&mut usage, &AtomicBool::new(false), &mut |_| {})?;
        }
        Ok((usage, recorded))
    }

    /// Each device an allocation failure is marked on, as the first failure on it views it
    /// (`Replays::device_view`): the devices whose runs are recorded for the replays.
    fn views_to_record(&self) -> Vec<DeviceView> {
        let mut devices: Vec<u64> = Vec::new();
        let mut views = Vec::new();
        for mark in self.report.usage().failure_marks() {
            let (Some(device), Some(index)) = (mark.device_id, self.report.operation_index(mark.operation_id)) else {
                continue;
            };
            if devices.contains(&device) || self.report.error_of(index).is_none_or(|e| e.failure.is_none()) {
                continue;
            }
            devices.push(device);
            if let Ok(view) = self.report.replays().device_view(device, index) {
                views.push(view);
            }
        }
        views
    }

    /// At each allocation failure (by the graphs walked alone, `graph_pass`, when its basis needs one), what
    /// freeing every tensor held past its last use at it would have done: the fix `free-late`
    /// replayed (docs/rules/memory.md §9.2), when any such tensor of its device and buffer type was freed
    /// before it — every failure in one replay per device (`free_late_at_failures`).
    pub fn at_failures(
        &self,
        findings: &LateFindings,
        graph_pass: Option<&GraphOnlyPass>,
    ) -> Result<Vec<LateAtFailure>, ReportError> {
        self.at_failures_with(findings, graph_pass, &[])
    }

    /// [`Self::at_failures`], each replay given its operations from a run of `recorded` when one
    /// follows its device.
    fn at_failures_with(
        &self,
        findings: &LateFindings,
        graph_pass: Option<&GraphOnlyPass>,
        recorded: &[RecordedRun],
    ) -> Result<Vec<LateAtFailure>, ReportError> {
        let found = self.found_at_failures(findings, graph_pass)?;
        let replayed: Vec<(usize, &MemoryAtFailure)> =
            found.iter().filter(|(_, _, f)| f.freed > 0).map(|(i, m, _)| (*i, m.as_ref())).collect();
        let mut answers = self.report.replays().free_late_at_failures(&replayed, findings, recorded)?.into_iter();
        Ok(found
            .into_iter()
            .map(|(_, _, mut f)| {
                if f.freed > 0 {
                    f.answer = answers.next().map(|w| w.answer);
                }
                f
            })
            .collect())
    }

    /// [`Self::at_failures`] with one replay per failure, as `ttnn-tui whatif --free-late`
    /// runs it: what the single pass must agree with.
    pub fn at_failures_one_by_one(
        &self,
        findings: &LateFindings,
        graph_pass: Option<&GraphOnlyPass>,
    ) -> Result<Vec<LateAtFailure>, ReportError> {
        let mut out = Vec::new();
        for (index, m, mut f) in self.found_at_failures(findings, graph_pass)? {
            if f.freed > 0 {
                let options = WhatIfOptions { late: Some(findings), from_start: false };
                f.answer = Some(self.report.replays().what_if_at(index, &[Fix::FreeLate], &options, Some(&m))?.answer);
            }
            out.push(f);
        }
        Ok(out)
    }

    /// Each allocation failure with a memory picture: its index, the picture, and the late
    /// tensors of its device and buffer type freed before it (not yet replayed).
    fn found_at_failures(
        &self,
        findings: &LateFindings,
        graph_pass: Option<&GraphOnlyPass>,
    ) -> Result<Vec<(usize, Box<MemoryAtFailure>, LateAtFailure)>, ReportError> {
        let failed: Vec<usize> = (0..self.report.operations.len())
            .filter(|&i| self.report.error_of(i).is_some_and(|e| e.failure.is_some()))
            .collect();
        let mut out = Vec::new();
        for (index, memory) in self.report.pictures().at_failures(&failed, graph_pass)? {
            let FailureMemory::Found(m) = memory else { continue };
            let Some(mut f) = late_at_failure(&m) else { continue };
            let view = self.report.replays().device_view(m.device_id, index)?;
            f.freed = findings.freed_before(&f, |d| view.names_device(d));
            out.push((index, m, f));
        }
        Ok(out)
    }

    /// The tensors held past their last use over the whole run, without what freeing them does
    /// at each failure: what the fix `free-late` frees. Stopped once `cancel` is set
    /// (`Err(ReportError::Cancelled)`).
    pub fn of_run(&self, cancel: &AtomicBool) -> Result<LateFindings, ReportError> {
        let mut usage = MemoryUsage::with_runs();
        self.report.usage().read(&mut usage, cancel, &mut |_| {})?;
        if usage.rows > 0 {
            return self.tensors(&usage);
        }
        match self.report.graphs().graph_only_pass(&mut |_, _| {}, cancel)? {
            Some(graph_pass) => self.tensors(&self.graph_pass_usage(&graph_pass)),
            None => self.tensors(&usage),
        }
    }

    /// The tensors held past their last use in a pass's runs (`usage` built
    /// [`MemoryUsage::with_runs`]), with their shapes and the source lines of their last uses,
    /// and at each failure what freeing them at it would have done (replayed).
    pub fn findings(&self, usage: &MemoryUsage) -> Result<LateFindings, ReportError> {
        let mut findings = self.tensors(usage)?;
        findings.failures = self.at_failures(&findings, None)?;
        Ok(findings)
    }

    /// The tensors held past their last use in a pass's runs, without the failures.
    pub(crate) fn tensors(&self, usage: &MemoryUsage) -> Result<LateFindings, ReportError> {
        let Some(runs) = usage.runs.as_ref() else { return Ok(LateFindings::default()) };
        let places: BTreeSet<(u64, u64)> = runs.runs().map(|r| (r.device_id, r.address)).collect();
        if places.is_empty() || self.report.operations.is_empty() {
            return Ok(LateFindings::default());
        }
        let read = ReportError::read("tensors");
        let mut places: Vec<(u64, u64)> = places.into_iter().collect();
        // A single chip opened as a mesh (ttnn 0.81) files some tensors in `device_tensors` under
        // its other id (embedding outputs, whose `tensors.address` is NULL): those rows are read
        // and taken as the runs' device's.
        let run_places: Vec<(u64, BufferType)> = runs.runs().map(|r| (r.device_id, r.buffer_type)).collect();
        let devices: Vec<DeviceFacts> = self.report.devices.iter().map(|d| d.facts()).collect();
        let device = run_places.first().map(|p| p.0);
        let alias = device.and_then(|d| Some((d, chip_alias(&devices, d, &other_ids(&run_places, d))?)));
        if let Some((_, other)) = alias {
            let more: Vec<(u64, u64)> = places.iter().map(|&(_, a)| (other, a)).collect();
            places.extend(more);
        }
        let mut facts = self.report.tensors().every_tenant_at(&places).map_err(&read)?;
        if let Some((d, _)) = alias {
            facts = tensors_on_the_chip(&facts, &run_places, &devices, d).into_owned();
        }
        let errors: Vec<u64> = self.report.usage().failure_marks().iter().map(|m| m.operation_id).collect();
        let last = self.report.operations.iter().map(|o| o.id).max().unwrap_or(0);
        let mut findings = find_late(usage, &facts, &errors, last);
        let ids: Vec<u64> = findings.late.iter().map(|t| t.tensor_id).collect();
        let texts = self.report.tensors().describe(&ids).map_err(&read)?;
        let sources = self.report.details().model_sources(findings.late.iter().map(|t| t.last_use_operation_id));
        for t in &mut findings.late {
            t.shape = texts.get(&t.tensor_id).and_then(|(shape, _)| shape.clone());
            t.source = sources.get(&t.last_use_operation_id).cloned();
        }
        Ok(findings)
    }

    /// The tensors held past their last use on a report without `buffers` rows: the graph
    /// replay's buffer stays read as the snapshots' runs, and its bytes per bank after each
    /// operation as the usage (docs/rules/memory.md §3.4, the basis tab 5 charts for such a report).
    /// Graph device ids are read as the tables': a single chip opened as a mesh (ttnn 0.81) has
    /// graph buffer nodes on the mesh id 1 while `devices` has the one row 0 (docs/rules/memory.md §1–§2).
    pub fn from_graphs(&self, graph_pass: &GraphOnlyPass) -> Result<LateFindings, ReportError> {
        let mut findings = self.tensors(&self.graph_pass_usage(graph_pass))?;
        findings.failures = self.at_failures(&findings, Some(graph_pass))?;
        Ok(findings)
    }

    /// The graphs walked alone read as the usage pass's sums and runs (see
    /// [`Self::from_graphs`]); a device is read by its `devices` row (`chip_row`: one
    /// chip named by two ids is one device).
    fn graph_pass_usage(&self, graph_pass: &GraphOnlyPass) -> MemoryUsage {
        let devices: Vec<DeviceFacts> = self.report.devices.iter().map(|d| d.facts()).collect();
        let chip = |device: u64| chip_row(&devices, device).map_or(device, |row| row.device_id);
        let mut usage = MemoryUsage::default();
        for u in &graph_pass.usage {
            let key = (chip(u.device_id), u.buffer_type);
            usage.sums.entry(key).or_default().push((u.operation_id, u.used_per_bank));
        }
        for series in usage.sums.values_mut() {
            series.sort_by_key(|p| p.0);
            // Two graph ids read as one chip: their bytes after an operation add up.
            series.dedup_by(|later, kept| {
                let same = later.0 == kept.0;
                if same {
                    kept.1 = kept.1.saturating_add(later.1);
                }
                same
            });
        }
        let runs = graph_pass.runs.iter().map(|r| BufferRun { device_id: chip(r.device_id), ..*r }).collect();
        usage.runs = Some(BufferRuns::from_runs(runs));
        usage
    }

    /// The `tensor_lifetime` rows of some tensors (the importer's own account of each tensor's
    /// producer, last use and deallocation, issue 21 §4), their lines as `file.py:line`,
    /// sanitised; empty without the table.
    pub fn lifetimes(&self, ids: &[u64]) -> Result<Vec<TensorLifetime>, ReportError> {
        let schema = &self.report.store.schema;
        if !schema.has_column("tensor_lifetime", "tensor_id") || ids.is_empty() {
            return Ok(Vec::new());
        }
        let columns = schema.select_list(
            "tensor_lifetime",
            &[
                ("tensor_id", "0"),
                ("producer_operation_id", "NULL"),
                ("last_use_operation_id", "NULL"),
                ("deallocate_operation_id", "NULL"),
                ("last_use_source_file", "NULL"),
                ("last_use_source_line", "NULL"),
            ],
        );
        let filter = schema.rank_filter("tensor_lifetime");
        let mut out = Vec::new();
        let read = ReportError::read("tensor_lifetime");
        for chunk in ids.chunks(IN_LIST_CHUNK) {
            let sql = format!(
                "SELECT {columns} FROM tensor_lifetime WHERE {filter} AND tensor_id IN ({})",
                id_list(chunk.iter().copied())
            );
            let mut stmt = self.report.store.conn.prepare(&sql).map_err(&read)?;
            let rows = stmt
                .query_map([self.report.store.rank], |r| {
                    let file = text(r.get_ref(4)?);
                    let line = opt_uint(r.get_ref(5)?);
                    let name = file.rsplit('/').next().unwrap_or_default();
                    Ok(TensorLifetime {
                        tensor_id: uint(r.get_ref(0)?),
                        producer_operation_id: opt_uint(r.get_ref(1)?),
                        last_use_operation_id: opt_uint(r.get_ref(2)?),
                        deallocate_operation_id: opt_uint(r.get_ref(3)?),
                        last_use_source: line
                            .filter(|_| !name.is_empty())
                            .map(|l| sanitize_line(&format!("{name}:{l}"))),
                    })
                })
                .map_err(&read)?;
            out.extend(rows.collect::<rusqlite::Result<Vec<_>>>().map_err(&read)?);
        }
        Ok(out)
    }
}

/// The `free-late` replays [`Late::list`] gave their operations from the run it recorded (not
/// reading the tables again) on this thread since the last call: for tests and benchmarks.
pub fn take_replays_from_memory() -> usize {
    super::whatif_late::take_from_memory()
}
