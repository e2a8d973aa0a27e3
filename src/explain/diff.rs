//! `ttnn-tui diff BEFORE AFTER` (interfaces.md §1): what changed between two runs — the failures
//! gone, new and kept, the operations aligned and where the runs part, the memory after the
//! aligned operations, each side's peaks as `explain --peak` gives them, the tensors held past
//! their last use, and the first new failure explained in full. The text here; the JSON in
//! `diff_json.rs`.

use super::paint::Paint;
use super::peak::{PeakLine, Peaks, peaks_of};
use super::sections::MemorySections;
use super::{ExplainOptions, ExplainedError, collect};
use crate::analysis::compare::{
    Alignment, FailureChanges, RunFailure, aligned_sentence, compare_failures, count_pair_uses, failure_words,
    kept_words, lead_line, matching_key, pair_uses, pairs_sentence, run_failures,
};
use crate::analysis::failure::BufferType;
use crate::analysis::format::{counted, size};
use crate::analysis::late::late_heading;
use crate::analysis::usage::UsageKey;
use crate::analysis::usage_series::UsageSeries;
use crate::report::{MemoryReport, ReportError, RunMemory};
use std::fmt::Write;
use std::sync::atomic::AtomicBool;

/// One run of the comparison, read.
pub(crate) struct Run<'a> {
    /// The report.
    pub(crate) report: &'a MemoryReport,
    /// Its memory over the run (the one pass over `buffers`).
    pub(crate) memory: RunMemory,
    /// Its peaks, as `explain --peak` gives them.
    pub(crate) peaks: Peaks,
}

/// Two runs compared.
pub struct Compared<'a> {
    pub(crate) before: Run<'a>,
    pub(crate) after: Run<'a>,
    /// Their operations aligned by name.
    pub(crate) alignment: Alignment,
    /// Their failures gone, new and kept.
    pub(crate) changes: FailureChanges,
}

/// Which run a reading failed on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// BEFORE.
    Before,
    /// AFTER.
    After,
}

/// Reads both runs (one pass over each one's `buffers`) and compares them; the error names the
/// run that could not be read.
pub fn compare_runs<'a>(
    before: &'a MemoryReport,
    after: &'a MemoryReport,
) -> Result<Compared<'a>, (Side, ReportError)> {
    let read = |report: &'a MemoryReport, side: Side| {
        let memory = report.run_memory(&AtomicBool::new(false), &mut |_| {}).map_err(|e| (side, e))?;
        let peaks = peaks_of(report, &memory.usage);
        Ok::<_, (Side, ReportError)>(Run { report, memory, peaks })
    };
    let (before, after) = (read(before, Side::Before)?, read(after, Side::After)?);
    let alignment = Alignment::new(&names(before.report), &names(after.report));
    let failures = |r: &MemoryReport| run_failures(&r.operations, &r.errors);
    let changes = compare_failures(failures(before.report), failures(after.report));
    Ok(Compared { before, after, alignment, changes })
}

/// The names of a run's operations, in order.
fn names(report: &MemoryReport) -> Vec<&str> {
    report.operations.iter().map(|o| o.name.as_str()).collect()
}

/// A run's line of a device and buffer type, when it has points.
fn line<'r>(run: &'r Run<'_>, key: UsageKey) -> Option<&'r UsageSeries> {
    run.memory.series.iter().find(|s| (s.device_id, s.buffer_type) == key).filter(|s| !s.points.is_empty())
}

/// A run's peak of a device and buffer type.
fn peak_of(peaks: &Peaks, key: UsageKey) -> Option<&PeakLine> {
    peaks.lines.iter().find(|l| (l.peak.device_id, l.peak.buffer_type) == key)
}

