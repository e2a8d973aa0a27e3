//! What an advice line tries, in words a user acts on (docs/rules/memory.md §9.2): where — `after operation
//! 10 (model.py:41)`, `ttnn.deallocate(…) after operation 10 (model.py:41)` — and short: at most
//! three items named, then `and N more`; buffers at consecutive addresses as one range.

use super::advice_kind::{Advice, AdviceKind};
use super::fix::Fix;
use super::sentences::{fix_phrase, join_and};
use crate::analysis::format::grouped;

/// How many items a sentence names before `and N more`.
const NAMED: usize = 3;

/// The model's line (`file.py:line`) of operations, by id.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Sources(pub Vec<(u64, String)>);

impl Sources {
    /// The line of operation `k`, when known.
    pub fn of(&self, k: u64) -> Option<&str> {
        self.0.iter().find(|(id, _)| *id == k).map(|(_, s)| s.as_str())
    }

    /// `operation 10 (model.py:41)`, or `operation 10`.
    pub fn operation(&self, k: u64) -> String {
        match self.of(k) {
            Some(s) => format!("operation {k} ({s})"),
            None => format!("operation {k}"),
        }
    }
}

/// `a, b, c and 4 more`, `a, b and c`.
pub(crate) fn named(items: Vec<String>) -> String {
    if items.len() <= NAMED {
        return join_and(items);
    }
    let more = items.len() - NAMED;
    format!("{} and {more} more", items[..NAMED].join(", "))
}

/// Buffers `(address, size)` as ranges of consecutive ones: `the buffer at 1004096`, `the 15
/// buffers from 1004096 to 1126976`, several ranges named as [`named`] does.
fn buffer_ranges(buffers: &[(u64, u64)]) -> String {
    let mut sorted = buffers.to_vec();
    sorted.sort_unstable();
    let mut runs: Vec<(u64, u64, usize)> = Vec::new();
    for (address, size) in sorted {
        match runs.last_mut() {
            Some((_, end, count)) if *end == address => {
                *end = address + size;
                *count += 1;
            }
            _ => runs.push((address, address + size, 1)),
        }
    }
    let total = buffers.len();
    let words: Vec<String> = runs
        .iter()
        .map(|&(start, end, count)| match count {
            1 => format!("{start}"),
            _ => format!("{start}–{end}"),
        })
        .collect();
    match (total, runs.len()) {
        (1, _) => format!("the buffer at {}", words[0]),
        (_, 1) => format!("the {total} buffers from {} to {}", runs[0].0, runs[0].1),
        _ => format!("the {total} buffers at {}", named(words)),
    }
}

/// `[start, end)` of buffers `(address, size)` that lie side by side with no gap; none otherwise.
fn one_range(buffers: &[(u64, u64)]) -> Option<(u64, u64)> {
    let mut sorted = buffers.to_vec();
    sorted.sort_unstable();
    let (&(start, _), &(last, last_size)) = (sorted.first()?, sorted.last()?);
    let touching = sorted.windows(2).all(|w| w[0].0 + w[0].1 == w[1].0);
    touching.then_some((start, last + last_size))
}

/// What an advice line tries, capitalised, with where to change the model.
pub fn advice_what(a: &Advice, sources: &Sources) -> String {
    let phrase = match &a.kind {
        AdviceKind::FreeAtLastUse { tensor, last_use } => match sources.of(*last_use) {
            Some(line) => {
                format!(
                    "freeing tensor {tensor} right after its last use, operation {last_use} (ttnn.deallocate(…) after {line})"
                )
            }
            None => format!("freeing tensor {tensor} right after its last use, operation {last_use}"),
        },
        AdviceKind::FreeStale { tensors } => format!(
            "freeing the {} tensors held past their last use, each right after it (tensors {})",
            tensors.len(),
            named(tensors.iter().map(ToString::to_string).collect())
        ),
        AdviceKind::FreeBefore { buffers } => free_before(&a.fixes, buffers, sources),
        AdviceKind::ToDram { tensor, input: true } => {
            format!("keeping tensor {tensor}, an input of the operation, in DRAM")
        }
        AdviceKind::L1SmallSize { bytes } => format!(
            "opening the device with l1_small_size={bytes} (at least what the operation's L1_SMALL buffers the report shows need, each aligned to 32 B; the operation may need more)"
        ),
        AdviceKind::ProgramConfig { .. } => "a smaller program config".to_string(),
        _ => fixes_with_places(&a.fixes, sources),
    };
    capitalised(&phrase)
}

fn capitalised(s: &str) -> String {
    let mut chars = s.chars();
    chars.next().map_or_else(String::new, |c| c.to_uppercase().chain(chars).collect())
}

