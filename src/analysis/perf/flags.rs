//! The Flags column of the perf table: `Op failed` first, then the gate, then `DRAM fallback?`,
//! `DRAM bound`, `Low util`, `Few cores` and `Recompute` (docs/rules/reference.md §11).

use super::dram_fallback::DramFallback;
use super::link::LinkMap;
use super::report_rows::PerfRow;
use crate::analysis::format::format_percent;
use crate::analysis::messages::failure::AllocationFailure;
use crate::analysis::messages::reason::summary;
use std::collections::{HashMap, HashSet};

/// Rows below this `Total %` get no heuristic flag (tt-perf-report's mute threshold).
pub(crate) const MIN_TOTAL_PERCENT: f64 = 0.5;
/// `Low util` below this core utilisation.
pub(crate) const LOW_UTILISATION_RATIO: f64 = 0.3;
/// `Few cores` below this share of the available cores.
pub(crate) const FEW_CORES_RATIO: f64 = 0.25;
/// maxCores of an unknown architecture.
pub(crate) const DEFAULT_MAX_CORES: u64 = 64;

/// The text appended to `Low util` when tt-perf-report has no roofline model for the op.
const NO_ROOFLINE: &str =
    ". tt-perf-report has no roofline model for this op, so the ideal time this compares against is less reliable.";

/// A flag of the Flags column.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FlagKind {
    /// An earlier device op of an operation that failed to allocate.
    OpFailed,
    /// The operation's output probably fell back from L1 to DRAM.
    DramFallback,
    /// DRAM bandwidth is the likely bottleneck.
    DramBound,
    /// Low core utilisation.
    LowUtil,
    /// A small share of the cores.
    FewCores,
    /// A program hash compiled again.
    Recompute,
}

impl FlagKind {
    /// The flag's full label, shown in the footer.
    pub(crate) fn label(self) -> &'static str {
        match self {
            Self::OpFailed => "Operation failed to allocate",
            Self::DramFallback => "Likely DRAM fallback",
            Self::DramBound => "DRAM bound",
            Self::LowUtil => "Low utilisation",
            Self::FewCores => "Underutilised cores",
            Self::Recompute => "Recompute candidate",
        }
    }

    /// The short label shown in the Flags column.
    pub(crate) fn short_label(self) -> &'static str {
        match self {
            Self::OpFailed => "Op failed",
            Self::DramFallback => "DRAM fallback?",
            Self::DramBound => "DRAM bound",
            Self::LowUtil => "Low util",
            Self::FewCores => "Few cores",
            Self::Recompute => "Recompute",
        }
    }

    /// What the flag means.
    pub(crate) fn description(self) -> &'static str {
        match self {
            Self::OpFailed => {
                "This device op ran, but a later device op of the same operation failed to allocate memory, as recorded in the linked memory report."
            }
            Self::DramFallback => {
                "An output of this operation is in DRAM where L1 was probably intended, as inferred from the linked memory report. Treat it as a lead to check, not a fact."
            }
            Self::DramBound => "DRAM bandwidth is the likely bottleneck for this op.",
            Self::LowUtil => {
                "Core utilisation is below ideal for the assigned core count. Most reliable for matmul and conv ops."
            }
            Self::FewCores => "This op uses a small fraction of available device cores.",
            Self::Recompute => "An identical op hash was recomputed instead of reusing a cached result.",
        }
    }

    /// True for danger style (`Op failed`, `Recompute`); otherwise warning style.
    pub(crate) fn is_danger(self) -> bool {
        matches!(self, Self::OpFailed | Self::Recompute)
    }
}

/// A flag on a row, with the detail that explains it here.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Flag {
    /// Which flag.
    pub kind: FlagKind,
    /// The row-specific detail, when there is one.
    pub detail: Option<String>,
}

/// maxCores: the device log's `Max Compute Cores`, else the larger of the architecture's default
/// and the largest `Cores` among the rows (docs/rules/reference.md §11.7).
pub(crate) fn max_cores(device_log_max: Option<u64>, arch: Option<&str>, rows: &[PerfRow]) -> u64 {
    if let Some(max) = device_log_max.filter(|&m| m > 0) {
        return max;
    }
    let default = match arch.map(|a| a.trim().to_ascii_lowercase()).as_deref() {
        Some("wormhole_b0" | "wormhole") => 64,
        Some("blackhole") => 130,
        Some("grayskull") => 108,
        Some("quasar" | "grendel") => 32,
        _ => DEFAULT_MAX_CORES,
    };
    let largest = rows.iter().filter_map(|r| r.cores).filter(|&c| c > 0).max().unwrap_or(0) as u64;
    default.max(largest)
}

