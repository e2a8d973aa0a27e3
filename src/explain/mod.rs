//! Print mode (`ttnn-tui explain`): every error of a report, explained as plain text or JSON for
//! a terminal log, a CI job or a script. Both forms are written from the answers
//! (`crate::answer`), as they are built: one failure's memory section at a time.

mod beside;
mod diff;
mod explanation;
mod follow;
mod headroom;
mod json;
mod late;
mod log;
mod paint;
mod peak;
mod plain_text;
mod pretty;
mod whatif;

pub use crate::analysis::model::first_line;

pub use crate::answer::{MemoryAnswer, read_late, read_late_beside, read_peaks, read_peaks_beside};
pub use diff::{diff_reports, render_diff_json, render_diff_text};
pub use explanation::{ExplainOptions, Explanation, collect};
pub use follow::{FollowEnd, follow};
pub use headroom::render_headroom_text;
pub use json::{render_json, write_json};
pub use log::{MAX_LINE_BYTES, RECORD_A_REPORT, render_log_json, render_log_text, scan_log};
pub use plain_text::render_text;
pub use whatif::{render_whatif_json, render_whatif_text};