impl Compared<'_> {
    /// The id and name of an operation by its index in BEFORE (`true`) or AFTER.
    pub(crate) fn name(&self, before: bool, index: usize) -> (u64, String) {
        let report = if before { self.before.report } else { self.after.report };
        report.operations.get(index).map_or((0, String::new()), |o| (o.id, o.name.clone()))
    }

    /// The first new failure, as `explain` lists it (the next thing to fix).
    pub(crate) fn next(&self, options: &ExplainOptions) -> Option<ExplainedError<'_>> {
        let first = self.changes.new.first()?;
        let options = ExplainOptions { operation: Some(first.operation_id), ..*options };
        collect(self.after.report, None, &options).ok()?.operations.into_iter().next()
    }

    /// The line the memory of the aligned operations is compared on, in each run: the place of
    /// the first gone failure, else of the first new one, else of the first kept one, else L1
    /// (else the first line) of BEFORE's first device; matched in the other run.
    pub(crate) fn focus_lines(&self) -> Option<(&UsageSeries, &UsageSeries)> {
        let keys = |run: &Run| run.memory.series.iter().map(|s| (s.device_id, s.buffer_type)).collect::<Vec<_>>();
        let (before_keys, after_keys) = (keys(&self.before), keys(&self.after));
        let place = |run: &Run, f: &RunFailure, keys: &[UsageKey]| {
            let mark = run.report.usage().failure_marks().into_iter().find(|m| m.operation_id == f.operation_id)?;
            let kind = mark.buffer_type?;
            let device = mark.device_id.or_else(|| keys.iter().find(|k| k.1 == kind).map(|k| k.0))?;
            matching_key((device, kind), keys)
        };
        let c = &self.changes;
        let in_before = c.gone.first().or(c.new.is_empty().then(|| c.kept.first().map(|k| &k.0)).flatten());
        let (before_key, after_key) = if let Some(f) = in_before {
            let key = place(&self.before, f, &before_keys)?;
            (key, matching_key(key, &after_keys)?)
        } else if let Some(f) = c.new.first() {
            let key = place(&self.after, f, &after_keys)?;
            (matching_key(key, &before_keys)?, key)
        } else {
            let key = before_keys.iter().find(|k| k.1 == BufferType::L1).or(before_keys.first()).copied()?;
            (key, matching_key(key, &after_keys)?)
        };
        Some((line(&self.before, before_key)?, line(&self.after, after_key)?))
    }

    /// The peaks of both runs by (device, buffer type), in device then type order.
    pub(crate) fn peak_pairs(&self) -> Vec<(UsageKey, Option<&PeakLine>, Option<&PeakLine>)> {
        let key = |l: &PeakLine| (l.peak.device_id, l.peak.buffer_type);
        let mut keys: Vec<UsageKey> = self.before.peaks.lines.iter().chain(&self.after.peaks.lines).map(key).collect();
        keys.sort_unstable();
        keys.dedup();
        keys.into_iter().map(|k| (k, peak_of(&self.before.peaks, k), peak_of(&self.after.peaks, k))).collect()
    }
}

/// The text: the lead line, the two runs, the failures, the alignment, the memory after the
/// aligned operations, the peaks, the late tensors, then the first new failure's whole block.
pub fn render_diff_text(c: &Compared<'_>, options: &ExplainOptions) -> String {
    let paint = Paint::new(options.color);
    let mut out = String::new();
    let _ = writeln!(out, "{}", paint.bold(&lead_line(&c.changes)));
    let run = |r: &Run| {
        format!("{}, {}", r.report.source.display_path(), counted(r.report.operations.len(), "operation", "operations"))
    };
    let _ = writeln!(out, "Before: {}. After: {}.", sanitized(&run(&c.before)), sanitized(&run(&c.after)));
    failure_lines(&mut out, c);
    let sizes = (c.before.report.operations.len(), c.after.report.operations.len());
    let _ = writeln!(out, "{}", aligned_sentence(&c.alignment, sizes, |side, k| c.name(side, k)));
    if let Some((before, after)) = c.focus_lines() {
        let counted = count_pair_uses(pair_uses(before, after, &c.alignment));
        let _ = writeln!(out, "{}", pairs_sentence(&line_words(before, after), &counted, |side, k| c.name(side, k)));
    }
    peak_lines(&mut out, c);
    late_lines(&mut out, c);
    if let Some(next) = c.next(options) {
        let _ = writeln!(out, "\n{}", paint.bold("Next to fix, the first new failure:"));
        let report = c.after.report;
        out.push_str(&super::text::operation_block(
            report,
            &next,
            &MemorySections::new(report).section(&next),
            options,
        ));
    }
    out
}

/// A path as the text gives it.
fn sanitized(text: &str) -> String {
    crate::analysis::sanitize::sanitize_line(text)
}

/// The line's name: `L1 per bank on device 1`, with AFTER's device when it names it otherwise.
fn line_words(before: &UsageSeries, after: &UsageSeries) -> String {
    let mut words = format!("{} per bank on device {}", before.buffer_type.token(), before.device_id);
    if after.device_id != before.device_id {
        let _ = write!(words, " (device {} after)", after.device_id);
    }
    words
}

