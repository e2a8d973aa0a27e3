//! What if, every fix of a failure in one replay (docs/rules/memory.md §9.2): the failure's device, regions,
//! graph, own snapshot and circular-buffer hint found once; each fix set resolved to its plan and
//! checkpoint; then one pass over the operations from the earliest checkpoint to the failure,
//! each operation's graph parsed and snapshot read once and given to every replay that has
//! begun — a replay begins when the pass reaches its own checkpoint, from the snapshot the pass
//! just read — and each replay answered at the failure. A fix set's answer is the one its own
//! replay would give: the same checkpoint, the same operations, the same failed request.

use super::questions::Replays;
use super::rows::SNAPSHOT_ROWS;
use super::whatif::{WhatIf, WhatIfOptions};
use super::whatif_fixes::Resolved;
use crate::analysis::memory::whatif::{
    AtFailure, DeviceView, Fix, Plan, WhatIfNote, WhatIfReplay, checkpoint_buffers, distinct, input_buffers,
    more_after_request, own_unrecorded, request_of,
};
use crate::analysis::memory::{Basis, MemoryAtFailure};
use crate::report::error::ReportError;
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicBool, Ordering};

/// One fix set on its way: resolved, where its replay starts, and the replay once begun.
struct Pending {
    fixes: Vec<Fix>,
    /// Its plan, until its replay begins.
    plan: Option<Plan>,
    /// What could not be resolved.
    notes: Vec<WhatIfNote>,
    start: Option<u64>,
    /// The index of the first operation its replay is given.
    first: usize,
    run: Option<WhatIfReplay>,
}

/// A fix set's outcome before it is replayed: replayed, left out because its replay would
/// cover more operations than the window (how many), or answered without a replay.
pub(super) enum Planned {
    Replay,
    Skip(usize),
    Answered(Box<WhatIf>),
}

