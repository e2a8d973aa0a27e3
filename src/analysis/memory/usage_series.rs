//! One line of the memory-over-the-run chart: the memory used per bank after each operation on
//! one device and buffer type, its peak, the failures on it, and the region size as a ceiling
//! (docs/rules/memory.md §1–§2).

use super::failure::picture::RegionSource;
use super::inputs::DeviceFacts;
use super::place::region;
use super::usage::{MemoryUsage, UsageKey};
use crate::analysis::messages::failure::BufferType;
use serde::Serialize;
use std::collections::BTreeMap;

/// The memory used after one operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UsagePoint {
    /// The operation.
    pub operation_id: u64,
    /// Bytes per bank in use after it; none before anything was recorded on the device.
    pub used_per_bank: Option<u64>,
    /// True when the operation has its own figure; false when the last figure is carried over
    /// (an operation that did not touch the device, or a failed one without a snapshot).
    pub recorded: bool,
}

/// Where the figures of a series come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UsageBasis {
    /// The `buffers` snapshots: `SUM(max_size_per_bank)` per operation.
    Snapshots,
    /// A replay of the captured graphs, for reports without snapshots (docs/rules/memory.md §3.4
    /// `graph_only`); the points come from that replay.
    GraphOnlyPass,
}

/// An operation that failed, with where it failed when known (none: shown on every line).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FailureMark {
    /// The operation with the error.
    pub(crate) operation_id: u64,
    /// The device it failed on, when known.
    pub(crate) device_id: Option<u64>,
    /// The buffer type it failed to allocate, when the error is an allocation failure.
    pub(crate) buffer_type: Option<BufferType>,
}

/// Where a region size comes from (docs/rules/memory.md §2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CeilingSource {
    /// The `devices` row.
    Devices,
    /// A failure message's bank size (DRAM).
    Message,
}

/// The size of the region a buffer type lives in, per bank: the chart's ceiling line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ceiling {
    /// Bytes per bank.
    pub size: u64,
    /// Where it comes from.
    pub source: CeilingSource,
}

/// The chart's ceiling of a buffer type: the size of its region, by the one formula of
/// docs/rules/memory.md §2 (`place::region`) — L1 `[A, A+B)`, L1_SMALL `[A+B, W)` from the
/// device's row (`device`), DRAM one bank from a failure message's bank size; none when the
/// region is unknown or empty.
pub(crate) fn region_ceiling(
    buffer_type: BufferType,
    device: Option<&DeviceFacts>,
    dram_bank_size: Option<u64>,
) -> Option<Ceiling> {
    let r = region(buffer_type, device, dram_bank_size, None);
    let size = r.end?.saturating_sub(r.start?);
    let source = match r.source? {
        RegionSource::Devices => CeilingSource::Devices,
        RegionSource::Message => CeilingSource::Message,
    };
    (size > 0).then_some(Ceiling { size, source })
}

/// One chart line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UsageSeries {
    /// The device.
    pub(crate) device_id: u64,
    /// The buffer type.
    pub(crate) buffer_type: BufferType,
    /// Where the figures come from.
    pub basis: UsageBasis,
    /// One point per operation, in the order given (the report's operations).
    pub points: Vec<UsagePoint>,
    /// Index in `points` of the greatest figure (the first one on ties); none without figures.
    pub(crate) peak: Option<usize>,
    /// Indexes in `points` of the operations that failed on this device and type, ascending.
    pub failures: Vec<usize>,
    /// The region size, when known.
    pub ceiling: Option<Ceiling>,
    /// `buffers` rows the valid-row rule kept out of every sum (docs/rules/memory.md §3), over the report.
    pub set_aside_rows: u64,
}

impl UsageSeries {
    /// A series from points obtained anywhere (snapshots or a graph replay): finds the peak and
    /// places the failures that concern this device and type.
    pub fn new(
        (device_id, buffer_type): UsageKey,
        basis: UsageBasis,
        points: Vec<UsagePoint>,
        failures: &[FailureMark],
        ceiling: Option<Ceiling>,
    ) -> Self {
        let mut peak: Option<(usize, u64)> = None;
        for (i, p) in points.iter().enumerate() {
            if let Some(used) = p.used_per_bank
                && peak.is_none_or(|(_, best)| used > best)
            {
                peak = Some((i, used));
            }
        }
        let concerns = |f: &&FailureMark| {
            f.device_id.is_none_or(|d| d == device_id) && f.buffer_type.is_none_or(|t| t == buffer_type)
        };
        let mut failure_positions: Vec<usize> = failures
            .iter()
            .filter(concerns)
            .flat_map(|f| points.iter().enumerate().filter(move |(_, p)| p.operation_id == f.operation_id))
            .map(|(i, _)| i)
            .collect();
        failure_positions.sort_unstable();
        failure_positions.dedup();
        let peak = peak.map(|(i, _)| i);
        Self { device_id, buffer_type, basis, points, peak, failures: failure_positions, ceiling, set_aside_rows: 0 }
    }

