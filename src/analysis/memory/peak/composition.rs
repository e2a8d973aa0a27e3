//! What fills a core at an operation's true peak (docs/true-peak.md): circular buffers · the
//! operation's own buffers · live and used later · held past their last use.

use serde::Serialize;

/// What fills a core at the peak (in an [`OperationPeak`](super::OperationPeak): its busiest core), bytes per bank.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize)]
pub struct Composition {
    /// The circular (dataflow) buffers standing: their region from the L1 base.
    pub circular_buffers: u64,
    /// Buffers the operation allocated itself (intermediates, outputs), still live then.
    pub own: u64,
    /// Buffers allocated before it that a later operation (or this one) uses, or whose use is
    /// not recorded.
    pub live: u64,
    /// Buffers allocated before it whose tensor was last used by an earlier operation.
    pub stale: u64,
}

impl Composition {
    /// Every byte of it: what the core holds.
    pub fn total(&self) -> u64 {
        self.circular_buffers + self.own + self.live + self.stale
    }
}
