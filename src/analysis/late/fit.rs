//! At a failure: would the request have fit had every tensor held past its last use been freed
//! right after that use? At the failure those are the live buffers memory.md §4 calls stale.

use crate::analysis::failure::BufferType;
use crate::analysis::memory::MemoryAtFailure;

/// What freeing every tensor held past its last use would have done at one failure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LateAtFailure {
    /// The failed operation.
    pub operation_id: u64,
    /// Its device.
    pub device_id: u64,
    /// Its buffer type.
    pub buffer_type: BufferType,
    /// The request, per bank.
    pub needed_per_bank: u64,
    /// How many live buffers were held past their last use.
    pub held: usize,
    /// Whether a free block would then have held the request.
    pub fits_if_all_freed: bool,
}

/// The answer for a failure with a request and a known region (kinds 1 and 2); none otherwise.
pub fn late_at_failure(m: &MemoryAtFailure) -> Option<LateAtFailure> {
    let need = m.needed_per_bank?;
    let (start, end) = (m.map.region.start?, m.map.region.end?);
    let mut kept: Vec<(u64, u64)> = m.live_buffers.iter().filter(|b| !b.stale).map(|b| (b.address, b.end())).collect();
    kept.sort_unstable();
    let mut at = start;
    let mut largest = 0;
    for (from, to) in kept {
        largest = largest.max(from.min(end).saturating_sub(at));
        at = at.max(to);
    }
    largest = largest.max(end.saturating_sub(at));
    Some(LateAtFailure {
        operation_id: m.operation_id,
        device_id: m.device_id,
        buffer_type: m.buffer_type,
        needed_per_bank: need,
        held: m.live_buffers.iter().filter(|b| b.stale).count(),
        fits_if_all_freed: largest >= need,
    })
}

/// The sentence of one failure, e.g. `At operation 8 (ttnn.matmul): freeing the 4 tensors held
/// past their last use would have let the 1.25 MiB request fit.`
pub fn late_at_failure_sentence(f: &LateAtFailure, name: &str) -> String {
    let need = crate::analysis::format::size(f.needed_per_bank);
    let at = format!("At operation {} {name}", f.operation_id);
    match (f.held, f.fits_if_all_freed) {
        (0, _) => format!("{at}: no tensor was held past its last use."),
        (n, true) => format!("{at}: freeing the {n} held past their last use would have let the {need} request fit."),
        (n, false) => {
            format!("{at}: freeing the {n} held past their last use would not have let the {need} request fit.")
        }
    }
}
