//! An error's entry: what `explain --json` writes per operation and per unattached error, the
//! text's blocks and MCP's `list_failures` / `explain_failure` read. Each section the report
//! could not give is said in the entry (`unavailable`), never left as a silent null.

use super::advice::FixAnswer;
use super::failure::FailureAnswer;
use super::memory::{MemoryAnswer, SnapshotAnswer, WrittenMemory};
use super::sections::MemorySections;
use super::select::ExplainedError;
use crate::analysis::beside::operation_note;
use crate::analysis::memory::MemoryAtFailure;
use crate::analysis::memory::whatif::ReplayedAdvice;
use crate::analysis::memory::whatif::text_lines;
use crate::analysis::memory::{failure_lines_with_fixes, operation_lines};
use crate::analysis::model::LogPlace;
use crate::analysis::perf::callout::PerfStatus;
use crate::analysis::sanitize::sanitize_line;
use crate::report::{MemoryReport, ReportError};
use serde::Serialize;

/// The fields every error entry has, attached or not.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ErrorAnswer {
    /// The operation's id (attached), or the error row's; null when NULL.
    pub operation_id: Option<u64>,
    /// The operation name.
    pub operation_name: String,
    /// The error type (`RuntimeError`).
    pub error_type: String,
    /// The whole message, sanitised.
    pub message: String,
    /// The error row's stack trace; null when empty.
    pub stack_trace: Option<String>,
    /// The allocation failure, when the message is one.
    pub allocation_failure: Option<FailureAnswer>,
}

/// An operation's entry: its error, then what only an attached error has.
#[derive(Debug, Clone, Serialize)]
pub struct OperationAnswer {
    /// The error.
    #[serde(flatten)]
    pub error: ErrorAnswer,
    /// False for an operation the report did not record (docs/rules/reference.md §13.5).
    pub recorded: bool,
    /// The device operations that failed in its captured graph.
    pub failed_device_operations: Vec<String>,
    /// Its perf status, when a linked performance report is open.
    pub perf: Option<PerfStatus>,
    /// The memory section; none when the answer leaves it out (`list_failures`).
    #[serde(flatten)]
    pub memory: Option<MemorySectionAnswer>,
    /// Present with a log beside the report only: where the log shows the failure, or null.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub log: Option<Option<LogPlaceAnswer>>,
    /// The sections the report could not give, and why; absent when none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unavailable: Vec<Unavailable>,
    /// The `{file}:{line}` of its stack trace, as the operations list shows it (text only).
    #[serde(skip)]
    pub source: Option<String>,
    /// What a log beside the report, or its not being recorded, adds (text only).
    #[serde(skip)]
    pub notes: Vec<String>,
}

/// The memory at an operation's failure, its fixes replayed, and, for an operation the report
/// did not record, the memory when it started.
#[derive(Debug, Clone, Serialize)]
pub struct MemorySectionAnswer {
    /// The MEMORY object; null without a section (or when it could not be read).
    pub memory: Option<MemoryAnswer>,
    /// One advice line each, as a replayed fix (docs/rules/memory.md §9.3).
    pub fixes: Vec<FixAnswer>,
    /// An unrecorded operation without a failure: the memory when it started.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub memory_at_start: Option<Vec<SnapshotAnswer>>,
    /// The section's sentences, as the text gives them (text only).
    #[serde(skip)]
    pub lines: Vec<String>,
}

/// The `log` object of an operation entry: where a log beside the report shows its failure.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LogPlaceAnswer {
    path: String,
    line: u64,
    also_at: Vec<u64>,
    source: Option<String>,
    test: Option<String>,
}

impl LogPlaceAnswer {
    fn new(p: &LogPlace) -> Self {
        Self {
            path: p.path.clone(),
            line: p.line,
            also_at: p.also_at.clone(),
            source: p.source.clone(),
            test: p.test.clone(),
        }
    }
}

/// A section of an entry the report could not give: the key it leaves null or empty, and why.
#[derive(Debug, Clone, Serialize)]
pub struct Unavailable {
    /// `source` (the stack traces), `failed_device_operations`, `memory` (with its `fixes`)
    /// or `memory_at_start`.
    pub section: &'static str,
    /// The one-line reason.
    pub error: String,
    /// The reason, typed.
    #[serde(skip)]
    pub cause: ReportError,
}

impl Unavailable {
    fn new(section: &'static str, cause: ReportError) -> Self {
        Self { section, error: cause.to_string(), cause }
    }

