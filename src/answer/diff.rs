//! Two runs compared (docs/rules/interfaces.md §1, beyond the reference): each run's memory over the run,
//! peaks and late list read in one pass over its `buffers`, the operations aligned by name, the
//! failures gone, new and kept, the first new failure's entry — and the `diff --json` document
//! (`DiffAnswer`), which `ttnn-tui diff` and MCP's `compare_runs` both serialise.

use super::entry::{Entries, OperationAnswer};
use super::peak::{PeakAnswer, PeaksAnswer, peaks_of};
use super::select::Selection;
use super::single_chip::on_a_single_chip;
use crate::analysis::compare::{
    Alignment, FailureChanges, Parting, RunFailure, compare_failures, matching_key, run_failures,
};
use crate::analysis::memory::named_device;
use crate::analysis::memory::usage::UsageKey;
use crate::analysis::memory::usage_series::UsageSeries;
use crate::analysis::messages::failure::BufferType;
use crate::analysis::messages::reason::Reason;
use crate::analysis::sanitize::sanitize_line;
use crate::report::{MemoryReport, ReportError, RunMemory};
use serde::Serialize;
use std::sync::atomic::AtomicBool;

/// One run of the comparison, read.
pub struct Run<'a> {
    /// The report.
    pub(crate) report: &'a MemoryReport,
    /// Its memory over the run (the one pass over `buffers`).
    pub(crate) memory: RunMemory,
    /// Its peaks, as `explain --peak` gives them.
    pub(crate) peaks: PeaksAnswer,
    /// Whether the run is on a single chip, which text names device 0 (issue 30 §4.5).
    pub(crate) single_chip: bool,
}

impl Run<'_> {
    /// The id text names a device of this run by: 0 for a single chip, whatever id its tables use.
    pub(crate) fn named(&self, device: u64) -> u64 {
        named_device(device, self.single_chip)
    }
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
        let memory = report.passes().run_memory(&AtomicBool::new(false), &mut |_| {}).map_err(|e| (side, e))?;
        let peaks = peaks_of(report, &memory.usage);
        let single_chip = on_a_single_chip(report, memory.series.iter().map(|s| s.device_id));
        Ok::<_, (Side, ReportError)>(Run { report, memory, peaks, single_chip })
    };
    let (before, after) = (read(before, Side::Before)?, read(after, Side::After)?);
    let alignment = Alignment::new(&names(before.report), &names(after.report));
    let failures = |r: &MemoryReport| run_failures(&r.operations, &r.errors);
    let changes = compare_failures(failures(before.report), failures(after.report));
    Ok(Compared { before, after, alignment, changes })
}

/// The names of a run's operations, in order.
fn names(report: &MemoryReport) -> Vec<&str> {
    report.operations.iter().map(|o| o.name.as_ref()).collect()
}

/// A run's line of a device and buffer type, when it has points.
fn line<'r>(run: &'r Run<'_>, key: UsageKey) -> Option<&'r UsageSeries> {
    run.memory.series.iter().find(|s| (s.device_id, s.buffer_type) == key).filter(|s| !s.points.is_empty())
}

/// A run's peak of a device and buffer type.
fn peak_of(peaks: &PeaksAnswer, key: UsageKey) -> Option<&PeakAnswer> {
    peaks.peak.iter().find(|l| (l.peak.device_id, l.peak.buffer_type) == key)
}

