//! The questions that combine the report's readers: each borrows the core and asks it for the
//! readers it needs (docs/architecture.md, "The report's core and its questions"). Their methods
//! are in their files: `Pictures` in `pictures.rs` and beside it, `Replays` in `whatif*.rs`, `Passes` in
//! `run_events.rs`, `run_memory.rs`, `whole_run.rs` and `operation_stream.rs`, `Late` in `late.rs`.

use super::memory_report::MemoryReport;

/// The memory pictures: at a failure, after an operation, when an operation started.
#[derive(Clone, Copy)]
pub struct Pictures<'r> {
    /// The report asked.
    pub(super) report: &'r MemoryReport,
}

/// The what-if replays of a failure: its fixes, typed or ranked, replayed from a checkpoint.
#[derive(Clone, Copy)]
pub struct Replays<'r> {
    /// The report asked.
    pub(super) report: &'r MemoryReport,
}

/// The passes over the whole run: its events for the true peak, its memory for a comparison,
/// and the operations of a range read in order (graphs and snapshots side by side).
#[derive(Clone, Copy)]
pub struct Passes<'r> {
    /// The report asked.
    pub(super) report: &'r MemoryReport,
}

/// Where to free memory: the tensors held past their last use, and what freeing them does at
/// each failure.
#[derive(Clone, Copy)]
pub struct Late<'r> {
    /// The report asked.
    pub(super) report: &'r MemoryReport,
}

impl MemoryReport {
    /// The memory at a failure, after an operation, when one started.
    pub fn pictures(&self) -> Pictures<'_> {
        Pictures { report: self }
    }

    /// What a failure's fixes would do, replayed.
    pub fn replays(&self) -> Replays<'_> {
        Replays { report: self }
    }

    /// The passes over the whole run (the true peak's events, a run's memory for `diff`).
    pub fn passes(&self) -> Passes<'_> {
        Passes { report: self }
    }

    /// Where to free memory (`explain --late`).
    pub fn late(&self) -> Late<'_> {
        Late { report: self }
    }

    /// Asks `questions` in one read transaction: one lock and one look at the header for all
    /// of them instead of one per statement (held for that answer only).
    pub fn in_one_read<T>(&self, questions: impl FnOnce() -> T) -> T {
        self.store.in_one_read(questions)
    }
}
