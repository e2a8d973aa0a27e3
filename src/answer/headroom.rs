//! `ttnn-tui headroom` (docs/true-peak.md "Headroom"): for each device and buffer type the run
//! uses, how much more it could take per bank before anything fails, and what fails first.

use super::single_chip::on_a_single_chip;
use crate::analysis::memory::named_device;
use crate::analysis::memory::peak::{FirstFailure, Headroom, HeadroomQuestion, ReplayCheck, RunEvents, headroom};
use crate::analysis::messages::failure::{BufferType, FailureKind};
use crate::analysis::messages::reason::Reason;
use crate::report::memory::run_events::RunFacts;
use crate::report::{MemoryReport, ReportError};
use serde::Serialize;

/// The headroom of every device and buffer type (`headroom --json`, MCP's `headroom`).
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct HeadroomAnswer {
    /// One per device and buffer type, in device then type order.
    pub headroom: Vec<HeadroomEntry>,
    /// Buffer types the run uses whose headroom cannot be told, by the device's name (text only).
    #[serde(skip)]
    pub unknown: Vec<(u64, BufferType, &'static str)>,
}

/// One device and buffer type's headroom.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HeadroomEntry {
    /// The device.
    pub device_id: u64,
    /// The id text names the device by: 0 for a single chip, whatever ids its tables use
    /// (issue 30 §4.5), the tables' id otherwise (text only).
    #[serde(skip)]
    pub named_device: u64,
    /// The buffer type.
    pub buffer_type: BufferType,
    /// The largest extra allocation per bank, made before the first operation and kept, with
    /// which the run still places everything.
    pub per_bank: u64,
    /// The bank's size.
    pub bank_size: u64,
    /// The search's step per bank.
    pub alignment: u64,
    /// The replay without a reservation against the run.
    pub replay_check: ReplayCheck,
    /// What fails first one step above (for a failed run: its failure).
    pub first_failure: Option<FirstFailureAnswer>,
    /// The run itself failed on this type (text only).
    #[serde(skip)]
    pub failed: bool,
    /// Operations whose dataflow buffers no graph records, with their names (text only).
    #[serde(skip)]
    pub unrecorded_dataflow: Vec<(u64, String)>,
}

/// What fails first.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FirstFailureAnswer {
    /// The operation.
    pub operation_id: u64,
    /// Its name.
    pub operation_name: String,
    /// The kind (`explain --json`'s `allocation_failure.kind`).
    pub kind: FailureKind,
    /// The reason (docs/rules/reference.md §5.3).
    pub reason: Option<Reason>,
}

/// Reads the run's events once and searches every headroom in memory.
pub fn read_headroom(report: &MemoryReport) -> Result<HeadroomAnswer, ReportError> {
    Ok(headroom_of(report, &report.passes().run_facts()?))
}

/// The headroom of events already read: each device and buffer type searched on its own
/// thread (up to the report's `--threads`), the answers in device then type order.
pub fn headroom_of(report: &MemoryReport, facts: &RunFacts) -> HeadroomAnswer {
    let mut out = HeadroomAnswer::default();
    let name = |id: u64| report.operation_index(id).map_or_else(String::new, |i| report.operations[i].name.to_string());
    let single = on_a_single_chip(report, facts.layouts.iter().map(|l| l.device_id));
    let mut questions = Vec::new();
    for layout in &facts.layouts {
        let d = layout.device_id;
        for (t, region, alignment) in [
            (BufferType::Dram, layout.dram, facts.dram_alignment),
            (BufferType::L1, layout.l1, facts.l1_alignment),
            (BufferType::L1Small, layout.l1_small, facts.l1_alignment),
        ] {
            let used = facts.events.buffers.iter().any(|b| b.place == (d, t));
            let failed = facts.failures.iter().find(|(p, _)| *p == (d, t)).map(|(_, f)| *f);
            if !used && failed.is_none() && t != BufferType::L1 {
                continue;
            }
            let Some(region) = region.filter(|(s, e)| e > s) else {
                if used || failed.is_some() {
                    out.unknown.push((named_device(d, single), t, unknown_why(t)));
                }
                continue;
            };
            questions.push(HeadroomQuestion { place: (d, t), region, alignment, failed });
        }
    }
    for (q, h) in questions.iter().zip(search_all(&facts.events, &questions, report.threads())) {
        out.headroom.push(HeadroomEntry {
            device_id: q.place.0,
            named_device: named_device(q.place.0, single),
            buffer_type: q.place.1,
            per_bank: h.per_bank,
            bank_size: h.bank_size,
            alignment: h.alignment,
            replay_check: h.replay_check,
            first_failure: h.first_failure.map(|f: FirstFailure| FirstFailureAnswer {
                operation_id: f.operation_id,
                operation_name: name(f.operation_id),
                kind: f.kind,
                reason: f.reason,
            }),
            failed: q.failed.is_some(),
            unrecorded_dataflow: h.unrecorded_dataflow.iter().map(|&id| (id, name(id))).collect(),
        });
    }
    out
}

/// Every question's search, in their order: on `threads` threads when there are several (each
/// search replays its own place's events, in memory, independently of the others).
fn search_all(events: &RunEvents, questions: &[HeadroomQuestion], threads: usize) -> Vec<Headroom> {
    if threads < 2 || questions.len() < 2 {
        return questions.iter().map(|q| headroom(events, q)).collect();
    }
    let per_thread = questions.len().div_ceil(threads);
    std::thread::scope(|scope| {
        let workers: Vec<_> = questions
            .chunks(per_thread)
            .map(|chunk| scope.spawn(move || chunk.iter().map(|q| headroom(events, q)).collect::<Vec<_>>()))
            .collect();
        workers.into_iter().flat_map(|w| w.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))).collect()
    })
}

fn unknown_why(t: BufferType) -> &'static str {
    match t {
        BufferType::Dram => "the report does not record the DRAM bank size (only a DRAM failure's message gives it)",
        _ => "the report has no devices row for it",
    }
}

impl HeadroomAnswer {
    /// The entries below a minimum (`--min TYPE=SIZE`), each with its minimum.
    pub fn below<'a>(&'a self, minimums: &'a [(BufferType, u64)]) -> impl Iterator<Item = (&'a HeadroomEntry, u64)> {
        self.headroom.iter().filter_map(move |e| {
            minimums
                .iter()
                .find(|(t, _)| *t == e.buffer_type)
                .filter(|(_, min)| e.per_bank < *min)
                .map(|(_, m)| (e, *m))
        })
    }
}
