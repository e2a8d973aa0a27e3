//! What the loop reads for the state: the report, and what background passes found in it (the
//! graph-only replay). `perform` answers the state's reads; `app_for` and `perf_input` turn report
//! data into the state's model.

use crate::analysis::memory::whatif::{Advice, AdviceKind, Fix, ReplayedAdvice};
use crate::analysis::model::first_line;
use crate::analysis::usage::MemoryUsage;
use crate::app::{App, Job, Loaded, MemoryPicture, Model, NoPicture, PerfInput, PerfRows, Place, Read, ReadResult};
use crate::report::linked::LinkedReports;
use crate::report::memory_replay::GraphReplay;
use crate::report::memory_view::FailureMemory;
use crate::report::perf::file_name_of;
use crate::report::{MemoryReport, ReportError};
use std::collections::HashMap;
use std::sync::atomic::AtomicBool;

/// The report the UI shows, and what background passes found in it.
pub struct Session {
    /// The report.
    pub report: MemoryReport,
    /// Every captured graph replayed, once a failure or the run over time needed it.
    replay: Option<GraphReplay>,
    /// The `buffers` sums read so far (a cancelled pass goes on from where it stopped).
    pub(crate) usage: MemoryUsage,
    /// How many times a watched report changed since it was opened: a job started for an
    /// earlier generation has a stale result.
    generation: u64,
    /// The earlier run the report is compared with (`--compare`).
    pub(crate) before: Option<MemoryReport>,
}

/// The state of a report: its model, opened on operation `operation` (an id) when given.
pub fn app_for(report: &MemoryReport, hex: bool, operation: Option<u64>) -> App {
    let log_path = report.log().map(|l| crate::analysis::sanitize::sanitize_line(&l.path));
    // Unreadable, the traces are taken as there: the pane then says so per operation.
    let traces = report.details().any_stack_trace(&report.errors).unwrap_or(true);
    let model = Model::new(report.name.clone(), report.operations.clone(), report.errors.clone(), failed_in(report))
        .with_errors_recorded(report.records_errors())
        .with_log_and_traces(log_path, traces);
    App::new(model, hex, operation)
}

