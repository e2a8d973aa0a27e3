//! The JSON form of print mode: a stable contract other tools parse. The document arranges the
//! answers (`crate::answer`, whose field order is the key order); it is written as it is
//! serialised, one operation at a time, each entry built just before it is written and dropped
//! after it.

use super::explanation::{ExplainOptions, Explanation};
use super::pretty::Pretty;
use crate::analysis::sanitize::sanitize_line;
use crate::answer::{
    Entries, ErrorAnswer, ExplainedError, HeadroomEntry, LateAnswer, LogFailureAnswer, PeakAnswer, ReportAnswer,
    TruePeaks,
};
use crate::report::MemoryReport;
use serde::Serialize;
use serde::ser::{SerializeSeq, Serializer};
use std::cell::RefCell;
use std::io::{self, Write};

/// The whole document.
#[derive(Serialize)]
struct Document<'r, 'a> {
    memory_report: MemoryReportJson<'r>,
    perf_report: Option<PerfReportJson>,
    operations: OperationEntries<'r, 'a>,
    unattached_errors: Vec<ErrorAnswer>,
    /// Present with `--log` beside a report only: its failures no operation took.
    #[serde(skip_serializing_if = "Option::is_none")]
    log_failures: Option<Vec<LogFailureAnswer>>,
    /// Present with `--late` only: `late`, `late_summary`, `late_failures`.
    #[serde(flatten)]
    late: Option<&'r LateAnswer>,
}

#[derive(Serialize)]
struct MemoryReportJson<'r> {
    #[serde(flatten)]
    report: ReportAnswer,
    /// Present with `--peak` only.
    #[serde(skip_serializing_if = "Option::is_none")]
    peak: Option<&'r [PeakAnswer]>,
    /// Present on a run without errors only: `headroom --json`'s entries (docs/true-peak.md).
    #[serde(skip_serializing_if = "Option::is_none")]
    headroom: Option<&'r [HeadroomEntry]>,
    /// Present with `--peak`, and on a run without errors: `true_peak` and `tightest`, as
    /// `--peak` gives them (docs/true-peak.md).
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    true_peaks: Option<&'r TruePeaks>,
}

#[derive(Serialize)]
struct PerfReportJson {
    path: String,
    rows: usize,
    link: &'static str,
    reason: Option<String>,
}

/// The operations array, streamed: each entry is built as it is written and dropped once it is;
/// what it could not give is kept for the exit status.
struct OperationEntries<'r, 'a> {
    explanation: &'r Explanation<'a>,
    operations: &'r [ExplainedError<'a>],
    entries: RefCell<Entries<'r>>,
}

impl Serialize for OperationEntries<'_, '_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(self.operations.len()))?;
        for e in self.operations {
            let entry = self.explanation.entry(&mut self.entries.borrow_mut(), e);
            self.explanation.note_unavailable(&entry);
            seq.serialize_element(&entry)?;
        }
        seq.end()
    }
}

/// Writes the errors of a report to `out` as one pretty-printed JSON document and a newline,
/// an operation at a time; stops at the first write that fails.
pub fn write_json(
    report: &MemoryReport,
    explanation: &Explanation<'_>,
    options: &ExplainOptions,
    out: &mut impl Write,
) -> io::Result<()> {
    let selection = &explanation.selection;
    let entries = Entries::new(report, options.hex);
    let document = Document {
        memory_report: MemoryReportJson {
            report: ReportAnswer::new(report),
            peak: explanation.peaks.as_ref().map(|p| p.peak.as_slice()),
            headroom: explanation.passing.as_ref().map(|(h, _)| h.headroom.as_slice()),
            true_peaks: explanation
                .peaks
                .as_ref()
                .and_then(|p| p.true_peaks.as_ref())
                .or(explanation.passing.as_ref().map(|(_, t)| t)),
        },
        perf_report: selection.linked.map(|l| PerfReportJson {
            path: sanitize_line(&l.perf.path.display().to_string()),
            rows: l.rows.len(),
            link: l.state().as_str(),
            reason: l.reason(),
        }),
        unattached_errors: selection.unattached.iter().map(|e| ErrorAnswer::new(e, options.hex)).collect(),
        operations: OperationEntries { explanation, operations: &selection.operations, entries: RefCell::new(entries) },
        log_failures: report
            .log()
            .map(|_| report.unjoined_log_failures().map(|f| LogFailureAnswer::new(f, options.hex)).collect()),
        late: explanation.late.as_ref(),
    };
    let mut serializer = serde_json::Serializer::with_formatter(&mut *out, Pretty::default());
    document.serialize(&mut serializer)?;
    out.write_all(b"\n")
}

/// The document of [`write_json`] as a string.
pub fn render_json(report: &MemoryReport, explanation: &Explanation<'_>, options: &ExplainOptions) -> String {
    let mut out = Vec::new();
    write_json(report, explanation, options, &mut out).expect("writing to memory does not fail");
    String::from_utf8(out).expect("serde_json writes UTF-8")
}

/// An answer as one pretty-printed JSON document and a newline.
pub(crate) fn pretty(answer: &impl Serialize) -> String {
    let mut text = serde_json::to_string_pretty(answer).expect("an answer serialises");
    text.push('\n');
    text
}
