//! What if: the fixes resolved against the run's records (docs/rules/memory.md §9.1) — a tensor's address,
//! last use, producer and deallocation, a buffer live after an operation, the late list — into
//! the plan the replay acts on and where it starts; a fix that cannot act on the run is said
//! (`WhatIfNote::NotApplied`) and refused by the front ends.

use super::memory_report::MemoryReport;
use crate::analysis::memory::holders::{deallocated_at, last_use, producer};
use crate::analysis::memory::late::LateFindings;
use crate::analysis::memory::whatif::{DeviceView, DramMove, Fix, Place, Plan, WhatIfNote};
use crate::analysis::memory::{MemoryAtFailure, TensorFacts};
use crate::analysis::messages::failure::{BufferType, FailureKind};

/// The fixes resolved: the plan, the operation the replay starts after (none: the first), and
/// what could not be resolved.
pub(super) struct Resolved {
    pub(super) plan: Plan,
    /// Operations the fixes touch first: the replay starts after the earliest (none: before the
    /// first operation).
    pub(super) starts: Vec<Option<u64>>,
    pub(super) notes: Vec<WhatIfNote>,
}

impl MemoryReport {
    /// The fixes as the replay acts on them, and where the replay must start.
    pub(super) fn resolve(
        &self,
        index: usize,
        fixes: &[Fix],
        m: &MemoryAtFailure,
        view: &DeviceView,
        late: Option<&LateFindings>,
    ) -> rusqlite::Result<Resolved> {
        let n = self.operations[index].id;
        let device = view.device_id;
        let banks = view.facts.as_ref().map_or(64, |f| f.l1_num_banks.max(1));
        let mut out = Resolved {
            plan: Plan { dram_banks: self.dram_banks(), l1_banks: banks, ..Plan::default() },
            starts: vec![self.previous(index)],
            notes: Vec::new(),
        };
        let ids: Vec<u64> = fixes
            .iter()
            .filter_map(|f| match f {
                Fix::Free { tensor, .. } | Fix::ToDram { tensor } => Some(*tensor),
                _ => None,
            })
            .collect();
        // Placed as the failure's picture places them: by their producers' graphs where the
        // tables are in doubt (docs/rules/memory.md §4).
        let facts = if ids.is_empty() { Vec::new() } else { self.tied_facts(index, &ids)? };
        for fix in fixes {
            match *fix {
                Fix::Free { tensor, after } => {
                    let Some(t) = facts.iter().find(|t| t.tensor_id == tensor && recorded(t)) else {
                        out.not_applied(fix, format!("tensor {tensor} is not in the report"));
                        continue;
                    };
                    let Some((place, address)) = tensor_place(t, view, m) else {
                        out.not_applied(fix, format!("the report records no address of tensor {tensor}"));
                        continue;
                    };
                    if let Some(why) = self.input_refusal(index, t, (place, address), m) {
                        out.not_applied(fix, why);
                        continue;
                    }
                    let k =
                        after.or_else(|| last_use(&t.uses, n)).or_else(|| producer(&t.uses).map(|u| u.operation_id));
                    match k.filter(|&k| k < n) {
                        Some(k) if self.operation_index(k).is_none_or(|i| i >= index) => out.not_applied(
                            fix,
                            format!("operation {k} is not in the report before the failed operation {n}"),
                        ),
                        Some(k) => match held_after(t, k) {
                            Err(why) => out.not_applied(fix, why),
                            Ok(()) => {
                                out.plan.free_after.push((k, place, address));
                                out.starts.push(Some(k));
                            }
                        },
                        None => {
                            let before =
                                self.previous(index).map_or_else(String::new, |p| format!(" (free {tensor}@{p})"));
                            out.not_applied(
                                fix,
                                format!("operation {n} is the failed one: free tensor {tensor} after an operation before it{before}"),
                            )
                        }
                    }
                }
                Fix::FreeBuffer { address, after } if self.operation_index(after).is_some_and(|i| i < index) => {
                    if !self.buffer_live_after(after, address, view)? {
                        out.not_applied(fix, format!("no buffer is live at {address} after operation {after}"));
                        continue;
                    }
                    for t in [BufferType::L1, BufferType::L1Small, BufferType::Dram] {
                        out.plan.free_after.push((after, (device, t), address));
                    }
                    out.starts.push(Some(after));
                }
                Fix::FreeBuffer { after, .. } => out.not_applied(
                    fix,
                    format!("operation {after} is not in the report before the failed operation {n}"),
                ),
                Fix::FreeLate => {
                    let late = late.map(|l| l.late.as_slice()).unwrap_or_default();
                    for t in late.iter().filter(|t| t.last_use_operation_id < n) {
                        if view.names_device(t.device_id) {
                            out.plan.free_after.push((t.last_use_operation_id, (device, t.buffer_type), t.address));
                            out.starts.push(Some(t.last_use_operation_id));
                        }
                    }
                }
                Fix::ToDram { tensor } => {
                    let Some(t) = facts.iter().find(|t| t.tensor_id == tensor && recorded(t)) else {
                        out.not_applied(fix, format!("tensor {tensor} is not in the report"));
                        continue;
                    };
                    let Some((place, address)) = tensor_place(t, view, m) else {
                        out.not_applied(fix, format!("the report records no address of tensor {tensor}"));
                        continue;
                    };
                    let produced = producer(&t.uses).map(|u| u.operation_id).filter(|&p| p < n);
                    out.plan.to_dram.push(DramMove { tensor_id: Some(tensor), operation_id: produced, place, address });
                    out.starts.push(produced.and_then(|p| self.operation_index(p)).and_then(|i| self.previous(i)));
                    if produced.is_none() {
                        out.starts.push(None);
                    }
                }
                Fix::OutputToDram => {
                    out.plan.output_to_dram = true;
                    if matches!(m.kind, FailureKind::CircularBuffersClash | FailureKind::CircularBuffersBeyondL1) {
                        out.plan.output_to_dram_operation = Some(n);
                    }
                }
                Fix::L1SmallSize { bytes } => {
                    out.plan.l1_small_size = Some(bytes);
                    out.starts.push(None);
                }
                Fix::Reserve { buffer_type, bytes } => {
                    out.plan.reserve.push((buffer_type, bytes));
                    out.starts.push(None);
                }
            }
        }
        Ok(out)
    }

