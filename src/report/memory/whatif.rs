//! What if (memory.md §9): the report's side of `analysis::memory::whatif` — the fixes resolved
//! to the run's records (tensor addresses, last uses, producers, the late list), the checkpoint
//! (the snapshot after the earliest operation a fix touches), every operation from there to the
//! failure (graph and snapshot), and the failed request.

use super::memory_report::MemoryReport;
use super::rows::Earlier;
use super::view::FailureMemory;
use crate::analysis::graph::nodes::NodeType;
use crate::analysis::memory::holders::{deallocated_at, last_use, producer};
use crate::analysis::memory::late::LateFindings;
use crate::analysis::memory::one_chip;
use crate::analysis::memory::whatif::{
    Answer, CircularBufferUse, DeviceView, DramMove, Fix, OperationRecord, Place, Plan, Recorded, Regions,
    ReplayedAdvice, Request, WhatIfNote, WhatIfRun, advice, request_page,
};
use crate::analysis::memory::{Basis, MemoryAtFailure};
use crate::analysis::memory::{SnapshotRow, TensorFacts};
use crate::analysis::messages::failure::{BufferType, FailureKind};
use crate::report::error::ReportError;
use std::sync::atomic::AtomicBool;

/// How many earlier operations of the failed one's name are searched for circular buffers.
const CB_HINT_SEARCH: usize = 64;

/// A what-if answer and what saying it needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WhatIf {
    /// The answer.
    pub answer: Answer,
    /// The failed operation's name.
    pub operation_name: String,
    /// The operation the replay started after (its snapshot is the checkpoint); none when it
    /// replayed the run from its first operation.
    pub replayed_after: Option<u64>,
}

