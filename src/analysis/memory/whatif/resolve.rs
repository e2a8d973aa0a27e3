//! The fixes resolved against the run's records (docs/rules/memory.md §9.1) — a tensor's address,
//! last use, producer and deallocation, a buffer live after an operation, the late list — into
//! the plan the replay acts on and where it starts; a fix that cannot act on the run is said
//! (`WhatIfNote::NotApplied`) and refused by the front ends. Pure: `report/` fills [`FixFacts`].

use super::answer::WhatIfNote;
use super::fix::Fix;
use super::plan::{DramMove, Plan};
use super::sequence::{DeviceView, Place};
use crate::analysis::memory::failure::holders::{deallocated_at, last_use, producer};
use crate::analysis::memory::failure::picture::MemoryAtFailure;
use crate::analysis::memory::inputs::TensorFacts;
use crate::analysis::memory::late::LateFindings;
use crate::analysis::messages::failure::{BufferType, FailureKind};
use crate::analysis::model::{Operation, operation_index};

/// What resolving a failure's fixes reads of the run, gathered by `report/`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct FixFacts<'a> {
    /// The run's operations, in id order.
    pub(crate) operations: &'a [Operation],
    /// The failed operation's index in them.
    pub(crate) index: usize,
    /// The records of the tensors the fixes name ([`tensors_named`]), placed as the failure's
    /// picture places them: by their producers' graphs where the tables are in doubt (§4).
    pub(crate) tensors: &'a [TensorFacts],
    /// For each buffer [`buffers_to_check`] names, (operation, address, whether a buffer of the
    /// followed device is live there after the operation, as its snapshot says).
    pub(crate) live_after: &'a [(u64, u64, bool)],
    /// The late list (`free-late`); none: nothing to free.
    pub(crate) late: Option<&'a LateFindings>,
    /// DRAM banks, to spread a buffer moved there.
    pub(crate) dram_banks: u64,
}

impl FixFacts<'_> {
    /// The failed operation's id.
    fn failed(&self) -> u64 {
        self.operations[self.index].id
    }

    /// The id of the operation before the one at `index` (none for the first).
    fn before(&self, index: usize) -> Option<u64> {
        index.checked_sub(1).map(|i| self.operations[i].id)
    }

    /// Whether operation `k` is in the report before the failed one.
    fn is_before_failure(&self, k: u64) -> bool {
        operation_index(self.operations, k).is_some_and(|i| i < self.index)
    }
}

/// The fixes resolved: the plan, the operations the replay may start after, and what could not
/// be resolved.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Resolved {
    /// What the replay acts on.
    pub(crate) plan: Plan,
    /// Operations the fixes touch first: the replay starts after the earliest (none: before the
    /// first operation).
    pub(crate) starts: Vec<Option<u64>>,
    /// What could not be resolved.
    pub(crate) notes: Vec<WhatIfNote>,
}

impl Resolved {
    /// The checkpoint: the earliest operation a fix touches (none: the first operation), else
    /// `previous`, the operation before the failed one.
    pub(crate) fn checkpoint(&self, previous: Option<u64>) -> Option<u64> {
        self.starts.iter().copied().min().unwrap_or(previous)
    }

    fn not_applied(&mut self, fix: &Fix, why: String) {
        self.notes.push(WhatIfNote::NotApplied { fix: fix.to_string(), why });
    }

    /// Frees `place` at `address` right after operation `k`, and starts the replay there.
    fn free(&mut self, k: u64, place: Place, address: u64) {
        self.plan.free_after.push((k, place, address));
        self.starts.push(Some(k));
    }
}

/// The tensors the fixes name, whose records resolving them needs.
pub(crate) fn tensors_named(fixes: &[Fix]) -> Vec<u64> {
    fixes
        .iter()
        .filter_map(|f| match f {
            Fix::Free { tensor, .. } | Fix::ToDram { tensor } => Some(*tensor),
            _ => None,
        })
        .collect()
}

/// The buffers (operation, address) whose liveness after the operation resolving the fixes
/// needs: those of `free-buffer` fixes after an operation before the failed one.
pub(crate) fn buffers_to_check(fixes: &[Fix], operations: &[Operation], index: usize) -> Vec<(u64, u64)> {
    fixes
        .iter()
        .filter_map(|f| match *f {
            Fix::FreeBuffer { address, after } => Some((after, address)),
            _ => None,
        })
        .filter(|&(k, _)| operation_index(operations, k).is_some_and(|i| i < index))
        .collect()
}

