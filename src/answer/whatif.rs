//! `ttnn-tui whatif`: the replay's answer as the JSON of docs/rules/memory.md §9.3, and the question asked
//! the way the command line and the agents' `what_if` ask it.

use super::refusal::Refusal;
use crate::analysis::format::{counted, size};
use crate::analysis::memory::whatif::{
    Fix, ReplayCheck, Sources, WhatIfNote, answer_sentence, fixes_with_places, not_applied, note_text,
};
use crate::analysis::messages::failure::BufferType;
use crate::analysis::sanitize::sanitize_line;
use crate::report::{MemoryReport, WhatIf, WhatIfOptions};
use serde::Serialize;

/// The JSON document of docs/rules/memory.md §9.3 (and `sentence`, `replayed_after`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct WhatIfAnswer {
    /// The failed operation.
    pub operation_id: u64,
    fixes: Vec<String>,
    check: &'static str,
    /// What tt-metal would do: `fits`, `fails`, ….
    pub outcome: &'static str,
    /// What does not fit: `request` or `circular_buffers` (docs/rules/memory.md §9.3).
    pub fails_on: Option<&'static str>,
    /// The request alone: whether it fits and where.
    pub request: Option<RequestAnswer>,
    buffer_type: &'static str,
    address: Option<u64>,
    largest_free_block: Option<u64>,
    cb_room: Option<u64>,
    cb_hint: Option<u64>,
    /// A circular-buffer check: where the failed operation's own output lies after the fixes.
    output: Option<OutputAnswer>,
    in_the_way: Vec<InTheWayAnswer>,
    replay_check: &'static str,
    notes: Vec<String>,
    sentence: String,
    replayed_after: Option<u64>,
    /// The lines the text gives under its heading, addresses as asked (text only).
    #[serde(skip)]
    pub lines: Vec<String>,
    /// The failed operation's name, sanitised (text only).
    #[serde(skip)]
    pub operation_name: String,
}

/// The failed request alone (docs/rules/memory.md §9.3 `request`): whether it fits, and where.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct RequestAnswer {
    /// It is placed.
    pub fits: bool,
    /// Where (null when it does not fit).
    pub address: Option<u64>,
}

impl RequestAnswer {
    /// The request's part of an answer; none for a circular-buffer check or when the replay
    /// never placed it.
    pub fn of(a: &crate::analysis::memory::whatif::Answer) -> Option<Self> {
        a.request_fits.map(|fits| Self { fits, address: a.address.filter(|_| fits) })
    }
}

/// Where the failed operation's output lies after the fixes (a circular-buffer check).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
struct OutputAnswer {
    buffer_type: &'static str,
    address: u64,
}

/// A buffer in the way of the request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
struct InTheWayAnswer {
    address: u64,
    size_per_bank: u64,
    tensor_id: Option<u64>,
}

/// Replays the failure of `operation` (by id; the report's first allocation failure when none)
/// with `fixes`; the refusal names what does not exist, as `whatif` says it.
pub fn what_if(
    report: &MemoryReport,
    operation: Option<u64>,
    fixes: &[Fix],
    from_start: bool,
    hex: bool,
) -> Result<WhatIfAnswer, Refusal> {
    let index = match operation {
        Some(id) => super::refusal::operation_index(report, id)?,
        None => (0..report.operations.len())
            .find(|&i| report.error_of(i).is_some_and(|e| e.failure.is_some()))
            .ok_or_else(|| Refusal::about(report, "no allocation failure in this report to replay"))?,
    };
    if report.error_of(index).is_none_or(|e| e.failure.is_none()) {
        let op = &report.operations[index];
        return Err(Refusal::about(
            report,
            &format!("operation {} {} has no allocation failure to replay", op.id, op.name),
        ));
    }
    let options = WhatIfOptions { late: None, from_start };
    let answer =
        report.replays().what_if(index, fixes, &options).map_err(|e| Refusal::about(report, &e.to_string()))?;
    // A fix that cannot act on this run has no answer: said, not replayed as if it did nothing.
    if let Some(why) = not_applied(&answer.answer.notes) {
        return Err(Refusal::about(report, &why));
    }
    // Each free says the model's line of the operation it frees after (docs/rules/memory.md §9.2).
    let after = answer.answer.fixes.iter().filter_map(|f| match f {
        Fix::Free { after: Some(k), .. } | Fix::FreeBuffer { after: k, .. } => Some(*k),
        _ => None,
    });
    let mut sources: Vec<(u64, String)> = report.details().model_sources(after).into_iter().collect();
    sources.sort_unstable();
    Ok(WhatIfAnswer::with_sources(&answer, &Sources(sources), hex))
}

