//! The memory rules (docs/rules/memory.md, beyond the reference), pure: the report layer gathers
//! their inputs. Four rooms: `failure` (the memory at a failure and after any operation: live
//! buffers, holders, the map and its check, the fit, circular buffers, their sentences), `late`
//! (tensors held past their last use), `whatif` (replaying a fix) and `peak` (the true peak and the
//! headroom); beside them the pieces they share: the inputs, the notes, the mesh and place rules,
//! the graph walks and indexes, the snapshot diff and the usage pass. This file only declares and
//! re-exports.

pub(crate) mod failure;
mod graph_index;
mod graph_ties;
mod graph_walk;
mod graph_walker;
mod inputs;
pub mod late;
mod live_index;
mod mesh;
mod notes;
pub mod peak;
mod place;
mod snapshot_diff;
pub mod usage;
pub mod usage_series;
pub mod whatif;

pub use failure::at_failure::{FoundLive, found_live, live_addresses, memory_at_failure, memory_at_failure_with};
pub(crate) use failure::at_failure::{
    failure_mark_place, failure_place, found_device, found_place, needs_earlier_snapshot, place_devices,
};
pub use failure::operation::operation_memory;
pub use failure::picture::{
    Basis, Block, Check, CheckStatus, CircularBuffer, CircularBufferClash, Fit, LiveBuffer, MemoryAtFailure, MemoryMap,
    NoFit, OperationMemory, Origin, Region, RegionSource,
};
pub use failure::sentences::{
    advice_sentence, basis_sentence, check_sentence, clash_facts, failure_lines, failure_lines_with_fixes,
    fullness_sentence, holders_sentence, operation_lines, reason_sentence,
};
pub(crate) use graph_ties::{output_places, producers_to_tie, tie_outputs};
pub(crate) use graph_walk::drop_freed_since;
pub(crate) use graph_walk::failure_point;
pub use graph_walker::GraphWalker;
pub(crate) use inputs::valid_buffer;
pub use inputs::{
    DeviceFacts, EarlierSnapshot, FailureInputs, GraphBuffer, OperationInputs, SnapshotRow, TensorFacts, TensorUse,
};
pub(crate) use mesh::other_devices_with_buffers;
pub use mesh::{MeshShape, mesh_shape};
pub(crate) use mesh::{chip_alias, chip_row, figures_on_one_chip, named_device, other_ids, tensors_on_the_chip};
pub use notes::MemoryNote;
pub(crate) use place::region;