impl Compared<'_> {
    /// The id and name of an operation by its index in BEFORE (`true`) or AFTER.
    pub fn name(&self, before: bool, index: usize) -> (u64, String) {
        let report = if before { self.before.report } else { self.after.report };
        report.operations.get(index).map_or((0, String::new()), |o| (o.id, o.name.to_string()))
    }

    /// The first new failure's entry, as `explain` gives it (the next thing to fix).
    pub fn next(&self, hex: bool) -> Option<OperationAnswer> {
        let first = self.changes.new.first()?;
        let selection = Selection::collect(self.after.report, None, Some(first.operation_id)).ok()?;
        let e = selection.operations().next()?;
        Some(Entries::new(self.after.report, hex).operation(e))
    }

    /// The line the memory of the aligned operations is compared on, in each run: the place of
    /// the first gone failure, else of the first new one, else of the first kept one, else L1
    /// (else the first line) of BEFORE's first device; matched in the other run.
    pub fn focus_lines(&self) -> Option<(&UsageSeries, &UsageSeries)> {
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

    /// The peaks of both runs by (device, buffer type) as each run names its devices, in device
    /// then type order: the JSON's rows (docs/rules/interfaces.md §1), each side's as `explain --peak`.
    pub fn peak_rows(&self) -> Vec<(UsageKey, Option<&PeakAnswer>, Option<&PeakAnswer>)> {
        let key = |l: &PeakAnswer| (l.peak.device_id, l.peak.buffer_type);
        let mut keys: Vec<UsageKey> = self.before.peaks.peak.iter().chain(&self.after.peaks.peak).map(key).collect();
        keys.sort_unstable();
        keys.dedup();
        keys.into_iter().map(|k| (k, peak_of(&self.before.peaks, k), peak_of(&self.after.peaks, k))).collect()
    }

    /// The peaks of both runs by (device, buffer type), in BEFORE's device then type order, then
    /// AFTER's unmatched: a line of BEFORE is paired with AFTER's as the memory lines are
    /// (`matching_key`: a single chip one release names by its mesh id, another by its chip id).
    /// Each pair: its key (BEFORE's, else AFTER's), AFTER's device when it differs, the peaks.
    pub fn peak_pairs(&self) -> Vec<PeakPair<'_>> {
        let keys = |p: &PeaksAnswer| {
            let mut k: Vec<UsageKey> = p.peak.iter().map(|l| (l.peak.device_id, l.peak.buffer_type)).collect();
            k.sort_unstable();
            k.dedup();
            k
        };
        let (before_keys, mut after_keys) = (keys(&self.before.peaks), keys(&self.after.peaks));
        let mut pairs = Vec::new();
        for key in before_keys {
            let other = matching_key(key, &after_keys);
            after_keys.retain(|k| Some(*k) != other);
            let after_device = other.map(|k| k.0).filter(|&d| d != key.0);
            let after = other.and_then(|k| peak_of(&self.after.peaks, k));
            pairs.push(PeakPair { key, after_device, before: peak_of(&self.before.peaks, key), after });
        }
        pairs.extend(after_keys.into_iter().map(|key| PeakPair {
            key,
            after_device: None,
            before: None,
            after: peak_of(&self.after.peaks, key),
        }));
        pairs
    }
}

/// One line of the peaks' text: both runs' peaks of a device and buffer type.
pub struct PeakPair<'a> {
    /// BEFORE's device and buffer type, else AFTER's.
    pub key: UsageKey,
    /// AFTER's device, when it names the chip otherwise.
    pub after_device: Option<u64>,
    /// BEFORE's peak.
    pub before: Option<&'a PeakAnswer>,
    /// AFTER's peak.
    pub after: Option<&'a PeakAnswer>,
}

/// Opens one side of a comparison (a folder of reports opens its newest; the note says which),
/// or the line [`diff_error`] gives.
pub fn open_side(path: &std::path::Path, side: Side, rank: u32) -> Result<(MemoryReport, Option<String>), String> {
    let fail = |e: ReportError| diff_error(side, &e, &path.display().to_string());
    let found = crate::report::locate_report(Some(path)).map_err(fail)?;
    let report = MemoryReport::open(&found.source, rank).map_err(fail)?;
    Ok((report, found.note()))
}

/// Reads both runs and compares them, with [`diff_error`]'s line when one cannot be read.
pub fn compare_opened<'a>(before: &'a MemoryReport, after: &'a MemoryReport) -> Result<Compared<'a>, String> {
    compare_runs(before, after).map_err(|(side, e)| {
        let report = if side == Side::Before { before } else { after };
        diff_error(side, &e, &report.source.display_path())
    })
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
        other => format!("{other}: {}", sanitize_line(path)),
    };
    format!(
        "the {which} report cannot be read: {what}; diff compares two TT-NN report folders (or their db.sqlite files)"
    )
}

