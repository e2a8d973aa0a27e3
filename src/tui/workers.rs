//! The loop's background passes on worker threads: one [`Slot`] per pass (linking a performance
//! report, the graph replay, the run over time), each started when the state wants it
//! (`App::want`), cancelled when it no longer does, and collected by the one collect loop; and
//! the same passes run in place (`Session::run_job`, for tests and benchmarks).

use super::compare::BeforePass;
use super::pass::{JobPass, Slot, run_here};
use super::passes::{LinkPass, ReplayPass, UsagePass};
use super::session::Session;
use super::worker::Waker;
use crate::app::{App, JOBS, Job};
use crate::report::perf::perf_report::PerfSource;

/// The background passes running for the UI.
pub struct Workers {
    waker: Waker,
    link: Slot<LinkPass>,
    replay: Slot<ReplayPass>,
    usage: Slot<UsagePass>,
    /// The earlier run's lines (`--compare`).
    before: Slot<BeforePass>,
}

/// Starts a pass the state wants and does not run, or cancels one it runs and no longer wants.
fn steer<P: JobPass>(slot: &mut Slot<P>, session: &mut Session, app: &mut App, waker: &Waker) {
    match (app.want(P::JOB), slot.busy()) {
        (true, false) => {
            let pass = P::prepare(session, app);
            let Some(report) = P::report(session) else { return };
            slot.start_on(pass, report, session.generation(), waker.clone());
            P::progress(app, 0, 0);
        }
        (false, true) => slot.cancel(),
        _ => {}
    }
}

impl Workers {
    /// Nothing running yet; `waker` wakes the loop whenever a pass says something.
    pub fn new(waker: Waker) -> Self {
        Self { waker, link: Slot::default(), replay: Slot::default(), usage: Slot::default(), before: Slot::default() }
    }

    /// Starts linking a performance report.
    pub fn link(&mut self, session: &Session, app: &mut App, perf: PerfSource) {
        app.set_perf_linking(perf.file_name());
        self.link.start(LinkPass::new(perf), session, self.waker.clone());
    }

    /// Whether any pass runs.
    pub fn busy(&self) -> bool {
        self.link.busy() || self.replay.busy() || self.usage.busy() || self.before.busy()
    }

    /// Starts the passes the state wants that do not run, and cancels the running ones it no
    /// longer wants.
    pub fn start_wanted(&mut self, session: &mut Session, app: &mut App) {
        for job in JOBS {
            match job {
                Job::ReplayGraphs => steer(&mut self.replay, session, app, &self.waker),
                Job::Usage => steer(&mut self.usage, session, app, &self.waker),
                Job::BeforeUsage => steer(&mut self.before, session, app, &self.waker),
            }
        }
    }

    /// Hands what the passes said to the state; true when anything arrived.
    pub fn collect(&mut self, session: &mut Session, app: &mut App) -> bool {
        let linked = self.link.collect(session, app);
        let replayed = self.replay.collect(session, app);
        let summed = self.usage.collect(session, app);
        let before = self.before.collect(session, app);
        linked || replayed || summed || before
    }
}

impl Session {
    /// Runs a pass the state wants here and now, for tests and benchmarks: the loop runs it on
    /// a worker thread, the same run and the same install.
    pub fn run_job(&mut self, job: Job, app: &mut App) {
        match job {
            Job::ReplayGraphs => run_here::<ReplayPass>(self, app),
            Job::Usage => run_here::<UsagePass>(self, app),
            Job::BeforeUsage => run_here::<BeforePass>(self, app),
        }
    }
}
