//! What arrives from outside the keyboard: the background passes the state asks the loop for
//! (`want`, the graph replay and the run over time) and what they bring, the performance report
//! linked on a worker thread, and a watched report's changes.

use super::compare::Comparison;
use super::jobs::{JOBS, Job, JobEnd, JobState};
use super::loaded::Loaded;
use super::memory::{MemoryPicture, MemoryTab};
use super::over_time::UsageSource;
use super::perf::{PerfInput, PerfState, PerfTab};
use super::state::App;
use super::tab::Tab;
use crate::analysis::memory::late::LateFindings;
use crate::analysis::memory::peak::{CoreGrid, OperationPeak};
use crate::analysis::memory::usage_series::UsageSeries;
use crate::analysis::memory::whatif::{Fix, ReplayedAdvice};
use crate::analysis::model::{ErrorRecord, Operation};
use std::collections::HashMap;

impl App {
    /// Whether the state needs a background pass now: the loop starts it when it does not run,
    /// and cancels it when it runs and is not needed. The graph replay, once for the report, when
    /// a failure's picture or the run over time of a report without `buffers` rows waits for it;
    /// the run over time while tab 5 is shown (left, it stops and later goes on from there).
    pub fn want(&self, job: Job) -> bool {
        let (jobs, over_time) = (&self.jobs, &self.over_time);
        let from_replay = over_time.source == UsageSource::GraphOnlyPass;
        match job {
            Job::ReplayGraphs => {
                jobs.replay.open() && (self.memory.needs_replay() || (from_replay && jobs.usage.open()))
            }
            Job::Usage => {
                self.tab == Tab::OverTime && jobs.usage.open() && (!from_replay || jobs.replay == JobState::Done)
            }
            // BEFORE's lines, once, while tab 5 is shown (left, the pass stops and starts again).
            Job::BeforeUsage => self.tab == Tab::OverTime && self.compare.is_some() && jobs.before.open(),
            Job::Picture => self.picture_wanted().is_some(),
            Job::Fixes => self.fixes_wanted().is_some(),
            Job::WhatIf => self.what_if_wanted().is_some(),
        }
    }

    /// The failure (operation index) whose picture the screen waits for: tab 4 shows an
    /// operation with an allocation failure whose memory at the failure is not read yet. The
    /// loop reads it on a worker ("Reading the memory of this operation…" until it lands); when
    /// the selection moves on, that read is cancelled.
    pub fn picture_wanted(&self) -> Option<usize> {
        let i = self.selected_operation().filter(|_| self.tab == Tab::Memory)?;
        matches!(self.memory.wanted(i, &self.model), Some((None, true))).then_some(i)
    }

    /// The memory at a failure, read on a worker (for a failure without a picture of its own,
    /// the operation's snapshot; `Loaded::Unavailable` with why not).
    pub fn set_picture(&mut self, operation: usize, picture: Loaded<MemoryPicture>) {
        self.memory.deliver(operation, None, picture);
        self.jobs.picture = JobState::Idle;
        self.follow_selection();
    }

    /// The failure (operation index) whose fixes the screen waits for: tab 4 shows the picture
    /// of the selected operation's failure and its fixes are not replayed yet. The loop replays
    /// them on a worker; when the selection moves on, that replay is cancelled.
    pub fn fixes_wanted(&self) -> Option<usize> {
        let i = self.selected_operation().filter(|_| self.tab == Tab::Memory)?;
        let failure_shown = matches!(self.memory.picture(i), Some(Loaded::Ready(MemoryPicture::Failure(_))));
        (failure_shown && self.memory.fixes.wanted(i)).then_some(i)
    }

    /// The fixes typed for the selected failure (`w`) that wait for their replay, the first
    /// typed first, while tab 4 shows the failure and its own fixes have landed (the typed ones
    /// join their list).
    pub fn what_if_wanted(&self) -> Option<(usize, Vec<Fix>)> {
        let i = self.selected_operation().filter(|_| self.tab == Tab::Memory)?;
        self.memory.fixes.of(i)?;
        self.memory.fixes.asked().iter().find(|(o, _)| *o == i).cloned()
    }

    /// The selected failure's fixes, replayed on a worker (`Loaded::Unavailable` with why not).
    pub fn set_fixes(&mut self, operation: usize, fixes: Loaded<Vec<ReplayedAdvice>>) {
        self.memory.fixes.deliver(operation, fixes);
        self.jobs.fixes = JobState::Idle;
        self.follow_selection();
    }

    /// The replay of fixes the user typed: added to the failure's list and shown, or the status
    /// bar says why not.
    pub fn set_your_fixes(&mut self, operation: usize, fixes: &[Fix], replayed: Loaded<ReplayedAdvice>) {
        if let Some(message) = self.memory.fixes.deliver_yours(operation, fixes, replayed) {
            self.message = Some(message);
        }
        self.jobs.what_if = JobState::Idle;
        self.follow_selection();
    }

    /// The passes wanted that do not run yet.
    pub fn wanted_jobs(&self) -> Vec<Job> {
        JOBS.into_iter().filter(|&j| self.want(j) && !matches!(self.jobs.state(j), JobState::Running { .. })).collect()
    }

    /// Whether the graph replay, when it starts, should also find the run over time (a report
    /// without `buffers` rows whose tab 5 waits for it).
    pub fn over_time_waits_for_replay(&self) -> bool {
        self.over_time.source == UsageSource::GraphOnlyPass && self.jobs.usage.open()
    }