/// `Gone:`, `New:` and `Still there:` lines, each failure with its summary and reason.
fn failure_lines(out: &mut String, c: &Compared<'_>) {
    let detail = |out: &mut String, f: &RunFailure| {
        let _ = writeln!(out, "  {}", f.summary);
        if let Some(reason) = f.reason {
            let _ = writeln!(out, "  {}.", reason.label());
        }
    };
    for f in &c.changes.gone {
        let _ = writeln!(out, "Gone: {}", failure_words(f));
        detail(out, f);
    }
    for f in &c.changes.new {
        let _ = writeln!(out, "New: {}", failure_words(f));
        detail(out, f);
    }
    for kept in &c.changes.kept {
        let _ = writeln!(out, "Still there: {}", kept_words(kept));
        detail(out, &kept.1);
    }
}

/// One line per device and buffer type: each run's peak, as `explain --peak` gives it, and how
/// far apart they are.
fn peak_lines(out: &mut String, c: &Compared<'_>) {
    let side = |line: Option<&PeakLine>, run: &Run, word: &str| {
        line.map(|l| {
            let id = l.peak.operation_id;
            let name =
                run.report.operation_index(id).map_or(String::new(), |i| format!(" {}", run.report.operations[i].name));
            format!("{} per bank {word} (operation {id}{name})", size(l.peak.used_per_bank))
        })
    };
    for ((device, kind), before, after) in c.peak_pairs() {
        let (b, a) = (side(before, &c.before, "before"), side(after, &c.after, "after"));
        let change = match (before, after) {
            (Some(b), Some(a)) => match a.peak.used_per_bank.cmp(&b.peak.used_per_bank) {
                std::cmp::Ordering::Less => format!(": {} lower", size(b.peak.used_per_bank - a.peak.used_per_bank)),
                std::cmp::Ordering::Greater => {
                    format!(": {} higher", size(a.peak.used_per_bank - b.peak.used_per_bank))
                }
                std::cmp::Ordering::Equal => ": the same".to_string(),
            },
            _ => String::new(),
        };
        let both = match (b, a) {
            (Some(b), Some(a)) => format!("{b}, {a}"),
            (Some(b), None) => format!("{b}, none after"),
            (None, Some(a)) => format!("{a}, none before"),
            (None, None) => continue,
        };
        let _ = writeln!(out, "Peak {} use on device {device}: {both}{change}.", kind.token());
    }
}

/// How many tensors each run holds past their last use, and what freeing them does to each line's
/// peak (`explain --late`'s headings).
fn late_lines(out: &mut String, c: &Compared<'_>) {
    let (before, after) = (c.before.memory.late.late.len(), c.after.memory.late.late.len());
    let tensors = |n: usize| counted(n, "tensor", "tensors");
    let _ = writeln!(out, "Held past their last use: {} before, {} after.", tensors(before), tensors(after));
    for (word, run) in [("Before", &c.before), ("After", &c.after)] {
        for s in run.memory.late.summary.iter().filter(|s| s.count > 0) {
            let _ =
                writeln!(out, "  {word}, {} on device {}: {}.", s.buffer_type.token(), s.device_id, late_heading(s));
        }
    }
}

/// Why a comparison gave nothing: the run that cannot be read, as one line (`error: what, where,
/// what to do`).
pub fn diff_error(side: Side, error: &ReportError, path: &str) -> String {
    let which = match side {
        Side::Before => "BEFORE",
        Side::After => "AFTER",
    };
    let what = match error {
        // Its text names the path already.
        ReportError::Open { .. } => error.to_string(),
        other => format!("{other}: {}", sanitized(path)),
    };
    format!(
        "the {which} report cannot be read: {what}; diff compares two TT-NN report folders (or their db.sqlite files)"
    )
}

/// Opens both reports and gives the comparison as text or JSON, with the notes for stderr (a
/// folder of reports opens its newest, said as `explain` says it); the error is [`diff_error`]'s
/// line.
pub fn diff_reports(
    (before, after): (&std::path::Path, &std::path::Path),
    rank: u32,
    json: bool,
    options: &ExplainOptions,
) -> Result<(Vec<String>, String), String> {
    let mut notes = Vec::new();
    let mut open = |path: &std::path::Path, side: Side| {
        let fail = |e: ReportError| diff_error(side, &e, &path.display().to_string());
        let found = crate::report::locate_report(Some(path)).map_err(fail)?;
        notes.extend(found.note());
        MemoryReport::open(&found.source, rank).map_err(fail)
    };
    let (before, after) = (open(before, Side::Before)?, open(after, Side::After)?);
    let compared = compare_runs(&before, &after).map_err(|(side, e)| {
        let report = if side == Side::Before { &before } else { &after };
        diff_error(side, &e, &report.source.display_path())
    })?;
    let text = match json {
        true => super::render_diff_json(&compared, options),
        false => render_diff_text(&compared, options),
    };
    Ok((notes, text))
}
