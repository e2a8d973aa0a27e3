//! The three background passes, each one type with its run and its install: the run over time
//! (the one pass over `buffers`), the graph replay, and linking a performance report. The run
//! over time's figures and late list are found in one place, [`RunOverTime`].

use super::pass::{JobPass, Pass};
use super::session::Session;
use crate::analysis::memory::late::LateFindings;
use crate::analysis::memory::peak::{CoreGrid, OperationPeak, true_peaks_per_core};
use crate::analysis::memory::usage::MemoryUsage;
use crate::analysis::memory::usage_series::UsageSeries;
use crate::answer::on_a_single_chip;
use crate::app::{App, Job, JobEnd, PerfInput, PerfRows};
use crate::report::memory::graph_only::GraphOnlyPass;
use crate::report::perf::linked::LinkedReports;
use crate::report::perf::perf_report::{PerfSource, file_name_of};
use crate::report::{MemoryReport, ReportError};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// The memory over the run as tab 5 shows it: a line per device and buffer type, and the
/// tensors held past their last use (none when they cannot be read: the chart still stands).
#[derive(Debug, Clone, PartialEq)]
pub struct RunOverTime {
    /// The chart's lines.
    pub series: Vec<UsageSeries>,
    /// Where to free memory, or why it could not be read.
    pub late: Result<LateFindings, String>,
    /// Every operation's true peak (docs/true-peak.md; empty when the events cannot be read).
    pub true_peaks: Vec<OperationPeak>,
    /// What filled every L1 core at each operation's true peak (tab 5's grid).
    pub core_grids: Vec<CoreGrid>,
    /// The lines are one chip's, which tab 5 names device 0 whatever ids its tables use.
    pub single_chip: bool,
}

impl RunOverTime {
    /// From a whole pass over `buffers` (built [`MemoryUsage::with_runs`]).
    pub fn of_usage(report: &MemoryReport, usage: &MemoryUsage) -> Self {
        let questions = report.usage();
        let series: Vec<UsageSeries> = usage.keys().map(|(d, t)| questions.series(usage, d, t)).collect();
        let (true_peaks, core_grids) = true_peaks_of(report);
        let late = report.late().findings(usage).map_err(|e| e.to_string());
        Self { single_chip: single_chip(report, &series), series, late, true_peaks, core_grids }
    }

    /// From every graph replayed (a report without `buffers` rows).
    pub fn of_replay(report: &MemoryReport, replay: &GraphOnlyPass) -> Self {
        let late = report.late().from_graphs(replay).map_err(|e| e.to_string());
        let (true_peaks, core_grids) = true_peaks_of(report);
        let series = report.usage().replay_series(replay);
        Self { single_chip: single_chip(report, &series), series, late, true_peaks, core_grids }
    }
}

/// Whether the lines are one chip's (the one definition `explain` and `diff` use).
fn single_chip(report: &MemoryReport, series: &[UsageSeries]) -> bool {
    on_a_single_chip(report, series.iter().map(|s| s.device_id))
}

/// Every operation's true peak and its L1 per core, from the run's events read once (none when
/// they cannot be read).
fn true_peaks_of(report: &MemoryReport) -> (Vec<OperationPeak>, Vec<CoreGrid>) {
    report.passes().run_facts().map(|f| true_peaks_per_core(&f.events, &f.layouts, &f.last_use)).unwrap_or_default()
}

/// The run over time: the pass over `buffers`, going on from the sums read so far; on a report
/// without `buffers` rows, from the graph replay when there is one.
pub struct UsagePass {
    usage: MemoryUsage,
    replay: Option<Arc<GraphOnlyPass>>,
}

/// What the run over time gives: the sums read (all, or as far as it got), how the read ended,
/// and the run over time once whole (none: the report has no `buffers` rows and no replay yet).
#[derive(Debug, PartialEq)]
pub struct UsageOutput {
    /// The sums read.
    pub usage: MemoryUsage,
    /// How the read ended.
    pub read: Result<(), ReportError>,
    /// The run over time.
    pub run: Option<RunOverTime>,
}

impl UsagePass {
    /// Goes on from `usage` (`MemoryUsage::with_runs()` for a whole pass), with no replay.
    pub fn new(usage: MemoryUsage) -> Self {
        Self { usage, replay: None }
    }
}

