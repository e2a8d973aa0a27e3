//! The JSON form of print mode: a stable contract other tools parse. The contract is the types
//! below (field order is key order); the document is written as it is serialised, one operation
//! at a time, each memory section computed just before its entry and dropped after it.

use super::failure_json::{FailureJson, failure_json};
use super::memory_json::{MemoryJson, memory_json};
use super::peak::PeakLine;
use super::sections::{FailureSection, MemorySections};
use super::{ExplainOptions, ExplainedError, Explanation};
use crate::analysis::perf_callout::PerfStatus;
use crate::analysis::sanitize::sanitize_line;
use crate::analysis::usage_series::CeilingSource;
use crate::report::MemoryReport;
use serde::Serialize;
use serde::ser::{SerializeSeq, Serializer};
use serde_json::ser::PrettyFormatter;
use std::cell::RefCell;
use std::io::{self, Write};

/// The whole document.
#[derive(Serialize)]
struct Document<'r, 'a> {
    memory_report: MemoryReportJson<'r>,
    perf_report: Option<PerfReportJson>,
    operations: OperationEntries<'r, 'a>,
    unattached_errors: Vec<ErrorJson<'r>>,
    /// Present with `--log` beside a report only: its failures no operation took.
    #[serde(skip_serializing_if = "Option::is_none")]
    log_failures: Option<Vec<serde_json::Value>>,
    /// Present with `--late` only.
    #[serde(skip_serializing_if = "Option::is_none")]
    late: Option<Vec<super::late::LateJson<'r>>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    late_summary: Option<Vec<super::late::LateSummaryJson>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    late_failures: Option<Vec<super::late::LateFailureJson>>,
}

#[derive(Serialize)]
struct MemoryReportJson<'r> {
    path: String,
    rank: u32,
    operations: usize,
    errors: usize,
    schema_version: Option<&'r str>,
    /// Present with `--peak` only.
    #[serde(skip_serializing_if = "Option::is_none")]
    peak: Option<PeaksJson<'r>>,
}

#[derive(Serialize)]
struct PerfReportJson {
    path: String,
    rows: usize,
    link: &'static str,
    reason: Option<String>,
}

/// The fields every error entry has, attached or not.
#[derive(Serialize)]
struct ErrorJson<'r> {
    operation_id: Option<u64>,
    operation_name: &'r str,
    error_type: &'r str,
    message: &'r str,
    stack_trace: Option<&'r str>,
    allocation_failure: Option<FailureJson<'r>>,
}

/// An operation's entry: its error, then what only an attached error has.
#[derive(Serialize)]
struct OperationJson<'r, 'm> {
    #[serde(flatten)]
    error: ErrorJson<'r>,
    /// False for an operation the report did not record (behaviour.md §13.5).
    recorded: bool,
    failed_device_operations: &'r [String],
    perf: Option<&'r PerfStatus>,
    memory: Option<MemoryJson<'m>>,
    fixes: Vec<FixJson>,
    /// An unrecorded operation without a failure: the memory when it started.
    #[serde(skip_serializing_if = "Option::is_none")]
    memory_at_start: Option<Vec<super::memory_json::StartJson<'m>>>,
    /// Present with `--log` only: where the log shows the operation's failure, or null.
    #[serde(skip_serializing_if = "Option::is_none")]
    log: Option<Option<super::beside::LogJson<'r>>>,
}

/// One advice line as a replayed fix (memory.md §9.3).
#[derive(Serialize)]
struct FixJson {
    fix: String,
    outcome: &'static str,
    address: Option<u64>,
    sentence: String,
}

/// The `"peak"` list of the `memory_report` object (`--peak`).
struct PeaksJson<'r>(&'r [PeakLine]);

/// One peak with the region the text measures it against: its size per bank, where that comes
/// from (`devices` or `message`, as a memory section's region), and its share in percent as the
/// text gives it; null when the region is unknown.
#[derive(Serialize)]
struct PeakJson {
    #[serde(flatten)]
    peak: crate::analysis::usage_series::Peak,
    region_per_bank: Option<u64>,
    region_source: Option<&'static str>,
    percent_of_region: Option<f64>,
}

impl Serialize for PeaksJson<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.iter().map(|p| PeakJson {
            peak: p.peak,
            region_per_bank: p.ceiling.map(|c| c.size),
            region_source: p.ceiling.map(|c| match c.source {
                CeilingSource::Devices => "devices",
                CeilingSource::Message => "message",
            }),
            percent_of_region: p.percent_of_region(),
        }))
    }
}

/// The operations array, streamed: each entry's memory section is computed as the entry is
/// written and dropped once it is.
struct OperationEntries<'r, 'a> {
    report: &'r MemoryReport,
    operations: &'r [ExplainedError<'a>],
    sections: RefCell<MemorySections<'r>>,
    hex: bool,
}

