//! `ttnn-tui BEFORE --compare AFTER`: the earlier run beside the shown one — its state built from
//! both reports, and its one pass over `buffers` (the memory lines tab 5 draws beside the shown
//! run's), a background pass of its own over the earlier report.

use super::pass::{JobPass, Pass};
use super::session::Session;
use crate::analysis::memory::usage_series::UsageSeries;
use crate::analysis::sanitize::sanitize_line;
use crate::app::{App, Comparison, Job, JobEnd};
use crate::report::{MemoryReport, ReportError};
use std::sync::atomic::AtomicBool;

/// The comparison of the shown report with an earlier one.
pub fn comparison(before: &MemoryReport, shown: &MemoryReport) -> Comparison {
    let name = sanitize_line(&before.name);
    Comparison::new(name, (before.operations.clone(), &before.errors), (&shown.operations, &shown.errors))
}

/// BEFORE's memory lines: the one pass over `buffers`, else the graph replay (as the shown run's
/// tab 5 reads its own).
pub struct BeforePass;

impl Pass for BeforePass {
    type Output = Result<Vec<UsageSeries>, ReportError>;
    // The earlier run is not watched: its lines hold whatever the shown report does.
    const PER_GENERATION: bool = false;

    fn run(self, report: &MemoryReport, cancel: &AtomicBool, progress: &mut dyn FnMut(u64, u64)) -> Self::Output {
        Ok(report.passes().run_memory(cancel, &mut |p| progress(p.done, p.total))?.series)
    }

    fn failed(self, error: ReportError) -> Self::Output {
        Err(error)
    }

    fn lost() -> Self::Output {
        Err(ReportError::Read { what: "buffers", message: "the pass stopped".into() })
    }

    fn progress(app: &mut App, done: u64, total: u64) {
        app.job_progress(Job::BeforeUsage, done, total);
    }

    fn install(output: Self::Output, _: &mut Session, app: &mut App) {
        match output {
            Ok(series) => {
                app.set_before_usage(series);
                app.job_ended(Job::BeforeUsage, JobEnd::Done);
            }
            Err(ReportError::Cancelled) => app.job_ended(Job::BeforeUsage, JobEnd::Cancelled),
            Err(e) => app.job_ended(Job::BeforeUsage, JobEnd::Failed(e.to_string())),
        }
    }

    fn stale(_: Option<Self::Output>, _: &mut Session, app: &mut App) {
        app.job_ended(Job::BeforeUsage, JobEnd::Cancelled);
    }
}

impl JobPass for BeforePass {
    const JOB: Job = Job::BeforeUsage;

    fn prepare(_: &mut Session, _: &App) -> Self {
        Self
    }

    fn report(session: &Session) -> Option<&MemoryReport> {
        session.before.as_ref()
    }
}

impl Session {
    /// The session compares its report with an earlier run (`--compare`): the state's comparison.
    pub fn compare_with(&mut self, before: MemoryReport, app: &mut App) {
        app.set_comparison(comparison(&before, &self.report));
        self.before = Some(before);
    }
}
