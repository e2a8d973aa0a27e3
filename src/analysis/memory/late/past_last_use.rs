//! The search of docs/rules/memory.md §4's attribution over a pass's buffer runs: every tensor
//! held past its last use, the operation that held it last, and what freeing it after that use
//! would take off its device's peak.

use super::findings::{LateFindings, LateSummary, LateTensor};
use super::peak::SeriesPeaks;
use super::runs::BufferRun;
use crate::analysis::memory::failure::holders::{Holders, last_use, producer};
use crate::analysis::memory::inputs::TensorFacts;
use crate::analysis::memory::usage::{MemoryUsage, UsageKey};
use std::collections::HashMap;

/// Finds every tensor held past its last use from a pass's usage and runs (`usage` built
/// [`with_runs`](MemoryUsage::with_runs)), the tensors at the runs' addresses, the operations
/// with an error and the run's last operation: a buffer still in its device's last snapshot is
/// held until the first error after that snapshot, else to the end of the run.
pub fn find_late(usage: &MemoryUsage, tensors: &[TensorFacts], errors: &[u64], last_operation: u64) -> LateFindings {
    let Some(runs) = usage.runs.as_ref() else { return LateFindings::default() };
    let mut holders: HashMap<UsageKey, Holders<'_>> = HashMap::new();
    let mut late = Vec::new();
    for run in runs.runs() {
        let key = (run.device_id, run.buffer_type);
        let holders = holders.entry(key).or_insert_with(|| Holders::new(0, key, &[], &[], tensors));
        if let Some(found) = late_tensor(holders, &run, (errors, last_operation)) {
            late.push(found);
        }
    }
    let peaks: HashMap<UsageKey, SeriesPeaks> =
        usage.sums.iter().map(|(key, series)| (*key, SeriesPeaks::new(series))).collect();
    let span = |t: &LateTensor| (t.last_use_operation_id + 1, t.held_until_operation_id);
    for t in &mut late {
        if let Some(p) = peaks.get(&(t.device_id, t.buffer_type)) {
            t.peak_saving_per_bank = p.saving(span(t), t.size_per_bank);
        }
    }
    late.sort_by(|a, b| {
        (b.peak_saving_per_bank, b.size_per_bank)
            .cmp(&(a.peak_saving_per_bank, a.size_per_bank))
            .then((a.device_id, a.buffer_type as u8, a.address).cmp(&(b.device_id, b.buffer_type as u8, b.address)))
            .then(a.held_until_operation_id.cmp(&b.held_until_operation_id))
    });
    let mut summary = peaks
        .iter()
        .map(|(&(device_id, buffer_type), p)| {
            let mine: Vec<((u64, u64), u64)> = late
                .iter()
                .filter(|t| (t.device_id, t.buffer_type) == (device_id, buffer_type))
                .map(|t| (span(t), t.size_per_bank))
                .collect();
            LateSummary {
                device_id,
                buffer_type,
                peak_per_bank: p.peak(),
                peak_if_all_freed_per_bank: p.peak_without(&mine),
                count: mine.len(),
            }
        })
        .collect::<Vec<_>>();
    summary.sort_by_key(|s| (s.device_id, s.buffer_type as u8));
    LateFindings { late, summary, failures: Vec::new(), lifetime: None }
}

/// The tensor a run holds (docs/rules/memory.md §4, N = the run's last snapshot) when the run goes on past
/// the tensor's last use.
fn late_tensor(holders: &mut Holders<'_>, run: &BufferRun, (errors, end): (&[u64], u64)) -> Option<LateTensor> {
    holders.operation_id = run.last_operation_id;
    let tensor_id = holders.tenant(run.address)?;
    let facts = holders.facts(tensor_id)?;
    let last = last_use(&facts.uses, run.last_operation_id.saturating_add(1))?;
    let ended_by_error = errors.iter().copied().filter(|&e| e > run.last_operation_id).min();
    let held_until = match run.open {
        true => ended_by_error.unwrap_or(end).max(run.last_operation_id),
        false => run.last_operation_id,
    };
    // The snapshot of the last use shows the tensor's buffer: a run that began after it is
    // another buffer at the same place.
    if held_until <= last || run.first_operation_id > last {
        return None;
    }
    let name = facts.uses.iter().find(|u| !u.output && u.operation_id == last).map(|u| u.operation_name.to_string());
    Some(LateTensor {
        device_id: run.device_id,
        buffer_type: run.buffer_type,
        address: run.address,
        size_per_bank: run.size_per_bank,
        tensor_id,
        shape: facts.shape.clone(),
        producer_operation_id: producer(&facts.uses).map(|u| u.operation_id),
        last_use_operation_id: last,
        last_use_operation_name: name.unwrap_or_default(),
        held_until_operation_id: held_until,
        source: None,
        peak_saving_per_bank: 0,
    })
}
