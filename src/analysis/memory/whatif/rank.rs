//! The replayed advice in the order it is said (docs/rules/memory.md §9.2): what works first, then frees
//! before moves, fewest changes, most room left, a combination only where no single change works; and which lines the text says (at most five,
//! none whose replay cannot tell for a reason the user cannot act on — those are JSON only).

use super::advice::ReplayedAdvice;
use super::advice_kind::{Advice, AdviceKind};
use super::answer::{Answer, Outcome, WhatIfNote};
use super::fix::Fix;
use super::phrase::Sources;
use super::sentences::not_applied;
use std::cmp::Reverse;

/// How many advice lines a text says.
pub const TEXT_LINES: usize = 5;

impl ReplayedAdvice {
    /// Whether the text says this line: not when its replay cannot tell for a reason the user
    /// cannot act on (a figure the report does not record, a region it does not give).
    pub fn in_text(&self) -> bool {
        let Some(a) = &self.answer else { return true };
        let unactionable = |n: &WhatIfNote| {
            matches!(
                n,
                WhatIfNote::NotFound { .. } | WhatIfNote::RegionUnknown { .. } | WhatIfNote::AllocatorMode { .. }
            )
        };
        !(a.outcome == Outcome::Unknown && a.request_fits != Some(true) && a.notes.iter().any(unactionable))
    }

    /// The room left once the fix is in: the largest free block of the request's buffer type.
    fn room(&self) -> u64 {
        self.answer.as_ref().and_then(|a| a.after.as_ref()).and_then(|f| f.map.largest_free_block).unwrap_or(0)
    }
}

/// 0 works, 1 cannot tell or not replayed, 2 does not.
fn works(r: &ReplayedAdvice) -> u8 {
    match (&r.answer, r.advice.fixes.is_empty()) {
        (_, true) => 0,
        (None, false) => 1,
        (Some(a), false) => match a.outcome {
            Outcome::Fits => 0,
            Outcome::Unknown => 1,
            Outcome::DoesNotFit => 2,
        },
    }
}

/// 0 frees, 1 the device's L1_SMALL, 2 an input or a holder moved to DRAM, 3 the output in DRAM
/// (a change to what the operation makes, offered last).
fn class(r: &ReplayedAdvice) -> u8 {
    let fixes = &r.advice.fixes;
    if fixes.contains(&Fix::OutputToDram) {
        3
    } else if fixes.iter().any(|f| matches!(f, Fix::ToDram { .. })) {
        2
    } else if matches!(r.advice.kind, AdviceKind::L1SmallSize { .. }) {
        1
    } else {
        0
    }
}

/// The operation a fix frees after, when it is a free.
fn frees_after(f: &Fix) -> Option<u64> {
    match f {
        Fix::Free { after: Some(k), .. } | Fix::FreeBuffer { after: k, .. } => Some(*k),
        _ => None,
    }
}

/// The operations the advice's fixes free after: the model's line of each is said with them.
pub(crate) fn freed_after(candidates: &[Advice]) -> Vec<u64> {
    candidates.iter().flat_map(|a| a.fixes.iter()).filter_map(frees_after).collect()
}

/// Every advice line with the answer of its replay (`answers`: one per line with fixes, in
/// order; `Err(span)` for a replay left out as too long), the model's line of each operation it
/// frees after (`known`), ranked. A line whose fix the run refuses (a tensor not live then) is
/// no advice.
pub(crate) fn replayed_advice(
    candidates: Vec<Advice>,
    answers: Vec<Result<Answer, usize>>,
    known: &[(u64, String)],
) -> Vec<ReplayedAdvice> {
    let mut answers = answers.into_iter();
    let mut out = Vec::with_capacity(candidates.len());
    for advice in candidates {
        let frees = |k: u64| advice.fixes.iter().any(|f| frees_after(f) == Some(k));
        let sources = Sources(known.iter().filter(|(k, _)| frees(*k)).cloned().collect());
        if advice.fixes.is_empty() {
            out.push(ReplayedAdvice { advice, answer: None, skipped: None, sources });
            continue;
        }
        match answers.next() {
            Some(Ok(a)) if not_applied(&a.notes).is_some() => {}
            Some(Ok(a)) => out.push(ReplayedAdvice { advice, answer: Some(a), skipped: None, sources }),
            Some(Err(span)) => out.push(ReplayedAdvice { advice, answer: None, skipped: Some(span), sources }),
            None => {}
        }
    }
    rank(&mut out);
    out
}

/// Sorts advice lines: works, frees before moves, fewest changes, most room (stable otherwise).
/// The changes to every clashing buffer together are offered only when no single change works
/// and the pair does not fail itself (docs/rules/memory.md §9.2).
pub fn rank(lines: &mut Vec<ReplayedAdvice>) {
    let single_works = lines.iter().any(|r| r.advice.fixes.len() == 1 && works(r) == 0);
    lines.retain(|r| r.advice.kind != AdviceKind::MoveClashing || (!single_works && works(r) != 2));
    lines.sort_by_key(|r| (works(r), class(r), r.advice.fixes.len(), Reverse(r.room())));
}

/// The lines a text says: the first [`TEXT_LINES`] of those [`ReplayedAdvice::in_text`] keeps.
pub fn text_lines(lines: &[ReplayedAdvice]) -> impl Iterator<Item = (usize, &ReplayedAdvice)> {
    lines.iter().enumerate().filter(|(_, r)| r.in_text()).take(TEXT_LINES)
}