impl<'r> Replays<'r> {
    /// What every answer at the failure of the operation at `index` shares (see [`AtFailure`]).
    pub(super) fn at_failure(&self, index: usize, m: &MemoryAtFailure, l1_start: Option<u64>) -> AtFailure<'_> {
        let op = &self.report.operations[index];
        let graph = self.report.graphs().graph_shared(index).unwrap_or_default();
        let through = crate::analysis::memory::failure_point(&graph);
        let own = (m.basis == Basis::AfterFailureSnapshot)
            .then(|| self.report.snapshots().rows_shared(op.id, op.rank).map(|(rows, _)| rows).unwrap_or_default());
        let failure = self.report.error_of(index).and_then(|e| e.failure.as_ref());
        let request = failure.and_then(|f| request_of(f, m.device_id, m));
        let hint = request.as_ref().and_then(|_| self.cb_hint(index, l1_start));
        AtFailure {
            index,
            operation_id: op.id,
            operation_name: &op.name,
            failed: failure.is_some(),
            graph,
            through,
            own,
            request,
            inputs: input_buffers(m),
            hint,
            own_unrecorded: failure.and_then(|f| own_unrecorded(f, m)),
            more_after: more_after_request(&op.name, request.as_ref()),
        }
    }

    /// Every fix set of `sets` replayed at the failure of the operation at `index` (with its
    /// memory `m`) in one pass, in the order given. With a `window` (advice: `failure_fixes`), a
    /// set whose replay would cover more operations before the failure is left out
    /// (`Err(span)`), and a replay stops once what its advice line says is settled
    /// (`WhatIfReplay::advice_settled`).
    pub(super) fn replay_fix_sets(
        &self,
        index: usize,
        sets: &[&[Fix]],
        options: &WhatIfOptions<'_>,
        m: &MemoryAtFailure,
        window: Option<usize>,
        cancel: Option<&AtomicBool>,
    ) -> Result<Vec<Result<WhatIf, usize>>, ReportError> {
        let read = ReportError::read("the run's records");
        let needs_late = sets.iter().any(|s| s.contains(&Fix::FreeLate)) && options.late.is_none();
        let read_now =
            if needs_late { Some(self.report.late().of_run(cancel.unwrap_or(&AtomicBool::new(false)))?) } else { None };
        let late = read_now.as_ref().or(options.late);
        let view = self.device_view(m.device_id, index)?;
        // Banks that do not move in lockstep: no set's outcome can be known (docs/rules/memory.md §9.3).
        let allocator_mode = self.addresses_differ(m, &view).map_err(&read)?;
        let snapshots = self.records_snapshots().map_err(&read)?;
        let mut planned = Vec::with_capacity(sets.len());
        let mut pending = Vec::new();
        for set in sets {
            let fixes = distinct(set);
            let resolved = self.resolve(index, &fixes, m, &view, late).map_err(&read)?;
            if let Some(window) = window {
                let span = self.replay_span_of(index, &fixes, m, &view, &resolved)?;
                if span > window {
                    planned.push(Planned::Skip(span));
                    continue;
                }
            }
            if let Some(what) = &allocator_mode {
                let mut w = self.unknown(index, &fixes, "");
                w.answer.notes = vec![WhatIfNote::AllocatorMode { what: what.clone() }];
                planned.push(Planned::Answered(Box::new(w)));
                continue;
            }
            let start = self.replay_start(index, &resolved, snapshots && !options.from_start, &view)?;
            let first = start.and_then(|c| self.report.operation_index(c)).map_or(0, |i| i + 1);
            let Resolved { plan, notes, .. } = resolved;
            pending.push(Pending { fixes, plan: Some(plan), notes, start, first, run: None });
            planned.push(Planned::Replay);
        }
        let answers = self.replay_pending(index, pending, m, view, snapshots, (window.is_some(), cancel))?;
        let mut answers = answers.into_iter();
        Ok(planned
            .into_iter()
            .map(|p| match p {
                Planned::Replay => Ok(answers.next().expect("one answer per replayed set")),
                Planned::Skip(span) => Err(span),
                Planned::Answered(w) => Ok(*w),
            })
            .collect())
    }

    /// The pass that serves every pending replay, then each one's answer, in their order.
    fn replay_pending(
        &self,
        index: usize,
        mut pending: Vec<Pending>,
        m: &MemoryAtFailure,
        view: DeviceView,
        snapshots: bool,
        (advice, cancel): (bool, Option<&AtomicBool>),
    ) -> Result<Vec<WhatIf>, ReportError> {
        if pending.is_empty() {
            return Ok(Vec::new());
        }
        let regions = self.regions(m.device_id, m);
        // A stretch at a time: the replays not begun whose checkpoint comes first begin there,
        // and the operations from there on are given to every replay under way (replays begin
        // when the stretch reaches their checkpoint). For advice, a stretch ends once every
        // replay under way has its advice settled; the next begins at the next checkpoint.
        while let Some(from) = pending.iter().filter(|p| p.run.is_none()).map(|p| p.first).min() {
            let from = from.min(index);
            for p in pending.iter_mut().filter(|p| p.run.is_none() && p.first == from) {
                let plan = p.plan.take().expect("not begun");
                p.run = Some(self.begin(view.clone(), regions, plan, p.start)?.0);
            }
            self.report.passes().stream_operations(from..index, snapshots, cancel, &mut |i, record| {
                let under_way = pending.iter_mut().filter_map(|p| p.run.as_mut());
                for run in under_way.filter(|r| !(advice && r.advice_settled())) {
                    run.operation(record);
                }
                for p in pending.iter_mut().filter(|p| p.run.is_none() && p.first == i + 1) {
                    let plan = p.plan.take().expect("not begun");
                    let mut run = WhatIfReplay::new(view.clone(), regions, plan).apart(self.report.threads());
                    // The checkpoint is the snapshot just read, as `Snapshots::rows` gives it.
                    let rows = record.snapshot.unwrap_or_default();
                    run.start(checkpoint_buffers(&rows[..rows.len().min(SNAPSHOT_ROWS)], &view), p.start);
                    p.run = Some(run);
                }
                let settled = |p: &Pending| p.run.as_ref().is_none_or(WhatIfReplay::advice_settled);
                if advice && pending.iter().all(settled) { ControlFlow::Break(()) } else { ControlFlow::Continue(()) }
            })?;
        }
        let l1_start = pending.iter().find_map(|p| p.run.as_ref()).and_then(|r| r.regions().l1.map(|(a, _)| a));
        let at = self.at_failure(index, m, l1_start);
        pending
            .into_iter()
            .map(|p| {
                let run = p.run.expect("every replay begins before the failure");
                self.answer_with(run, &at, &p.fixes, m, p.notes, p.start)
            })
            .collect()
    }

    /// How many operations a replay of `fixes` would cover before the failed operation (a
    /// `free-late` counted as the fixes resolved without the late list, as it always was).
    fn replay_span_of(
        &self,
        index: usize,
        fixes: &[Fix],
        m: &MemoryAtFailure,
        view: &DeviceView,
        resolved: &Resolved,
    ) -> Result<usize, ReportError> {
        let without_late;
        let resolved = match fixes.contains(&Fix::FreeLate) {
            true => {
                let read = ReportError::read("the run's records");
                without_late = self.resolve(index, fixes, m, view, None).map_err(read)?;
                &without_late
            }
            false => resolved,
        };
        let start = resolved.checkpoint(self.previous(index));
        Ok(match start.and_then(|c| self.report.operation_index(c)) {
            Some(c) => index - c - 1,
            None => index,
        })
    }
}

/// Whether the pass was cancelled.
pub(super) fn cancelled(cancel: Option<&AtomicBool>) -> bool {
    cancel.is_some_and(|c| c.load(Ordering::Relaxed))
}
