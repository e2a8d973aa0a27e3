//! How a what-if answer reads (docs/rules/memory.md §9.2): what tt-metal would do with the request once the
//! fix is in, said only as far as the replay says it — `fits` only when it fits, and `fits,
//! then …` when the circular buffers the operation needs would no longer fit below it.

use super::answer::{Answer, InTheWay, Mismatch, Outcome, ReplayCheck, WhatIfNote};
use super::fix::Fix;
use crate::analysis::format::{counted, format_address, size};
use crate::analysis::messages::failure::BufferType;

fn address(a: u64, hex: bool) -> String {
    format_address(Some(a), hex)
}

/// A buffer in the way: `tensor 12 at 110592 (76 KiB)`.
fn in_the_way(b: &InTheWay, hex: bool) -> String {
    if b.size_per_bank == 0 && b.tensor_id.is_none() {
        return format!("the operation's own buffer at {} (not recorded)", address(b.address, hex));
    }
    let who = b.tensor_id.map_or_else(|| "a buffer".to_string(), |t| format!("tensor {t}"));
    format!("{who} at {} ({} per bank)", address(b.address, hex), size(b.size_per_bank))
}

fn listed(buffers: &[InTheWay], hex: bool) -> String {
    let shown: Vec<String> = buffers.iter().take(3).map(|b| in_the_way(b, hex)).collect();
    let more = buffers.len().saturating_sub(shown.len());
    let more = if more > 0 { format!(" and {more} more") } else { String::new() };
    format!("{}{more}", shown.join(", "))
}

/// What tt-metal would do, e.g. `the 128 KiB request fits at 1105920.`, `the 1 MiB request fits
/// at 114688, but ttnn.matmul used 12 KiB of circular buffers at operation 5 and only 8.7 KiB
/// would be left below it.`; with the self-check's caveat when the replay is a model.
pub fn answer_sentence(a: &Answer, hex: bool) -> String {
    let mut out = outcome(a, hex);
    if let ReplayCheck::Differs { first, .. } = a.replay_check {
        out.push_str(&format!(" (A model, not a reproduction: {}.)", mismatch(&first, hex)));
    }
    out
}

fn outcome(a: &Answer, hex: bool) -> String {
    if let Some(dead) = a.notes.iter().find(|n| matches!(n, WhatIfNote::EarlierFailure { .. })) {
        return format!("{}.", note_text(dead));
    }
    let kind = match a.buffer_type {
        BufferType::L1 => String::new(),
        other => format!(" {}", other.token()),
    };
    let request = a
        .size_per_bank
        .map_or_else(|| "the request".to_string(), |s| format!("the {}-per-bank{kind} request", size(s)));
    match (a.circular_buffers, a.outcome) {
        (false, Outcome::Fits) => fits_but(a, &request, hex),
        (false, _) if a.request_fits == Some(true) => fits_but(a, &request, hex),
        (false, Outcome::DoesNotFit) => {
            let would = if a.fixes.is_empty() { "is" } else { "would be" };
            let largest =
                a.largest_free_block.map_or_else(String::new, |l| format!(": the largest free block {would} {}", size(l)));
            let way = if a.in_the_way.is_empty() {
                String::new()
            } else {
                format!("; in the way: {}", listed(&a.in_the_way, hex))
            };
            let still = if a.fixes.is_empty() { "" } else { " still" };
            format!("{request}{still} does not fit{largest}{way}.")
        }
        (true, Outcome::Fits) => match a.cb_region {
            Some((end, Some(lowest))) => format!(
                "the circular buffers, up to {}, fit below the lowest L1 buffer, at {}.",
                address(end, hex),
                address(lowest, hex)
            ),
            Some((end, None)) => format!("the circular buffers, up to {}, fit: no L1 buffer is left.", address(end, hex)),
            None => "the circular buffers fit.".to_string(),
        },
        (true, Outcome::DoesNotFit) if a.notes.contains(&WhatIfNote::BeyondL1) => {
            "the circular buffers end beyond L1: no change to L1 buffers helps; the operation's program config sets their size.".to_string()
        }
        (true, Outcome::DoesNotFit) => format!(
            "the circular buffers{} clash with {}: {}.",
            if a.fixes.is_empty() { "" } else { " still" },
            counted(a.in_the_way.len(), "L1 buffer", "L1 buffers"),
            listed(&a.in_the_way, hex)
        ),
        (_, Outcome::Unknown) => {
            let why = a.notes.iter().map(note_text).next().unwrap_or_else(|| "the report does not say enough".into());
            format!("the replay cannot tell: {why}.")
        }
    }
}