    /// The series of one (device, buffer type) from the `buffers` sums, one point per operation
    /// of `operation_ids`: an operation with a snapshot on the device has its own figure (0 when
    /// none of its rows has this type); any other carries the last figure over.
    pub(crate) fn from_snapshots(
        usage: &MemoryUsage,
        key: UsageKey,
        operation_ids: &[u64],
        failures: &[FailureMark],
        ceiling: Option<Ceiling>,
    ) -> Self {
        let sums = usage.sums.get(&key).map(Vec::as_slice).unwrap_or_default();
        let snapshots = usage.snapshots.get(&key.0).map(Vec::as_slice).unwrap_or_default();
        let mut last = None;
        let points = operation_ids
            .iter()
            .map(|&operation_id| {
                let recorded = snapshots.binary_search(&operation_id).is_ok();
                if recorded {
                    let sum = sums.binary_search_by_key(&operation_id, |(id, _)| *id).map_or(0, |at| sums[at].1);
                    last = Some(sum);
                }
                UsagePoint { operation_id, used_per_bank: last, recorded }
            })
            .collect();
        Self {
            set_aside_rows: usage.set_aside_rows,
            ..Self::new(key, UsageBasis::Snapshots, points, failures, ceiling)
        }
    }

    /// The series of one (device, buffer type) from a replay of the captured graphs: `after`
    /// holds, for each operation whose graph was replayed, the bytes per bank each (device,
    /// buffer type) held after it (an operation listed without this key held none of it); any
    /// other operation carries the last figure over.
    pub(crate) fn from_replay(
        after: &[(u64, UsageKey, u64)],
        key: UsageKey,
        operation_ids: &[u64],
        failures: &[FailureMark],
        ceiling: Option<Ceiling>,
    ) -> Self {
        let mut by_operation: BTreeMap<u64, u64> = BTreeMap::new();
        for &(operation_id, k, used) in after {
            let entry = by_operation.entry(operation_id).or_insert(0);
            if k == key {
                *entry = entry.saturating_add(used);
            }
        }
        let mut last = None;
        let points = operation_ids
            .iter()
            .map(|&operation_id| {
                let recorded = match by_operation.get(&operation_id) {
                    Some(&used) => {
                        last = Some(used);
                        true
                    }
                    None => false,
                };
                UsagePoint { operation_id, used_per_bank: last, recorded }
            })
            .collect();
        Self::new(key, UsageBasis::GraphOnlyPass, points, failures, ceiling)
    }

    /// The peak point, when the series has any figure.
    pub fn peak_point(&self) -> Option<&UsagePoint> {
        self.peak.map(|i| &self.points[i])
    }
}

/// The peak of one device and buffer type (`explain --json --peak`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Peak {
    /// The device.
    pub device_id: u64,
    /// The buffer type (`"L1"`, `"DRAM"`, …).
    pub buffer_type: BufferType,
    /// The operation after which the most was in use (the first one on ties).
    pub operation_id: u64,
    /// Bytes per bank in use then.
    pub(crate) used_per_bank: u64,
}

/// The peak of every (device, buffer type) with rows, in device then type order, over the
/// operations of `operation_ids`.
pub(crate) fn peaks(usage: &MemoryUsage, operation_ids: &[u64]) -> Vec<Peak> {
    usage
        .keys()
        .filter_map(|key| {
            let series = UsageSeries::from_snapshots(usage, key, operation_ids, &[], None);
            let point = series.peak_point()?;
            Some(Peak {
                device_id: key.0,
                buffer_type: key.1,
                operation_id: point.operation_id,
                used_per_bank: point.used_per_bank?,
            })
        })
        .collect()
}

#[cfg(test)]
#[path = "usage_series_tests.rs"]
mod tests;
