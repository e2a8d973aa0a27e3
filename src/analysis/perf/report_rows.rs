//! The rows of a performance report, as tt-perf-report builds them with the link's settings (1.4.0,
//! merged rows in 1.4.1's host-start order): line-number ids, `HOST START TS` order, device merge,
//! signposts kept, host ops hidden
//! (docs/rules/reference.md §8.2–§8.3), and the figures shown per row.

use crate::analysis::perf::numbers::parse_float_prefix;

/// Op codes that mark a collective operation when merging devices.
const COLLECTIVES: [&str; 3] = ["AllGather", "ReduceScatter", "AllReduce"];

/// Shared text of a perf cell: rows built from records (and the merged and per-device views)
/// share it instead of copying it.
pub(crate) type Text = std::sync::Arc<str>;

/// Substring test for the short cells of a perf row: a plain scan, which for op codes of a few
/// dozen bytes costs less than setting up `str::contains`'s searcher, called five times a row.
fn has(haystack: &str, needle: &str) -> bool {
    let (h, n) = (haystack.as_bytes(), needle.as_bytes());
    match n.first() {
        None => true,
        Some(&first) => h.len() >= n.len() && (0..=h.len() - n.len()).any(|i| h[i] == first && &h[i..i + n.len()] == n),
    }
}

/// `OP TYPE` of a device operation.
pub(crate) const DEVICE_OP_TYPE: &str = "tt_dnn_device";

/// `OP TYPE` of a signpost.
pub(crate) const SIGNPOST_OP_TYPE: &str = "signpost";

/// One data row of a raw `ops_perf_results` CSV, with the cells the rules read.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PerfRecord {
    /// The row's line number in the CSV (first data row 2).
    pub(crate) id: u64,
    /// `OP CODE`, unchanged.
    pub(crate) op_code: Text,
    /// `OP TYPE`: `tt_dnn_device`, `signpost`, or a host op type.
    pub(crate) op_type: Text,
    /// `DEVICE ID`, when it is an integer.
    pub(crate) device_id: Option<u64>,
    /// `HOST START TS`.
    pub(crate) host_start_ts: Option<f64>,
    /// `DEVICE KERNEL DURATION [ns]`.
    pub(crate) kernel_duration_ns: Option<f64>,
    /// `OP TO OP LATENCY [ns]`.
    pub(crate) op_to_op_latency_ns: Option<f64>,
    /// `CORE COUNT`.
    pub(crate) core_count: Option<i64>,
    /// `AVAILABLE WORKER CORE COUNT` (2026 CSVs).
    pub(crate) available_cores: Option<i64>,
    /// `MATH FIDELITY`.
    pub(crate) math_fidelity: Text,
    /// `PROGRAM HASH`, when not empty.
    pub(crate) program_hash: Option<Text>,
    /// `PROGRAM CACHE HIT`: `True` or `False`, else none.
    pub(crate) cache_hit: Option<bool>,
    /// `PM IDEAL [ns]`.
    pub(crate) pm_ideal_ns: Option<f64>,
    /// `GLOBAL CALL COUNT`, as written.
    pub(crate) global_call_count: Text,
}

/// tt-perf-report's analytic columns, present only when the input is a tt-perf-report CSV.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Analytics {
    /// `Bound`: `DRAM`, `FLOP`, `BOTH`, `SLOW`, `HOST`, or empty.
    pub bound: Option<String>,
    /// `DRAM %`.
    pub dram_percent: Option<f64>,
    /// `FLOPs %`.
    pub flops_percent: Option<f64>,
    /// `Bound Analysis` (1.4.0).
    pub(crate) bound_analysis: Option<String>,
}

