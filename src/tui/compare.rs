//! `ttnn-tui BEFORE --compare AFTER`: the earlier run beside the shown one — its state built from
//! both reports, and its one pass over `buffers` (the memory lines tab 5 draws beside the shown
//! run's) on a worker of its own.

use super::session::Session;
use super::worker::{Update, Waker, Worker};
use crate::analysis::sanitize::sanitize_line;
use crate::analysis::usage_series::UsageSeries;
use crate::app::{App, Comparison, Job};
use crate::report::{MemoryReport, ReportError};
use std::sync::atomic::AtomicBool;

/// What BEFORE's pass gives: its memory lines, or why not.
pub type BeforeResult = Result<Vec<UsageSeries>, ReportError>;

/// The comparison of the shown report with an earlier one.
pub fn comparison(before: &MemoryReport, shown: &MemoryReport) -> Comparison {
    let name = sanitize_line(&before.name);
    Comparison::new(name, (before.operations.clone(), &before.errors), (&shown.operations, &shown.errors))
}

/// BEFORE's memory lines, read on the calling thread: the one pass over `buffers`, else the
/// graph replay (as the shown run's tab 5 reads its own).
fn before_lines(before: &MemoryReport, cancel: &AtomicBool, progress: &mut dyn FnMut(u64, u64)) -> BeforeResult {
    Ok(before.run_memory(cancel, &mut |p| progress(p.done, p.total))?.series)
}

/// Reads BEFORE's memory lines on a worker.
pub fn before_job(before: &MemoryReport, generation: u64, waker: Waker) -> Worker<BeforeResult> {
    let reopen = before.reopener();
    Worker::start(generation, waker, move |cancel, progress| {
        let report = reopen.open()?;
        before_lines(&report, cancel, progress)
    })
}

/// Hands BEFORE's lines (or why they could not be read) to the state.
pub(crate) fn finish_before(app: &mut App, result: BeforeResult) {
    match result {
        Ok(series) => {
            app.set_before_usage(series);
            app.job_finished(Job::BeforeUsage, Ok(()));
        }
        Err(ReportError::Cancelled) => app.job_cancelled(Job::BeforeUsage),
        Err(e) => app.job_finished(Job::BeforeUsage, Err(e.to_string())),
    }
}

impl Session {
    /// The session compares its report with an earlier run (`--compare`): the state's comparison.
    pub fn compare_with(&mut self, before: MemoryReport, app: &mut App) {
        app.set_comparison(comparison(&before, &self.report));
        self.before = Some(before);
    }

    /// Reads BEFORE's lines here and now (tests; the loop runs [`before_job`]).
    pub(crate) fn run_before_job(&self, app: &mut App) {
        if let Some(before) = &self.before {
            finish_before(app, before_lines(before, &AtomicBool::new(false), &mut |_, _| {}));
        }
    }
}

/// Takes what BEFORE's worker said; true when anything arrived.
pub(crate) fn collect_before(worker: &mut Option<Worker<BeforeResult>>, app: &mut App) -> bool {
    let mut changed = false;
    while let Some(w) = worker {
        let Some(update) = w.try_update() else { break };
        changed = true;
        match update {
            Update::Progress { done, total } => app.job_progress(Job::BeforeUsage, done, total),
            Update::Done(result) => {
                finish_before(app, result);
                *worker = None;
            }
            Update::Lost => {
                let stopped = ReportError::Read { what: "buffers", message: "the pass stopped".into() };
                finish_before(app, Err(stopped));
                *worker = None;
            }
        }
    }
    changed
}
