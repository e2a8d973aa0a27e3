//! One background pass, one type: what it takes as it starts, its run against a report, and how
//! its result is installed. The same run serves both paths: in place on the session's report
//! (tests, benchmarks: [`run_here`]) and on a [`Worker`] with a read-only connection of its own
//! ([`start`], then [`Slot::collect`], the one collect loop of every pass).

use super::session::Session;
use super::worker::{Update, Waker, Worker};
use crate::app::{App, Job};
use crate::report::memory::watch::Reopener;
use crate::report::{MemoryReport, ReportError};
use std::sync::atomic::{AtomicBool, Ordering};

/// A background pass.
pub trait Pass: Sized + Send + 'static {
    /// What its run gives.
    type Output: Send + 'static;

    /// Whether its result is for the report as it was when it started: a run started before a
    /// watched report changed is then stale (see [`Pass::stale`]).
    const PER_GENERATION: bool = true;

    /// Whether a stale run is worth waiting for (it is cancelled, and what it read so far goes
    /// to [`Pass::stale`]); otherwise it is dropped at once.
    const WAIT_WHEN_STALE: bool = false;

    /// Runs against `report`, looking at `cancel` and telling `progress` (done, total).
    fn run(self, report: &MemoryReport, cancel: &AtomicBool, progress: &mut dyn FnMut(u64, u64)) -> Self::Output;

    /// What the run gives when it cannot run: the report not opened again, or cancelled first.
    fn failed(self, error: ReportError) -> Self::Output;

    /// What a run whose thread stopped without a result (a panic) gives.
    fn lost() -> Self::Output;

    /// Tells the state how far the run is.
    fn progress(app: &mut App, done: u64, total: u64);

    /// Hands the result to the session and the state.
    fn install(output: Self::Output, session: &mut Session, app: &mut App);

    /// A run for an earlier state of a watched report ended: what it read (when it was waited
    /// for) is kept if worth it, and the state is told.
    fn stale(output: Option<Self::Output>, session: &mut Session, app: &mut App);
}

/// A pass the state asks for (`App::want`).
pub trait JobPass: Pass {
    /// The job it is.
    const JOB: Job;

    /// The pass as it starts, taking what it needs from the session and the state.
    fn prepare(session: &mut Session, app: &App) -> Self;

    /// The report it reads: the session's, unless it is about another run (none: not now).
    fn report(session: &Session) -> Option<&MemoryReport> {
        Some(&session.report)
    }
}

/// Runs a pass the state wants here and now, on the session's report, and installs its result:
/// what the loop does on a worker thread, without the thread.
pub fn run_here<P: JobPass>(session: &mut Session, app: &mut App) {
    let pass = P::prepare(session, app);
    let Some(report) = P::report(session) else { return };
    P::progress(app, 0, 0);
    let output = pass.run(report, &AtomicBool::new(false), &mut |done, total| P::progress(app, done, total));
    P::install(output, session, app);
}

/// Starts a pass on a worker thread with its own read-only connection to `report`, for the
/// report's `generation`.
pub fn start_worker<P: Pass>(pass: P, report: &MemoryReport, generation: u64, waker: Waker) -> Worker<P::Output> {
    let reopen = report.reopener();
    Worker::start(generation, waker, move |cancel, progress| run_reopened(pass, &reopen, cancel, progress))
}

/// A worker's run: the report opened again on its thread, unless cancelled first.
pub(crate) fn run_reopened<P: Pass>(
    pass: P,
    reopen: &Reopener,
    cancel: &AtomicBool,
    progress: &mut dyn FnMut(u64, u64),
) -> P::Output {
    if cancel.load(Ordering::Relaxed) {
        return pass.failed(ReportError::Cancelled);
    }
    match reopen.open() {
        Ok(report) => pass.run(&report, cancel, progress),
        Err(e) => pass.failed(e),
    }
}

/// The worker of one pass, when it runs.
pub struct Slot<P: Pass> {
    worker: Option<Worker<P::Output>>,
}

impl<P: Pass> Default for Slot<P> {
    fn default() -> Self {
        Self { worker: None }
    }
}

impl<P: Pass> Slot<P> {
    /// Whether the pass runs.
    pub fn busy(&self) -> bool {
        self.worker.is_some()
    }

    /// Starts the pass on a worker (the slot is free).
    pub fn start(&mut self, pass: P, session: &Session, waker: Waker) {
        self.start_on(pass, &session.report, session.generation(), waker);
    }

    /// Starts the pass on a worker over `report` (the slot is free).
    pub fn start_on(&mut self, pass: P, report: &MemoryReport, generation: u64, waker: Waker) {
        self.worker = Some(start_worker(pass, report, generation, waker));
    }

    /// Asks a running pass to stop; its result still arrives, and is installed.
    pub fn cancel(&self) {
        if let Some(worker) = &self.worker {
            worker.cancel();
        }
    }

    /// Hands what the worker said to the state; true when anything arrived. A run started for an
    /// earlier state of a watched report is stale: cancelled and waited for, or dropped at once.
    pub fn collect(&mut self, session: &mut Session, app: &mut App) -> bool {
        let mut changed = false;
        while let Some(worker) = &mut self.worker {
            let stale = P::PER_GENERATION && worker.generation() != session.generation();
            if stale && !P::WAIT_WHEN_STALE {
                self.worker = None;
                P::stale(None, session, app);
                return true;
            }
            if stale {
                worker.cancel();
            }
            let Some(update) = worker.try_update() else { break };
            changed = true;
            match update {
                Update::Progress { done, total } => {
                    if !stale {
                        P::progress(app, done, total);
                    }
                }
                Update::Done(output) => {
                    self.worker = None;
                    if stale { P::stale(Some(output), session, app) } else { P::install(output, session, app) }
                }
                Update::Lost => {
                    self.worker = None;
                    P::install(P::lost(), session, app);
                }
            }
        }
        changed
    }
}