/// The fixes as the replay acts on them, and where the replay must start.
pub(crate) fn resolve(fixes: &[Fix], facts: &FixFacts<'_>, m: &MemoryAtFailure, view: &DeviceView) -> Resolved {
    let banks = view.facts.as_ref().map_or(64, |f| f.l1_num_banks.max(1));
    let mut out = Resolved {
        plan: Plan { dram_banks: facts.dram_banks, l1_banks: banks, ..Plan::default() },
        starts: vec![facts.before(facts.index)],
        notes: Vec::new(),
    };
    for fix in fixes {
        match *fix {
            Fix::Free { tensor, after } => free_tensor(&mut out, fix, (tensor, after), facts, m, view),
            Fix::FreeBuffer { address, after } => free_buffer(&mut out, fix, (address, after), facts, view),
            Fix::FreeLate => free_late(&mut out, facts, view),
            Fix::ToDram { tensor } => to_dram(&mut out, fix, tensor, facts, m, view),
            Fix::OutputToDram => {
                out.plan.output_to_dram = true;
                if matches!(m.kind, FailureKind::CircularBuffersClash | FailureKind::CircularBuffersBeyondL1) {
                    out.plan.output_to_dram_operation = Some(facts.failed());
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
    out
}

/// The tensor a fix names and where its buffer lies, or why the fix cannot act.
fn tensor_of<'a>(
    tensor: u64,
    facts: &FixFacts<'a>,
    m: &MemoryAtFailure,
    view: &DeviceView,
) -> Result<(&'a TensorFacts, Place, u64), String> {
    let Some(t) = facts.tensors.iter().find(|t| t.tensor_id == tensor && recorded(t)) else {
        return Err(format!("tensor {tensor} is not in the report"));
    };
    match tensor_place(t, view, m) {
        Some((place, address)) => Ok((t, place, address)),
        None => Err(format!("the report records no address of tensor {tensor}")),
    }
}

/// `free TENSOR[@K]`: the tensor's buffer freed right after K, else after its last use, else
/// after the operation that made it; refused for an input of the failed operation, a K not
/// before it, or a tensor not holding its buffer then.
fn free_tensor(
    out: &mut Resolved,
    fix: &Fix,
    (tensor, after): (u64, Option<u64>),
    facts: &FixFacts<'_>,
    m: &MemoryAtFailure,
    view: &DeviceView,
) {
    let n = facts.failed();
    let (t, place, address) = match tensor_of(tensor, facts, m, view) {
        Ok(found) => found,
        Err(why) => return out.not_applied(fix, why),
    };
    if let Some(why) = input_refusal(&facts.operations[facts.index], t, (place, address), m) {
        return out.not_applied(fix, why);
    }
    let k = after.or_else(|| last_use(&t.uses, n)).or_else(|| producer(&t.uses).map(|u| u.operation_id));
    match k.filter(|&k| k < n) {
        Some(k) if !facts.is_before_failure(k) => {
            out.not_applied(fix, format!("operation {k} is not in the report before the failed operation {n}"))
        }
        Some(k) => match held_after(t, k) {
            Err(why) => out.not_applied(fix, why),
            Ok(()) => out.free(k, place, address),
        },
        None => {
            let before = facts.before(facts.index).map_or_else(String::new, |p| format!(" (free {tensor}@{p})"));
            let why =
                format!("operation {n} is the failed one: free tensor {tensor} after an operation before it{before}");
            out.not_applied(fix, why)
        }
    }
}

/// `free-buffer ADDRESS@K`: whatever buffer of the followed device is live at the address after
/// K, freed then (in every buffer type).
fn free_buffer(out: &mut Resolved, fix: &Fix, (address, after): (u64, u64), facts: &FixFacts<'_>, view: &DeviceView) {
    if !facts.is_before_failure(after) {
        let n = facts.failed();
        return out.not_applied(fix, format!("operation {after} is not in the report before the failed operation {n}"));
    }
    let live = facts.live_after.iter().find(|&&(k, a, _)| k == after && a == address).is_none_or(|&(_, _, l)| l);
    if !live {
        return out.not_applied(fix, format!("no buffer is live at {address} after operation {after}"));
    }
    for t in [BufferType::L1, BufferType::L1Small, BufferType::Dram] {
        out.plan.free_after.push((after, (view.device_id, t), address));
    }
    out.starts.push(Some(after));
}

/// `free-late`: every tensor of the followed device held past its last use before the failed
/// operation, freed right after that use.
fn free_late(out: &mut Resolved, facts: &FixFacts<'_>, view: &DeviceView) {
    let n = facts.failed();
    let late = facts.late.map(|l| l.late.as_slice()).unwrap_or_default();
    for t in late.iter().filter(|t| t.last_use_operation_id < n && view.names_device(t.device_id)) {
        out.free(t.last_use_operation_id, (view.device_id, t.buffer_type), t.address);
    }
}

/// `to-dram TENSOR`: the tensor's buffer placed in DRAM by the operation that made it (before
/// the first operation when none before the failed one did).
fn to_dram(out: &mut Resolved, fix: &Fix, tensor: u64, facts: &FixFacts<'_>, m: &MemoryAtFailure, view: &DeviceView) {
    let (t, place, address) = match tensor_of(tensor, facts, m, view) {
        Ok(found) => found,
        Err(why) => return out.not_applied(fix, why),
    };
    let produced = producer(&t.uses).map(|u| u.operation_id).filter(|&p| p < facts.failed());
    out.plan.to_dram.push(DramMove { tensor_id: Some(tensor), operation_id: produced, place, address });
    out.starts.push(produced.and_then(|p| operation_index(facts.operations, p)).and_then(|i| facts.before(i)));
    if produced.is_none() {
        out.starts.push(None);
    }
}

/// Why freeing tensor `t` cannot help the failed operation `op` when `t` is one of its inputs:
/// it is live until the operation reads it, whenever the free is said to happen
/// (docs/rules/memory.md §9.3: refused, with the fix that can).
fn input_refusal(
    op: &Operation,
    t: &TensorFacts,
    (place, address): (Place, u64),
    m: &MemoryAtFailure,
) -> Option<String> {
    let read_by_n = t.uses.iter().any(|u| !u.output && u.operation_id == op.id);
    let held_as_input =
        place.1 == m.buffer_type && m.live_buffers.iter().any(|b| b.input_of_operation && b.address == address);
    (read_by_n || held_as_input).then(|| {
        let id = t.tensor_id;
        format!(
            "tensor {id} is an input of the failed operation {} {}: it stays live until the operation reads it, so freeing it makes no room; keeping it in DRAM can (--to-dram {id})",
            op.id, op.name
        )
    })
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
