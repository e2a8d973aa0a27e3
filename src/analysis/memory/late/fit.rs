//! At a failure: what tt-metal would have done with the request had every tensor held past its
//! last use been freed right after that use — said only as the replay of that fix says it
//! (docs/rules/memory.md §9.2: freeing them earlier re-places every later allocation).

use crate::analysis::memory::failure::picture::MemoryAtFailure;
use crate::analysis::memory::whatif::{Answer, Outcome, answer_sentence};
use crate::analysis::messages::failure::BufferType;

/// What freeing every tensor held past its last use would have done at one failure.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LateAtFailure {
    /// The failed operation.
    pub operation_id: u64,
    /// Its device.
    pub device_id: u64,
    /// Its buffer type.
    pub buffer_type: BufferType,
    /// The request, per bank.
    pub needed_per_bank: u64,
    /// How many live buffers were held past their last use at the failure.
    pub held: usize,
    /// How many tensors of its device and buffer type the fix frees before the failure.
    pub freed: usize,
    /// The replay of the fix (`free-late`), when it ran.
    pub answer: Option<Answer>,
}

impl LateAtFailure {
    /// Whether the replay places the request (false when it did not run).
    pub fn fits_if_all_freed(&self) -> bool {
        self.answer.as_ref().is_some_and(|a| a.outcome == Outcome::Fits)
    }
}

/// A failure with a request and a known region (kinds 1 and 2), its answer still to replay; none
/// otherwise.
pub fn late_at_failure(m: &MemoryAtFailure) -> Option<LateAtFailure> {
    let need = m.needed_per_bank?;
    m.map.region.bounds()?;
    Some(LateAtFailure {
        operation_id: m.operation_id,
        device_id: m.device_id,
        buffer_type: m.buffer_type,
        needed_per_bank: need,
        held: m.live_buffers.iter().filter(|b| b.stale).count(),
        freed: 0,
        answer: None,
    })
}

/// The sentence of one failure, e.g. `At operation 5 ttnn.matmul: freeing all 6 at their last
/// use: the 1 MiB request fits at 112640, but ttnn.add used 12 KiB of circular buffers at
/// operation 2 and only 7 KiB would be left below it.`
pub fn late_at_failure_sentence(f: &LateAtFailure, name: &str, hex: bool) -> String {
    let at = format!("At operation {} {name}", f.operation_id);
    let which = match f.freed {
        0 => return format!("{at}: no tensor was held past its last use before it."),
        1 => "freeing the one at its last use".to_string(),
        n => format!("freeing all {n} at their last use"),
    };
    match &f.answer {
        Some(answer) => format!("{at}: {which}: {}", answer_sentence(answer, hex)),
        None => format!("{at}: {which}: not replayed."),
    }
}