    /// The text's line for it: `Memory at the failure unavailable: {reason}`.
    pub fn line(&self) -> String {
        let what = match self.section {
            "failed_device_operations" => "Device operations",
            "source" => "The model's line (stack traces)",
            "memory_at_start" => "Memory when the operation started",
            "fixes" => "Fixes",
            _ => "Memory at the failure",
        };
        format!("{what} unavailable: {}", self.error)
    }

    /// True when the database could not be read; false for what the report holds but cannot
    /// be made sense of (an invalid captured graph: a partial answer, docs/rules/reference.md §12).
    pub fn is_read_error(&self) -> bool {
        !matches!(self.cause, ReportError::Graph(_))
    }
}

impl ErrorAnswer {
    /// The entry of an error (addresses in its texts in hex with `hex`).
    pub(crate) fn new(e: &ExplainedError<'_>, hex: bool) -> Self {
        Self {
            operation_id: e.operation_id,
            operation_name: e.operation_name.to_string(),
            error_type: e.error.error_type.clone(),
            message: e.error.message.clone(),
            stack_trace: (!e.error.stack_trace.is_empty()).then(|| e.error.stack_trace.clone()),
            allocation_failure: e.failure.map(|f| FailureAnswer::new(f, hex)),
        }
    }
}

/// An operation's entry as far as its memory at the failure ([`Entries::picture`]).
pub enum Picture {
    /// The memory at the failure found; its fixes are still to replay ([`Entries::finish`]).
    Found(Box<Found>),
    /// The whole entry: no memory at a failure to replay fixes at.
    Whole(Box<OperationAnswer>),
}

/// An entry whose memory at the failure is found, its fixes still to replay.
pub struct Found {
    /// The entry without its memory section.
    entry: OperationAnswer,
    /// The operation's index.
    index: usize,
    /// The memory at its failure.
    memory: Box<MemoryAtFailure>,
}

impl Found {
    /// The entry without its memory section: the error and what is known before the replay.
    pub fn entry(&self) -> &OperationAnswer {
        &self.entry
    }

    /// How many buffers were live at the failure: what laying its memory out costs.
    pub fn live_buffers(&self) -> usize {
        self.memory.live_buffers.len()
    }
}

/// Builds operation entries one at a time: the graph-only pass runs once, for the first failure
/// that needs it, and serves every later one; nothing else is kept between entries.
pub struct Entries<'r> {
    report: &'r MemoryReport,
    sections: MemorySections<'r>,
    hex: bool,
}

impl<'r> Entries<'r> {
    /// Nothing built yet; texts give addresses in hex with `hex`.
    pub fn new(report: &'r MemoryReport, hex: bool) -> Self {
        Self { report, sections: MemorySections::new(report), hex }
    }

    /// An operation's entry with its memory section (read now).
    pub fn operation(&mut self, e: &ExplainedError<'_>) -> OperationAnswer {
        let report = self.report;
        report.in_one_read(|| match self.picture(e) {
            Picture::Whole(entry) => *entry,
            Picture::Found(found) => self.finish(found),
        })
    }

    /// An operation's entry as far as its memory at the failure: [`Picture::Found`] when it has
    /// one, its fixes still to replay ([`Self::finish`]); else the whole entry.
    pub fn picture(&mut self, e: &ExplainedError<'_>) -> Picture {
        let mut entry = self.summary(e);
        let mut section =
            MemorySectionAnswer { memory: None, fixes: Vec::new(), memory_at_start: None, lines: Vec::new() };
        match self.sections.memory_of(e) {
            Ok(Some((index, memory))) => return Picture::Found(Box::new(Found { entry, index, memory })),
            Ok(None) => {}
            Err(cause) => entry.unavailable.push(Unavailable::new("memory", cause)),
        }
        if let Some(index) = e.index.filter(|_| !e.recorded && e.failure.is_none()) {
            match self.report.pictures().at_start(index) {
                Ok(start) => {
                    section.lines.extend(start.iter().flat_map(|m| operation_lines(m, self.hex)));
                    section.memory_at_start = Some(start.iter().map(SnapshotAnswer::new).collect());
                }
                Err(cause) => entry.unavailable.push(Unavailable::new("memory_at_start", cause)),
            }
        }
        entry.memory = Some(section);
        Picture::Whole(Box::new(entry))
    }

