//! The answers: what `explain`, `whatif` and the MCP server say about a report or a log, as plain
//! typed values built from `report` and `analysis` before anything is written. Serialised by
//! serde they are the JSON contract (one definition of each figure, whoever writes it); the text
//! forms are made from the same values. Building one reads the report and returns a
//! `ReportError` when it cannot; a part of an entry that cannot be read is said in the entry
//! (`Unavailable`), never left as a silent null.

mod advice;
mod ahead;
mod diff;
mod entry;
mod failure;
mod headroom;
mod late;
mod log;
mod memory;
mod operation;
mod peak;
mod refusal;
mod report;
mod sections;
mod select;
mod single_chip;
mod true_peak;
mod whatif;

pub use advice::{FixAnswer, failure_advice, your_fixes};
pub use ahead::{ENTRIES_BESIDE_FROM, Finishing, Ready, each_entry};
pub use diff::{Compared, DiffAnswer, PeakPair, Run, Side, compare_opened, compare_runs, diff_error, open_side};
pub use entry::{
    Entries, ErrorAnswer, Found, LogPlaceAnswer, MemorySectionAnswer, OperationAnswer, Picture, Unavailable,
};
pub use failure::{FailureAnswer, FiguresAnswer};
pub use headroom::{FirstFailureAnswer, HeadroomAnswer, HeadroomEntry, headroom_of, read_headroom};
pub use late::{LateAnswer, LateFailureAnswer, LateSummaryAnswer, LateTensorAnswer, read_late, read_late_beside};
pub use log::{LogAnswer, LogFailureAnswer, LogSummaryAnswer, MAX_LINE_BYTES, OtherErrorAnswer, scan_log};
pub use memory::{BlockAnswer, EachOf, LiveBufferAnswer, MemoryAnswer, SnapshotAnswer, WrittenMemory};
pub use operation::{
    MemoryAfterAnswer, OperationDetailAnswer, OperationListing, PerfRowsAnswer, find_operations, memory_after,
    operation_detail,
};
pub use peak::{PeakAnswer, PeaksAnswer, read_peaks, read_peaks_beside};
pub use refusal::{Refusal, operation_index};
pub use report::ReportAnswer;
pub use select::{ExplainedError, Selection};
pub(crate) use select::{explained_operation, explained_unattached};
pub(crate) use single_chip::on_a_single_chip;
pub use true_peak::{TIGHTEST, TruePeakAnswer, TruePeaks, read_true_peaks, true_peaks_of};
pub use whatif::{WhatIfAnswer, what_if};
