//! Tab 4's memory at a failure as a background pass, like its replays (`replays.rs`): the
//! holders of a failure may need the report's tensor index (seconds on a large report), so the
//! picture is read on a worker, started when the selection shows a failure whose picture is not
//! read (`App::picture_wanted`), cancelled when it moves on, and drawn when it lands — "Reading
//! the memory of this operation…" until then. No key waits for it.

use super::pass::{JobPass, Pass};
use super::session::{Session, loaded, memory_picture};
use crate::app::{App, Job, JobEnd, MemoryPicture};
use crate::report::memory::graph_only::GraphOnlyPass;
use crate::report::{MemoryReport, ReportError};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

/// The memory at a failure, read for tab 4.
pub struct PicturePass {
    /// The failed operation (index); none when the state wants none.
    operation: Option<usize>,
    replay: Option<Arc<GraphOnlyPass>>,
}

/// What [`PicturePass`] gives: the operation and its picture, or why not.
pub type PictureOutput = (Option<usize>, Result<MemoryPicture, ReportError>);

impl PicturePass {
    /// The picture at the failure of the operation at `operation`.
    pub fn new(operation: usize, session: &Session) -> Self {
        Self { operation: Some(operation), replay: session.replay.clone() }
    }
}

impl Pass for PicturePass {
    type Output = PictureOutput;

    fn run(self, report: &MemoryReport, _: &AtomicBool, _: &mut dyn FnMut(u64, u64)) -> PictureOutput {
        let Some(i) = self.operation else { return (None, Err(ReportError::Cancelled)) };
        (Some(i), memory_picture(report, self.replay.as_deref(), i, None, true))
    }

    fn failed(self, error: ReportError) -> PictureOutput {
        (self.operation, Err(error))
    }

    fn lost() -> PictureOutput {
        (None, Err(ReportError::Read { what: "the memory at the failure", message: "the read stopped".into() }))
    }

    fn progress(app: &mut App, done: u64, total: u64) {
        app.job_progress(Job::Picture, done, total);
    }

    fn install((operation, picture): PictureOutput, _: &mut Session, app: &mut App) {
        match (operation, picture) {
            // Left behind: read when the failure is shown again.
            (_, Err(ReportError::Cancelled)) | (None, _) => app.job_ended(Job::Picture, JobEnd::Cancelled),
            // A picture read for a failure the selection left is still that failure's.
            (Some(i), picture) => app.set_picture(i, loaded(picture)),
        }
    }

    fn stale(_: Option<PictureOutput>, _: &mut Session, app: &mut App) {
        app.job_ended(Job::Picture, JobEnd::Cancelled);
    }
}

impl JobPass for PicturePass {
    const JOB: Job = Job::Picture;

    fn prepare(session: &mut Session, app: &App) -> Self {
        Self { operation: app.picture_wanted(), replay: session.replay.clone() }
    }
}
