//! What if (docs/rules/memory.md §9): the report's side of `analysis::memory::whatif` — the fixes resolved
//! to the run's records (tensor addresses, last uses, producers, the late list), the checkpoint
//! (the snapshot after the earliest operation a fix touches), every operation from there to the
//! failure (graph and snapshot), and the failed request.

use super::pictures::FailureMemory;
use super::questions::Replays;
use super::rows::Earlier;
use super::whatif_fixes::Resolved;
use crate::analysis::memory::MemoryAtFailure;
use crate::analysis::memory::late::LateFindings;
use crate::analysis::memory::whatif::{
    AdviceFor, Answer, AtFailure, CircularBufferUse, DeviceView, Fix, NO_PICTURE, Plan, Regions, ReplayedAdvice,
    WhatIfNote, WhatIfReplay, advice, answer_at_failure, cb_hint, checkpoint_buffers, distinct, freed_after,
    own_unrecorded, replayed_advice, unknown_answer,
};
use crate::report::error::ReportError;
use std::sync::atomic::AtomicBool;

/// A what-if answer and what saying it needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WhatIf {
    /// The answer.
    pub answer: Answer,
    /// The failed operation's name.
    pub operation_name: String,
    /// The operation the replay started after (its snapshot is the checkpoint); none when it
    /// replayed the run from its first operation.
    pub replayed_after: Option<u64>,
}

/// How to replay.
#[derive(Debug, Clone, Copy, Default)]
pub struct WhatIfOptions<'a> {
    /// The late list, which `free-late` needs (read when not given).
    pub late: Option<&'a LateFindings>,
    /// Replay from the first operation, not from the snapshot before the first fix: slower,
    /// and the self-check then covers every recorded allocation.
    pub from_start: bool,
}

impl<'r> Replays<'r> {
    /// The memory at an operation's failure (by index), replaying every captured graph first
    /// when its basis needs them; none when it has no memory section.
    pub fn failure_memory(&self, index: usize) -> Result<Option<Box<MemoryAtFailure>>, ReportError> {
        match self.report.pictures().at_failure(index, None)? {
            FailureMemory::Found(m) => Ok(Some(m)),
            FailureMemory::Absent => Ok(None),
            FailureMemory::NeedsReplay => {
                let replay = self.report.graphs().graph_only_pass(&mut |_, _| {}, &AtomicBool::new(false))?;
                match self.report.pictures().at_failure(index, replay.as_ref())? {
                    FailureMemory::Found(m) => Ok(Some(m)),
                    _ => Ok(None),
                }
            }
        }
    }

    /// Replays the run with `fixes` and says what tt-metal would do with the request of the
    /// failed operation (by index).
    pub fn what_if(&self, index: usize, fixes: &[Fix], options: &WhatIfOptions<'_>) -> Result<WhatIf, ReportError> {
        let memory = self.failure_memory(index)?;
        self.what_if_at(index, fixes, options, memory.as_deref())
    }

    /// [`Self::what_if`] with the memory at the failure already found.
    pub fn what_if_at(
        &self,
        index: usize,
        fixes: &[Fix],
        options: &WhatIfOptions<'_>,
        memory: Option<&MemoryAtFailure>,
    ) -> Result<WhatIf, ReportError> {
        let mut answers = self.what_ifs_at(index, &[fixes], options, memory, None)?;
        Ok(answers.remove(0))
    }

    /// Several fix sets at one failure, each answered as [`Self::what_if_at`] answers it, in one
    /// replay: the operations from the earliest set's checkpoint to the failure are read once
    /// and given to every set's replay (`whatif_shared.rs`). Once `cancel` is set the replay
    /// (and the pass over `buffers` a `free-late` may need) stops: `Err(ReportError::Cancelled)`.
    pub fn what_ifs_at(
        &self,
        index: usize,
        sets: &[&[Fix]],
        options: &WhatIfOptions<'_>,
        memory: Option<&MemoryAtFailure>,
        cancel: Option<&AtomicBool>,
    ) -> Result<Vec<WhatIf>, ReportError> {
        let failure = self.report.error_of(index).and_then(|e| e.failure.clone());
        let (Some(_), Some(m)) = (failure, memory) else {
            return Ok(sets.iter().map(|fixes| self.unknown(index, &distinct(fixes), NO_PICTURE)).collect());
        };
        let answers = self.replay_fix_sets(index, sets, options, m, None, cancel)?;
        Ok(answers.into_iter().map(|a| a.expect("no window, no set left out")).collect())
    }

    /// Where a replay starts: after the earliest operation a fix touches, when the report keeps
    /// snapshots to start from (`from_checkpoint`); else from the first operation (none). An
    /// operation without `buffers` rows of the device is no checkpoint: the replay starts at the
    /// latest one before it with some (docs/rules/memory.md §3.1), or from the first operation.
    pub(super) fn replay_start(
        &self,
        index: usize,
        resolved: &Resolved,
        from_checkpoint: bool,
        view: &DeviceView,
    ) -> Result<Option<u64>, ReportError> {
        if !from_checkpoint {
            return Ok(None);
        }
        let Some(c) = resolved.checkpoint(self.previous(index)) else { return Ok(None) };
        let read = ReportError::read("the run's records");
        let rank = self.report.rank();
        let devices: Vec<u64> = std::iter::once(view.device_id).chain(view.aliases.iter().copied()).collect();
        let (rows, _) = self.report.snapshots().rows(c, rank).map_err(&read)?;
        if rows.iter().any(|r| devices.contains(&r.device_id)) {
            return Ok(Some(c));
        }
        let mut latest = None;
        for d in devices {
            if let Earlier::Found(e) = self.report.snapshots().earlier(c, d, rank).map_err(&read)? {
                latest = latest.max(Some(e));
            }
        }
        Ok(latest)
    }