/// `the 128 KiB-per-bank request fits at 1105920.`, with what keeps the operation from fitting.
fn fits_but(a: &Answer, request: &str, hex: bool) -> String {
    let at = a.address.map_or_else(String::new, |x| format!(" at {}", address(x, hex)));
    match a.notes.iter().find_map(but) {
        Some(rest) => format!("{request} fits{at}, but {rest}."),
        None => format!("{request} fits{at}."),
    }
}

/// What keeps an operation whose request fits from fitting, as the clause after "but".
fn but(n: &WhatIfNote) -> Option<String> {
    match n {
        WhatIfNote::CircularBuffersAfter { operation_id, operation_name, other_than, used, room } => {
            let then = match other_than {
                None => "the operation would fail on its circular buffers".to_string(),
                Some(failed) => format!("{failed} records none of its own, so whether they fit is unknown"),
            };
            Some(format!(
                "{operation_name} used {} of circular buffers at operation {operation_id} and only {} would be left below it: {then}",
                size(*used),
                size(*room)
            ))
        }
        WhatIfNote::CircularBuffersUnrecorded { operation_name, room } => Some(format!(
            "only {} would be left below it for {operation_name}'s circular buffers, which no operation of the run records: whether they fit is unknown",
            size(*room)
        )),
        WhatIfNote::MoreAfterRequest { .. } | WhatIfNote::AllocatorMode { .. } => Some(note_text(n)),
        _ => None,
    }
}

fn mismatch(m: &Mismatch, hex: bool) -> String {
    let at = m.operation_id.map_or_else(|| "before the first operation".to_string(), |k| format!("at operation {k}"));
    match (m.recorded, m.model) {
        (Some(r), Some(x)) => format!(
            "replayed without a fix, the {} buffer tt-metal placed at {} {at} lands at {}",
            m.buffer_type.token(),
            address(r, hex),
            address(x, hex)
        ),
        (Some(r), None) => {
            format!(
                "replayed without a fix, the {} buffer tt-metal placed at {} {at} does not fit",
                m.buffer_type.token(),
                address(r, hex)
            )
        }
        (None, Some(x)) => format!("replayed without a fix, the failed request fits at {}", address(x, hex)),
        (None, None) => "replayed without a fix, the failed request does not fail".to_string(),
    }
}

/// The fixes the user named that cannot act on this run, each with why (`free 999: tensor 999
/// is not in the report`), joined by `; `; none when every fix applies.
pub fn not_applied(notes: &[WhatIfNote]) -> Option<String> {
    let said: Vec<String> =
        notes.iter().filter(|n| matches!(n, WhatIfNote::NotApplied { .. })).map(note_text).collect();
    (!said.is_empty()).then(|| said.join("; "))
}

