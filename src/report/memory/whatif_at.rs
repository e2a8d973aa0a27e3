//! What every what-if answer at one failure shares (`whatif_shared.rs` finds it once, `whatif.rs`
//! answers each fix set with it): a file of its own so that neither imports the other's.

use crate::analysis::graph::nodes::GraphNode;
use crate::analysis::memory::SnapshotRow;
use crate::analysis::memory::whatif::{CircularBufferUse, Place, Request, WhatIfNote};
use std::borrow::Cow;

/// What every answer at one failure shares: read once however many fixes are replayed.
pub(super) struct AtFailure<'r> {
    /// The failed operation's index.
    pub(super) index: usize,
    /// Its captured graph (borrowed when read at open).
    pub(super) graph: Cow<'r, [GraphNode]>,
    /// Its failure point in the graph.
    pub(super) through: Option<usize>,
    /// Its own snapshot, when taken after the unwinding (docs/rules/memory.md §3.4).
    pub(super) own: Option<Vec<SnapshotRow>>,
    /// The failed request as the replay places it (none: the message gives none).
    pub(super) request: Option<Request>,
    /// Its input buffers, which cannot be freed before it runs.
    pub(super) inputs: Vec<(Place, u64)>,
    /// The circular buffers of the most recent earlier operation of its name.
    pub(super) hint: Option<CircularBufferUse>,
    /// The address of its own L1 allocation that a clash names and no record holds
    /// (docs/rules/memory.md §9.3).
    pub(super) own_unrecorded: Option<u64>,
    /// What it is known to allocate after its request that no report shows, as a note.
    pub(super) more_after: Option<WhatIfNote>,
}