    /// Why freeing tensor `t` cannot help the failed operation (by index) when `t` is one of its
    /// inputs: it is live until the operation reads it, whenever the free is said to happen
    /// (docs/rules/memory.md §9.3: refused, with the fix that can).
    fn input_refusal(
        &self,
        index: usize,
        t: &TensorFacts,
        (place, address): (Place, u64),
        m: &MemoryAtFailure,
    ) -> Option<String> {
        let op = &self.operations[index];
        let read_by_n = t.uses.iter().any(|u| !u.output && u.operation_id == op.id);
        let held_as_input =
            place.1 == m.buffer_type && m.live_buffers.iter().any(|b| b.input_of_operation && b.address == address);
        (read_by_n || held_as_input).then(|| {
            let id = t.tensor_id;
            format!(
                "tensor {id} is an input of the failed operation {} {}: it stays live until the operation reads it, so freeing it makes no room; keeping it in DRAM can (--to-dram {id})",
                op.id,
                op.name
            )
        })
    }

    /// Whether a buffer of the followed device is live at `address` after operation `k`, as its
    /// snapshot says; true when the snapshot holds no row of the device (nothing to tell by).
    fn buffer_live_after(&self, k: u64, address: u64, view: &DeviceView) -> rusqlite::Result<bool> {
        let (rows, _) = self.snapshots().rows(k, self.rank())?;
        let ours: Vec<_> = rows.iter().filter(|r| view.names_device(r.device_id)).collect();
        Ok(ours.is_empty() || ours.iter().any(|r| r.valid().is_some_and(|(a, _)| a == address)))
    }
}

impl Resolved {
    fn not_applied(&mut self, fix: &Fix, why: String) {
        self.notes.push(WhatIfNote::NotApplied { fix: fix.to_string(), why });
    }
}

/// Whether the report has the tensor at all: a `tensors` row's place or a link to an operation.
fn recorded(t: &TensorFacts) -> bool {
    t.address.is_some() || !t.device_addresses.is_empty() || !t.uses.is_empty() || t.shape.is_some()
}

/// Whether a tensor holds its buffer right after operation `k`: produced by then, and not
/// deallocated by then (`ttnn.deallocate`); the reason when it does not.
fn held_after(t: &TensorFacts, k: u64) -> Result<(), String> {
    let id = t.tensor_id;
    if let Some(p) = producer(&t.uses).map(|u| u.operation_id).filter(|&p| p > k) {
        return Err(format!("tensor {id} is made by operation {p}, after operation {k}"));
    }
    match deallocated_at(&t.uses).filter(|&d| d <= k) {
        Some(d) => Err(format!("tensor {id} is already deallocated by operation {d}")),
        None => Ok(()),
    }
}

/// Where a tensor's buffer lies: its recorded address (else its `device_tensors` address on the
/// followed device) and its buffer type (else the failure's).
fn tensor_place(t: &TensorFacts, view: &DeviceView, m: &MemoryAtFailure) -> Option<(Place, u64)> {
    let address =
        t.address.or_else(|| t.device_addresses.iter().find(|(d, _)| view.names_device(*d)).map(|(_, a)| *a))?;
    let buffer_type = t.buffer_type.unwrap_or(m.buffer_type);
    Some(((view.device_id, buffer_type), address))
}