/// The failed device operations of every operation with an error, by operation index.
fn failed_in(report: &MemoryReport) -> HashMap<usize, Vec<String>> {
    (0..report.operations.len())
        .filter(|&i| report.operations[i].error.is_some())
        .map(|i| (i, report.graphs().failed_device_operations(i).unwrap_or_default()))
        .collect()
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

/// A read's result as the state keeps it: the value, or why it is unavailable.
fn loaded<T>(result: Result<T, ReportError>) -> Loaded<T> {
    match result {
        Ok(value) => Loaded::Ready(value),
        Err(e) => Loaded::Unavailable(e.to_string()),
    }
}

impl Session {
    /// A session over a report, nothing replayed yet.
    pub fn new(report: MemoryReport) -> Self {
        Self { report, replay: None, usage: MemoryUsage::with_runs(), generation: 0, before: None }
    }

    /// The report's generation: it grows each time a watched report changes.
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// Keeps the graph-only replay's result.
    pub(crate) fn set_replay(&mut self, replay: GraphReplay) {
        self.replay = Some(replay);
    }

    /// Reads what the state asked for.
    pub fn perform(&self, reads: Vec<Read>) -> Vec<ReadResult> {
        let report = &self.report;
        reads
            .into_iter()
            .map(|read| match read {
                Read::StackTraces(indexes) => ReadResult::StackTraces(loaded(report.details().stack_traces(&indexes))),
                Read::Arguments(i) => ReadResult::Arguments(i, loaded(report.details().arguments(i))),
                Read::Graph(i) => ReadResult::Graph(i, loaded(report.graphs().graph(i))),
                Read::Memory { operation, place, failure } => {
                    ReadResult::Memory(operation, place, loaded(self.memory(operation, place, failure)))
                }
                Read::Fixes(i) => ReadResult::Fixes(i, loaded(self.fixes(i))),
                Read::WhatIf(i, fixes) => {
                    let replayed = Box::new(loaded(self.what_if(i, &fixes)));
                    ReadResult::WhatIf(i, fixes, replayed)
                }
            })
            .collect()
    }

    /// The memory of an operation: at its failure when asked and there is a picture of it, else
    /// its own snapshot at `place`.
    fn memory(&self, index: usize, place: Option<Place>, failure: bool) -> Result<MemoryPicture, ReportError> {
        if failure {
            match self.report.memory_at_failure(index, self.replay.as_ref())? {
                FailureMemory::Found(m) => return Ok(MemoryPicture::Failure(m)),
                FailureMemory::NeedsReplay => return Ok(MemoryPicture::NeedsReplay),
                FailureMemory::Absent => {}
            }
        }
        Ok(match self.report.operation_memory(index, place)? {
            Some(m) => MemoryPicture::Operation(Box::new(m)),
            None => MemoryPicture::Nothing(self.nothing_reason(index)),
        })
    }

    /// The advice of an operation's failure, each line replayed (none without a picture).
    fn fixes(&self, index: usize) -> Result<Vec<ReplayedAdvice>, ReportError> {
        match self.report.memory_at_failure(index, self.replay.as_ref())? {
            FailureMemory::Found(m) => self.report.failure_fixes(index, &m),
            _ => Ok(Vec::new()),
        }
    }

    /// The replay of fixes the user typed for an operation's failure.
    fn what_if(&self, index: usize, fixes: &[Fix]) -> Result<ReplayedAdvice, ReportError> {
        let memory = match self.report.memory_at_failure(index, self.replay.as_ref())? {
            FailureMemory::Found(m) => Some(m),
            _ => None,
        };
        let options = crate::report::WhatIfOptions::default();
        let answer = self.report.what_if_at(index, fixes, &options, memory.as_deref())?.answer;
        let advice = Advice { kind: AdviceKind::Yours, fixes: fixes.to_vec() };
        Ok(ReplayedAdvice { advice, answer: Some(answer), skipped: None, source: None })
    }

    /// Why an operation has no memory picture.
    fn nothing_reason(&self, index: usize) -> NoPicture {
        let ops = &self.report.operations;
        if let (false, Some(last)) = (ops[index].recorded, index.checked_sub(1))
            && self.report.error_of(index).is_some_and(|e| e.failure.is_none())
        {
            return NoPicture::NothingAtStart { last: ops[last].id };
        }
        match self.report.error_of(index) {
            Some(e) if e.failure.is_some() => NoPicture::FailedWithoutRecords,
            Some(e) => NoPicture::FailedBeforeAllocating {
                error_type: e.error_type.clone(),
                first_line: first_line(&e.message).to_string(),
            },
            None => NoPicture::NoBuffers,
        }
    }

    /// Keeps the sums of a pass over `buffers` and tells the state: the series of every device
    /// and buffer type, or — a report without `buffers` rows — that the graphs must be replayed.
    pub(crate) fn finish_usage(&mut self, app: &mut App, usage: MemoryUsage, read: Result<(), ReportError>) {
        self.usage = usage;
        match read {
            Err(ReportError::Cancelled) => app.job_cancelled(Job::Usage),
            Err(e) => app.job_finished(Job::Usage, Err(e.to_string())),
            Ok(()) if self.usage.rows > 0 => {
                // Where to free memory, from the same pass (found on its worker when it ran on
                // one, taken so that a later pass finds its own); without it the chart still stands.
                let found = self.usage.late.take();
                let (usage, report) = (&self.usage, &self.report);
                let questions = report.usage();
                app.set_usage(usage.keys().map(|(d, t)| questions.series(usage, d, t)).collect());
                app.set_late(found.unwrap_or_else(|| report.late_findings(usage).unwrap_or_default()));
            }
            Ok(()) => match &mut self.replay {
                Some(replay) => show_replayed_run(&self.report, app, replay),
                None => app.usage_needs_replay(),
            },
        }
    }

    /// Looks for what a writer committed to a watched report and hands it to the state; true
    /// when anything changed. What the graph replay found is dropped: new operations need it run
    /// again; a job still running for the earlier state is stale (see `Workers::collect`).
    pub fn poll_changes(&mut self, app: &mut App) -> bool {
        match self.report.poll_changes() {
            Ok(Some(update)) => {
                let report = &self.report;
                let (operations, errors) = (report.operations.clone(), report.errors.clone());
                app.report_changed(operations, errors, failed_in(report), &update.new_failures, update.reordered);
                self.replay = None;
                self.generation += 1;
                true
            }
            Ok(None) => false,
            Err(e) => {
                app.watch_failed(e.to_string());
                true
            }
        }
    }

    /// Runs a job here and now, for tests and benchmarks: the loop runs it on a worker thread.
    pub fn run_job(&mut self, job: Job, app: &mut App) {
        match job {
            Job::ReplayGraphs => {
                let replayed = self.report.graphs().replay(&mut |_, _| {}, &AtomicBool::new(false));
                self.finish_replay(app, replayed);
            }
            Job::BeforeUsage => self.run_before_job(app),
            Job::Usage => {
                let mut usage = std::mem::take(&mut self.usage);
                let read = self.report.usage().read(&mut usage, &AtomicBool::new(false), &mut |_| {});
                self.finish_usage(app, usage, read);
            }
        }
    }

    /// Keeps the replay's result and tells the state.
    pub(crate) fn finish_replay(&mut self, app: &mut App, replayed: Result<Option<GraphReplay>, ReportError>) {
        let result = match replayed {
            Ok(Some(mut replay)) => {
                if app.usage_waits_for_replay() {
                    show_replayed_run(&self.report, app, &mut replay);
                }
                self.set_replay(replay);
                Ok(())
            }
            Ok(None) => Err("cancelled".to_string()),
            Err(e) => Err(e.to_string()),
        };
        app.job_finished(Job::ReplayGraphs, result);
    }
}

/// Hands the state the run over time of a report without `buffers` rows — the replayed graphs'
/// series and the tensors held past their last use there (found on the replay's worker when it
/// knew they were wanted, else here, once).
fn show_replayed_run(report: &MemoryReport, app: &mut App, replay: &mut GraphReplay) {
    app.set_usage(report.usage().replay_series(replay));
    let late = replay.late.take().unwrap_or_else(|| report.replay_late(replay).unwrap_or_default());
    app.set_late(late);
}