/// One note, as a clause without its full stop.
pub fn note_text(n: &WhatIfNote) -> String {
    match n {
        WhatIfNote::EarlierFailure { operation_id, buffer_type, size_per_bank, largest_free_block } => {
            let at = operation_id.map_or_else(|| "before the first operation".into(), |k| format!("operation {k}"));
            format!(
                "the run would fail earlier: {at} could not place its {} {} buffer (largest free block {})",
                size(*size_per_bank),
                buffer_type.token(),
                size(*largest_free_block)
            )
        }
        WhatIfNote::DramSizeEstimated { tensor_id, size_per_bank } => {
            let who = tensor_id.map_or_else(|| "a buffer".into(), |t| format!("tensor {t}"));
            format!("{who} has no recorded page size: its DRAM size is estimated at {} per bank", size(*size_per_bank))
        }
        WhatIfNote::NotFound { fix, what } => format!("{fix}: {what} is not in the report"),
        WhatIfNote::NotApplied { fix, why } => format!("{fix}: {why}"),
        WhatIfNote::RegionUnknown { buffer_type } => format!("the {} region is unknown", buffer_type.token()),
        WhatIfNote::UnknownFrees { count } => {
            format!("{} of buffers that were not live set aside", counted(*count, "graph free", "graph frees"))
        }
        WhatIfNote::CircularBuffersAfter { operation_id, operation_name, used, room, .. } => format!(
            "{operation_name} used {} of circular buffers at operation {operation_id}; only {} would be left below the lowest L1 buffer",
            size(*used),
            size(*room)
        ),
        WhatIfNote::CircularBuffersUnrecorded { operation_name, room } => format!(
            "only {} would be left below the lowest L1 buffer for {operation_name}'s circular buffers, which no operation of the run records: whether they fit is unknown",
            size(*room)
        ),
        WhatIfNote::BeyondL1 => "the circular buffers end beyond L1: no change to L1 buffers helps".into(),
        WhatIfNote::MoreAfterRequest { operation_name } => format!(
            "{operation_name} allocates more L1_SMALL buffers after this one, which the report does not show: whether they fit is unknown"
        ),
        WhatIfNote::AllocatorMode { what } => format!("{what}: the replay does not model that allocator mode"),
        WhatIfNote::SeveralL1Small => {
            "the operation may need several L1_SMALL buffers; the report shows only the first that failed".into()
        }
    }
}

/// A fix in words, e.g. `freeing tensor 8 after operation 10`, `the output in DRAM`.
pub fn fix_phrase(fix: &Fix) -> String {
    match fix {
        Fix::Free { tensor, after: Some(k) } => format!("freeing tensor {tensor} after operation {k}"),
        Fix::Free { tensor, after: None } => format!("freeing tensor {tensor} after its last use"),
        Fix::FreeBuffer { address, after } => format!("freeing the buffer at {address} after operation {after}"),
        Fix::FreeLate => "freeing every tensor held past its last use at it".into(),
        Fix::ToDram { tensor } => format!("keeping tensor {tensor} in DRAM"),
        Fix::OutputToDram => "placing the output in DRAM".into(),
        Fix::L1SmallSize { bytes } => format!("opening the device with l1_small_size={bytes}"),
        Fix::Reserve { buffer_type, bytes } => {
            format!("{bytes} B per bank of {} reserved before the first operation", buffer_type.token())
        }
    }
}

/// Several fixes in words, joined with `and`, the first letter capitalised: frees after the
/// same operation said once (`freeing tensors 17, 20 and 11 after operation 7`); `With no fix`
/// when there is none.
pub fn fixes_phrase(fixes: &[Fix]) -> String {
    let mut words: Vec<String> = Vec::new();
    let mut done = vec![false; fixes.len()];
    for (i, fix) in fixes.iter().enumerate() {
        if done[i] {
            continue;
        }
        let Fix::Free { after: Some(k), .. } = fix else {
            words.push(fix_phrase(fix));
            continue;
        };
        let same: Vec<usize> = (i..fixes.len())
            .filter(|&j| matches!(fixes[j], Fix::Free { after: Some(other), .. } if other == *k))
            .collect();
        let tensors: Vec<String> = same
            .iter()
            .filter_map(|&j| match fixes[j] {
                Fix::Free { tensor, .. } => Some(tensor.to_string()),
                _ => None,
            })
            .collect();
        for j in same {
            done[j] = true;
        }
        words.push(match tensors.len() {
            1 => fix_phrase(fix),
            _ => format!("freeing tensors {} after operation {k}", join_and(tensors)),
        });
    }
    let joined = match words.len() {
        0 => return "With no fix".into(),
        _ => join_and(words),
    };
    let mut chars = joined.chars();
    chars.next().map_or_else(String::new, |c| c.to_uppercase().chain(chars).collect())
}

/// `a`, `a and b`, `a, b and c`.
pub(crate) fn join_and(items: Vec<String>) -> String {
    match items.len() {
        0 | 1 => items.concat(),
        n => format!("{} and {}", items[..n - 1].join(", "), items[n - 1]),
    }
}
