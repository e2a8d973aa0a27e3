//! The loop's background jobs: linking a performance report, the graph-only replay, and the pass
//! over `buffers`. Each is a [`Worker`] on its own read-only connection: progress and result over
//! a channel, cancelled when dropped or no longer wanted, and tagged with the report's generation
//! so that a result computed before a watched report changed is never installed.

use super::session::{Session, perf_input};
use super::worker::{Update, Waker, Worker};
use crate::analysis::usage::MemoryUsage;
use crate::app::{App, Job, PerfInput};
use crate::report::linked::LinkedReports;
use crate::report::memory_replay::GraphReplay;
use crate::report::perf::PerfSource;
use crate::report::watch::Reopener;
use crate::report::{MemoryReport, ReportError};
use std::sync::atomic::{AtomicBool, Ordering};

/// What linking a performance report gives: the Performance tab's input, or why not.
pub type LinkResult = Result<PerfInput, String>;
/// What the graph replay gives (`None`: cancelled).
pub type ReplayResult = Result<Option<GraphReplay>, ReportError>;
/// What the pass over `buffers` gives: the sums read (all, or as far as it got) and how it ended.
pub type UsageResult = (MemoryUsage, Result<(), ReportError>);

/// The background jobs running for the UI.
pub struct Workers {
    waker: Waker,
    linking: Option<Worker<LinkResult>>,
    replay: Option<Worker<ReplayResult>>,
    usage: Option<Worker<UsageResult>>,
    /// The earlier run's pass (`--compare`).
    before: Option<Worker<super::compare::BeforeResult>>,
}

/// Links a performance report with the memory report on a worker.
pub fn link_job(report: &MemoryReport, generation: u64, waker: Waker, perf: PerfSource) -> Worker<LinkResult> {
    let reopen = report.reopener();
    Worker::start(generation, waker, move |cancel, _| link(&perf, &reopen, cancel))
}

/// Reads the performance report and links it, looking at `cancel` between the steps.
fn link(perf: &PerfSource, reopen: &Reopener, cancel: &AtomicBool) -> LinkResult {
    let cancelled = || cancel.load(Ordering::Relaxed);
    if cancelled() {
        return Err(CANCELLED.to_string());
    }
    let perf = perf.open().map_err(|e| e.to_string())?;
    if cancelled() {
        return Err(CANCELLED.to_string());
    }
    let memory = reopen.open().map_err(|e| e.to_string())?;
    if cancelled() {
        return Err(CANCELLED.to_string());
    }
    LinkedReports::new(&memory, perf).map(perf_input).map_err(|e| e.to_string())
}

/// Why a cancelled link gave nothing.
const CANCELLED: &str = "cancelled";

/// Replays every captured graph on a worker; `with_late` (a report without `buffers` rows, whose
/// run over time is the replay's) also finds the tensors held past their last use there.
pub fn replay_job(report: &MemoryReport, generation: u64, waker: Waker, with_late: bool) -> Worker<ReplayResult> {
    let reopen = report.reopener();
    Worker::start(generation, waker, move |cancel, progress| {
        let report = reopen.open()?;
        let mut replayed = report.graphs().replay(progress, cancel)?;
        // A replay cancelled as it ended gives nothing more: the late list is not looked for.
        if let Some(replay) = replayed.as_mut().filter(|_| with_late && !cancel.load(Ordering::Relaxed)) {
            replay.late = report.replay_late(replay).ok();
        }
        Ok(replayed)
    })
}

/// Goes on with the pass over `buffers` from `usage` (`MemoryUsage::default()` for a whole pass)
/// on a worker.
pub fn usage_job(report: &MemoryReport, generation: u64, waker: Waker, usage: MemoryUsage) -> Worker<UsageResult> {
    let reopen = report.reopener();
    Worker::start(generation, waker, move |cancel, progress| {
        let mut usage = usage;
        let read = reopen.open().and_then(|report| {
            report.usage().read(&mut usage, cancel, &mut |p| progress(p.done, p.total))?;
            // Where to free memory, from the same pass, still on this thread.
            usage.late = report.late_findings(&usage).ok();
            Ok(())
        });
        (usage, read)
    })
}

impl Workers {
    /// No job running yet; `waker` wakes the loop whenever a job says something.
    pub fn new(waker: Waker) -> Self {
        Self { waker, linking: None, replay: None, usage: None, before: None }
    }

    /// Starts linking a performance report.
    pub fn link(&mut self, session: &Session, app: &mut App, perf: PerfSource) {
        app.set_perf_linking(perf.file_name());
        self.linking = Some(link_job(&session.report, session.generation(), self.waker.clone(), perf));
    }

    /// Whether any job runs.
    pub fn busy(&self) -> bool {
        self.linking.is_some() || self.replay.is_some() || self.usage.is_some() || self.before.is_some()
    }

