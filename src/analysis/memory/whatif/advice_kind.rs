//! What an advice line tries (`AdviceKind`) and the fixes that say it (`Advice`): the words of
//! the advice, shared by the rules that choose it (`advice.rs`) and the phrases that say it
//! (`phrase.rs`).

use super::fix::Fix;

/// What an advice line tries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AdviceKind {
    /// The cheapest buffers to free (docs/rules/memory.md §6), freed right after the operation before:
    /// each `(address, size per bank)`.
    FreeBefore {
        /// The buffers, ascending.
        buffers: Vec<(u64, u64)>,
    },
    /// One tensor held past its last use, freed right after that use.
    FreeAtLastUse {
        /// The tensor.
        tensor: u64,
        /// Its last use.
        last_use: u64,
    },
    /// The tensors live at the failure and held past their last use, each freed after it.
    FreeStale {
        /// Their tensors.
        tensors: Vec<u64>,
    },
    /// One tensor kept in DRAM from its producer on.
    ToDram {
        /// The tensor.
        tensor: u64,
        /// It is an input of the failed operation.
        input: bool,
    },
    /// The failing request placed in DRAM.
    OutputToDram,
    /// Every L1 buffer under the circular buffers out of L1 (freed when held past its last use,
    /// else moved to DRAM; the operation's own output placed in DRAM).
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
