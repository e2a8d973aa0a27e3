//! Advice as fixes (docs/rules/memory.md §9.2): every single change the replay can answer for — a holder
//! freed at its last use, §6's buffers freed before the operation, an input or a holder moved to
//! DRAM, the output in DRAM where the operation's purpose allows it, a larger L1_SMALL — and a
//! few combined ones (every stale tensor freed, every clashing buffer moved), each replayed and
//! then ranked (`rank.rs`). Circular buffers beyond L1 point at the program config, which no
//! replay can model.

use super::advice_kind::{Advice, AdviceKind};
use super::answer::Answer;
use super::fix::Fix;
use super::phrase::{Sources, advice_what};
use super::sentences::answer_sentence;
use crate::analysis::memory::failure::picture::{LiveBuffer, MemoryAtFailure};
use crate::analysis::messages::failure::{BufferType, FailureKind};

/// How many single-change candidates of each kind are replayed (the largest first): a failure
/// with hundreds of holders gets its advice in the time of a few replays.
const SINGLES: usize = 3;

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
    /// The model's line (`file.py:line`) of each operation its fixes free after, when known.
    pub sources: Sources,
}

impl Advice {
    /// What it tries in a few words, lower case: `freeing tensor 8 after operation 10`, ….
    pub fn title(&self) -> String {
        let phrase = advice_what(self, &Sources::default());
        let mut chars = phrase.chars();
        chars.next().map_or_else(String::new, |c| c.to_lowercase().chain(chars).collect())
    }
}

impl ReplayedAdvice {
    /// The line, said with its answer (or how to replay it) for the failed operation.
    pub fn sentence(&self, operation_id: u64, hex: bool) -> String {
        let skipped = self.skipped.map(|s| (s, operation_id));
        advice_sentence(&self.advice, self.answer.as_ref(), skipped, &self.sources, hex)
    }

    /// The fixes as one text (`free 3@10, free 11@10`; `program config`).
    pub fn fix_text(&self) -> String {
        advice_fix_text(&self.advice)
    }
}

/// The failed operation as advice needs it: its name (what its output is for) and the
/// operation before it (what "before the operation" frees after).
#[derive(Debug, Clone, Copy)]
pub struct AdviceFor<'a> {
    /// The failed operation's name.
    pub operation_name: &'a str,
    /// The operation before it.
    pub previous: Option<u64>,
    /// The address of its own L1 allocation that the report does not record, which its
    /// circular-buffer message names (a release that records nothing of the failed operation).
    pub own_unrecorded: Option<u64>,
}

/// Whether placing the failed operation's output in DRAM keeps its purpose (docs/rules/memory.md §9.2):
/// not for an operation whose job is to place its output in L1 (`ttnn.to_memory_config` and the
/// sharding moves into L1), not for a convolution, whose output is computed into a sharded L1
/// buffer whatever `memory_config` says, and never for L1_SMALL (nothing there is an output a
/// memory config moves).
pub fn output_may_go_to_dram(operation_name: &str, buffer_type: BufferType) -> bool {
    let name = operation_name.rsplit('.').next().unwrap_or(operation_name);
    let places_in_l1 = matches!(name, "to_memory_config" | "interleaved_to_sharded" | "reshard");
    buffer_type == BufferType::L1 && !places_in_l1 && !name.contains("conv")
}

/// Every candidate for a failure, in no particular order (the replays rank them).
pub fn advice(m: &MemoryAtFailure, op: AdviceFor<'_>) -> Vec<Advice> {
    let mut out = Vec::new();
    let request = matches!(m.kind, FailureKind::BankOutOfMemory | FailureKind::BankOutOfMemoryWithDependencies);
    if request {
        allocation_advice(m, op, &mut out);
    }
    match (m.kind, &m.circular_buffers) {
        (FailureKind::CircularBuffersBeyondL1, Some(c)) => {
            out.push(Advice { kind: AdviceKind::ProgramConfig { region_end: c.region_end }, fixes: Vec::new() });
        }
        (FailureKind::CircularBuffersClash, Some(c)) if !c.clashing.is_empty() || op.own_unrecorded.is_some() => {
            let own = op.own_unrecorded.filter(|&a| a < c.region_end).map(|address| LiveBuffer {
                address,
                origin: Some(crate::analysis::memory::failure::picture::Origin::ThisOperation),
                ..LiveBuffer::default()
            });
            let mut clashing: Vec<&LiveBuffer> =
                c.clashing.iter().filter_map(|a| m.live_buffers.iter().find(|b| b.address == *a)).collect();
            clashing.extend(own.as_ref());
            clash_advice(&clashing, op, &mut out);
        }
        _ => {}
    }
    let mut seen: Vec<Vec<Fix>> = Vec::new();
    out.retain(|a| {
        let new = a.fixes.is_empty() || !seen.contains(&a.fixes);
        seen.push(a.fixes.clone());
        new
    });
    out
}

