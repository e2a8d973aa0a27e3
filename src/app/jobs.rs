//! The background passes the state asks the loop for, and how far each is: one state type for
//! the Memory tab's graph replay and the Over time tab's pass.

/// A background pass the loop runs for the state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Job {
    /// Replay every captured graph (the memory at `graph_only` failures, and the run over time
    /// of a report without `buffers` rows).
    ReplayGraphs,
    /// Sum every `buffers` row per operation, device and buffer type (the run over time).
    Usage,
    /// The same for the earlier run the shown one is compared with (`--compare`).
    BeforeUsage,
}

/// A background pass the state may need: its progress, or how it ended.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum JobState {
    /// Not asked for.
    #[default]
    Idle,
    /// Asked for, not started yet.
    Wanted,
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
}