impl Serialize for OperationEntries<'_, '_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(self.operations.len()))?;
        for e in self.operations {
            // An unreadable section is null, as an absent one.
            let section = self.sections.borrow_mut().section(e).ok().flatten();
            let start = super::beside::memory_at_start(self.report, e);
            seq.serialize_element(&operation_json(self.report, e, section.as_ref(), start.as_deref(), self.hex))?;
        }
        seq.end()
    }
}

/// One operation's entry, from its memory section and its memory at start.
fn operation_json<'r, 'm>(
    report: &'r MemoryReport,
    e: &'r ExplainedError<'_>,
    section: Option<&'m FailureSection>,
    start: Option<&'m [crate::analysis::memory::OperationMemory]>,
    hex: bool,
) -> OperationJson<'r, 'm> {
    OperationJson {
        error: error_json(e, hex),
        recorded: e.recorded,
        failed_device_operations: e.failed_device_operations.as_deref().unwrap_or_default(),
        perf: e.perf.as_ref(),
        memory: section.map(|s| memory_json(&s.memory)),
        fixes: section.map(|s| fixes_json(s, hex)).unwrap_or_default(),
        memory_at_start: start.map(|s| s.iter().map(super::memory_json::start_json).collect()),
        log: super::beside::log_json(report, e),
    }
}

/// One operation's entry of the document, exactly as [`write_json`] writes it (`diff`'s `next`).
pub(crate) fn operation_entry(report: &MemoryReport, e: &ExplainedError<'_>, hex: bool) -> serde_json::Value {
    let section = MemorySections::new(report).section(e).ok().flatten();
    let start = super::beside::memory_at_start(report, e);
    serde_json::to_value(operation_json(report, e, section.as_ref(), start.as_deref(), hex))
        .unwrap_or(serde_json::Value::Null)
}

/// The `fixes` of an entry: each advice line, its fixes, the replay's outcome and address.
fn fixes_json(section: &FailureSection, hex: bool) -> Vec<FixJson> {
    section
        .fixes
        .iter()
        .map(|r| FixJson {
            fix: r.fix_text(),
            outcome: r.answer.as_ref().map_or("unknown", |a| a.outcome.as_str()),
            address: r.answer.as_ref().and_then(|a| a.address),
            sentence: r.sentence(section.memory.operation_id(), hex),
        })
        .collect()
}

/// Writes the errors of a report to `out` as one pretty-printed JSON document and a newline,
/// an operation at a time; stops at the first write that fails.
pub fn write_json(
    report: &MemoryReport,
    explanation: &Explanation<'_>,
    options: &ExplainOptions,
    out: &mut impl Write,
) -> io::Result<()> {
    let document = Document {
        memory_report: MemoryReportJson {
            path: sanitize_line(&report.source.display_path()),
            rank: report.rank(),
            operations: report.operations.len(),
            errors: report.errors.len(),
            schema_version: report.schema_version.as_deref(),
            peak: explanation.peaks.as_ref().map(|p| PeaksJson(&p.lines)),
        },
        perf_report: explanation.linked.map(|l| PerfReportJson {
            path: sanitize_line(&l.perf.path.display().to_string()),
            rows: l.rows.len(),
            link: l.state().as_str(),
            reason: l.reason(),
        }),
        operations: OperationEntries {
            report,
            operations: &explanation.operations,
            sections: RefCell::new(MemorySections::new(report)),
            hex: options.hex,
        },
        unattached_errors: explanation.unattached.iter().map(|e| error_json(e, options.hex)).collect(),
        log_failures: super::beside::unjoined_json(report, options.hex),
        late: explanation.late.as_ref().map(super::late::late_json),
        late_summary: explanation.late.as_ref().map(super::late::late_summary_json),
        late_failures: explanation.late.as_ref().map(|l| super::late::late_failures_json(report, l)),
    };
    let mut serializer = serde_json::Serializer::with_formatter(&mut *out, PrettyFormatter::new());
    document.serialize(&mut serializer)?;
    out.write_all(b"\n")
}

/// The document of [`write_json`] as a string.
pub fn render_json(report: &MemoryReport, explanation: &Explanation<'_>, options: &ExplainOptions) -> String {
    let mut out = Vec::new();
    write_json(report, explanation, options, &mut out).expect("writing to memory does not fail");
    String::from_utf8(out).expect("serde_json writes UTF-8")
}

fn error_json<'r>(e: &ExplainedError<'r>, hex: bool) -> ErrorJson<'r> {
    ErrorJson {
        operation_id: e.operation_id,
        operation_name: e.operation_name,
        error_type: &e.error.error_type,
        message: &e.error.message,
        stack_trace: (!e.error.stack_trace.is_empty()).then_some(e.error.stack_trace.as_str()),
        allocation_failure: e.failure.map(|f| failure_json(f, hex)),
    }
}