impl Pass for UsagePass {
    type Output = UsageOutput;
    const WAIT_WHEN_STALE: bool = true;

    fn run(self, report: &MemoryReport, cancel: &AtomicBool, progress: &mut dyn FnMut(u64, u64)) -> UsageOutput {
        let mut usage = self.usage;
        let read = report.usage().read(&mut usage, cancel, &mut |p| progress(p.done, p.total));
        let run = match (&read, &self.replay) {
            (Ok(()), _) if usage.rows > 0 => Some(RunOverTime::of_usage(report, &usage)),
            (Ok(()), Some(replay)) => Some(RunOverTime::of_replay(report, replay)),
            _ => None,
        };
        UsageOutput { usage, read, run }
    }

    fn failed(self, error: ReportError) -> UsageOutput {
        UsageOutput { usage: self.usage, read: Err(error), run: None }
    }

    fn lost() -> UsageOutput {
        let stopped = ReportError::Read { what: "buffers", message: "the pass stopped".into() };
        UsageOutput { usage: MemoryUsage::with_runs(), read: Err(stopped), run: None }
    }

    fn progress(app: &mut App, done: u64, total: u64) {
        app.job_progress(Job::Usage, done, total);
    }

    fn install(output: UsageOutput, session: &mut Session, app: &mut App) {
        session.usage = output.usage;
        match (output.read, output.run) {
            (Err(ReportError::Cancelled), _) => app.job_ended(Job::Usage, JobEnd::Cancelled),
            (Err(e), _) => app.job_ended(Job::Usage, JobEnd::Failed(e.to_string())),
            (Ok(()), Some(RunOverTime { series, late, true_peaks, core_grids, single_chip })) => {
                app.set_run_over_time(series, late);
                app.set_true_peaks(true_peaks, core_grids);
                app.set_single_chip_run(single_chip);
            }
            (Ok(()), None) => app.usage_needs_replay(),
        }
    }

    fn stale(output: Option<UsageOutput>, session: &mut Session, app: &mut App) {
        // The sums read are kept: the pass goes on from there over the report as it is now.
        if let Some(output) = output {
            session.usage = output.usage;
        }
        app.job_ended(Job::Usage, JobEnd::Cancelled);
    }
}

impl JobPass for UsagePass {
    const JOB: Job = Job::Usage;

    fn prepare(session: &mut Session, _: &App) -> Self {
        Self { usage: std::mem::take(&mut session.usage), replay: session.replay.clone() }
    }
}

/// Every captured graph replayed from nothing, once for the report; with the run over time when
/// tab 5 waits for it (a report without `buffers` rows).
pub struct ReplayPass {
    run_over_time: bool,
}

/// What the graph replay gives (`None`: cancelled), with the run over time when asked for.
#[derive(Debug, PartialEq)]
pub struct ReplayOutput {
    /// The replay.
    pub replay: Result<Option<GraphOnlyPass>, ReportError>,
    /// The run over time from it.
    pub run: Option<RunOverTime>,
}

impl Pass for ReplayPass {
    type Output = ReplayOutput;

    fn run(self, report: &MemoryReport, cancel: &AtomicBool, progress: &mut dyn FnMut(u64, u64)) -> ReplayOutput {
        let replay = report.graphs().graph_only_pass(progress, cancel);
        // A replay cancelled as it ended gives nothing more.
        let run = match &replay {
            Ok(Some(r)) if self.run_over_time && !cancel.load(Ordering::Relaxed) => {
                Some(RunOverTime::of_replay(report, r))
            }
            _ => None,
        };
        ReplayOutput { replay, run }
    }

    fn failed(self, error: ReportError) -> ReplayOutput {
        ReplayOutput { replay: Err(error), run: None }
    }

    fn lost() -> ReplayOutput {
        let stopped = ReportError::Read { what: "captured graphs", message: "the replay stopped".into() };
        ReplayOutput { replay: Err(stopped), run: None }
    }

    fn progress(app: &mut App, done: u64, total: u64) {
        app.job_progress(Job::ReplayGraphs, done, total);
    }