    /// The fixes of a memory found at the failure, replayed.
    pub(super) fn fixes_of(&self, found: &Found) -> Result<Vec<ReplayedAdvice>, ReportError> {
        self.sections.fixes(found.index, &found.memory)
    }

    /// The entry of a memory found at the failure: its fixes replayed, its answer built.
    pub fn finish(&mut self, found: Box<Found>) -> OperationAnswer {
        let fixes = self.fixes_of(&found);
        self.finish_with(found, fixes)
    }

    /// [`Self::finish`] with the fixes replayed elsewhere (`ahead.rs`'s worker).
    pub(super) fn finish_with(
        &self,
        found: Box<Found>,
        fixes: Result<Vec<ReplayedAdvice>, ReportError>,
    ) -> OperationAnswer {
        let answer = MemoryAnswer::new(&found.memory);
        self.complete(found, Some(answer), fixes)
    }

    /// [`Self::finish_beside`] with the fixes replayed elsewhere: `beside` is given the memory's
    /// answer on this thread.
    pub(super) fn finish_beside_with<R>(
        &self,
        found: Box<Found>,
        fixes: Result<Vec<ReplayedAdvice>, ReportError>,
        beside: impl FnOnce(&WrittenMemory<'_>) -> R,
    ) -> (OperationAnswer, R) {
        let given = beside(&MemoryAnswer::written(&found.memory));
        (self.complete(found, None, fixes), given)
    }

    /// [`Self::finish`] with the memory's answer given, as it is written
    /// ([`MemoryAnswer::written`]), to `beside` on another thread while the fixes replay (a
    /// writer lays it out meanwhile): the entry, without the memory's answer `beside` was given,
    /// and what `beside` gave.
    pub fn finish_beside<R: Send>(
        &mut self,
        found: Box<Found>,
        beside: impl FnOnce(&WrittenMemory<'_>) -> R + Send,
    ) -> (OperationAnswer, R) {
        let (memory, sections) = (&*found.memory, &self.sections);
        let (fixes, given) = std::thread::scope(|s| {
            let worker = s.spawn(move || beside(&MemoryAnswer::written(memory)));
            let fixes = sections.fixes(found.index, memory);
            (fixes, worker.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)))
        });
        (self.complete(found, None, fixes), given)
    }

    /// The entry with its memory section: the memory's answer, the fixes replayed (or why they
    /// could not be: the memory stays), the section's sentences.
    fn complete(
        &self,
        found: Box<Found>,
        answer: Option<MemoryAnswer>,
        fixes: Result<Vec<ReplayedAdvice>, ReportError>,
    ) -> OperationAnswer {
        let Found { mut entry, memory, .. } = *found;
        let fixes = fixes.unwrap_or_else(|cause| {
            entry.unavailable.push(Unavailable::new("fixes", cause));
            Vec::new()
        });
        let answers = super::advice::fix_answers(&fixes, memory.operation_id(), self.hex);
        // The text says the first few that the user can act on; JSON has them all (§9.2).
        let sentences: Vec<String> = text_lines(&fixes).map(|(k, _)| answers[k].sentence.clone()).collect();
        let lines = failure_lines_with_fixes(&memory, &sentences, self.hex);
        entry.memory = Some(MemorySectionAnswer { memory: answer, fixes: answers, memory_at_start: None, lines });
        entry
    }

    /// An operation's entry without its memory section (nothing read but what is loaded).
    pub fn summary(&self, e: &ExplainedError<'_>) -> OperationAnswer {
        let log_path = self.report.log().map(|l| sanitize_line(&l.path));
        let mut unavailable = Vec::new();
        if let Some(cause) = &e.source_unavailable {
            unavailable.push(Unavailable::new("source", cause.clone()));
        }
        let failed = match &e.failed_device_operations {
            Ok(names) => names.clone(),
            Err(cause) => {
                unavailable.push(Unavailable::new("failed_device_operations", cause.clone()));
                Vec::new()
            }
        };
        OperationAnswer {
            error: ErrorAnswer::new(e, self.hex),
            recorded: e.recorded,
            failed_device_operations: failed,
            perf: e.perf.clone(),
            memory: None,
            log: self.report.log().map(|_| e.error.log.as_deref().map(LogPlaceAnswer::new)),
            unavailable,
            source: e.source.clone(),
            notes: operation_note(e.error, e.recorded, e.operation_name, log_path.as_deref()).into_iter().collect(),
        }
    }
}
