//! The device performance report: its folder or CSV, the CSV of every era, and the report
//! linked with a memory report (the link, the callout and the Flags column).

pub mod linked;
pub mod perf_csv;
pub mod perf_report;
