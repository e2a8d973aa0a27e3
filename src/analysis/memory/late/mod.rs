//! Where to free memory (issue 16, beyond the reference): every tensor found live in the
//! snapshots after its last use, the span over which it is held past that use, and what freeing
//! it right after its last use would take off the peak of its device and buffer type.
//!
//! Pure: the report layer feeds the `buffers` rows to [`crate::analysis::memory::usage::MemoryUsage`]
//! built [`with_runs`](crate::analysis::memory::usage::MemoryUsage::with_runs), reads the tensors at the
//! runs' addresses, and fills each finding's source line from its last-use operation's stack
//! trace. Attribution and last use are docs/rules/memory.md §4's (`memory::failure::holders`).

pub(crate) mod findings;
mod fit;
mod lifetime;
mod past_last_use;
mod peak;
pub(crate) mod runs;
mod suggestions;

pub use findings::{Disagreement, LateFindings, LateSummary, LateTensor, LifetimeCheck};
pub use fit::{LateAtFailure, late_at_failure, late_at_failure_sentence};
pub use lifetime::{TensorLifetime, check_lifetimes, lifetime_lines};
pub use past_last_use::find_late;
pub use runs::{BufferRun, BufferRuns};
pub use suggestions::{late_heading, late_row, suggestion};

#[cfg(test)]
mod tests;
