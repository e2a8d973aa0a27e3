//! What arrives from outside the keyboard: the background passes the state asks the loop for
//! (the graph replay, the pass over `buffers`) and their progress, the performance report linked
//! on a worker thread, and a watched report's changes.

use super::over_time::UsageSource;
use super::{App, Job, JobState, MemoryTab, PerfInput, PerfState, PerfTab, Tab};
use crate::analysis::model::{ErrorRecord, Operation};
use crate::analysis::usage_series::UsageSeries;
use std::collections::HashMap;

impl App {
    /// The background passes the state needs now and that have not started.
    pub fn wanted_jobs(&self) -> Vec<Job> {
        let mut jobs = Vec::new();
        let over_time = &self.over_time;
        let replay_for_over_time = over_time.source == UsageSource::GraphReplay && over_time.pass == JobState::Wanted;
        if self.memory.replay == JobState::Wanted || replay_for_over_time {
            jobs.push(Job::ReplayGraphs);
        }
        if self.tab == Tab::OverTime && over_time.source == UsageSource::Snapshots && over_time.pass == JobState::Idle {
            jobs.push(Job::Usage);
        }
        if self.tab == Tab::OverTime && self.compare.as_ref().is_some_and(|c| c.pass == JobState::Idle) {
            jobs.push(Job::BeforeUsage);
        }
        jobs
    }

    /// Background passes running that the state no longer needs: the pass over `buffers` once
    /// the Over time tab is left. The loop cancels them and calls `job_cancelled`.
    pub fn unwanted_jobs(&self) -> Vec<Job> {
        let reading = self.over_time.source == UsageSource::Snapshots;
        let running = reading && matches!(self.over_time.pass, JobState::Running { .. });
        if running && self.tab != Tab::OverTime { vec![Job::Usage] } else { Vec::new() }
    }

    /// A background pass was cancelled (left behind, or started for an earlier state of a
    /// watched report); it starts again when wanted (the pass over `buffers` from where it
    /// stopped).
    pub fn job_cancelled(&mut self, job: Job) {
        match job {
            Job::Usage => self.over_time.pass = JobState::Idle,
            Job::BeforeUsage => self.set_before_pass(JobState::Idle),
            Job::ReplayGraphs => {
                if matches!(self.memory.replay, JobState::Wanted | JobState::Running { .. }) {
                    self.memory.replay = JobState::Wanted;
                }
                if self.over_time.source == UsageSource::GraphReplay && self.over_time.pass != JobState::Done {
                    self.over_time.pass = JobState::Wanted;
                }
            }
        }
    }

    /// The run over time landed: every series.
    pub fn set_usage(&mut self, series: Vec<UsageSeries>) {
        self.over_time.set_series(series);
    }

    /// The tensors held past their last use, found from the same pass as the run over time.
    pub fn set_late(&mut self, late: crate::analysis::late::LateFindings) {
        self.over_time.set_late(late);
    }

    /// Whether the run over time waits for the graph replay.
    pub fn usage_waits_for_replay(&self) -> bool {
        self.over_time.source == UsageSource::GraphReplay && self.over_time.pass != JobState::Done
    }

    /// The report has no `buffers` rows: the run over time needs every graph replayed.
    pub fn usage_needs_replay(&mut self) {
        self.over_time.source = UsageSource::GraphReplay;
        self.over_time.pass = JobState::Wanted;
    }

    /// A background pass's progress: `done` of `total` units.
    pub fn job_progress(&mut self, job: Job, done: u64, total: u64) {
        match job {
            Job::ReplayGraphs => {
                if self.usage_waits_for_replay() {
                    self.over_time.pass = JobState::Running { done, total };
                }
                if self.memory.replay != JobState::Idle {
                    self.memory.replay = JobState::Running { done, total };
                }
            }
            Job::Usage => self.over_time.pass = JobState::Running { done, total },
            Job::BeforeUsage => self.set_before_pass(JobState::Running { done, total }),
        }
    }

    /// A background pass ended, or failed and why.
    pub fn job_finished(&mut self, job: Job, result: Result<(), String>) {
        match job {
            Job::ReplayGraphs => {
                if self.memory.replay != JobState::Idle {
                    self.memory.replay_finished(result.clone());
                }
                if let Err(reason) = result
                    && self.usage_waits_for_replay()
                {
                    self.over_time.pass = JobState::Failed(reason);
                }
            }
            Job::Usage => {
                if let Err(reason) = result {
                    self.over_time.pass = JobState::Failed(reason);
                }
            }
            Job::BeforeUsage => {
                if let Err(reason) = result {
                    self.set_before_pass(JobState::Failed(reason));
                }
            }
        }
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
        failed_in: HashMap<usize, Vec<String>>,
        new_failures: &[u64],
        reordered: bool,
    ) {
        let before = self.model.operations.len();
        let selected_id = self.selected_operation().map(|i| self.model.operations[i].id);
        self.model.replace(operations, errors, failed_in, reordered);
        self.operations.model_changed(&self.model, selected_id, reordered);
        self.live = Some((self.model.operations.len(), self.model.operations.len().saturating_sub(before)));
        self.memory = MemoryTab::default();
        if reordered {
            self.device_ops.clear();
        }
        if self.over_time.pass == JobState::Done {
            // The pass goes on from where it stopped: only the new rows are read (and, if there
            // are still none, the graphs are replayed again).
            self.over_time.pass = JobState::Idle;
            self.over_time.source = UsageSource::Snapshots;
        }
        if let Some(&id) = new_failures.last() {
            let name = self.model.operation_index(id).map_or("", |i| self.model.operations[i].name.as_str());
            self.message = Some(format!("New failure: operation {id} {name}"));
            if !self.operations.moved
                && let Some(index) = self.model.operation_index(id)
            {
                self.operations.show_operation(index, &self.model);
            }
        }
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
