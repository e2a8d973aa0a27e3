//! The background passes the state asks the loop for, and how far each is: one state per pass,
//! kept in one place (`Jobs`) that both tabs read.

/// A background pass the loop runs for the state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Job {
    /// Replay every captured graph (the memory at `graph_only` failures, and the run over time
    /// of a report without `buffers` rows).
    ReplayGraphs,
    /// The run over time: every `buffers` row summed per operation, device and buffer type (or,
    /// on a report without them, the replayed graphs' figures), and the tensors held past their
    /// last use.
    Usage,
    /// The same for the earlier run the shown one is compared with (`--compare`).
    BeforeUsage,
    /// The memory at the selected failure (tab 4), while it is shown: the picture the loop
    /// reads on a worker, never on the UI thread (the holders may need the report's tensor
    /// index, seconds on a large report).
    Picture,
    /// The selected failure's fixes, each replayed (tab 4), while it is shown.
    Fixes,
    /// The fixes the user typed for the selected failure (`w`), replayed while it is shown.
    WhatIf,
}

/// Every background pass, in the order the loop looks at them.
pub const JOBS: [Job; 6] = [Job::ReplayGraphs, Job::Usage, Job::BeforeUsage, Job::Picture, Job::Fixes, Job::WhatIf];

/// A background pass: its progress, or how it ended.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum JobState {
    /// Not running: not started, or cancelled (it starts again when wanted).
    #[default]
    Idle,
    /// Running: `done` of `total` units read.
    Running {
        /// Units done.
        done: u64,
        /// Units in all (0 when unknown yet).
        total: u64,
    },
    /// Finished.
    Done,
    /// Failed, and why.
    Failed(String),
}

impl JobState {
    /// The fraction done while running, 0.0 to 1.0 (0.0 while the total is unknown).
    pub(crate) fn fraction(&self) -> f64 {
        match self {
            Self::Running { done, total } if *total > 0 => (*done as f64 / *total as f64).clamp(0.0, 1.0),
            _ => 0.0,
        }
    }

    /// Not finished yet: idle or running.
    pub(crate) fn open(&self) -> bool {
        matches!(self, Self::Idle | Self::Running { .. })
    }
}

/// How a background pass ended, as the loop tells the state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JobEnd {
    /// It ended with its result (handed over just before).
    Done,
    /// It was cancelled (left behind, or started for an earlier state of a watched report).
    Cancelled,
    /// It failed, and why.
    Failed(String),
}

/// The state of every background pass.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Jobs {
    /// The graph replay.
    pub(crate) replay: JobState,
    /// The run over time.
    pub(crate) usage: JobState,
    /// The earlier run's memory lines (`--compare`).
    pub(crate) before: JobState,
    /// The selected failure's picture.
    pub(crate) picture: JobState,
    /// The selected failure's fixes.
    pub(crate) fixes: JobState,
    /// The fixes typed.
    pub(crate) what_if: JobState,
}

impl Jobs {
    /// The state of one pass.
    pub fn state(&self, job: Job) -> &JobState {
        match job {
            Job::ReplayGraphs => &self.replay,
            Job::Usage => &self.usage,
            Job::BeforeUsage => &self.before,
            Job::Picture => &self.picture,
            Job::Fixes => &self.fixes,
            Job::WhatIf => &self.what_if,
        }
    }

    /// Sets the state of one pass.
    pub(crate) fn set(&mut self, job: Job, state: JobState) {
        match job {
            Job::ReplayGraphs => self.replay = state,
            Job::Usage => self.usage = state,
            Job::BeforeUsage => self.before = state,
            Job::Picture => self.picture = state,
            Job::Fixes => self.fixes = state,
            Job::WhatIf => self.what_if = state,
        }
    }
}
