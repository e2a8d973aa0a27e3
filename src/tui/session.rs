//! What the loop reads for the state: the report, and what background passes found in it (the
//! graph replay, the `buffers` sums read so far). `perform` answers the state's reads; `app_for`
//! turns report data into the state's model.

use crate::analysis::memory::usage::MemoryUsage;
use crate::analysis::model::first_line;
use crate::app::{App, Loaded, MemoryPicture, Model, NoPicture, Place, Read, ReadResult};
use crate::report::memory::graph_only::GraphOnlyPass;
use crate::report::memory::pictures::FailureMemory;
use crate::report::{MemoryReport, ReportError};
use std::collections::HashMap;
use std::sync::Arc;

/// The report the UI shows, and what background passes found in it.
pub struct Session {
    /// The report.
    pub report: MemoryReport,
    /// Every captured graph replayed, once a failure or the run over time needed it (shared
    /// with a run over time that reads from it).
    pub(crate) replay: Option<Arc<GraphOnlyPass>>,
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

/// The failed device operations of every operation with an error, by operation index, or why
/// its graph could not be read (the callout says so, as explain's entry does).
fn failed_in(report: &MemoryReport) -> HashMap<usize, Result<Vec<String>, String>> {
    (0..report.operations.len())
        .filter(|&i| report.operations[i].error.is_some())
        .map(|i| (i, report.graphs().failed_device_operations(i).map_err(|e| e.to_string())))
        .collect()
}

/// The memory of an operation: at its failure when asked and there is a picture of it (`replay`:
/// the graph replay, when it ran), else its own snapshot at `place`.
pub(crate) fn memory_picture(
    report: &MemoryReport,
    replay: Option<&GraphOnlyPass>,
    index: usize,
    place: Option<Place>,
    failure: bool,
) -> Result<MemoryPicture, ReportError> {
    if failure {
        match report.pictures().at_failure(index, replay)? {
            FailureMemory::Found(m) => return Ok(MemoryPicture::Failure(m)),
            FailureMemory::NeedsReplay => return Ok(MemoryPicture::NeedsReplay),
            FailureMemory::Absent => {}
        }
    }
    Ok(match report.pictures().after_operation(index, place)? {
        Some(m) => MemoryPicture::Operation(Box::new(m)),
        None => MemoryPicture::Nothing(nothing_reason(report, index)),
    })
}

/// Why an operation has no memory picture.
fn nothing_reason(report: &MemoryReport, index: usize) -> NoPicture {
    let ops = &report.operations;
    if let (false, Some(last)) = (ops[index].recorded, index.checked_sub(1))
        && report.error_of(index).is_some_and(|e| e.failure.is_none())
    {
        return NoPicture::NothingAtStart { last: ops[last].id };
    }
    match report.error_of(index) {
        Some(e) if e.failure.is_some() => NoPicture::FailedWithoutRecords,
        Some(e) => NoPicture::FailedBeforeAllocating {
            error_type: e.error_type.clone(),
            first_line: first_line(&e.message).to_string(),
        },
        None => NoPicture::NoBuffers,
    }
}

/// A read's result as the state keeps it: the value, or why it is unavailable.
pub(crate) fn loaded<T>(result: Result<T, ReportError>) -> Loaded<T> {
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
                    let picture = memory_picture(report, self.replay.as_deref(), operation, place, failure);
                    ReadResult::Memory(operation, place, loaded(picture))
                }
            })
            .collect()
    }

    /// Looks for what a writer committed to a watched report and hands it to the state; true
    /// when anything changed. What the graph replay found is dropped: new operations need it run
    /// again; a pass still running for the earlier state is stale (see `Slot::collect`).
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
}