/// How to replay.
#[derive(Debug, Clone, Copy, Default)]
pub struct WhatIfOptions<'a> {
    /// The late list, which `free-late` needs (read when not given).
    pub late: Option<&'a LateFindings>,
    /// Replay from the first operation, not from the snapshot before the first fix: slower,
    /// and the self-check then covers every recorded allocation.
    pub from_start: bool,
}

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
    /// The memory at an operation's failure (by index), replaying every captured graph first
    /// when its basis needs them; none when it has no memory section.
    pub fn failure_memory(&self, index: usize) -> Result<Option<Box<MemoryAtFailure>>, ReportError> {
        match self.memory_at_failure(index, None)? {
            FailureMemory::Found(m) => Ok(Some(m)),
            FailureMemory::Absent => Ok(None),
            FailureMemory::NeedsReplay => {
                let replay = self.graphs().replay(&mut |_, _| {}, &AtomicBool::new(false))?;
                match self.memory_at_failure(index, replay.as_ref())? {
                    FailureMemory::Found(m) => Ok(Some(m)),
                    _ => Ok(None),
                }
            }
        }
    }

    /// Replays the run with `fixes` and says what tt-metal would do with the request of the
    /// failed operation (by index).
    pub fn what_if(&self, index: usize, fixes: &[Fix], options: &WhatIfOptions<'_>) -> Result<WhatIf, ReportError> {
        let memory = self.failure_memory(index)?;
        self.what_if_at(index, fixes, options, memory.as_deref())
    }

    /// [`Self::what_if`] with the memory at the failure already found.
    pub fn what_if_at(
        &self,
        index: usize,
        fixes: &[Fix],
        options: &WhatIfOptions<'_>,
        memory: Option<&MemoryAtFailure>,
    ) -> Result<WhatIf, ReportError> {
        let fixes = &distinct(fixes);
        let failure = self.error_of(index).and_then(|e| e.failure.clone());
        let (Some(_), Some(m)) = (failure, memory) else {
            return Ok(self.unknown(index, fixes, "the operation has no allocation failure with a memory picture"));
        };
        let read_now = match (fixes.contains(&Fix::FreeLate), options.late) {
            (true, None) => Some(self.late_tensor_list()?),
            _ => None,
        };
        let late = read_now.as_ref().or(options.late);
        let read = ReportError::read("the run's records");
        let view = self.device_view(m.device_id, index)?;
        let resolved = self.resolve(index, fixes, m, &view, late).map_err(&read)?;
        let snapshots = self.records_snapshots().map_err(&read)?;
        let start = self.replay_start(index, &resolved, snapshots && !options.from_start, &view)?;
        let (mut run, first) = self.begin(view, self.regions(m.device_id, m), resolved.plan, start)?;
        self.replay_operations(&mut run, first..index, snapshots)?;
        self.answer_at(run, index, fixes, m, resolved.notes, start)
    }

    /// Where a replay starts: after the earliest operation a fix touches, when the report keeps
    /// snapshots to start from (`from_checkpoint`); else from the first operation (none). An
    /// operation without `buffers` rows of the device is no checkpoint: the replay starts at the
    /// latest one before it with some (memory.md §3.1), or from the first operation.
    pub(super) fn replay_start(
        &self,
        index: usize,
        resolved: &Resolved,
        from_checkpoint: bool,
        view: &DeviceView,
    ) -> Result<Option<u64>, ReportError> {
        if !from_checkpoint {
            return Ok(None);
        }
        let Some(c) = resolved.starts.iter().copied().min().unwrap_or(self.previous(index)) else { return Ok(None) };
        let read = ReportError::read("the run's records");
        let rank = self.rank();
        let devices: Vec<u64> = std::iter::once(view.device_id).chain(view.aliases.iter().copied()).collect();
        let (rows, _) = self.snapshots().rows(c, rank).map_err(&read)?;
        if rows.iter().any(|r| devices.contains(&r.device_id)) {
            return Ok(Some(c));
        }
        let mut latest = None;
        for d in devices {
            if let Earlier::Found(e) = self.snapshots().earlier(c, d, rank).map_err(&read)? {
                latest = latest.max(Some(e));
            }
        }
        Ok(latest)
    }

    /// A replay of `view`'s device with `plan`, started from the snapshot after `start` (none:
    /// from nothing), and the index of the first operation it has still to be given.
    pub(super) fn begin(
        &self,
        view: DeviceView,
        regions: Regions,
        plan: Plan,
        start: Option<u64>,
    ) -> Result<(WhatIfRun, usize), ReportError> {
        let mut run = WhatIfRun::new(view.clone(), regions, plan);
        let Some(c) = start else { return Ok((run, 0)) };
        let (rows, _) = self.snapshots().rows(c, self.rank()).map_err(ReportError::read("the run's records"))?;
        run.start(self.recorded(&rows, &view), Some(c));
        Ok((run, self.operation_index(c).map_or(0, |i| i + 1)))
    }

    /// Gives `run` (which has every operation before the failed one, by index) the failed
    /// operation up to its failure and says what tt-metal would do with its request.
    pub(super) fn answer_at(
        &self,
        mut run: WhatIfRun,
        index: usize,
        fixes: &[Fix],
        m: &MemoryAtFailure,
        notes: Vec<WhatIfNote>,
        start: Option<u64>,
    ) -> Result<WhatIf, ReportError> {
        let op = &self.operations[index];
        let Some(failure) = self.error_of(index).and_then(|e| e.failure.clone()) else {
            return Ok(self.unknown(index, fixes, "the operation has no allocation failure with a memory picture"));
        };
        let device = m.device_id;
        let graph = self.graphs().graph(index).unwrap_or_default();
        let through = crate::analysis::memory::failure_point(&graph);
        let (own, _) = self.snapshots().rows(op.id, op.rank).map_err(ReportError::read("the run's records"))?;
        run.operation(&OperationRecord {
            operation_id: op.id,
            graph: &graph,
            through,
            // Only a snapshot taken after the unwinding says what N freed or found (§3.4).
            snapshot: (m.basis == Basis::AfterFailureSnapshot).then_some(own.as_slice()),
            failed: true,
        });
        let request = request_of(&failure, device, m);
        let inputs: Vec<(Place, u64)> = m
            .live_buffers
            .iter()
            .filter(|b| b.input_of_operation)
            .map(|b| ((device, m.buffer_type), b.address))
            .collect();
        let hint = self.cb_hint(index, run.regions().l1.map(|(a, _)| a));
        let mut answer = match request {
            Some(request) => run.answer(op.id, fixes.to_vec(), request, &inputs, hint),
            None => return Ok(self.unknown(index, fixes, "the message gives no request to place")),
        };
        answer.notes.splice(0..0, notes);
        // The holder memory.md §4 finds at the failure names a buffer live then; a graph's own
        // tensor node (an inner tensor of the operation that made it) only the others.
        let held = |recorded: u64| m.live_buffers.iter().find(|b| b.address == recorded).and_then(|b| b.tensor_id);
        for w in &mut answer.in_the_way {
            w.tensor_id = held(w.recorded_address).or(w.tensor_id);
        }
        if let Some(after) = &mut answer.after {
            for (b, &recorded) in after.live.iter_mut().zip(&after.recorded) {
                b.tensor_id = held(recorded).or(b.tensor_id);
            }
        }
        Ok(WhatIf { answer, operation_name: op.name.clone(), replayed_after: start })
    }

    /// An answer that cannot be given, with why.
    fn unknown(&self, index: usize, fixes: &[Fix], why: &str) -> WhatIf {
        let op = &self.operations[index];
        let answer = Answer {
            operation_id: op.id,
            fixes: fixes.to_vec(),
            circular_buffers: false,
            outcome: crate::analysis::memory::whatif::Outcome::Unknown,
            buffer_type: BufferType::L1,
            address: None,
            size_per_bank: None,
            largest_free_block: None,
            cb_room: None,
            cb_hint: None,
            cb_region: None,
            in_the_way: Vec::new(),
            replay_check: crate::analysis::memory::whatif::ReplayCheck::Exact,
            notes: vec![WhatIfNote::NotFound { fix: "the replay".into(), what: why.into() }],
            after: None,
        };
        WhatIf { answer, operation_name: op.name.clone(), replayed_after: None }
    }

    /// The id of the operation before the one at `index` (none for the first).
    fn previous(&self, index: usize) -> Option<u64> {
        index.checked_sub(1).map(|i| self.operations[i].id)
    }

    /// Whether a buffer of the followed device is live at `address` after operation `k`, as its
    /// snapshot says; true when the snapshot holds no row of the device (nothing to tell by).
    fn buffer_live_after(&self, k: u64, address: u64, view: &DeviceView) -> rusqlite::Result<bool> {
        let (rows, _) = self.snapshots().rows(k, self.rank())?;
        let ours: Vec<_> = rows.iter().filter(|r| view.names_device(r.device_id)).collect();
        Ok(ours.is_empty() || ours.iter().any(|r| r.valid().is_some_and(|(a, _)| a == address)))
    }

    /// Whether the report keeps `buffers` snapshots (any row at all).
    pub(super) fn records_snapshots(&self) -> rusqlite::Result<bool> {
        if !self.store.schema.has_table("buffers") {
            return Ok(false);
        }
        self.store.conn.query_row("SELECT EXISTS(SELECT 1 FROM buffers)", [], |r| r.get(0))
    }

    /// The device a replay follows and the other ids its records give it: a single chip opened
    /// as a mesh names itself by both 0 and 1 (memory.md §1–§2) — two alike `devices` rows (or
    /// one), and no snapshot around the failed operation (by index) holding both ids: where one
    /// does, 0 and 1 are two mesh devices with allocators of their own (submeshes sharing chips).
    pub(super) fn device_view(&self, device: u64, index: usize) -> Result<DeviceView, ReportError> {
        let facts = self.devices.iter().find(|d| d.device_id == device).or(self.devices.first()).map(|d| d.facts());
        let rows: Vec<_> = self.devices.iter().map(|d| d.facts()).collect();
        let single_chip = device <= 1 && one_chip(&rows) && !self.both_ids_hold_buffers(index)?;
        let aliases = if single_chip { vec![1 - device] } else { Vec::new() };
        let graph_id = self.graph_id_of(device, index)?;
        Ok(DeviceView { device_id: device, aliases, facts, graph_id })
    }

    /// The id the captured graphs name `device` by, when it is another: the failed operation's
    /// (by index) graph names its tensors on one device, and the `tensors` table puts those
    /// tensors on `device` (memory.md §2: submeshes whose parent holds nothing are 1 and 2 in the
    /// graphs, 0 and 1 in the tables). None when they agree or nothing says.
    fn graph_id_of(&self, device: u64, index: usize) -> Result<Option<u64>, ReportError> {
        let Ok(graph) = self.graphs().graph(index) else { return Ok(None) };
        let named: Vec<(u64, u64)> = graph
            .iter()
            .filter(|n| n.is(NodeType::Tensor))
            .filter_map(|n| Some((n.tensor_id?, n.device_id?)))
            .collect();
        if named.is_empty() {
            return Ok(None);
        }
        let ids: Vec<u64> = named.iter().map(|(t, _)| *t).collect();
        let facts = self.tensors().facts(index, &[], &ids).map_err(ReportError::read("the run's records"))?;
        let mut graph_ids: Vec<u64> = named
            .iter()
            .filter(|(t, _)| facts.iter().any(|f| f.tensor_id == *t && f.device_id == Some(device)))
            .map(|(_, g)| *g)
            .collect();
        graph_ids.sort_unstable();
        graph_ids.dedup();
        Ok(match graph_ids.as_slice() {
            [g] if *g != device => Some(*g),
            _ => None,
        })
    }

    /// Whether the snapshot of the operation (by index) or of the one before it holds buffers
    /// of both device 0 and device 1.
    fn both_ids_hold_buffers(&self, index: usize) -> Result<bool, ReportError> {
        let read = ReportError::read("the run's records");
        let rank = self.rank();
        for i in [index.checked_sub(1), Some(index)].into_iter().flatten() {
            let (rows, _) = self.snapshots().rows(self.operations[i].id, rank).map_err(&read)?;
            let holds = |d: u64| rows.iter().any(|r| r.device_id == d && r.valid().is_some());
            if holds(0) && holds(1) {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// The regions of the device's allocators: L1 and L1_SMALL from its `devices` row, DRAM from
    /// the failure's region, else from its base (the lowest DRAM address recorded, else the
    /// release's) and one bank of the size DRAM messages give (else a Wormhole's 1 GiB).
    pub(super) fn regions(&self, device: u64, m: &MemoryAtFailure) -> Regions {
        let facts = self.devices.iter().find(|d| d.device_id == device).or(self.devices.first()).map(|d| d.facts());
        let (l1, l1_small) = match facts.as_ref().and_then(|f| Some((f.l1_start?, f.l1_bank_size, f.worker_l1_size))) {
            Some((a, b, w)) => (Some((a, a + b)), Some((a + b, w.max(a + b)))),
            None => (None, None),
        };
        let dram = match (m.buffer_type, m.map.region.bounds()) {
            (BufferType::Dram, Some(bounds)) => Some(bounds),
            _ => self.dram_region(device, m.operation_id),
        };
        Regions { l1, l1_small, dram }
    }

    /// DRAM `[base, base + bank size)` for a failure that is not in DRAM.
    fn dram_region(&self, device: u64, n: u64) -> Option<(u64, u64)> {
        let rank = self.rank();
        let recorded = self.snapshots().lowest_dram_address(n, device, rank).ok().flatten();
        let default_base = match self.schema_version.as_deref() {
            None => 32,
            Some(v) if v.starts_with('2') => 32,
            Some(_) => 1_048_640,
        };
        let base = recorded.unwrap_or(default_base);
        let bank = self
            .errors
            .iter()
            .filter_map(|e| e.failure.as_ref())
            .filter(|f| f.figures.buffer_type == Some(BufferType::Dram))
            .filter_map(|f| f.figures.bank_size)
            .max();
        let blackhole = self.devices.iter().any(|d| d.l1_num_banks > 64);
        let end = match bank {
            Some(bank) => base + bank,
            None if blackhole => 1 << 32,
            None => 1 << 30,
        };
        Some((base, end.max(base)))
    }

    /// A snapshot's rows of the followed device as live buffers (no tensor: none is recorded).
    fn recorded(&self, rows: &[SnapshotRow], view: &DeviceView) -> Vec<Recorded> {
        rows.iter()
            .filter(|r| view.names_device(r.device_id))
            .filter_map(|r| {
                let (address, size_per_bank) = r.valid()?;
                let t =
                    r.buffer_type.filter(|t| matches!(t, BufferType::L1 | BufferType::L1Small | BufferType::Dram))?;
                Some(Recorded {
                    place: (view.device_id, t),
                    address,
                    size_per_bank,
                    size: None,
                    tensor_id: None,
                    operation_id: None,
                })
            })
            .collect()
    }

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
        let facts = if ids.is_empty() { Vec::new() } else { self.tensors().facts(index, &[], &ids)? };
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
            }
        }
        Ok(out)
    }

    /// DRAM banks: from a DRAM failure's message, else a Wormhole's 12 (a Blackhole's 8).
    fn dram_banks(&self) -> u64 {
        let from_message = self
            .errors
            .iter()
            .filter_map(|e| e.failure.as_ref())
            .find(|f| f.figures.buffer_type == Some(BufferType::Dram))
            .and_then(|f| f.figures.banks);
        from_message.unwrap_or(if self.devices.iter().any(|d| d.l1_num_banks > 64) { 8 } else { 12 })
    }

    /// The circular buffers of the most recent earlier operation with the failed one's name
    /// that ran and allocated any, as the end of their region minus the L1 allocator's start;
    /// else (matmul and softmax record their dataflow buffers in no graph) those of the most
    /// recent operation that ran and recorded any, said as a weaker hint.
    fn cb_hint(&self, index: usize, l1_start: Option<u64>) -> Option<CircularBufferUse> {
        let start = l1_start?;
        let name = &self.operations[index].name;
        let ran = |i: &usize| self.operations[*i].error.is_none();
        let same: Vec<usize> =
            (0..index).rev().filter(ran).filter(|&i| &self.operations[i].name == name).take(CB_HINT_SEARCH).collect();
        let any: Vec<usize> = (0..index).rev().filter(ran).take(CB_HINT_SEARCH).collect();
        for (candidates, same_name) in [(same, true), (any, false)] {
            for i in candidates {
                let Some(end) = self.graphs().graph(i).ok().as_deref().and_then(circular_buffer_end) else { continue };
                let op = &self.operations[i];
                return Some(CircularBufferUse {
                    operation_id: op.id,
                    operation_name: op.name.clone(),
                    used: end.saturating_sub(start),
                    same_name,
                });
            }
        }
        None
    }
}

