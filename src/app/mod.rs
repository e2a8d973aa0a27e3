//! The terminal UI's state: the loaded model, one state per tab with its own `update`, the popup
//! and the settings. No I/O and no styling: what must be read is asked for (`pending_reads`) and
//! handed back by the loop (`deliver`); `ui` draws from this state.

mod background;
pub(crate) mod bindings;
mod compare;
mod device_ops;
mod error_actions;
mod jobs;
pub mod keys;
#[cfg(test)]
mod keys_page;
mod loaded;
mod memory;
mod memory_fixes;
mod operations;
mod over_time;
mod perf;
mod reads;
mod search_index;
mod state;
mod tab;
mod windowed_rows;

pub use bindings::keymap;
pub use compare::{Change, Comparison};
pub(crate) use device_ops::{DeviceOpsTab, TreeAnnotations};
pub use device_ops::{DeviceTree, TreeItems};
pub use jobs::{JOBS, Job, JobEnd, JobState, Jobs};
pub use keys::{Action, Binding, Pane};
pub use loaded::{Loaded, Model};
pub(crate) use memory::{AdviceScroll, MemoryTab, ordered_holders};
pub use memory::{MemoryPicture, NoPicture, Place};
pub use memory_fixes::FixList;
pub(crate) use operations::{ListWidth, OperationsTab, UNATTACHED_SHOWN};
pub(crate) use over_time::{OverTimeTab, UsageSource};
pub(crate) use perf::PerfState;
pub(crate) use perf::{Focus, micros};
pub use perf::{PerfInput, PerfRows, PerfTab};
pub use reads::{Read, ReadResult};
pub use state::App;
pub(crate) use tab::Popup;
pub use tab::{Availability, TABS, Tab};
pub(crate) use windowed_rows::{Scroll, WindowedRows};