/// A stale holder freed at its last use, when it has one before the failure.
fn free_at_last_use(b: &LiveBuffer) -> Option<Advice> {
    let (tensor, last_use) = (b.tensor_id?, b.last_use_operation_id?);
    b.stale.then(|| Advice {
        kind: AdviceKind::FreeAtLastUse { tensor, last_use },
        fixes: vec![Fix::Free { tensor, after: Some(last_use) }],
    })
}

fn to_dram(b: &LiveBuffer) -> Option<Advice> {
    let tensor = b.tensor_id?;
    let input = b.input_of_operation;
    Some(Advice { kind: AdviceKind::ToDram { tensor, input }, fixes: vec![Fix::ToDram { tensor }] })
}

fn allocation_advice(m: &MemoryAtFailure, op: AdviceFor<'_>, out: &mut Vec<Advice>) {
    let movable = |b: &&LiveBuffer| !b.input_of_operation && !b.is_this_operation();
    let stale: Vec<&LiveBuffer> = m.live_buffers.iter().filter(movable).filter(|b| b.stale).collect();
    out.extend(stale.iter().take(SINGLES).filter_map(|b| free_at_last_use(b)));
    if let (Ok(fit), Some(k)) = (&m.fit, op.previous)
        && !fit.free.is_empty()
    {
        let freed: Vec<&LiveBuffer> =
            fit.free.iter().filter_map(|a| m.live_buffers.iter().find(|b| b.address == *a)).collect();
        let fixes = freed
            .iter()
            .map(|b| match b.tensor_id {
                Some(tensor) => Fix::Free { tensor, after: Some(k) },
                None => Fix::FreeBuffer { address: b.address, after: k },
            })
            .collect();
        let buffers = freed.iter().map(|b| (b.address, b.size_per_bank)).collect();
        out.push(Advice { kind: AdviceKind::FreeBefore { buffers }, fixes });
        if let [only] = freed.as_slice()
            && m.buffer_type != BufferType::Dram
        {
            out.extend(to_dram(only));
        }
    }
    let tensors: Vec<u64> =
        stale.iter().filter_map(|b| b.tensor_id.zip(b.last_use_operation_id)).map(|(t, _)| t).collect();
    if tensors.len() > 1 {
        let fixes = stale
            .iter()
            .filter_map(|b| Some(Fix::Free { tensor: b.tensor_id?, after: Some(b.last_use_operation_id?) }))
            .collect();
        out.push(Advice { kind: AdviceKind::FreeStale { tensors }, fixes });
    }
    let inputs = m.live_buffers.iter().filter(|b| b.input_of_operation && m.buffer_type != BufferType::Dram);
    out.extend(inputs.take(SINGLES).filter_map(to_dram));
    if output_may_go_to_dram(op.operation_name, m.buffer_type) {
        out.push(Advice { kind: AdviceKind::OutputToDram, fixes: vec![Fix::OutputToDram] });
    }
    if m.buffer_type == BufferType::L1Small {
        let bytes = l1_small_need(m);
        out.push(Advice { kind: AdviceKind::L1SmallSize { bytes }, fixes: vec![Fix::L1SmallSize { bytes }] });
    }
}