    /// A background pass's progress: `done` of `total` units (both 0 as it starts).
    pub fn job_progress(&mut self, job: Job, done: u64, total: u64) {
        self.jobs.set(job, JobState::Running { done, total });
    }

    /// A background pass ended. A replay done lets the pictures that waited for it be read again.
    pub fn job_ended(&mut self, job: Job, end: JobEnd) {
        let state = match end {
            JobEnd::Done => JobState::Done,
            JobEnd::Cancelled => JobState::Idle,
            JobEnd::Failed(reason) => JobState::Failed(reason),
        };
        if job == Job::ReplayGraphs && state == JobState::Done {
            self.memory.replay_landed();
        }
        self.jobs.set(job, state);
        self.follow_selection();
    }

    /// The run over time landed: every series, and the tensors held past their last use.
    pub fn set_run_over_time(&mut self, series: Vec<UsageSeries>, late: Result<LateFindings, String>) {
        self.over_time.set_series(series);
        self.over_time.set_late(late);
        self.jobs.usage = JobState::Done;
    }

    /// Every operation's true peak, and what filled each L1 core at it, found with the run over
    /// time (tab 5's true-peak line and per-core grid).
    pub fn set_true_peaks(&mut self, peaks: Vec<OperationPeak>, core_grids: Vec<CoreGrid>) {
        self.over_time.true_peaks = peaks;
        self.over_time.core_grids = core_grids;
    }

    /// The run over time is one chip's: tab 5 names it device 0 whatever ids its tables use.
    pub fn set_single_chip_run(&mut self, single_chip: bool) {
        self.over_time.single_chip = single_chip;
    }

    /// The report has no `buffers` rows: the run over time waits for every graph replayed.
    pub fn usage_needs_replay(&mut self) {
        self.over_time.source = UsageSource::GraphOnlyPass;
        self.jobs.usage = JobState::Idle;
    }

    /// The report is watched (`--watch`): the status bar says it is live.
    pub fn set_live(&mut self) {
        self.live = Some((self.model.operations.len(), 0));
    }

    /// A watched report changed: its operations, errors and the failed device operations of those
    /// with an error (by index); `new_failures` are the ids of operations that gained an error,
    /// `reordered` says indexes kept from before no longer hold. The selection and scroll stay; a
    /// new failure is announced, and selected if the user has not moved since opening.
    pub fn report_changed(
        &mut self,
        operations: Vec<Operation>,
        errors: Vec<ErrorRecord>,
        failed_in: HashMap<usize, Result<Vec<String>, String>>,
        new_failures: &[u64],
        reordered: bool,
    ) {
        let before = self.model.operations.len();
        let selected_id = self.selected_operation().map(|i| self.model.operations[i].id);
        self.model.replace(operations, errors, failed_in, reordered);
        self.operations.model_changed(&self.model, selected_id, reordered);
        self.live = Some((self.model.operations.len(), self.model.operations.len().saturating_sub(before)));
        self.memory = MemoryTab::default();
        // What the graph replay found is for the report as it was.
        self.jobs.replay = JobState::Idle;
        if reordered {
            self.device_ops.clear();
        }
        if self.jobs.usage == JobState::Done {
            // The pass goes on from where it stopped: only the new rows are read (and, if there
            // are still none, the graphs are replayed again).
            self.jobs.usage = JobState::Idle;
            self.over_time.source = UsageSource::Snapshots;
        }
        if let Some(&id) = new_failures.last() {
            let name = self.model.operation_index(id).map_or("", |i| self.model.operations[i].name.as_ref());
            self.message = Some(format!("New failure: operation {id} {name}"));
            if !self.operations.moved
                && let Some(index) = self.model.operation_index(id)
            {
                self.operations.show_operation(index, &self.model);
            }
        }
        self.follow_selection();
    }

    /// Reading a watched report's changes failed: why (the status bar says it).
    pub fn watch_failed(&mut self, reason: String) {
        self.message = Some(format!("Watching stopped working: {reason}"));
    }

    /// The Performance tab's report is being linked on a worker thread (`file_name` is shown).
    pub fn set_perf_linking(&mut self, file_name: String) {
        self.perf = PerfState::Linking(file_name);
    }

    /// The Performance tab's report could not be linked: why.
    pub fn set_perf_failed(&mut self, reason: String) {
        self.perf = PerfState::Failed(reason);
    }

    /// Gives the Performance tab its report.
    pub fn set_perf(&mut self, input: PerfInput) {
        self.perf = PerfState::Ready(Box::new(PerfTab::new(input)));
        // Trees built so far lack their perf rows: build them again when shown.
        self.device_ops.clear();
    }
}

/// The run the shown one is compared with (`--compare`), and its memory lines when they land.
impl App {
    /// Compares the shown run with an earlier one (`--compare`).
    pub fn set_comparison(&mut self, comparison: Comparison) {
        self.compare = Some(comparison);
    }

    /// The comparison, when the shown run is compared with an earlier one.
    pub fn comparison(&self) -> Option<&Comparison> {
        self.compare.as_ref()
    }

    /// BEFORE's memory lines landed.
    pub fn set_before_usage(&mut self, series: Vec<UsageSeries>) {
        if let Some(c) = &mut self.compare {
            c.set_series(series);
        }
    }
}
