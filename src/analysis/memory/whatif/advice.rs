//! Advice as fixes (memory.md §9.2): what to try for a failure, each a set of fixes the replay
//! can answer for — the buffers §6 would free, the tensors held past their last use, the
//! output in DRAM, the L1 buffers under the circular buffers moved to DRAM (the operation's own
//! output by placing it in DRAM), a larger L1_SMALL — and, for circular buffers beyond L1, the
//! program config, which no replay can model.

use super::answer::Answer;
use super::fix::Fix;
use super::text::fixes_phrase;
use super::text::{answer_sentence, join_and};
use crate::analysis::format::format_address;
use crate::analysis::memory::model::MemoryAtFailure;
use crate::analysis::messages::failure::{BufferType, FailureKind};

/// What an advice line tries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AdviceKind {
    /// The cheapest buffers to free (memory.md §6), freed right after the operation before.
    FreeBefore,
    /// The tensors live at the failure and held past their last use, each freed after it.
    FreeStale {
        /// Their tensors.
        tensors: Vec<u64>,
    },
    /// The failing request placed in DRAM.
    OutputToDram,
    /// The L1 buffers under the circular buffers out of L1.
    MoveClashing,
    /// Circular buffers beyond L1: only a smaller program config helps.
    ProgramConfig {
        /// Where they end.
        region_end: u64,
    },
    /// The device opened with a larger L1_SMALL.
    L1SmallSize {
        /// The size tried.
        bytes: u64,
    },
    /// Fixes the user typed.
    Yours,
}

/// One advice line: what it tries and the fixes that say it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Advice {
    /// What it tries.
    pub kind: AdviceKind,
    /// The fixes; empty for the program config.
    pub fixes: Vec<Fix>,
}

/// One advice line with its replayed answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplayedAdvice {
    /// What it tries.
    pub advice: Advice,
    /// The replay's answer; none for the program config, or when the replay was not run
    /// (`skipped`).
    pub answer: Option<Answer>,
    /// Operations the replay would cover, when it was not run for being too long.
    pub skipped: Option<usize>,
    /// The model's line of the operation its fixes free after, when one and known.
    pub source: Option<String>,
}

impl Advice {
    /// What it tries in a few words, lower case: `freeing tensor 8 after operation 10`,
    /// `freeing the 6 tensors held past their last use`, ….
    pub fn title(&self) -> String {
        let phrase = match &self.kind {
            AdviceKind::FreeStale { tensors } if tensors.len() > 1 => {
                format!("freeing the {} tensors held past their last use", tensors.len())
            }
            AdviceKind::ProgramConfig { .. } => "a smaller program config".to_string(),
            _ => fixes_phrase(&self.fixes),
        };
        let mut chars = phrase.chars();
        chars.next().map_or_else(String::new, |c| c.to_lowercase().chain(chars).collect())
    }
}

impl ReplayedAdvice {
    /// The line, said with its answer (or how to replay it) for the failed operation.
    pub fn sentence(&self, operation_id: u64, hex: bool) -> String {
        let skipped = self.skipped.map(|s| (s, operation_id));
        advice_sentence(&self.advice, self.answer.as_ref(), skipped, self.source.as_deref(), hex)
    }

    /// The fixes as one text (`free 3, free 11`; `program config`).
    pub fn fix_text(&self) -> String {
        advice_fix_text(&self.advice)
    }
}

