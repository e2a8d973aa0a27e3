//! Tab 4's replays as background passes, like the run over time: the selected failure's fixes
//! ([`FixesPass`]) and the fixes typed at `w` ([`WhatIfPass`]), each started when the selection
//! needs it (`App::fixes_wanted`, `App::what_if_wanted`), cancelled when it moves on (the
//! replay stops between operations), and drawn when it lands — "Replaying each fix…" until
//! then. No key waits for a replay.

use super::pass::{JobPass, Pass};
use super::session::Session;
use crate::analysis::memory::whatif::{Fix, ReplayedAdvice};
use crate::answer;
use crate::app::{App, Job, JobEnd, Loaded};
use crate::report::memory::graph_only::GraphOnlyPass;
use crate::report::{MemoryReport, ReportError};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

/// A failure's advice, each line replayed.
pub struct FixesPass {
    /// The failed operation (index); none when the state wants none.
    operation: Option<usize>,
    replay: Option<Arc<GraphOnlyPass>>,
}

/// What [`FixesPass`] gives: the operation and its replayed advice, or why not.
pub type FixesOutput = (Option<usize>, Result<Vec<ReplayedAdvice>, ReportError>);

impl FixesPass {
    /// The fixes of the failure of the operation at `operation`.
    pub fn new(operation: usize, session: &Session) -> Self {
        Self { operation: Some(operation), replay: session.replay.clone() }
    }
}

impl Pass for FixesPass {
    type Output = FixesOutput;

    fn run(self, report: &MemoryReport, cancel: &AtomicBool, _: &mut dyn FnMut(u64, u64)) -> FixesOutput {
        let Some(i) = self.operation else { return (None, Err(ReportError::Cancelled)) };
        (Some(i), answer::failure_advice(report, i, self.replay.as_deref(), Some(cancel)))
    }

    fn failed(self, error: ReportError) -> FixesOutput {
        (self.operation, Err(error))
    }

    fn lost() -> FixesOutput {
        (None, Err(ReportError::Read { what: "the run's records", message: "the replay stopped".into() }))
    }

    fn progress(app: &mut App, done: u64, total: u64) {
        app.job_progress(Job::Fixes, done, total);
    }

    fn install((operation, fixes): FixesOutput, _: &mut Session, app: &mut App) {
        match (operation, fixes) {
            // Left behind: asked again when the failure is shown again.
            (_, Err(ReportError::Cancelled)) | (None, _) => app.job_ended(Job::Fixes, JobEnd::Cancelled),
            (Some(i), Ok(fixes)) => app.set_fixes(i, Loaded::Ready(fixes)),
            (Some(i), Err(e)) => app.set_fixes(i, Loaded::Unavailable(e.to_string())),
        }
    }

    fn stale(_: Option<FixesOutput>, _: &mut Session, app: &mut App) {
        app.job_ended(Job::Fixes, JobEnd::Cancelled);
    }
}

impl JobPass for FixesPass {
    const JOB: Job = Job::Fixes;

    fn prepare(session: &mut Session, app: &App) -> Self {
        Self { operation: app.fixes_wanted(), replay: session.replay.clone() }
    }
}

/// Fixes the user typed for a failure, replayed.
pub struct WhatIfPass {
    /// The failed operation (index) and the fixes; none when the state wants none.
    asked: Option<(usize, Vec<Fix>)>,
    replay: Option<Arc<GraphOnlyPass>>,
}

/// What [`WhatIfPass`] gives: the operation and fixes asked, and their replay (`Err(why)`: a
/// fix cannot act on the run), or why not.
pub type WhatIfOutput = (Option<(usize, Vec<Fix>)>, Result<Result<ReplayedAdvice, String>, ReportError>);

impl WhatIfPass {
    /// The replay of `fixes` at the failure of the operation at `operation`.
    pub fn new(operation: usize, fixes: Vec<Fix>, session: &Session) -> Self {
        Self { asked: Some((operation, fixes)), replay: session.replay.clone() }
    }
}

impl Pass for WhatIfPass {
    type Output = WhatIfOutput;

    fn run(self, report: &MemoryReport, cancel: &AtomicBool, _: &mut dyn FnMut(u64, u64)) -> WhatIfOutput {
        let Some((i, fixes)) = self.asked else { return (None, Err(ReportError::Cancelled)) };
        let replayed = answer::your_fixes(report, i, &fixes, self.replay.as_deref(), Some(cancel));
        (Some((i, fixes)), replayed)
    }

    fn failed(self, error: ReportError) -> WhatIfOutput {
        (self.asked, Err(error))
    }

    fn lost() -> WhatIfOutput {
        (None, Err(ReportError::Read { what: "the run's records", message: "the replay stopped".into() }))
    }

    fn progress(app: &mut App, done: u64, total: u64) {
        app.job_progress(Job::WhatIf, done, total);
    }

    fn install((asked, replayed): WhatIfOutput, _: &mut Session, app: &mut App) {
        let Some((i, fixes)) = asked else { return app.job_ended(Job::WhatIf, JobEnd::Cancelled) };
        let replayed = match replayed {
            // Left behind: replayed when the failure is shown again.
            Err(ReportError::Cancelled) => return app.job_ended(Job::WhatIf, JobEnd::Cancelled),
            Ok(Ok(r)) => Loaded::Ready(r),
            Ok(Err(why)) => Loaded::Unavailable(why),
            Err(e) => Loaded::Unavailable(e.to_string()),
        };
        app.set_your_fixes(i, &fixes, replayed);
    }

    fn stale(_: Option<WhatIfOutput>, _: &mut Session, app: &mut App) {
        app.job_ended(Job::WhatIf, JobEnd::Cancelled);
    }
}

impl JobPass for WhatIfPass {
    const JOB: Job = Job::WhatIf;

    fn prepare(session: &mut Session, app: &App) -> Self {
        Self { asked: app.what_if_wanted(), replay: session.replay.clone() }
    }
}