impl WhatIfAnswer {
    /// The answer of a replay; `hex` gives the text's addresses in hex (the JSON's are numbers,
    /// its sentence in decimal).
    pub fn new(w: &WhatIf, hex: bool) -> Self {
        Self::with_sources(w, &Sources::default(), hex)
    }

    /// [`Self::new`], each free naming the model's line of its operation.
    pub fn with_sources(w: &WhatIf, sources: &Sources, hex: bool) -> Self {
        let a = &w.answer;
        Self {
            operation_id: a.operation_id,
            fixes: a.fixes.iter().map(ToString::to_string).collect(),
            check: if a.circular_buffers { "circular_buffers" } else { "allocation" },
            outcome: a.outcome.as_str(),
            fails_on: a.fails_on.map(|f| f.as_str()),
            request: RequestAnswer::of(a),
            buffer_type: a.buffer_type.token(),
            address: a.address,
            largest_free_block: a.largest_free_block,
            cb_room: a.cb_room,
            cb_hint: a.cb_hint,
            output: a.output.map(|(t, address)| OutputAnswer { buffer_type: t.token(), address }),
            in_the_way: a
                .in_the_way
                .iter()
                .map(|b| InTheWayAnswer { address: b.address, size_per_bank: b.size_per_bank, tensor_id: b.tensor_id })
                .collect(),
            replay_check: match a.replay_check {
                ReplayCheck::Exact => "exact",
                ReplayCheck::Differs { .. } => "differs",
            },
            notes: a.notes.iter().map(note_text).collect(),
            sentence: format!("{}: {}", fixes_with_places(&a.fixes, sources), answer_sentence(a, false)),
            replayed_after: w.replayed_after,
            lines: text_lines(w, sources, hex),
            operation_name: sanitize_line(&w.operation_name),
        }
    }
}

/// The fixes and what tt-metal would do, the room left for circular buffers, the self-check,
/// and the notes the sentence does not already say.
fn text_lines(w: &WhatIf, sources: &Sources, hex: bool) -> Vec<String> {
    let a = &w.answer;
    let sentence = format!("{}: {}", fixes_with_places(&a.fixes, sources), answer_sentence(a, hex));
    let mut lines = vec![sentence.clone()];
    if let Some(room) = a.cb_room.filter(|_| a.address.is_some() && a.buffer_type == BufferType::L1) {
        let hint = a.cb_hint.map_or_else(String::new, |h| format!("; the same operation used {} before", size(h)));
        lines.push(format!("Room for circular buffers below the lowest L1 buffer: {}{hint}.", size(room)));
    }
    lines.push(check_sentence(w));
    let said = |n: &&WhatIfNote| {
        matches!(
            n,
            WhatIfNote::CircularBuffersAfter { .. }
                | WhatIfNote::CircularBuffersUnrecorded { .. }
                | WhatIfNote::EarlierFailure { .. }
                | WhatIfNote::BeyondL1
        ) || sentence.contains(&note_text(n))
    };
    lines.extend(a.notes.iter().filter(|n| !said(n)).map(|note| format!("Note: {}.", note_text(note))));
    lines
}

/// The self-check in a sentence.
fn check_sentence(w: &WhatIf) -> String {
    let from = match w.replayed_after {
        Some(k) => format!("from the snapshot after operation {k}"),
        None => "from the first operation".to_string(),
    };
    match w.answer.replay_check {
        ReplayCheck::Exact => format!(
            "Replay check: exact. Replayed {from} without a fix, every recorded allocation lands where tt-metal put it and the request fails as it did."
        ),
        ReplayCheck::Differs { count, .. } => format!(
            "Replay check: differs. Replayed {from} without a fix, {} placed elsewhere than tt-metal did: this answer is a model, not a reproduction.",
            counted(count, "allocation is", "allocations are")
        ),
    }
}