/// The `l1_small_size` an L1_SMALL failure needs at least (docs/rules/memory.md §9.2): every L1_SMALL
/// buffer of the operation the report shows (each aligned to 32 B, as tt-metal places them) and
/// the request, aligned; the buffers live from earlier operations too, which stay.
pub fn l1_small_need(m: &MemoryAtFailure) -> u64 {
    let align = |b: u64| b.div_ceil(32) * 32;
    let live: u64 = m.live_buffers.iter().map(|b| align(b.size_per_bank)).sum();
    live + align(m.needed_per_bank.unwrap_or(0))
}

fn clash_advice(clashing: &[&LiveBuffer], op: AdviceFor<'_>, out: &mut Vec<Advice>) {
    let own_may_move = output_may_go_to_dram(op.operation_name, BufferType::L1);
    let mut all = Vec::new();
    for b in clashing {
        let single = match (b.is_this_operation(), b.input_of_operation) {
            (true, _) => {
                own_may_move.then(|| Advice { kind: AdviceKind::OutputToDram, fixes: vec![Fix::OutputToDram] })
            }
            (false, true) => to_dram(b),
            (false, false) => free_at_last_use(b).or_else(|| holder_freed_before(b, op.previous)),
        };
        if let Some(a) = &single {
            all.extend(a.fixes.iter().copied());
        }
        out.extend(single);
        if !b.is_this_operation() && !b.input_of_operation && (b.stale || b.last_use_operation_id.is_none()) {
            out.extend(to_dram(b));
        }
    }
    all.dedup();
    // Frees first, then moves, as they read.
    all.sort_by_key(|f| matches!(f, Fix::ToDram { .. } | Fix::OutputToDram));
    if clashing.len() > 1 && all.len() == clashing.len() {
        out.push(Advice { kind: AdviceKind::MoveClashing, fixes: all });
    }
}

/// A holder that no later operation reads, freed right after the operation before the failure.
fn holder_freed_before(b: &LiveBuffer, previous: Option<u64>) -> Option<Advice> {
    let k = previous?;
    if b.last_use_operation_id.is_some() && !b.stale {
        return None;
    }
    let fix = match b.tensor_id {
        Some(tensor) => Fix::Free { tensor, after: Some(k) },
        None => Fix::FreeBuffer { address: b.address, after: k },
    };
    Some(Advice { kind: AdviceKind::FreeBefore { buffers: vec![(b.address, b.size_per_bank)] }, fixes: vec![fix] })
}

/// The advice line said with its replayed answer, e.g. `Freeing tensor 8 after operation 10
/// (model.py:41): the 128 KiB-per-bank request fits at 1105920.`; `sources` name the model's
/// line of the operations a fix frees after. A replay not run because it would cover `skipped`
/// operations says how to run it.
pub fn advice_sentence(
    a: &Advice,
    answer: Option<&Answer>,
    skipped: Option<(usize, u64)>,
    sources: &Sources,
    hex: bool,
) -> String {
    let what = advice_what(a, sources);
    if let AdviceKind::ProgramConfig { region_end } = a.kind {
        return format!(
            "No change to L1 buffers helps: the circular buffers end at {}, beyond L1; a program config with smaller blocks (for a matmul, a smaller in0_block_w or per-core block) makes them fit.",
            crate::analysis::format::format_address(Some(region_end), hex)
        );
    }
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

/// The fixes of an advice line as one text, e.g. `free 3@10, free 11@10` (`program config` for
/// the one no replay models).
pub fn advice_fix_text(a: &Advice) -> String {
    if a.fixes.is_empty() {
        return "program config".into();
    }
    a.fixes.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Output to DRAM defeats an operation whose job is to place its output in L1, and a
    /// convolution's (computed into sharded L1 whatever memory_config says); L1_SMALL has none.
    #[test]
    fn the_output_goes_to_dram_only_where_the_operation_allows_it() {
        assert!(output_may_go_to_dram("ttnn.add", BufferType::L1));
        assert!(!output_may_go_to_dram("ttnn.to_memory_config", BufferType::L1));
        assert!(!output_may_go_to_dram("ttnn.interleaved_to_sharded", BufferType::L1));
        assert!(!output_may_go_to_dram("ttnn.conv2d", BufferType::L1));
        assert!(!output_may_go_to_dram("ttnn.empty", BufferType::L1Small));
    }
}