    fn install(output: ReplayOutput, session: &mut Session, app: &mut App) {
        match output.replay {
            Ok(Some(replay)) => {
                session.replay = Some(Arc::new(replay));
                app.job_ended(Job::ReplayGraphs, JobEnd::Done);
                if let Some(RunOverTime { series, late, true_peaks, core_grids, single_chip }) = output.run {
                    app.set_run_over_time(series, late);
                    app.set_true_peaks(true_peaks, core_grids);
                    app.set_single_chip_run(single_chip);
                }
            }
            Ok(None) | Err(ReportError::Cancelled) => app.job_ended(Job::ReplayGraphs, JobEnd::Cancelled),
            Err(e) => app.job_ended(Job::ReplayGraphs, JobEnd::Failed(e.to_string())),
        }
    }

    fn stale(_: Option<ReplayOutput>, _: &mut Session, app: &mut App) {
        // The state asks again for the report as it is now.
        app.job_ended(Job::ReplayGraphs, JobEnd::Cancelled);
    }
}

impl JobPass for ReplayPass {
    const JOB: Job = Job::ReplayGraphs;

    fn prepare(_: &mut Session, app: &App) -> Self {
        Self { run_over_time: app.over_time_waits_for_replay() }
    }
}

/// Reading a performance report and linking it with the memory report.
pub struct LinkPass {
    perf: PerfSource,
}

/// What linking gives: the Performance tab's input, or why not.
pub type LinkOutput = Result<PerfInput, String>;

impl LinkPass {
    /// Links the performance report at `perf`.
    pub fn new(perf: PerfSource) -> Self {
        Self { perf }
    }
}

impl Pass for LinkPass {
    type Output = LinkOutput;
    /// The link does not follow a watched report's changes.
    const PER_GENERATION: bool = false;

    fn run(self, report: &MemoryReport, cancel: &AtomicBool, _: &mut dyn FnMut(u64, u64)) -> LinkOutput {
        let perf = self.perf.open().map_err(|e| e.to_string())?;
        if cancel.load(Ordering::Relaxed) {
            return Err(ReportError::Cancelled.to_string());
        }
        LinkedReports::new(report, perf).map(perf_input).map_err(|e| e.to_string())
    }

    fn failed(self, error: ReportError) -> LinkOutput {
        Err(error.to_string())
    }

    fn lost() -> LinkOutput {
        Err("the linking thread stopped".to_string())
    }

    fn progress(_: &mut App, _: u64, _: u64) {}

    fn install(output: LinkOutput, _: &mut Session, app: &mut App) {
        match output {
            Ok(input) => app.set_perf(input),
            Err(reason) => app.set_perf_failed(reason),
        }
    }

    fn stale(output: Option<LinkOutput>, session: &mut Session, app: &mut App) {
        if let Some(output) = output {
            Self::install(output, session, app);
        }
    }
}

/// What the Performance tab needs from two linked reports.
pub fn perf_input(linked: LinkedReports) -> PerfInput {
    let LinkedReports { perf, rows, link, failed, fallbacks } = linked;
    let merged = PerfRows { max_cores: perf.max_cores(&rows), rows };
    let per_device = perf.has_per_device_view().then(|| {
        let rows = perf.rows(false);
        PerfRows { max_cores: perf.max_cores(&rows), rows }
    });
    let unlinked_reason = link.reason();
    let file_name = file_name_of(&perf.path);
    PerfInput { file_name, merged, per_device, link, unlinked_reason, failed, fallbacks }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::ReportSource;
    use crate::tui::pass::run_reopened;
    use std::path::Path;

    #[test]
    fn a_cancelled_link_stops_before_reading() {
        let report = MemoryReport::open(&ReportSource::Demo, 0).unwrap();
        let demo = PerfSource::Path(Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/demo-perf"));
        let missing = PerfSource::Path(Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/no-such-perf"));
        let (reopen, no_progress) = (report.reopener(), &mut |_, _| {});
        // Cancelled first: nothing is read, not even the missing performance report.
        let cancelled = run_reopened(LinkPass::new(missing), &reopen, &AtomicBool::new(true), no_progress);
        assert_eq!(cancelled.err().as_deref(), Some("cancelled"));
        let linked = run_reopened(LinkPass::new(demo), &reopen, &AtomicBool::new(false), no_progress);
        assert!(linked.expect("the demo links").link.is_linked());
    }
}
