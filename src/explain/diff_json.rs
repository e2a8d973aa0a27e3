//! The JSON of `ttnn-tui diff --json`, a stable contract (interfaces.md §1): the types below are
//! the document, field order is key order.

use super::ExplainOptions;
use super::diff::{Compared, Run};
use super::json::operation_entry;
use crate::analysis::compare::{Parting, RunFailure};
use crate::analysis::reason::Reason;
use crate::analysis::sanitize::sanitize_line;
use serde::Serialize;

/// The whole document.
#[derive(Serialize)]
struct DiffJson<'c> {
    before: RunJson<'c>,
    after: RunJson<'c>,
    failures: FailuresJson<'c>,
    peaks: Vec<PeakJson>,
    aligned: AlignedJson,
    late: LateJson,
    /// `explain --json`'s entry of the first new failure.
    next: Option<serde_json::Value>,
}

#[derive(Serialize)]
struct RunJson<'c> {
    path: String,
    operations: usize,
    schema_version: Option<&'c str>,
}

/// F: one failure on its side.
#[derive(Serialize)]
struct FailureJson<'c> {
    operation_id: u64,
    operation_name: &'c str,
    kind: &'c str,
    summary: &'c str,
    reason: Option<Reason>,
}

#[derive(Serialize)]
struct KeptJson<'c> {
    before: FailureJson<'c>,
    after: FailureJson<'c>,
}

#[derive(Serialize)]
struct FailuresJson<'c> {
    gone: Vec<FailureJson<'c>>,
    new: Vec<FailureJson<'c>>,
    kept: Vec<KeptJson<'c>>,
}

#[derive(Serialize)]
struct PeakJson {
    device_id: u64,
    buffer_type: &'static str,
    before_per_bank: Option<u64>,
    after_per_bank: Option<u64>,
    before_operation_id: Option<u64>,
    after_operation_id: Option<u64>,
}

#[derive(Serialize)]
struct AlignedJson {
    pairs: usize,
    parted_at: Option<PartedJson>,
}

#[derive(Serialize)]
struct PartedJson {
    before_operation_id: Option<u64>,
    after_operation_id: Option<u64>,
}

#[derive(Serialize)]
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

/// The document as pretty-printed JSON and a newline.
pub fn render_diff_json(c: &Compared<'_>, options: &ExplainOptions) -> String {
    let changes = &c.changes;
    let id = |before: bool, index: Option<usize>| index.map(|k| c.name(before, k).0);
    let document = DiffJson {
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
            .peak_pairs()
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
        next: c.next(options).map(|e| operation_entry(c.after.report, &e, options.hex)),
    };
    let mut text = serde_json::to_string_pretty(&document).unwrap_or_default();
    text.push('\n');
    text
}