/// The advice for a failure, in the order it is said; `previous` is the operation before the
/// failed one (what "before the operation" frees after).
pub fn advice(m: &MemoryAtFailure, previous: Option<u64>) -> Vec<Advice> {
    let mut out = Vec::new();
    let request = matches!(m.kind, FailureKind::BankOutOfMemory | FailureKind::BankOutOfMemoryWithDependencies);
    if let (Ok(fit), Some(k)) = (&m.fit, previous)
        && !fit.free.is_empty()
    {
        let fixes = fit
            .free
            .iter()
            .filter_map(|a| m.live_buffers.iter().find(|b| b.address == *a))
            .map(|b| match b.tensor_id {
                Some(tensor) => Fix::Free { tensor, after: Some(k) },
                None => Fix::FreeBuffer { address: b.address, after: k },
            })
            .collect();
        out.push(Advice { kind: AdviceKind::FreeBefore, fixes });
    }
    let stale: Vec<u64> = m.live_buffers.iter().filter(|b| b.stale).filter_map(|b| b.tensor_id).collect();
    if request && !stale.is_empty() {
        let fixes = stale.iter().map(|&tensor| Fix::Free { tensor, after: None }).collect();
        out.push(Advice { kind: AdviceKind::FreeStale { tensors: stale }, fixes });
    }
    if request && matches!(m.buffer_type, BufferType::L1 | BufferType::L1Small) {
        out.push(Advice { kind: AdviceKind::OutputToDram, fixes: vec![Fix::OutputToDram] });
    }
    if request && m.buffer_type == BufferType::L1Small {
        let used = m.map.used_per_bank;
        let bytes = (used + m.needed_per_bank.unwrap_or(0)).div_ceil(32) * 32;
        out.push(Advice { kind: AdviceKind::L1SmallSize { bytes }, fixes: vec![Fix::L1SmallSize { bytes }] });
    }
    match (m.kind, &m.circular_buffers) {
        (FailureKind::CircularBuffersBeyondL1, Some(c)) => {
            out.push(Advice { kind: AdviceKind::ProgramConfig { region_end: c.region_end }, fixes: Vec::new() });
        }
        (FailureKind::CircularBuffersClash, Some(c)) if !c.clashing.is_empty() => {
            let mut fixes = Vec::new();
            for b in c.clashing.iter().filter_map(|a| m.live_buffers.iter().find(|b| b.address == *a)) {
                match (b.is_this_operation(), b.tensor_id, previous) {
                    (true, _, _) => fixes.push(Fix::OutputToDram),
                    (false, Some(tensor), _) => fixes.push(Fix::ToDram { tensor }),
                    (false, None, Some(k)) => fixes.push(Fix::FreeBuffer { address: b.address, after: k }),
                    (false, None, None) => {}
                }
            }
            fixes.dedup();
            if !fixes.is_empty() {
                out.push(Advice { kind: AdviceKind::MoveClashing, fixes });
            }
        }
        _ => {}
    }
    out
}

/// The advice line said with its replayed answer, e.g. `Freeing tensor 8 after operation 10
/// (model.py:41): the 128 KiB request fits at 1105920.`; `source` is the model's line of the
/// operation a fix frees after, when known. A replay not run because it would cover `skipped`
/// operations says how to run it.
pub fn advice_sentence(
    a: &Advice,
    answer: Option<&Answer>,
    skipped: Option<(usize, u64)>,
    source: Option<&str>,
    hex: bool,
) -> String {
    let place = source.map_or_else(String::new, |s| format!(" ({s})"));
    let what = match &a.kind {
        AdviceKind::FreeBefore => format!("{}{place}", fixes_phrase(&a.fixes)),
        AdviceKind::FreeStale { tensors } if tensors.len() == 1 => {
            format!("Freeing tensor {}, held past its last use, right after that use", tensors[0])
        }
        AdviceKind::FreeStale { tensors } => format!(
            "Freeing the {} tensors held past their last use right after it (tensors {})",
            tensors.len(),
            join_and(tensors.iter().map(ToString::to_string).collect())
        ),
        AdviceKind::L1SmallSize { bytes } => format!(
            "Opening the device with l1_small_size={bytes} (at least the request rounded up to 32 B; the operation may need several L1_SMALL buffers)"
        ),
        AdviceKind::ProgramConfig { region_end } => {
            return format!(
                "No change to L1 buffers helps: the circular buffers end at {}, beyond L1; a program config with smaller blocks (for a matmul, a smaller in0_block_w or per-core block) makes them fit.",
                format_address(Some(*region_end), hex)
            );
        }
        AdviceKind::OutputToDram | AdviceKind::MoveClashing | AdviceKind::Yours => fixes_phrase(&a.fixes),
    };
    match (answer, skipped) {
        (Some(answer), _) => format!("{what}: {}", answer_sentence(answer, hex)),
        (None, Some((operations, n))) => {
            let flags: Vec<String> = a.fixes.iter().map(Fix::flag).collect();
            format!(
                "{what}: not replayed here, its replay covers {} operations; `ttnn-tui whatif REPORT --operation {n} {}` replays it.",
                crate::analysis::format::grouped(operations as u64),
                flags.join(" ")
            )
        }
        (None, None) => format!("{what}: not replayed."),
    }
}

/// The fixes of an advice line as one text, e.g. `free 3, free 11` (`program config` for the
/// one no replay models).
pub fn advice_fix_text(a: &Advice) -> String {
    if a.fixes.is_empty() {
        return "program config".into();
    }
    a.fixes.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ")
}