/// §6's buffers freed after the operation before: tensors named (at most three), the buffers
/// without one as ranges.
fn free_before(fixes: &[Fix], buffers: &[(u64, u64)], sources: &Sources) -> String {
    let Some(k) = fixes.iter().find_map(|f| match f {
        Fix::Free { after: Some(k), .. } | Fix::FreeBuffer { after: k, .. } => Some(*k),
        _ => None,
    }) else {
        return fixes_with_places(fixes, sources);
    };
    let tensors: Vec<String> = fixes
        .iter()
        .filter_map(|f| match f {
            Fix::Free { tensor, .. } => Some(tensor.to_string()),
            _ => None,
        })
        .collect();
    let untensored: Vec<(u64, u64)> = fixes
        .iter()
        .filter_map(|f| match f {
            Fix::FreeBuffer { address, .. } => buffers.iter().find(|(a, _)| a == address).copied(),
            _ => None,
        })
        .collect();
    // The tensors' buffers, when they lie side by side: where the ones not named are.
    let tensored: Vec<(u64, u64)> = match fixes.len() == buffers.len() {
        true => fixes.iter().zip(buffers).filter(|(f, _)| matches!(f, Fix::Free { .. })).map(|(_, b)| *b).collect(),
        false => Vec::new(),
    };
    let side_by_side = match one_range(&tensored) {
        Some((start, end)) if tensors.len() > NAMED => {
            format!(" (the {} buffers from {start} to {end})", tensors.len())
        }
        _ => String::new(),
    };
    let mut parts = Vec::new();
    match tensors.len() {
        0 => {}
        1 => parts.push(format!("tensor {}", tensors[0])),
        _ => parts.push(format!("tensors {}{side_by_side}", named(tensors))),
    }
    if !untensored.is_empty() {
        parts.push(buffer_ranges(&untensored));
    }
    format!("freeing {} after {}", join_and(parts), sources.operation(k))
}

/// Fixes in words (the user's, a move, a combination), each free saying where.
pub fn fixes_with_places(fixes: &[Fix], sources: &Sources) -> String {
    if fixes.is_empty() {
        return "With no fix".into();
    }
    let mut words: Vec<String> = Vec::new();
    let mut rest = fixes;
    while let Some(f) = rest.first() {
        // Tensors freed after one operation, side by side in the list, read as one change.
        let after_k = |k: u64| {
            move |f: &Fix| match f {
                Fix::Free { tensor, after: Some(x) } if *x == k => Some(tensor.to_string()),
                _ => None,
            }
        };
        if let Fix::Free { after: Some(k), .. } = f
            && let run = rest.iter().map_while(after_k(*k)).collect::<Vec<_>>()
            && run.len() > 1
        {
            rest = &rest[run.len()..];
            words.push(format!("freeing tensors {} after {}", named(run), sources.operation(*k)));
            continue;
        }
        words.push(match f {
            Fix::Free { tensor, after: Some(k) } => format!("freeing tensor {tensor} after {}", sources.operation(*k)),
            Fix::FreeBuffer { address, after } => {
                format!("freeing the buffer at {address} after {}", sources.operation(*after))
            }
            other => fix_phrase(other),
        });
        rest = &rest[1..];
    }
    let said = if words.len() > NAMED + 1 {
        format!("{} and {} more changes", words[..NAMED].join(", "), grouped((words.len() - NAMED) as u64))
    } else {
        join_and(words)
    };
    capitalised(&said)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The generated 100 k-operation report's fix: fifteen untensored buffers side by side, freed
    /// after the operation before (issue 28 §8).
    #[test]
    fn consecutive_buffers_read_as_one_range_and_lists_stop_at_three() {
        let buffers: Vec<(u64, u64)> = (0..15).map(|i| (1_004_096 + i * 8192, 8192)).collect();
        let fixes: Vec<Fix> = buffers.iter().map(|&(address, _)| Fix::FreeBuffer { address, after: 4999 }).collect();
        let a = Advice { kind: AdviceKind::FreeBefore { buffers }, fixes };
        let sources = Sources(vec![(4999, "model.py:41".into())]);
        assert_eq!(
            advice_what(&a, &sources),
            "Freeing the 15 buffers from 1004096 to 1126976 after operation 4999 (model.py:41)"
        );
        let apart = [(100, 10), (110, 10), (300, 10), (500, 10), (700, 10)];
        assert_eq!(buffer_ranges(&apart), "the 5 buffers at 100–120, 300, 500 and 1 more");
        let a = Advice { kind: AdviceKind::FreeStale { tensors: vec![7, 24, 21, 18, 15] }, fixes: vec![] };
        assert_eq!(
            advice_what(&a, &Sources::default()),
            "Freeing the 5 tensors held past their last use, each right after it (tensors 7, 24, 21 and 2 more)"
        );
    }

    /// Typed fixes freeing five tensors after one operation read as one change (stale_loop's five).
    #[test]
    fn tensors_freed_after_one_operation_read_as_one_change() {
        let mut fixes: Vec<Fix> = [71, 68, 65, 62, 59].map(|tensor| Fix::Free { tensor, after: Some(25) }).to_vec();
        fixes.push(Fix::OutputToDram);
        assert_eq!(
            fixes_with_places(&fixes, &Sources(vec![(25, "model.py:9".into())])),
            "Freeing tensors 71, 68, 65 and 2 more after operation 25 (model.py:9) and placing the output in DRAM"
        );
        let apart = [Fix::Free { tensor: 5, after: Some(15) }, Fix::Free { tensor: 11, after: Some(14) }];
        assert_eq!(
            fixes_with_places(&apart, &Sources::default()),
            "Freeing tensor 5 after operation 15 and freeing tensor 11 after operation 14"
        );
    }

    #[test]
    fn a_free_at_a_last_use_names_the_line_to_change() {
        let a = Advice {
            kind: AdviceKind::FreeAtLastUse { tensor: 71, last_use: 144 },
            fixes: vec![Fix::Free { tensor: 71, after: Some(144) }],
        };
        assert_eq!(
            advice_what(&a, &Sources(vec![(144, "block.py:144".into())])),
            "Freeing tensor 71 right after its last use, operation 144 (ttnn.deallocate(…) after block.py:144)"
        );
        assert_eq!(advice_what(&a, &Sources::default()), "Freeing tensor 71 right after its last use, operation 144");
    }
}