/// One row of the performance table.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PerfRow {
    /// The row's id: its line number in the raw CSV.
    pub id: u64,
    /// The raw op code, which linking compares with device-operation names.
    pub raw_op_code: Text,
    /// The displayed op code: ` (signpost)` appended for signposts.
    pub op_code: Text,
    /// `OP TYPE`; empty when the input does not say (tt-perf-report output, non-signpost rows).
    pub(crate) op_type: Text,
    /// The device the row came from (the kept row's device when merged).
    pub(crate) device: Option<u64>,
    /// Device kernel time in µs; none for signposts.
    pub device_time_us: Option<f64>,
    /// Gap since the previous non-signpost op, in µs.
    pub(crate) op_to_op_gap_us: Option<f64>,
    /// Cores used.
    pub cores: Option<i64>,
    /// Worker cores available.
    pub available_cores: Option<i64>,
    /// Share of the report's time (device time plus gaps), in percent.
    pub total_percent: Option<f64>,
    /// Math fidelity, e.g. `HiFi2`.
    pub(crate) math_fidelity: Text,
    /// `PROGRAM HASH`.
    pub program_hash: Option<Text>,
    /// `PROGRAM CACHE HIT`.
    pub cache_hit: Option<bool>,
    /// Raw `PM IDEAL [ns]`.
    pub pm_ideal_ns: Option<f64>,
    /// `GLOBAL CALL COUNT`.
    pub(crate) global_call_count: Text,
    /// tt-perf-report's analytics, when the input carried them.
    pub analytics: Option<Analytics>,
}

impl PerfRow {
    /// True for a signpost row (never aligned, never flagged beyond `Op failed`).
    pub fn is_signpost(&self) -> bool {
        &*self.op_type == SIGNPOST_OP_TYPE
    }

    /// True for a host op (`(torch)` in the op code), which the table hides.
    pub(crate) fn is_host_op(&self) -> bool {
        has(&self.op_code, "(torch)")
    }
}

/// The raw op code of a tt-perf-report `OP Code` written without `--raw-op-codes`: the text up to
/// the first space. tt-perf-report appends a size or config to Matmul, Conv2d and Halo op codes
/// (`HaloDeviceOperation w=x s=x p=x d=x | x`); device-operation names have no space
/// (docs/rules/reference.md §13.4).
pub(crate) fn raw_op_code_of(op_code: &str) -> &str {
    op_code.split(' ').next().unwrap_or_default()
}

/// How to build the rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct RowOptions {
    /// Merge devices (the link view); off for the per-device view.
    pub(crate) merge_devices: bool,
    /// The CSV has a `HOST START TS` column.
    pub(crate) sort_by_host_start: bool,
}

/// The number of distinct integer `DEVICE ID` values among the records.
pub(crate) fn device_count(records: &[PerfRecord]) -> usize {
    let mut ids: Vec<u64> = records.iter().filter_map(|r| r.device_id).collect();
    ids.sort_unstable();
    ids.dedup();
    ids.len()
}

/// Builds the visible rows from raw records (docs/rules/reference.md §8.2–§8.3); host ops are hidden and
/// ids are not renumbered.
pub(crate) fn build_rows(records: &[PerfRecord], options: RowOptions) -> Vec<PerfRow> {
    let mut order: Vec<Merged<'_>> = records
        .iter()
        .map(|r| Merged { record: r, duration: r.kernel_duration_ns, started: r.host_start_ts })
        .collect();
    if options.sort_by_host_start {
        // Missing timestamps last, as pandas does; ties keep CSV order (stable sort).
        order.sort_by(|a, b| match (a.record.host_start_ts, b.record.host_start_ts) {
            (Some(x), Some(y)) => x.total_cmp(&y),
            (Some(_), None) => std::cmp::Ordering::Less,
            (None, Some(_)) => std::cmp::Ordering::Greater,
            (None, None) => std::cmp::Ordering::Equal,
        });
    }
    let devices = device_count(records);
    let merge = devices > 0 && (options.merge_devices || devices <= 1);
    if merge {
        order = merge_devices(order);
        if options.sort_by_host_start {
            // tt-perf-report 1.4.1: merged rows in host-start order, each where its group's
            // earliest row started, so IDs need not ascend (1.4.0 re-sorted by the kept row's ID
            // and could reorder operations by which device was slowest). Stable: ties keep order.
            order.sort_by(|a, b| match (a.started, b.started) {
                (Some(x), Some(y)) => x.total_cmp(&y),
                (Some(_), None) => std::cmp::Ordering::Less,
                (None, Some(_)) => std::cmp::Ordering::Greater,
                (None, None) => a.record.id.cmp(&b.record.id),
            });
        } else {
            order.sort_by_key(|m| m.record.id);
        }
    }
    let mut rows = Vec::with_capacity(order.len());
    let mut previous_non_signpost = false;
    for m in order {
        let signpost = has(&m.record.op_type, SIGNPOST_OP_TYPE);
        rows.push(perf_row(m, signpost, previous_non_signpost));
        previous_non_signpost |= !signpost;
    }
    rows.retain(|row| !row.is_host_op());
    add_total_percent(&mut rows);
    rows
}

