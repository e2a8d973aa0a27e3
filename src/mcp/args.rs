//! The arguments of each tool, read from the call's JSON (unknown keys refused); their JSON
//! Schemas, with each field's doc line as its description, are what `tools/list` shows.

use rmcp::schemars::{self, JsonSchema};
use serde::Deserialize;

/// `list_failures`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ListFailures {
    /// A TT-NN report folder holding db.sqlite, the db.sqlite itself, or a folder of report folders (the newest is read); a path on the machine running the server.
    pub report: String,
    /// Host rank to read on a multi-host report (default 0).
    pub rank: Option<u32>,
    /// The run's log (pytest output, a CI log), joined to the report's operations; ttnn releases that record no allocator message get their failure from it.
    pub log: Option<String>,
    /// Items per list (default 50, at most 500); `left_out` counts what was cut.
    pub limit: Option<u64>,
}

/// `explain_failure`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ExplainFailure {
    /// A TT-NN report folder holding db.sqlite, the db.sqlite itself, or a folder of report folders (the newest is read).
    pub report: String,
    /// The operation's id, as list_failures and find_operations give it.
    pub operation_id: u64,
    /// Host rank to read on a multi-host report (default 0).
    pub rank: Option<u32>,
    /// The run's log, joined to the report's operations.
    pub log: Option<String>,
    /// Items per list (live buffers, free blocks; default 50, at most 500); `left_out` counts what was cut.
    pub limit: Option<u64>,
}

/// `memory_after`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct MemoryAfter {
    /// A TT-NN report folder holding db.sqlite, the db.sqlite itself, or a folder of report folders (the newest is read).
    pub report: String,
    /// The operation's id.
    pub operation_id: u64,
    /// The device (default: the lowest device with buffers).
    pub device_id: Option<u64>,
    /// `L1`, `DRAM`, `L1_SMALL` or `TRACE` (default: L1 when the snapshot holds it).
    pub buffer_type: Option<String>,
    /// Host rank to read on a multi-host report (default 0).
    pub rank: Option<u32>,
    /// Items per list (live buffers, free blocks; default 50, at most 500); `left_out` counts what was cut.
    pub limit: Option<u64>,
}

/// `late_tensors`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct LateTensors {
    /// A TT-NN report folder holding db.sqlite, the db.sqlite itself, or a folder of report folders (the newest is read).
    pub report: String,
    /// Only this device.
    pub device_id: Option<u64>,
    /// Only this buffer type: `L1`, `DRAM`, `L1_SMALL` or `TRACE`.
    pub buffer_type: Option<String>,
    /// Host rank to read on a multi-host report (default 0).
    pub rank: Option<u32>,
    /// Items per list (default 50, at most 500; the biggest savings come first); `left_out` counts what was cut.
    pub limit: Option<u64>,
}

/// `headroom`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct Headroom {
    /// A TT-NN report folder holding db.sqlite, the db.sqlite itself, or a folder of report folders (the newest is read).
    pub report: String,
    /// Host rank to read on a multi-host report (default 0).
    pub rank: Option<u32>,
}

/// `peak`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct Peak {
    /// A TT-NN report folder holding db.sqlite, the db.sqlite itself, or a folder of report folders (the newest is read).
    pub report: String,
    /// Host rank to read on a multi-host report (default 0).
    pub rank: Option<u32>,
}

/// `what_if`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct WhatIf {
    /// A TT-NN report folder holding db.sqlite, the db.sqlite itself, or a folder of report folders (the newest is read).
    pub report: String,
    /// The operation whose allocation failure is replayed.
    pub operation_id: u64,
    /// The fixes, each as `ttnn-tui whatif` spells it: `free T@K`, `free T`, `free-buffer A@K`, `free-late`, `to-dram T`, `output-to-dram`, `l1-small-size B` (T a tensor id, K an operation id, A an address, B bytes).
    pub fixes: Vec<String>,
    /// Replay the whole run from its first operation, not from the snapshot before the first fix: slower; the replay check then covers every allocation.
    pub from_start: Option<bool>,
    /// Host rank to read on a multi-host report (default 0).
    pub rank: Option<u32>,
    /// The run's log, joined to the report's operations (releases that record no message).
    pub log: Option<String>,
}

/// `explain_log`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ExplainLog {
    /// The log file: pytest output, a CI log.
    pub path: String,
    /// Failures listed (default 50, at most 500); `left_out` counts what was cut.
    pub limit: Option<u64>,
}

/// `find_operations`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct FindOperations {
    /// A TT-NN report folder holding db.sqlite, the db.sqlite itself, or a folder of report folders (the newest is read).
    pub report: String,
    /// A part of the operation name, any case (`matmul`); every operation when omitted.
    pub name_contains: Option<String>,
    /// Host rank to read on a multi-host report (default 0).
    pub rank: Option<u32>,
    /// Operations listed (default 50, at most 500); `left_out` counts the other matches.
    pub limit: Option<u64>,
}

/// `operation_detail`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct OperationDetail {
    /// A TT-NN report folder holding db.sqlite, the db.sqlite itself, or a folder of report folders (the newest is read).
    pub report: String,
    /// The operation's id.
    pub operation_id: u64,
    /// A device performance report (profiler folder or ops_perf_results*.csv) to link, for the operation's perf rows.
    pub perf: Option<String>,
    /// Host rank to read on a multi-host report (default 0).
    pub rank: Option<u32>,
    /// Items per list (arguments, perf rows; default 50, at most 500); `left_out` counts what was cut.
    pub limit: Option<u64>,
}

/// `compare_runs`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct CompareRuns {
    /// The report before the change.
    pub before: String,
    /// The report after the change.
    pub after: String,
    /// The rank read in both (default 0).
    pub rank: Option<u32>,
}
