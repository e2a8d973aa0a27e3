//! The true peak of every operation and the headroom of a run (docs/true-peak.md, beyond the
//! reference). Pure: the report layer reads each operation's graph and snapshot once into
//! [`RunEvents`]; [`true_peaks`] walks them for the highest memory inside every operation, and
//! [`headroom`] replays them in memory with a reservation to find how much more the run can take.

mod composition;
mod core_grid;
mod cores;
mod events;
mod headroom;
mod parts;
mod size;
#[cfg(test)]
mod tests;
mod true_peak;

pub use composition::Composition;
pub use core_grid::CoreGrid;
pub use cores::CoreSet;
pub use events::{BEFORE_RUN, Buffer, Event, OperationMark, Records, RunEvents};
pub use headroom::{FirstFailure, Headroom, HeadroomQuestion, ReplayCheck, headroom};
pub use size::{parse_size, parse_type_size};
pub use true_peak::{DeviceLayout, OperationPeak, run_peaks, tightest, true_peaks, true_peaks_per_core};