/// The whole document.
#[derive(Debug, Clone, Serialize)]
pub struct DiffAnswer<'c> {
    before: RunJson<'c>,
    after: RunJson<'c>,
    failures: FailuresJson<'c>,
    peaks: Vec<PeakJson>,
    aligned: AlignedJson,
    late: LateJson,
    /// `explain --json`'s entry of the first new failure.
    next: Option<OperationAnswer>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
struct RunJson<'c> {
    path: String,
    operations: usize,
    schema_version: Option<&'c str>,
}

/// F: one failure on its side.
#[derive(Debug, Clone, PartialEq, Serialize)]
struct FailureJson<'c> {
    operation_id: u64,
    operation_name: &'c str,
    kind: &'c str,
    summary: &'c str,
    reason: Option<Reason>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
struct KeptJson<'c> {
    before: FailureJson<'c>,
    after: FailureJson<'c>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
struct FailuresJson<'c> {
    gone: Vec<FailureJson<'c>>,
    new: Vec<FailureJson<'c>>,
    kept: Vec<KeptJson<'c>>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
struct PeakJson {
    device_id: u64,
    buffer_type: &'static str,
    before_per_bank: Option<u64>,
    after_per_bank: Option<u64>,
    before_operation_id: Option<u64>,
    after_operation_id: Option<u64>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
struct AlignedJson {
    pairs: usize,
    parted_at: Option<PartedJson>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
struct PartedJson {
    before_operation_id: Option<u64>,
    after_operation_id: Option<u64>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
struct LateJson {
    before: usize,
    after: usize,
}

fn run_json<'c>(run: &'c Run<'_>) -> RunJson<'c> {
    RunJson {
        path: sanitize_line(&run.report.source.display_path()),
        operations: run.report.operations.len(),
        schema_version: run.report.schema_version.as_deref(),
    }
}

fn failure_json(f: &RunFailure) -> FailureJson<'_> {
    FailureJson {
        operation_id: f.operation_id,
        operation_name: &f.operation_name,
        kind: &f.kind,
        summary: &f.summary,
        reason: f.reason,
    }
}

impl<'c> DiffAnswer<'c> {
    /// The document of two runs compared (`diff --json`, MCP's `compare_runs`).
    pub fn new(c: &'c Compared<'_>, hex: bool) -> Self {
        let changes = &c.changes;
        let id = |before: bool, index: Option<usize>| index.map(|k| c.name(before, k).0);
        DiffAnswer {
            before: run_json(&c.before),
            after: run_json(&c.after),
            failures: FailuresJson {
                gone: changes.gone.iter().map(failure_json).collect(),
                new: changes.new.iter().map(failure_json).collect(),
                kept: changes
                    .kept
                    .iter()
                    .map(|(b, a)| KeptJson { before: failure_json(b), after: failure_json(a) })
                    .collect(),
            },
            peaks: c
                .peak_rows()
                .into_iter()
                .map(|((device_id, kind), before, after)| PeakJson {
                    device_id,
                    buffer_type: kind.token(),
                    before_per_bank: before.map(|l| l.peak.used_per_bank),
                    after_per_bank: after.map(|l| l.peak.used_per_bank),
                    before_operation_id: before.map(|l| l.peak.operation_id),
                    after_operation_id: after.map(|l| l.peak.operation_id),
                })
                .collect(),
            aligned: AlignedJson {
                pairs: c.alignment.pairs(),
                parted_at: c.alignment.parted_at().map(|Parting { before, after }| PartedJson {
                    before_operation_id: id(true, before),
                    after_operation_id: id(false, after),
                }),
            },
            late: LateJson { before: c.before.memory.late.late.len(), after: c.after.memory.late.late.len() },
            next: c.next(hex),
        }
    }
}