/// The row of a (merged) record: a signpost is marked and has no device time; the op-to-op gap
/// counts only after a row that is not a signpost. `Total %` and analytics are added later.
fn perf_row(m: Merged<'_>, signpost: bool, previous_non_signpost: bool) -> PerfRow {
    let r = m.record;
    let op_to_op_gap_us = if previous_non_signpost { r.op_to_op_latency_ns.map(|ns| ns / 1000.0) } else { None };
    let device_time_us = if signpost { None } else { Some(m.duration.map_or(0.0, |ns| ns / 1000.0)) };
    let op_code = if signpost { format!("{} (signpost)", r.op_code).into() } else { r.op_code.clone() };
    PerfRow {
        id: r.id,
        raw_op_code: r.op_code.clone(),
        op_code,
        op_type: r.op_type.clone(),
        device: r.device_id,
        device_time_us,
        op_to_op_gap_us,
        cores: r.core_count,
        available_cores: r.available_cores,
        total_percent: None,
        math_fidelity: r.math_fidelity.clone(),
        program_hash: r.program_hash.clone(),
        cache_hit: r.cache_hit,
        pm_ideal_ns: r.pm_ideal_ns,
        global_call_count: r.global_call_count.clone(),
        analytics: None,
    }
}

/// `Total %` as tt-perf-report derives it: (device time + op-to-op gap) over the sum of both for
/// all visible rows; none when a row has neither figure.
pub(crate) fn add_total_percent(rows: &mut [PerfRow]) {
    let total: f64 = rows.iter().map(|r| r.device_time_us.unwrap_or(0.0) + r.op_to_op_gap_us.unwrap_or(0.0)).sum();
    for row in rows {
        row.total_percent = if total != 0.0 && (row.device_time_us.is_some() || row.op_to_op_gap_us.is_some()) {
            Some((row.device_time_us.unwrap_or(0.0) + row.op_to_op_gap_us.unwrap_or(0.0)) / total * 100.0)
        } else {
            None
        };
    }
}

/// A record with the kernel duration the merge gave it.
struct Merged<'a> {
    record: &'a PerfRecord,
    duration: Option<f64>,
    /// The earliest `HOST START TS` of the rows merged into it.
    started: Option<f64>,
}

/// True for an op code the merge treats as a collective.
pub(crate) fn is_collective(op_code: &str) -> bool {
    COLLECTIVES.iter().any(|c| has(op_code, c))
}

/// The duration the merge compares: −1 when missing, negative, or hidden behind a large
/// negative op-to-op latency (docs/rules/reference.md §8.2 step 4).
fn comparable_duration(record: &PerfRecord) -> f64 {
    let duration = match record.kernel_duration_ns {
        Some(d) if d >= 0.0 => d,
        _ => return -1.0,
    };
    match record.op_to_op_latency_ns {
        Some(latency) if latency < -1_000_000.0 && latency.abs() > (duration * 0.5).max(1_000_000.0) => -1.0,
        _ => duration,
    }
}

/// Lock-step groups as one flat list of row indexes with each group's end in it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Groups {
    indexes: Vec<usize>,
    ends: Vec<usize>,
}

impl Groups {
    /// The groups, each as indexes into the grouped rows, in ascending device order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = &[usize]> {
        let starts = std::iter::once(0).chain(self.ends.iter().copied());
        starts.zip(&self.ends).map(|(start, &end)| &self.indexes[start..end])
    }
}

