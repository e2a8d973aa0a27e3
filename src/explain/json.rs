//! The JSON form of print mode: a stable contract other tools parse. The document arranges the
//! answers (`crate::answer`, whose field order is the key order); it is written as it is
//! serialised, one operation at a time, each entry built just before it is written and dropped
//! after it.

use super::explanation::{ExplainOptions, Explanation};
use super::pretty::Pretty;
use crate::analysis::sanitize::sanitize_line;
use crate::answer::{
    ErrorAnswer, Finishing, HeadroomEntry, LateAnswer, LogFailureAnswer, MemorySectionAnswer, OperationAnswer,
    PeakAnswer, Ready, ReportAnswer, TruePeaks,
};
use crate::report::MemoryReport;
use serde::Serialize;
use std::io::{self, Write};

/// The document's keys before its operations.
#[derive(Serialize)]
struct Head<'r> {
    memory_report: MemoryReportJson<'r>,
    perf_report: Option<PerfReportJson>,
}

/// The document's keys after its operations.
#[derive(Serialize)]
struct Tail<'r> {
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

/// Writes the errors of a report to `out` as one pretty-printed JSON document and a newline,
/// an operation at a time; stops at the first write that fails.
pub fn write_json(
    report: &MemoryReport,
    explanation: &Explanation<'_>,
    options: &ExplainOptions,
    out: &mut (impl Write + Send),
) -> io::Result<()> {
    let selection = &explanation.selection;
    let head = Head {
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
    };
    // `{` and the head's keys, its closing line left for the operations to follow.
    let laid = laid_out(&head, 0)?;
    out.write_all(laid.strip_suffix(b"\n}").expect("an object with keys ends on a line of its own"))?;
    out.write_all(b",\n  \"operations\": ")?;
    write_operations(report, explanation, options, out)?;
    let tail = Tail {
        unattached_errors: selection.unattached.iter().map(|e| ErrorAnswer::new(e, options.hex)).collect(),
        log_failures: report
            .log()
            .map(|_| report.unjoined_log_failures().map(|f| LogFailureAnswer::new(f, options.hex)).collect()),
        late: explanation.late.as_ref(),
    };
    // The tail's keys after a comma where its `{` would open it.
    out.write_all(b",")?;
    tail.serialize(&mut serde_json::Serializer::with_formatter(&mut Opened::new(&mut *out), Pretty::default()))?;
    out.write_all(b"\n")
}

/// The operations array at the document's first level, an entry at a time: each built as it is
/// written and dropped once it is; what it could not give is kept for the exit status.
fn write_operations(
    report: &MemoryReport,
    explanation: &Explanation<'_>,
    options: &ExplainOptions,
    out: &mut (impl Write + Send),
) -> io::Result<()> {
    let operations = &explanation.selection.operations;
    if operations.is_empty() {
        return out.write_all(b"[]");
    }
    out.write_all(b"[")?;
    let mut written = 0;
    explanation.each_entry(report, options.hex, &mut |ready| {
        out.write_all(if written == 0 { b"\n    " } else { b",\n    " })?;
        written += 1;
        match ready {
            Ready::Whole(entry) => write_entry(*entry, out),
            Ready::Found(found) if report.threads() >= 2 && found.live_buffers() >= BESIDE_FROM => {
                write_beside(found, out)
            }
            Ready::Found(found) => write_entry(found.finish(), out),
        }
    })?;
    out.write_all(b"\n  ]")
}

/// An entry of the operations array (its second level), written; then given back.
fn write_entry(entry: OperationAnswer, out: &mut impl Write) -> io::Result<OperationAnswer> {
    entry.serialize(&mut serde_json::Serializer::with_formatter(&mut *out, Pretty::at(ENTRY_LEVEL)))?;
    Ok(entry)
}

/// An entry whose memory at the failure is found, written while its fixes replay: its keys up
/// to `memory` first, then the memory laid out on another thread as the fixes replay on this
/// one, then the rest. The same bytes as [`write_entry`] writes of the finished entry.
fn write_beside(found: Finishing<'_, '_>, out: &mut (impl Write + Send)) -> io::Result<OperationAnswer> {
    let mut before = found.entry().clone();
    before.memory =
        Some(MemorySectionAnswer { memory: None, fixes: Vec::new(), memory_at_start: None, lines: Vec::new() });
    let before = laid_out_entry(&before)?;
    out.write_all(&before.0[..before.1])?;
    let (entry, written) = found.finish_beside(|memory| {
        memory.serialize(&mut serde_json::Serializer::with_formatter(&mut *out, Pretty::at(ENTRY_LEVEL + 1)))
    });
    written?;
    // The entry comes without the memory's answer: its `null` is where the memory was written.
    let (laid, at) = laid_out_entry(&entry)?;
    debug_assert_eq!(laid[..at], before.0[..before.1], "the keys before the memory are the same after the replay");
    out.write_all(&laid[at + b"null".len()..])?;
    Ok(entry)
}

/// An entry laid out without its memory (`null`), and where that value starts.
fn laid_out_entry(entry: &OperationAnswer) -> io::Result<(Vec<u8>, usize)> {
    const KEY: &[u8] = b"\n      \"memory\": null";
    let laid = laid_out(entry, ENTRY_LEVEL)?;
    let at = laid.windows(KEY.len()).position(|w| w == KEY).expect("an entry with a memory section has its key");
    Ok((laid, at + KEY.len() - b"null".len()))
}

/// From this many live buffers at a failure, its memory is laid out on another thread while its
/// fixes replay ([`write_beside`]); below, a thread and the entry's keys laid out twice cost more
/// than they save, and the replay's own workers want the cores.
const BESIDE_FROM: usize = 1024;

/// The level of the operations' entries in the document (in its `operations` array).
const ENTRY_LEVEL: usize = 2;

/// `value` laid out as it would be at `level` of the document.
fn laid_out(value: &impl Serialize, level: usize) -> io::Result<Vec<u8>> {
    let mut laid = Vec::new();
    value.serialize(&mut serde_json::Serializer::with_formatter(&mut laid, Pretty::at(level)))?;
    Ok(laid)
}

/// A writer that drops the `{` its first write opens with (the tail's keys continue the
/// document's object).
struct Opened<'w, W> {
    out: &'w mut W,
    opened: bool,
}

impl<'w, W: Write> Opened<'w, W> {
    fn new(out: &'w mut W) -> Self {
        Self { out, opened: false }
    }
}

impl<W: Write> Write for Opened<'_, W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if !self.opened && !buf.is_empty() {
            self.opened = true;
            debug_assert_eq!(buf[0], b'{');
            return Ok(1);
        }
        self.out.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
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
