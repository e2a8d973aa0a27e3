//! `ttnn-tui whatif`: the replay's answer as text and as the JSON of memory.md §9.3.

use crate::analysis::format::size;
use crate::analysis::memory::whatif::{ReplayCheck, WhatIfNote, answer_sentence, fixes_phrase, note_text};
use crate::analysis::messages::failure::BufferType;
use crate::analysis::sanitize::sanitize_line;
use crate::report::WhatIf;
use serde::Serialize;
use std::fmt::Write;

/// The answer as text: a heading naming the operation, the fixes and what tt-metal would do,
/// the room left for circular buffers, the self-check, and the notes.
pub fn render_whatif_text(w: &WhatIf, hex: bool) -> String {
    let a = &w.answer;
    let mut out = String::new();
    let _ = writeln!(out, "Operation {} {}: what if", a.operation_id, sanitize_line(&w.operation_name));
    let _ = writeln!(out, "  {}: {}", fixes_phrase(&a.fixes), answer_sentence(a, hex));
    if let Some(room) = a.cb_room.filter(|_| a.address.is_some() && a.buffer_type == BufferType::L1) {
        let hint = a.cb_hint.map_or_else(String::new, |h| format!("; the same operation used {} before", size(h)));
        let _ = writeln!(out, "  Room for circular buffers below the lowest L1 buffer: {}{hint}.", size(room));
    }
    let _ = writeln!(out, "  {}", check_sentence(w));
    // What the sentence already says is not said again.
    let said = |n: &&WhatIfNote| {
        matches!(n, WhatIfNote::CircularBuffersAfter { .. } | WhatIfNote::EarlierFailure { .. } | WhatIfNote::BeyondL1)
    };
    for note in a.notes.iter().filter(|n| !said(n)) {
        let _ = writeln!(out, "  Note: {}.", note_text(note));
    }
    out
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
            crate::analysis::format::counted(count, "allocation is", "allocations are")
        ),
    }
}

/// The JSON document of memory.md §9.3 (and `sentence`, `replayed_after`).
#[derive(Serialize)]
struct WhatIfJson {
    operation_id: u64,
    fixes: Vec<String>,
    check: &'static str,
    outcome: &'static str,
    buffer_type: &'static str,
    address: Option<u64>,
    largest_free_block: Option<u64>,
    cb_room: Option<u64>,
    cb_hint: Option<u64>,
    in_the_way: Vec<InTheWayJson>,
    replay_check: &'static str,
    notes: Vec<String>,
    sentence: String,
    replayed_after: Option<u64>,
}

#[derive(Serialize)]
struct InTheWayJson {
    address: u64,
    size_per_bank: u64,
    tensor_id: Option<u64>,
}

/// The answer as one pretty-printed JSON document and a newline.
pub fn render_whatif_json(w: &WhatIf) -> String {
    let a = &w.answer;
    let doc = WhatIfJson {
        operation_id: a.operation_id,
        fixes: a.fixes.iter().map(ToString::to_string).collect(),
        check: if a.circular_buffers { "circular_buffers" } else { "allocation" },
        outcome: a.outcome.as_str(),
        buffer_type: a.buffer_type.token(),
        address: a.address,
        largest_free_block: a.largest_free_block,
        cb_room: a.cb_room,
        cb_hint: a.cb_hint,
        in_the_way: a
            .in_the_way
            .iter()
            .map(|b| InTheWayJson { address: b.address, size_per_bank: b.size_per_bank, tensor_id: b.tensor_id })
            .collect(),
        replay_check: match a.replay_check {
            ReplayCheck::Exact => "exact",
            ReplayCheck::Differs { .. } => "differs",
        },
        notes: a.notes.iter().map(note_text).collect(),
        sentence: format!("{}: {}", fixes_phrase(&a.fixes), answer_sentence(a, false)),
        replayed_after: w.replayed_after,
    };
    let mut text = serde_json::to_string_pretty(&doc).expect("a what-if answer serialises");
    text.push('\n');
    text
}