/// Groups the device rows per device in lock step: each group takes the head of every queue
/// whose head has the op code of the first non-empty queue's head.
pub(crate) fn lock_step_groups<T>(
    rows: &[T],
    device_of: impl Fn(&T) -> Option<u64>,
    op_code_of: impl Fn(&T) -> &str,
) -> Groups {
    let mut devices: Vec<u64> = rows.iter().filter_map(&device_of).collect();
    devices.sort_unstable();
    devices.dedup();
    let mut queues: Vec<std::collections::VecDeque<usize>> = vec![Default::default(); devices.len()];
    for (i, row) in rows.iter().enumerate() {
        if let Some(d) = device_of(row) {
            let q = devices.binary_search(&d).expect("device listed");
            queues[q].push_back(i);
        }
    }
    let mut groups = Groups::default();
    // Queues before `first` are empty for good: skip them.
    let mut first = 0;
    loop {
        while first < queues.len() && queues[first].is_empty() {
            first += 1;
        }
        let Some(&head) = queues.get(first).and_then(|q| q.front()) else { break };
        let code = op_code_of(&rows[head]);
        for q in queues[first..].iter_mut() {
            if let Some(&head) = q.front()
                && op_code_of(&rows[head]) == code
            {
                groups.indexes.push(head);
                q.pop_front();
            }
        }
        groups.ends.push(groups.indexes.len());
    }
    groups
}

/// Merges devices: one row per lock-step group of `tt_dnn_device` rows; other rows kept.
fn merge_devices(order: Vec<Merged<'_>>) -> Vec<Merged<'_>> {
    let device_of = |m: &Merged<'_>| if &*m.record.op_type == DEVICE_OP_TYPE { m.record.device_id } else { None };
    let groups = lock_step_groups(&order, device_of, |m| &m.record.op_code);
    let mut kept: Vec<Merged<'_>> = Vec::with_capacity(order.len());
    for group in groups.iter() {
        let first = &order[group[0]];
        let started = group.iter().filter_map(|&i| order[i].record.host_start_ts).min_by(f64::total_cmp);
        if is_collective(&first.record.op_code) {
            let durations: Vec<f64> = group.iter().filter_map(|&i| order[i].record.kernel_duration_ns).collect();
            let mean = (!durations.is_empty()).then(|| durations.iter().sum::<f64>() / durations.len() as f64);
            kept.push(Merged { record: first.record, duration: mean, started });
        } else {
            let mut best = group[0];
            for &i in &group[1..] {
                if comparable_duration(order[i].record) > comparable_duration(order[best].record) {
                    best = i;
                }
            }
            kept.push(Merged { record: order[best].record, duration: order[best].record.kernel_duration_ns, started });
        }
    }
    kept.extend(order.into_iter().filter(|m| device_of(m).is_none()));
    kept
}

/// A tt-perf-report output's rows in the order their operations were called. 1.4.0 sorts merged
/// multi-device rows by the kept row's `ID`, so an operation whose slowest row was another
/// device's moves down; its `Global Call Count` still says when it was called. When the counts
/// do not ascend in file order, the rows are stably re-sorted by them, a row without one
/// (signposts, host ops) staying after the row before it. Rows whose counts ascend (1.4.1, one
/// device) are kept as written.
pub(crate) fn in_call_order(mut rows: Vec<PerfRow>) -> Vec<PerfRow> {
    let mut last = f64::NEG_INFINITY;
    let keys: Vec<f64> = rows
        .iter()
        .map(|r| {
            if let Some(count) = parse_float_prefix(&r.global_call_count).filter(|c| c.is_finite()) {
                last = count;
            }
            last
        })
        .collect();
    if keys.windows(2).all(|w| w[0] <= w[1]) {
        return rows;
    }
    let mut order: Vec<usize> = (0..rows.len()).collect();
    order.sort_by(|&a, &b| keys[a].total_cmp(&keys[b]));
    let mut taken: Vec<Option<PerfRow>> = rows.drain(..).map(Some).collect();
    order.into_iter().filter_map(|i| taken[i].take()).collect()
}

#[cfg(test)]
#[path = "rows_tests.rs"]
mod tests;
