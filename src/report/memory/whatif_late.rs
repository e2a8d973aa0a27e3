//! `free-late` at every failure in one pass (docs/rules/memory.md §9.2): the late list's answer at each
//! allocation failure, replayed once per device instead of once per failure.
//!
//! A failure's own replay frees each tensor of its device held past its last use `k < n`,
//! right after `k`, and starts at the snapshot after the earliest such `k`. Every failure of a
//! device with anything freed before it therefore starts at the same snapshot, and a plan that
//! frees every late tensor of the device acts the same up to each failure (a free after
//! `k ≥ n` comes after `n`). So one replay per (device, regions, start) gives every answer:
//! before each failed operation the replay is forked, the fork is given the operation up to
//! its failure and answers, and the replay goes on with the operation as recorded — as a later
//! failure's own replay gives it. `tests/explain/late_sim.rs` checks the answers equal the one-by-one
//! replays.
//!
//! When the run's one read recorded the run as the group's device sees it (`RecordedRun`: `--late`
//! reads `buffers` and the graphs once, for its runs and for this), the replay is given its
//! operations from that record instead of reading both tables again.

use super::questions::Replays;
use super::whatif::WhatIf;
use super::whatif_fixes::Resolved;
use crate::analysis::memory::MemoryAtFailure;
use crate::analysis::memory::late::LateFindings;
use crate::analysis::memory::whatif::{DeviceView, Fix, RecordedCursor, RecordedRun, Regions, WhatIfReplay};
use crate::report::error::ReportError;
use std::cell::Cell;
use std::ops::Range;

thread_local! {
    /// Groups replayed from a recorded run on this thread (see `late::take_replays_from_memory`).
    static FROM_MEMORY: Cell<usize> = const { Cell::new(0) };
}

/// The groups replayed from a recorded run on this thread since the last call.
pub(super) fn take_from_memory() -> usize {
    FROM_MEMORY.with(|n| n.replace(0))
}

/// The failures one replay serves: their device, regions and start, and the failures (by
/// index, ascending) with their memory.
struct Group<'m> {
    device: u64,
    view: DeviceView,
    regions: Regions,
    start: Option<u64>,
    resolved: Resolved,
    failures: Vec<(usize, &'m MemoryAtFailure)>,
}

impl<'r> Replays<'r> {
    /// `free-late` replayed at each failure of `failures` (by index, ascending, each with its
    /// memory at the failure), in their order: what the fix `free-late` says at each. A group
    /// whose device a run of `recorded` follows is given its operations from it.
    pub(super) fn free_late_at_failures(
        &self,
        failures: &[(usize, &MemoryAtFailure)],
        late: &LateFindings,
        recorded: &[RecordedRun],
    ) -> Result<Vec<WhatIf>, ReportError> {
        let read = ReportError::read("the run's records");
        let snapshots = self.records_snapshots().map_err(&read)?;
        let fixes = [Fix::FreeLate];
        let mut groups: Vec<Group<'_>> = Vec::new();
        let mut place = Vec::with_capacity(failures.len());
        for &(index, m) in failures {
            let view = self.device_view(m.device_id, index)?;
            let resolved = self.resolve(index, &fixes, m, &view, Some(late)).map_err(&read)?;
            let start = self.replay_start(index, &resolved, snapshots, &view)?;
            let regions = self.regions(m.device_id, m);
            let same =
                |g: &Group<'_>| g.device == m.device_id && g.view == view && g.regions == regions && g.start == start;
            let at = match groups.iter().position(same) {
                Some(at) => {
                    // Failures come in run order: the latest one's plan frees every late tensor
                    // an earlier one's frees.
                    groups[at].resolved = resolved;
                    at
                }
                None => {
                    groups.push(Group { device: m.device_id, view, regions, start, resolved, failures: Vec::new() });
                    groups.len() - 1
                }
            };
            groups[at].failures.push((index, m));
            place.push((at, groups[at].failures.len() - 1));
        }
        let mut answers: Vec<Vec<WhatIf>> = Vec::with_capacity(groups.len());
        let operations = self.report.operations.len();
        for g in groups {
            let record = recorded.iter().find(|r| *r.view() == g.view && r.complete(operations));
            answers.push(self.replay_group(g, &fixes, snapshots, record)?);
        }
        Ok(place.into_iter().map(|(g, i)| answers[g][i].clone()).collect())
    }

    /// One replay for a group: forked before each of its failures to answer there; given its
    /// operations from `record` when there is one, else read from the tables.
    fn replay_group(
        &self,
        g: Group<'_>,
        fixes: &[Fix],
        snapshots: bool,
        record: Option<&RecordedRun>,
    ) -> Result<Vec<WhatIf>, ReportError> {
        let (mut run, mut next) = self.begin(g.view, g.regions, g.resolved.plan, g.start)?;
        let mut cursor = RecordedCursor::default();
        let mut give = |run: &mut WhatIfReplay, range: Range<usize>| match record {
            Some(record) => {
                record.replay(run, range, &mut cursor);
                Ok(())
            }
            None => self.report.passes().replay_operations(run, range, snapshots),
        };
        let mut out = Vec::with_capacity(g.failures.len());
        for (index, m) in g.failures {
            give(&mut run, next..index)?;
            out.push(self.answer_at(run.clone(), index, fixes, m, Vec::new(), g.start)?);
            give(&mut run, index..index + 1)?;
            next = index + 1;
        }
        if record.is_some() {
            FROM_MEMORY.with(|n| n.set(n.get() + 1));
        }
        Ok(out)
    }
}
