//! The loop's background passes on worker threads: one [`Slot`] per pass (linking a performance
//! report, the graph replay, the run over time, tab 4's picture and replays), each started when the state wants it
//! (`App::want`), cancelled when it no longer does, and collected by the one collect loop; and
//! the same passes run in place (`Session::run_job`, for tests and benchmarks).

use super::compare::BeforePass;
use super::pass::Pass;
use super::pass::{JobPass, Slot, run_here};
use super::passes::{LinkPass, ReplayPass, UsagePass};
use super::picture::PicturePass;
use super::replays::{FixesPass, WhatIfPass};
use super::session::Session;
use super::worker::Waker;
use crate::analysis::memory::whatif::Fix;
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
    /// The selected failure's picture, and the failure it is read for.
    picture: Targeted<PicturePass, usize>,
    /// The selected failure's fixes, and the failure they are replayed for.
    fixes: Targeted<FixesPass, usize>,
    /// The fixes typed, and the failure and fixes they are.
    what_if: Targeted<WhatIfPass, (usize, Vec<Fix>)>,
}

/// The slot of a pass for one target of the selection (a failure, fixes typed), and the target
/// it was last started for.
struct Targeted<P: Pass, K> {
    slot: Slot<P>,
    target: Option<K>,
}

impl<P: Pass, K> Default for Targeted<P, K> {
    fn default() -> Self {
        Self { slot: Slot::default(), target: None }
    }
}

impl<P: Pass, K: PartialEq + Clone> Targeted<P, K> {
    /// Starts the pass for `wanted` when none runs, and cancels one that runs for another
    /// target (or when none is wanted): its result still arrives and says it was cancelled,
    /// and the pass for the new target starts then.
    fn steer(&mut self, wanted: Option<K>, session: &Session, app: &mut App, waker: &Waker, make: impl FnOnce(K) -> P) {
        match wanted {
            Some(k) if !self.slot.busy() => {
                self.target = Some(k.clone());
                self.slot.start(make(k), session, waker.clone());
                P::progress(app, 0, 0);
            }
            Some(k) if self.target.as_ref() != Some(&k) => self.slot.cancel(),
            None if self.slot.busy() => self.slot.cancel(),
            _ => {}
        }
    }
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
        Self {
            waker,
            link: Slot::default(),
            replay: Slot::default(),
            usage: Slot::default(),
            before: Slot::default(),
            picture: Targeted::default(),
            fixes: Targeted::default(),
            what_if: Targeted::default(),
        }
    }

    /// Starts linking a performance report.
    pub fn link(&mut self, session: &Session, app: &mut App, perf: PerfSource) {
        app.set_perf_linking(perf.file_name());
        self.link.start(LinkPass::new(perf), session, self.waker.clone());
    }

    /// Whether any pass runs.
    pub fn busy(&self) -> bool {
        let replaying = self.picture.slot.busy() || self.fixes.slot.busy() || self.what_if.slot.busy();
        self.link.busy() || self.replay.busy() || self.usage.busy() || self.before.busy() || replaying
    }

    /// Starts the passes the state wants that do not run, and cancels the running ones it no
    /// longer wants.
    pub fn start_wanted(&mut self, session: &mut Session, app: &mut App) {
        for job in JOBS {
            match job {
                Job::ReplayGraphs => steer(&mut self.replay, session, app, &self.waker),
                Job::Usage => steer(&mut self.usage, session, app, &self.waker),
                Job::BeforeUsage => steer(&mut self.before, session, app, &self.waker),
                Job::Picture => {
                    let wanted = app.picture_wanted();
                    self.picture.steer(wanted, session, app, &self.waker, |i| PicturePass::new(i, session));
                }
                Job::Fixes => {
                    let wanted = app.fixes_wanted();
                    self.fixes.steer(wanted, session, app, &self.waker, |i| FixesPass::new(i, session));
                }
                Job::WhatIf => {
                    let wanted = app.what_if_wanted();
                    let make = |(i, fixes)| WhatIfPass::new(i, fixes, session);
                    self.what_if.steer(wanted, session, app, &self.waker, make);
                }
            }
        }
    }

    /// Hands what the passes said to the state; true when anything arrived.
    pub fn collect(&mut self, session: &mut Session, app: &mut App) -> bool {
        let linked = self.link.collect(session, app);
        let replayed = self.replay.collect(session, app);
        let summed = self.usage.collect(session, app);
        let before = self.before.collect(session, app);
        let pictured = self.picture.slot.collect(session, app);
        let fixed = self.fixes.slot.collect(session, app);
        let typed = self.what_if.slot.collect(session, app);
        linked || replayed || summed || before || pictured || fixed || typed
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
            Job::Picture => run_here::<PicturePass>(self, app),
            Job::Fixes => run_here::<FixesPass>(self, app),
            Job::WhatIf => run_here::<WhatIfPass>(self, app),
        }
    }
}
