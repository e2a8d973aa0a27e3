//! The performance report's rules: its rows, linking them to the memory report (and why not),
//! the allocation-failure callout above the perf table, likely DRAM fallbacks and the Flags
//! column.

pub mod callout;
pub mod dram_fallback;
pub mod flags;
pub mod link;
pub mod link_reason;
pub mod numbers;
pub mod report_rows;
