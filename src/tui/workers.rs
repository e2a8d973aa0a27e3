//! The loop's worker threads: linking a performance report, and the graph-only replay. Each
//! opens the report again (a second read-only connection) and sends its progress and result
//! back over a channel; the loop polls them between keys.

use super::session::{Session, perf_input};
use crate::app::{App, Job, PerfInput};
use crate::report::MemoryReport;
use crate::report::ReportError;
use crate::report::linked::LinkedReports;
use crate::report::memory_replay::GraphReplay;
use crate::report::perf::PerfSource;
use crate::report::usage::UsageWorker;
use std::sync::atomic::AtomicBool;
use std::sync::mpsc::{Receiver, TryRecvError, channel};

/// What a replay worker sends: progress, then its result.
enum ReplayMessage {
    Progress(u64, u64),
    Done(Result<Option<GraphReplay>, ReportError>),
}

/// The worker threads running for the UI.
#[derive(Default)]
pub(crate) struct Workers {
    linking: Option<Receiver<Result<PerfInput, String>>>,
    replay: Option<Receiver<ReplayMessage>>,
    usage: Option<UsageWorker>,
}

/// Reads the performance report and links it on a worker thread, which opens the memory report
/// again (a second read-only connection).
pub fn link_in_background(report: &MemoryReport, perf: PerfSource) -> Receiver<Result<PerfInput, String>> {
    let (sender, receiver) = channel();
    let (source, rank) = (report.source.clone(), report.rank);
    std::thread::spawn(move || {
        let linked = perf.open().and_then(|perf| {
            let memory = MemoryReport::open(&source, rank)?;
            LinkedReports::new(&memory, perf)
        });
        // The UI may have quit already: then nobody listens.
        let _ = sender.send(linked.map(perf_input).map_err(|e| e.to_string()));
    });
    receiver
}

/// Replays every captured graph on a worker thread.
fn replay_in_background(report: &MemoryReport) -> Receiver<ReplayMessage> {
    let (sender, receiver) = channel();
    let (source, rank) = (report.source.clone(), report.rank);
    std::thread::spawn(move || {
        let progress = sender.clone();
        let replayed = MemoryReport::open(&source, rank).and_then(|memory| {
            memory.replay_graphs(
                &mut |done, total| drop(progress.send(ReplayMessage::Progress(done, total))),
                &AtomicBool::new(false),
            )
        });
        let _ = sender.send(ReplayMessage::Done(replayed));
    });
    receiver
}

impl Workers {
    /// Starts linking a performance report.
    pub(crate) fn link(&mut self, session: &Session, app: &mut App, perf: PerfSource) {
        app.set_perf_linking(perf.file_name());
        self.linking = Some(link_in_background(&session.report, perf));
    }

    /// Whether any worker runs.
    pub(crate) fn busy(&self) -> bool {
        self.linking.is_some() || self.replay.is_some() || self.usage.is_some()
    }

    /// Starts the jobs the state wants that are not running, and cancels the running ones it no
    /// longer wants.
    pub(crate) fn start_wanted(&mut self, session: &mut Session, app: &mut App) {
        for job in app.wanted_jobs() {
            match job {
                Job::ReplayGraphs if self.replay.is_none() => {
                    self.replay = Some(replay_in_background(&session.report));
                    app.job_progress(Job::ReplayGraphs, 0, 0);
                }
                Job::Usage if self.usage.is_none() => {
                    // Go on from where an earlier, cancelled pass stopped.
                    let usage = std::mem::take(&mut session.usage);
                    self.usage = Some(UsageWorker::start(&session.report, usage));
                    app.job_progress(Job::Usage, 0, 0);
                }
                Job::ReplayGraphs | Job::Usage => {}
            }
        }
        for job in app.unwanted_jobs() {
            if let (Job::Usage, Some(worker)) = (job, &self.usage) {
                worker.cancel();
            }
        }
    }

    /// Hands what the workers sent to the state; true when anything arrived.
    pub fn collect(&mut self, session: &mut Session, app: &mut App) -> bool {
        let mut changed = false;
        if let Some(receiver) = &self.linking {
            let result = match receiver.try_recv() {
                Ok(result) => Some(result),
                Err(TryRecvError::Empty) => None,
                Err(TryRecvError::Disconnected) => Some(Err("the linking thread stopped".to_string())),
            };
            if let Some(result) = result {
                match result {
                    Ok(input) => app.set_perf(input),
                    Err(reason) => app.set_perf_failed(reason),
                }
                self.linking = None;
                changed = true;
            }
        }
        if let Some(worker) = &mut self.usage {
            match worker.poll() {
                Some((usage, read)) => {
                    session.finish_usage(app, usage, read);
                    self.usage = None;
                }
                None => {
                    let progress = worker.progress();
                    app.job_progress(Job::Usage, progress.done, progress.total);
                }
            }
            changed = true;
        }
        while let Some(receiver) = &self.replay {
            match receiver.try_recv() {
                Ok(ReplayMessage::Progress(done, total)) => app.job_progress(Job::ReplayGraphs, done, total),
                Ok(ReplayMessage::Done(replayed)) => {
                    session.finish_replay(app, replayed);
                    self.replay = None;
                }
                Err(TryRecvError::Empty) => break,
                Err(TryRecvError::Disconnected) => {
                    let stopped = ReportError::Read { what: "captured graphs", message: "the replay stopped".into() };
                    session.finish_replay(app, Err(stopped));
                    self.replay = None;
                }
            }
            changed = true;
        }
        changed
    }
}
