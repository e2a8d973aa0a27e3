//! What if (docs/rules/memory.md §9): the report's side of `analysis::memory::whatif` — the fixes resolved
//! to the run's records (tensor addresses, last uses, producers, the late list), the checkpoint
//! (the snapshot after the earliest operation a fix touches), every operation from there to the
//! failure (graph and snapshot), and the failed request.

use super::memory_report::MemoryReport;
use super::rows::Earlier;
use super::view::FailureMemory;
use super::whatif_at::AtFailure;
use super::whatif_fixes::Resolved;
use crate::analysis::graph::nodes::{NodeType, parse_graph};
use crate::analysis::memory::MemoryAtFailure;
use crate::analysis::memory::SnapshotRow;
use crate::analysis::memory::late::LateFindings;
use crate::analysis::memory::whatif::{
    AdviceFor, Answer, CircularBufferUse, DeviceView, FailedOperation, Fix, OperationRecord, Plan, Recorded, Regions,
    ReplayedAdvice, Request, Sources, WhatIfNote, WhatIfReplay, advice, not_applied, rank, request_page,
};
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
        let mut answers = self.what_ifs_at(index, &[fixes], options, memory, None)?;
        Ok(answers.remove(0))
    }

    /// Several fix sets at one failure, each answered as [`Self::what_if_at`] answers it, in one
    /// replay: the operations from the earliest set's checkpoint to the failure are read once
    /// and given to every set's replay (`whatif_shared.rs`). Once `cancel` is set the replay
    /// (and the pass over `buffers` a `free-late` may need) stops: `Err(ReportError::Cancelled)`.
    pub fn what_ifs_at(
        &self,
        index: usize,
        sets: &[&[Fix]],
        options: &WhatIfOptions<'_>,
        memory: Option<&MemoryAtFailure>,
        cancel: Option<&AtomicBool>,
    ) -> Result<Vec<WhatIf>, ReportError> {
        let failure = self.error_of(index).and_then(|e| e.failure.clone());
        let (Some(_), Some(m)) = (failure, memory) else {
            let why = "the operation has no allocation failure with a memory picture";
            return Ok(sets.iter().map(|fixes| self.unknown(index, &distinct(fixes), why)).collect());
        };
        let answers = self.replay_fix_sets(index, sets, options, m, None, cancel)?;
        Ok(answers.into_iter().map(|a| a.expect("no window, no set left out")).collect())
    }

    /// A live tensor of the failure whose buffer lies at different addresses on the chips the
    /// followed device names: banks then do not move in lockstep (a per-chip or hybrid
    /// allocator, `TT_METAL_ALLOCATOR_MODE_HYBRID`), which the replay does not model. Only a
    /// mesh can show it; the live tensors' records are read (at most 256 of them).
    pub(super) fn addresses_differ(&self, m: &MemoryAtFailure, view: &DeviceView) -> rusqlite::Result<Option<String>> {
        if view.aliases.is_empty() {
            return Ok(None);
        }
        let ids: Vec<u64> = m.live_buffers.iter().filter_map(|b| b.tensor_id).take(256).collect();
        if ids.is_empty() {
            return Ok(None);
        }
        // Read by id: the rows at other addresses are the ones that tell (a read by the live
        // places, as `facts` does for holders, finds only the rows at the live addresses).
        let mut by_tensor: Vec<(u64, Vec<(u64, u64)>)> = self.tensors().device_tensors_of(&ids)?.into_iter().collect();
        by_tensor.sort_unstable();
        for (tensor, places) in by_tensor {
            let mut on: Vec<(u64, u64)> = places.into_iter().filter(|&(d, _)| view.names_device(d)).collect();
            on.sort_unstable();
            if let (Some(&(d0, a0)), Some(&(d1, a1))) = (on.first(), on.iter().find(|&&(_, a)| a != on[0].1)) {
                return Ok(Some(format!("tensor {tensor} lies at {a0} on device {d0} and at {a1} on device {d1}")));
            }
        }
        Ok(None)
    }

    /// Where a replay starts: after the earliest operation a fix touches, when the report keeps
    /// snapshots to start from (`from_checkpoint`); else from the first operation (none). An
    /// operation without `buffers` rows of the device is no checkpoint: the replay starts at the
    /// latest one before it with some (docs/rules/memory.md §3.1), or from the first operation.
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
    ) -> Result<(WhatIfReplay, usize), ReportError> {
        let mut run = WhatIfReplay::new(view.clone(), regions, plan);
        let Some(c) = start else { return Ok((run, 0)) };
        let (rows, _) = self.snapshots().rows(c, self.rank()).map_err(ReportError::read("the run's records"))?;
        run.start(self.recorded(&rows, &view), Some(c));
        Ok((run, self.operation_index(c).map_or(0, |i| i + 1)))
    }

    /// Gives `run` (which has every operation before the failed one, by index) the failed
    /// operation up to its failure and says what tt-metal would do with its request.
    pub(super) fn answer_at(
        &self,
        run: WhatIfReplay,
        index: usize,
        fixes: &[Fix],
        m: &MemoryAtFailure,
        notes: Vec<WhatIfNote>,
        start: Option<u64>,
    ) -> Result<WhatIf, ReportError> {
        let at = self.at_failure(index, m, run.regions().l1.map(|(a, _)| a));
        self.answer_with(run, &at, fixes, m, notes, start)
    }

    /// [`Self::answer_at`] with what every answer at the failure shares found once.
    pub(super) fn answer_with(
        &self,
        mut run: WhatIfReplay,
        at: &AtFailure<'_>,
        fixes: &[Fix],
        m: &MemoryAtFailure,
        notes: Vec<WhatIfNote>,
        start: Option<u64>,
    ) -> Result<WhatIf, ReportError> {
        let index = at.index;
        let op = &self.operations[index];
        if self.error_of(index).and_then(|e| e.failure.as_ref()).is_none() {
            return Ok(self.unknown(index, fixes, "the operation has no allocation failure with a memory picture"));
        }
        run.operation(&OperationRecord {
            operation_id: op.id,
            graph: &at.graph,
            through: at.through,
            // Only a snapshot taken after the unwinding says what N freed or found (§3.4).
            snapshot: at.own.as_deref(),
            failed: true,
        });
        // A clash "past an L1 buffer at A" where nothing recorded lies at A: the failed
        // operation's own allocation, which this release does not record (docs/rules/memory.md §9.3).
        if let Some(a) = at.own_unrecorded {
            run.own_allocation_at(a);
        }
        let failed = FailedOperation {
            operation_id: op.id,
            operation_name: &op.name,
            inputs: &at.inputs,
            cb_hint: at.hint.clone(),
            more_after: at.more_after.clone(),
        };
        let mut answer = match at.request {
            Some(request) => run.answer_for(failed, fixes.to_vec(), request),
            None => return Ok(self.unknown(index, fixes, "the message gives no request to place")),
        };
        answer.notes.splice(0..0, notes);
        // The holder docs/rules/memory.md §4 finds at the failure names a buffer live then; a graph's own
        // tensor node (an inner tensor of the operation that made it) only the others.
        // By address, the first live buffer at each (a map: 150 000 live buffers looked up for
        // 150 000 buffers after the fix were 2 × 10¹⁰ comparisons).
        let mut by_address: std::collections::HashMap<u64, Option<u64>> = std::collections::HashMap::new();
        for b in &m.live_buffers {
            by_address.entry(b.address).or_insert(b.tensor_id);
        }
        let held = |recorded: u64| by_address.get(&recorded).copied().flatten();
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
    pub(super) fn unknown(&self, index: usize, fixes: &[Fix], why: &str) -> WhatIf {
        let op = &self.operations[index];
        let answer = Answer {
            operation_id: op.id,
            fixes: fixes.to_vec(),
            circular_buffers: false,
            outcome: crate::analysis::memory::whatif::Outcome::Unknown,
            fails_on: None,
            request_fits: None,
            buffer_type: BufferType::L1,
            address: None,
            size_per_bank: None,
            largest_free_block: None,
            cb_room: None,
            cb_hint: None,
            cb_region: None,
            output: None,
            in_the_way: Vec::new(),
            replay_check: crate::analysis::memory::whatif::ReplayCheck::Exact,
            notes: vec![WhatIfNote::NotFound { fix: "the replay".into(), what: why.into() }],
            after: None,
        };
        WhatIf { answer, operation_name: op.name.clone(), replayed_after: None }
    }

    /// The id of the operation before the one at `index` (none for the first).
    pub(super) fn previous(&self, index: usize) -> Option<u64> {
        index.checked_sub(1).map(|i| self.operations[i].id)
    }

    /// Whether the report keeps `buffers` snapshots (any row at all).
    pub(super) fn records_snapshots(&self) -> rusqlite::Result<bool> {
        if !self.store.schema.has_table("buffers") {
            return Ok(false);
        }
        self.store.conn.query_row("SELECT EXISTS(SELECT 1 FROM buffers)", [], |r| r.get(0))
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
    pub(super) fn recorded(&self, rows: &[SnapshotRow], view: &DeviceView) -> Vec<Recorded> {
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

    /// DRAM banks: from a DRAM failure's message, else a Wormhole's 12 (a Blackhole's 8).
    pub(super) fn dram_banks(&self) -> u64 {
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
    pub(super) fn cb_hint(&self, index: usize, l1_start: Option<u64>) -> Option<CircularBufferUse> {
        let start = l1_start?;
        let name = &self.operations[index].name;
        let ran = |i: &usize| self.operations[*i].error.is_none();
        let same: Vec<usize> =
            (0..index).rev().filter(ran).filter(|&i| &self.operations[i].name == name).take(CB_HINT_SEARCH).collect();
        let any: Vec<usize> = (0..index).rev().filter(ran).take(CB_HINT_SEARCH).collect();
        let graphs = self.graphs();
        for (candidates, same_name) in [(same, true), (any, false)] {
            // The candidates' graphs in one read (each read of one graph may scan the whole
            // table), parsed one at a time until one allocated circular buffers.
            let texts = graphs.texts_of(&candidates).unwrap_or_default();
            for (i, text) in candidates.iter().zip(texts) {
                let graph = text.as_deref().map(parse_graph).and_then(Result::ok);
                let Some(end) = graph.as_deref().and_then(circular_buffer_end) else { continue };
                let op = &self.operations[*i];
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

/// The fixes with each said once, in the order given (`--free 2@10 --free 2@10` is one fix).
pub(super) fn distinct(fixes: &[Fix]) -> Vec<Fix> {
    let mut out: Vec<Fix> = Vec::with_capacity(fixes.len());
    for f in fixes {
        if !out.contains(f) {
            out.push(*f);
        }
    }
    out
}

/// A clash "past an L1 buffer at A" where nothing recorded lies at A: A is the failed
/// operation's own allocation, which the release does not record (docs/rules/memory.md §9.3).
pub(super) fn own_unrecorded(
    failure: &crate::analysis::messages::failure::AllocationFailure,
    m: &MemoryAtFailure,
) -> Option<u64> {
    let a = failure.figures.l1_buffer_address?;
    let clash = matches!(failure.kind, FailureKind::CircularBuffersClash);
    (clash && !m.live_buffers.iter().any(|b| b.address == a)).then_some(a)
}

/// What the failed operation is known to allocate after its request that no report shows:
/// conv2d allocates several L1_SMALL buffers (its halo and sharding configs) and a report of the
/// failure shows only the first that failed (docs/rules/memory.md §9).
pub(super) fn more_after_request(name: &str, request: Option<&Request>) -> Option<WhatIfNote> {
    let l1_small = matches!(request, Some(Request::Allocation { place: (_, BufferType::L1Small), .. }));
    (l1_small && name.contains("conv")).then(|| WhatIfNote::MoreAfterRequest { operation_name: name.to_string() })
}

/// The failed request as the replay places it.
pub(super) fn request_of(
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

/// The operation a fix frees after, when it is a free.
fn frees_after(f: &Fix) -> Option<u64> {
    match f {
        Fix::Free { after: Some(k), .. } | Fix::FreeBuffer { after: k, .. } => Some(*k),
        _ => None,
    }
}

/// Replays that would start more than this many operations before the failure are left to
/// `ttnn-tui whatif` rather than run for every failure `explain` prints.
pub const FIX_REPLAY_WINDOW: usize = 5_000;

impl MemoryReport {
    /// Every advice line of a failure (docs/rules/memory.md §9.2), each replayed and ranked: the operation
    /// (by index) and its memory at the failure. Every line is replayed in one pass (`what_ifs_at`).
    pub fn failure_fixes(&self, index: usize, m: &MemoryAtFailure) -> Result<Vec<ReplayedAdvice>, ReportError> {
        self.failure_fixes_with(index, m, None)
    }

    /// [`Self::failure_fixes`], stopped between operations once `cancel` is set.
    pub fn failure_fixes_with(
        &self,
        index: usize,
        m: &MemoryAtFailure,
        cancel: Option<&AtomicBool>,
    ) -> Result<Vec<ReplayedAdvice>, ReportError> {
        let failure = self.error_of(index).and_then(|e| e.failure.clone());
        let op = AdviceFor {
            operation_name: &self.operations[index].name,
            previous: self.previous(index),
            own_unrecorded: failure.as_ref().and_then(|f| own_unrecorded(f, m)),
        };
        let candidates = advice(m, op);
        let after: Vec<u64> = candidates.iter().flat_map(|a| a.fixes.iter()).filter_map(frees_after).collect();
        let mut known: Vec<(u64, String)> = self.model_sources(after.into_iter()).into_iter().collect();
        known.sort_unstable();
        let sets: Vec<&[Fix]> = candidates.iter().filter(|a| !a.fixes.is_empty()).map(|a| a.fixes.as_slice()).collect();
        let options = WhatIfOptions::default();
        let window = Some(FIX_REPLAY_WINDOW);
        let mut answers = match failure {
            Some(_) if !sets.is_empty() => self.replay_fix_sets(index, &sets, &options, m, window, cancel)?,
            _ => sets.iter().map(|f| Ok(self.unknown(index, &distinct(f), NO_PICTURE))).collect(),
        }
        .into_iter();
        let mut out = Vec::with_capacity(candidates.len());
        for advice in candidates {
            let sources = Sources(
                known
                    .iter()
                    .filter(|(k, _)| advice.fixes.iter().any(|f| frees_after(f) == Some(*k)))
                    .cloned()
                    .collect(),
            );
            if advice.fixes.is_empty() {
                out.push(ReplayedAdvice { advice, answer: None, skipped: None, sources });
                continue;
            }
            match answers.next().expect("one answer per advice line with fixes") {
                // A candidate the run refuses (a tensor not live then) is no advice.
                Ok(w) if not_applied(&w.answer.notes).is_some() => {}
                Ok(w) => out.push(ReplayedAdvice { advice, answer: Some(w.answer), skipped: None, sources }),
                Err(span) => out.push(ReplayedAdvice { advice, answer: None, skipped: Some(span), sources }),
            }
        }
        rank(&mut out);
        Ok(out)
    }
}

/// Why an answer cannot be given without a picture of the failure.
const NO_PICTURE: &str = "the operation has no allocation failure with a memory picture";