/// Where the circular buffers a graph allocated after its last deallocation of them all end
/// (tensor-backed ones left out), when it allocated any.
fn circular_buffer_end(graph: &[crate::analysis::graph::nodes::GraphNode]) -> Option<u64> {
    let from = graph.iter().rposition(|n| n.is(NodeType::CircularBufferDeallocateAll)).map_or(0, |p| p + 1);
    graph[from..]
        .iter()
        .filter(|n| n.is(NodeType::CircularBufferAllocate) && !n.globally_allocated)
        .filter_map(|n| Some(n.address? + n.size.unwrap_or(0)))
        .max()
}

impl Resolved {
    fn not_applied(&mut self, fix: &Fix, why: String) {
        self.notes.push(WhatIfNote::NotApplied { fix: fix.to_string(), why });
    }
}

/// The fixes with each said once, in the order given (`--free 2@10 --free 2@10` is one fix).
fn distinct(fixes: &[Fix]) -> Vec<Fix> {
    let mut out: Vec<Fix> = Vec::with_capacity(fixes.len());
    for f in fixes {
        if !out.contains(f) {
            out.push(*f);
        }
    }
    out
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

/// The failed request as the replay places it.
fn request_of(
    failure: &crate::analysis::messages::failure::AllocationFailure,
    device: u64,
    m: &MemoryAtFailure,
) -> Option<Request> {
    let f = &failure.figures;
    match failure.kind {
        FailureKind::BankOutOfMemory | FailureKind::BankOutOfMemoryWithDependencies => {
            let per_bank = f.per_bank?;
            let size = f.requested.and_then(|r| Some((r, request_page(r, f.banks?, per_bank)?)));
            Some(Request::Allocation {
                place: (device, f.buffer_type.unwrap_or(m.buffer_type)),
                size_per_bank: per_bank,
                size,
            })
        }
        FailureKind::CircularBuffersClash => {
            Some(Request::CircularBuffers { region_end: f.region_end?, beyond_l1: false })
        }
        FailureKind::CircularBuffersBeyondL1 => {
            Some(Request::CircularBuffers { region_end: f.region_end?, beyond_l1: true })
        }
        FailureKind::CircularBufferExceedsItsBuffer => None,
    }
}

/// Replays that would start more than this many operations before the failure are left to
/// `ttnn-tui whatif` rather than run for every failure `explain` prints.
pub const FIX_REPLAY_WINDOW: usize = 5_000;

impl MemoryReport {
    /// Every advice line of a failure (memory.md §9.2), each replayed: the operation (by index)
    /// and its memory at the failure.
    pub fn failure_fixes(&self, index: usize, m: &MemoryAtFailure) -> Result<Vec<ReplayedAdvice>, ReportError> {
        let previous = self.previous(index);
        let mut out = Vec::new();
        for advice in advice(m, previous) {
            if advice.fixes.is_empty() {
                out.push(ReplayedAdvice { advice, answer: None, skipped: None, source: None });
                continue;
            }
            let after: Vec<u64> = advice
                .fixes
                .iter()
                .filter_map(|f| match f {
                    Fix::Free { after: Some(k), .. } | Fix::FreeBuffer { after: k, .. } => Some(*k),
                    _ => None,
                })
                .collect();
            let source = match after.as_slice() {
                [k, rest @ ..] if rest.iter().all(|r| r == k) => self.model_sources(std::iter::once(*k)).remove(k),
                _ => None,
            };
            let span = self.replay_span(index, &advice.fixes, m)?;
            if span > FIX_REPLAY_WINDOW {
                out.push(ReplayedAdvice { advice, answer: None, skipped: Some(span), source });
                continue;
            }
            let answer = self.what_if_at(index, &advice.fixes, &WhatIfOptions::default(), Some(m))?.answer;
            out.push(ReplayedAdvice { advice, answer: Some(answer), skipped: None, source });
        }
        Ok(out)
    }

    /// How many operations a replay of `fixes` would cover before the failed operation.
    fn replay_span(&self, index: usize, fixes: &[Fix], m: &MemoryAtFailure) -> Result<usize, ReportError> {
        let view = self.device_view(m.device_id, index)?;
        let resolved = self.resolve(index, fixes, m, &view, None).map_err(ReportError::read("the run's records"))?;
        let start = resolved.starts.iter().copied().min().unwrap_or(self.previous(index));
        Ok(match start.and_then(|c| self.operation_index(c)) {
            Some(c) => index - c - 1,
            None => index,
        })
    }
}