    /// Starts the jobs the state wants that are not running, and cancels the running ones it no
    /// longer wants.
    pub fn start_wanted(&mut self, session: &mut Session, app: &mut App) {
        let generation = session.generation();
        for job in app.wanted_jobs() {
            match job {
                Job::ReplayGraphs if self.replay.is_none() => {
                    let with_late = app.usage_waits_for_replay();
                    self.replay = Some(replay_job(&session.report, generation, self.waker.clone(), with_late));
                    app.job_progress(Job::ReplayGraphs, 0, 0);
                }
                Job::Usage if self.usage.is_none() => {
                    // Go on from where an earlier, cancelled pass stopped.
                    let usage = std::mem::take(&mut session.usage);
                    self.usage = Some(usage_job(&session.report, generation, self.waker.clone(), usage));
                    app.job_progress(Job::Usage, 0, 0);
                }
                Job::BeforeUsage if self.before.is_none() => {
                    if let Some(before) = &session.before {
                        self.before = Some(super::compare::before_job(before, generation, self.waker.clone()));
                        app.job_progress(Job::BeforeUsage, 0, 0);
                    }
                }
                Job::ReplayGraphs | Job::Usage | Job::BeforeUsage => {}
            }
        }
        for job in app.unwanted_jobs() {
            if let (Job::Usage, Some(worker)) = (job, &self.usage) {
                worker.cancel();
            }
        }
    }

    /// Hands what the jobs said to the state; true when anything arrived. A job started for an
    /// earlier state of a watched report is cancelled: a replay's result is dropped (the state
    /// asks for it again), the sums a pass over `buffers` read are kept and the pass goes on.
    pub fn collect(&mut self, session: &mut Session, app: &mut App) -> bool {
        let generation = session.generation();
        let mut changed = false;
        if self.replay.as_ref().is_some_and(|w| w.generation() != generation) {
            self.replay = None;
            app.job_cancelled(Job::ReplayGraphs);
            changed = true;
        }
        if let Some(worker) = &self.usage
            && worker.generation() != generation
        {
            worker.cancel();
        }
        if let Some(update) = self.linking.as_mut().and_then(Worker::try_update) {
            match update {
                Update::Done(Ok(input)) => app.set_perf(input),
                Update::Done(Err(reason)) => app.set_perf_failed(reason),
                Update::Lost => app.set_perf_failed("the linking thread stopped".to_string()),
                Update::Progress { .. } => {}
            }
            self.linking = None;
            changed = true;
        }
        changed |= self.collect_usage(session, app);
        changed |= super::compare::collect_before(&mut self.before, app);
        changed |= self.collect_replay(session, app);
        changed
    }

    fn collect_usage(&mut self, session: &mut Session, app: &mut App) -> bool {
        let mut changed = false;
        while let Some(worker) = &mut self.usage {
            let Some(update) = worker.try_update() else { break };
            changed = true;
            let stale = worker.generation() != session.generation();
            match update {
                Update::Progress { done, total } => app.job_progress(Job::Usage, done, total),
                Update::Done((usage, _)) if stale => {
                    session.usage = usage;
                    app.job_cancelled(Job::Usage);
                    self.usage = None;
                }
                Update::Done((usage, read)) => {
                    session.finish_usage(app, usage, read);
                    self.usage = None;
                }
                Update::Lost => {
                    let stopped = ReportError::Read { what: "buffers", message: "the pass stopped".into() };
                    session.finish_usage(app, MemoryUsage::default(), Err(stopped));
                    self.usage = None;
                }
            }
        }
        changed
    }

    fn collect_replay(&mut self, session: &mut Session, app: &mut App) -> bool {
        let mut changed = false;
        while let Some(worker) = &mut self.replay {
            let Some(update) = worker.try_update() else { break };
            changed = true;
            match update {
                Update::Progress { done, total } => app.job_progress(Job::ReplayGraphs, done, total),
                Update::Done(replayed) => {
                    session.finish_replay(app, replayed);
                    self.replay = None;
                }
                Update::Lost => {
                    let stopped = ReportError::Read { what: "captured graphs", message: "the replay stopped".into() };
                    session.finish_replay(app, Err(stopped));
                    self.replay = None;
                }
            }
        }
        changed
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::ReportSource;
    use std::path::Path;

    fn demo_perf() -> PerfSource {
        PerfSource::Path(Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/demo-perf"))
    }

    #[test]
    fn a_cancelled_link_stops_before_reading() {
        let report = MemoryReport::open(&ReportSource::Demo, 0).unwrap();
        let result = link(&demo_perf(), &report.reopener(), &AtomicBool::new(true));
        assert_eq!(result.err().as_deref(), Some(CANCELLED));
        let linked = link(&demo_perf(), &report.reopener(), &AtomicBool::new(false)).expect("the demo links");
        assert!(linked.link.is_linked());
    }
}