    /// A replay of `view`'s device with `plan`, started from the snapshot after `start` (none:
    /// from nothing), and the index of the first operation it has still to be given.
    pub(super) fn begin(
        &self,
        view: DeviceView,
        regions: Regions,
        plan: Plan,
        start: Option<u64>,
    ) -> Result<(WhatIfReplay, usize), ReportError> {
        let mut run = WhatIfReplay::new(view.clone(), regions, plan).apart(self.report.threads());
        let Some(c) = start else { return Ok((run, 0)) };
        let (rows, _) =
            self.report.snapshots().rows(c, self.report.rank()).map_err(ReportError::read("the run's records"))?;
        run.start(checkpoint_buffers(&rows, &view), Some(c));
        Ok((run, self.report.operation_index(c).map_or(0, |i| i + 1)))
    }

    /// Gives `run` (which has every operation before the failed one, by index) the failed
    /// operation up to its failure and says what tt-metal would do with its request.
    pub(super) fn answer_at(
        &self,
        run: WhatIfReplay,
        index: usize,
        fixes: &[Fix],
        m: &MemoryAtFailure,
        notes: Vec<WhatIfNote>,
        start: Option<u64>,
    ) -> Result<WhatIf, ReportError> {
        let at = self.at_failure(index, m, run.regions().l1.map(|(a, _)| a));
        self.answer_with(run, &at, fixes, m, notes, start)
    }

    /// [`Self::answer_at`] with what every answer at the failure shares found once
    /// (`whatif::answer_at_failure`).
    pub(super) fn answer_with(
        &self,
        run: WhatIfReplay,
        at: &AtFailure<'_>,
        fixes: &[Fix],
        m: &MemoryAtFailure,
        notes: Vec<WhatIfNote>,
        start: Option<u64>,
    ) -> Result<WhatIf, ReportError> {
        Ok(match answer_at_failure(run, at, fixes, &m.live_buffers, notes) {
            Ok(answer) => WhatIf { answer, operation_name: at.operation_name.to_string(), replayed_after: start },
            Err(why) => self.unknown(at.index, fixes, why),
        })
    }

    /// An answer that cannot be given, with why.
    pub(super) fn unknown(&self, index: usize, fixes: &[Fix], why: &str) -> WhatIf {
        let op = &self.report.operations[index];
        WhatIf { answer: unknown_answer(op.id, fixes, why), operation_name: op.name.to_string(), replayed_after: None }
    }

    /// The id of the operation before the one at `index` (none for the first).
    pub(super) fn previous(&self, index: usize) -> Option<u64> {
        index.checked_sub(1).map(|i| self.report.operations[i].id)
    }

    /// Whether the report keeps `buffers` snapshots (any row at all).
    pub(super) fn records_snapshots(&self) -> rusqlite::Result<bool> {
        if !self.report.store.schema.has_table("buffers") {
            return Ok(false);
        }
        self.report.store.conn.query_row("SELECT EXISTS(SELECT 1 FROM buffers)", [], |r| r.get(0))
    }

    /// The circular-buffer hint at the failure of the operation at `index` (`whatif::cb_hint`),
    /// the candidates' graphs read in one read per list.
    pub(super) fn cb_hint(&self, index: usize, l1_start: Option<u64>) -> Option<CircularBufferUse> {
        let graphs = self.report.graphs();
        cb_hint(&self.report.operations, index, l1_start, &mut |wanted| graphs.texts_of(wanted).unwrap_or_default())
    }
}

/// Replays that would start more than this many operations before the failure are left to
/// `ttnn-tui whatif` rather than run for every failure `explain` prints.
pub const FIX_REPLAY_WINDOW: usize = 5_000;

impl<'r> Replays<'r> {
    /// Every advice line of a failure (docs/rules/memory.md §9.2), each replayed and ranked: the operation
    /// (by index) and its memory at the failure. Every line is replayed in one pass (`what_ifs_at`).
    pub fn failure_fixes(&self, index: usize, m: &MemoryAtFailure) -> Result<Vec<ReplayedAdvice>, ReportError> {
        self.failure_fixes_with(index, m, None)
    }

    /// [`Self::failure_fixes`], stopped between operations once `cancel` is set.
    pub fn failure_fixes_with(
        &self,
        index: usize,
        m: &MemoryAtFailure,
        cancel: Option<&AtomicBool>,
    ) -> Result<Vec<ReplayedAdvice>, ReportError> {
        let failure = self.report.error_of(index).and_then(|e| e.failure.clone());
        let op = AdviceFor {
            operation_name: &self.report.operations[index].name,
            previous: self.previous(index),
            own_unrecorded: failure.as_ref().and_then(|f| own_unrecorded(f, m)),
        };
        let candidates = advice(m, op);
        let mut known: Vec<(u64, String)> =
            self.report.details().model_sources(freed_after(&candidates).into_iter()).into_iter().collect();
        known.sort_unstable();
        let sets: Vec<&[Fix]> = candidates.iter().filter(|a| !a.fixes.is_empty()).map(|a| a.fixes.as_slice()).collect();
        let window = Some(FIX_REPLAY_WINDOW);
        let answers = match failure {
            Some(_) if !sets.is_empty() => {
                self.replay_fix_sets(index, &sets, &WhatIfOptions::default(), m, window, cancel)?
            }
            _ => sets.iter().map(|f| Ok(self.unknown(index, &distinct(f), NO_PICTURE))).collect(),
        };
        let answers = answers.into_iter().map(|a| a.map(|w| w.answer)).collect();
        Ok(replayed_advice(candidates, answers, &known))
    }
}