/// What a row's flags depend on besides the row.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct RowContext<'a> {
    /// The allocation failure of the operation the row is linked to.
    pub(crate) failure: Option<&'a AllocationFailure>,
    /// The DRAM-fallback record of that operation.
    pub(crate) fallback: Option<&'a DramFallback>,
    /// False when an earlier shown row has the same program hash.
    pub(crate) first_hash_occurrence: bool,
    /// maxCores (see [`max_cores`]).
    pub(crate) max_cores: u64,
}

/// The flags of one row, in column order.
pub(crate) fn flags_for_row(row: &PerfRow, context: RowContext<'_>) -> Vec<Flag> {
    let mut flags = Vec::new();
    if let Some(failure) = context.failure {
        flags.push(Flag { kind: FlagKind::OpFailed, detail: Some(summary(failure, false)) });
    }
    let bound = row.analytics.as_ref().and_then(|a| a.bound.as_deref());
    if row.is_signpost() || bound == Some("HOST") {
        return flags;
    }
    if let Some(fallback) = context.fallback {
        flags.push(Flag { kind: FlagKind::DramFallback, detail: Some(fallback.detail()) });
    }
    let big = row.total_percent.is_some_and(|t| t >= MIN_TOTAL_PERCENT);
    if big && let Some(detail) = dram_bound(row) {
        flags.push(Flag { kind: FlagKind::DramBound, detail: Some(detail) });
    }
    let max_cores = context.max_cores as f64;
    let available = row.available_cores.map_or(max_cores, |a| a as f64);
    if big
        && let (Some(ideal), Some(time), Some(cores)) = (row.pm_ideal_ns, row.device_time_us, row.cores)
        && ideal.is_finite()
        && time.is_finite()
    {
        let u = ideal / (time * 1000.0) * (available / cores as f64);
        let u = if u.is_finite() { u } else { 0.0 };
        if u > 0.0 && u < LOW_UTILISATION_RATIO {
            let mut detail = format!("Core utilisation: {}", format_percent(u * 100.0));
            if row.analytics.as_ref().and_then(|a| a.bound_analysis.as_deref()) == Some("none") {
                detail.push_str(NO_ROOFLINE);
            }
            flags.push(Flag { kind: FlagKind::LowUtil, detail: Some(detail) });
        }
    }
    if big
        && let Some(cores) = row.cores
        && context.max_cores > 0
        && (cores as f64) / available < FEW_CORES_RATIO
    {
        let shown = row.available_cores.map_or(context.max_cores.to_string(), |a| a.to_string());
        flags.push(Flag { kind: FlagKind::FewCores, detail: Some(format!("Cores: {cores} / {shown}")) });
    }
    if let Some(hash) = &row.program_hash
        && !context.first_hash_occurrence
        && row.cache_hit == Some(false)
    {
        flags.push(Flag { kind: FlagKind::Recompute, detail: Some(format!("Hash: {hash}")) });
    }
    flags
}

/// The `DRAM bound` detail when the row's tt-perf-report `Bound` columns say so.
fn dram_bound(row: &PerfRow) -> Option<String> {
    let analytics = row.analytics.as_ref()?;
    match analytics.bound.as_deref()? {
        "DRAM" => Some("Bound: DRAM".to_string()),
        "SLOW" => match (analytics.dram_percent, analytics.flops_percent) {
            (Some(dram), Some(flops)) if dram > flops => {
                Some(format!("DRAM {} vs FLOPS {}", format_percent(dram), format_percent(flops)))
            }
            _ => None,
        },
        _ => None,
    }
}

/// The flags of every shown row. Only rows of a linked report get `Op failed` and
/// `DRAM fallback?`: pass an empty `map` when the reports are not linked.
pub fn flags_for_rows(
    rows: &[PerfRow],
    map: &LinkMap,
    failures: &HashMap<u64, AllocationFailure>,
    fallbacks: &HashMap<u64, DramFallback>,
    max_cores: u64,
) -> Vec<Vec<Flag>> {
    let mut hashes: HashSet<&str> = HashSet::new();
    rows.iter()
        .map(|row| {
            let first_hash_occurrence = row.program_hash.as_deref().is_none_or(|h| hashes.insert(h));
            let operation = map.operation_of(row.id);
            let context = RowContext {
                failure: operation.and_then(|o| failures.get(&o)),
                fallback: operation.and_then(|o| fallbacks.get(&o)),
                first_hash_occurrence,
                max_cores,
            };
            flags_for_row(row, context)
        })
        .collect()
}

#[cfg(test)]
#[path = "flags_tests.rs"]
mod tests;
