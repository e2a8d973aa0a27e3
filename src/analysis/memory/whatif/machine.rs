//! The replay itself (docs/rules/memory.md §9.1): the steps of [`Sequence`] run twice side by side — once
//! as recorded, the policy predicting each placement from the true state (the self-check), and
//! once with the fixes, every allocation from the first step on re-placed by the policy.

use super::allocator::BankAllocator;
use super::answer::{Mismatch, WhatIfNote};
use super::plan::{Plan, Regions};
use super::sequence::{BufferId, Place, Recorded, Sequence, Step};
use crate::analysis::messages::failure::BufferType;
use std::collections::BTreeMap;

/// The allocators of the followed device, by buffer type, built from their regions.
fn allocators(device: u64, regions: &Regions) -> BTreeMap<Place, BankAllocator> {
    let mut out = BTreeMap::new();
    for (buffer_type, region, top_down, align) in [
        (BufferType::L1, regions.l1, true, 16),
        (BufferType::L1Small, regions.l1_small, true, 32),
        (BufferType::Dram, regions.dram, false, 32),
    ] {
        if let Some((start, end)) = region {
            out.insert((device, buffer_type), BankAllocator::new(start, end, top_down, align));
        }
    }
    out
}

/// The run as recorded: every buffer at its recorded address, and the policy's prediction for
/// each one placed by the policy checked against it.
#[derive(Debug, Clone)]
pub(crate) struct Recording {
    pub(crate) allocators: BTreeMap<Place, BankAllocator>,
    /// Allocations the policy predicted, and the first it got wrong.
    pub(crate) checked: usize,
    pub(crate) first_mismatch: Option<Mismatch>,
    /// Allocations placed by the policy that it got wrong.
    pub(crate) mismatches: usize,
}

impl Recording {
    pub(crate) fn new(device: u64, regions: &Regions) -> Self {
        Self { allocators: allocators(device, regions), checked: 0, first_mismatch: None, mismatches: 0 }
    }

    /// Applies one step: each allocation goes where the run put it, after the policy's guess
    /// has been compared with that place.
    pub(crate) fn apply(&mut self, seq: &Sequence, step: Step) {
        match step {
            Step::Alloc { id, pinned } => {
                let b = &seq.buffers[id];
                let Some(a) = self.allocators.get_mut(&b.place) else { return };
                if !pinned {
                    let predicted = a.place(b.size_per_bank);
                    self.checked += 1;
                    if predicted != Some(b.address) {
                        self.mismatches += 1;
                        self.first_mismatch.get_or_insert(Mismatch {
                            operation_id: b.operation_id,
                            buffer_type: b.place.1,
                            recorded: Some(b.address),
                            model: predicted,
                        });
                    }
                }
                if !a.allocate_at(b.address, b.size_per_bank) {
                    // The record overlaps what is live: the picture is off; the check says so.
                    self.mismatches += 1;
                    self.first_mismatch.get_or_insert(Mismatch {
                        operation_id: b.operation_id,
                        buffer_type: b.place.1,
                        recorded: Some(b.address),
                        model: None,
                    });
                }
            }
            Step::Free(id) => {
                let b = &seq.buffers[id];
                if let Some(a) = self.allocators.get_mut(&b.place) {
                    a.free(b.address);
                }
            }
            Step::End(_) => {}
        }
    }
}

/// Where each buffer is in the fixed run.
#[derive(Debug, Clone)]
pub(crate) struct Fixed {
    pub(crate) allocators: BTreeMap<Place, BankAllocator>,
    /// By buffer id: where it lies now (none: not live).
    pub(crate) at: Vec<Option<(Place, u64)>>,
    /// The fixes, resolved to recorded places.
    plan: Plan,
    /// The plan's frees by operation (stably sorted: each operation's in the plan's order), so
    /// an operation's end finds its own without a pass over all of them (a `free-late` frees
    /// thousands).
    free_after: std::sync::Arc<[(u64, Place, u64)]>,
    /// Which of the plan's DRAM moves have found their buffer.
    moved: Vec<bool>,
    /// The regions changed (a larger L1_SMALL): buffers live at the checkpoint are re-placed too.
    regions_changed: bool,
    /// The first allocation the fixed run could not place: it would fail there.
    pub(crate) dead: Option<WhatIfNote>,
    /// What was approximated on the way.
    pub(crate) notes: Vec<WhatIfNote>,
}

impl Fixed {
    pub(crate) fn new(device: u64, regions: &Regions, plan: Plan, regions_changed: bool) -> Self {
        let moved = vec![false; plan.to_dram.len()];
        let mut allocators = allocators(device, regions);
        for &(t, bytes) in &plan.reserve {
            if let Some(a) = allocators.get_mut(&(device, t)) {
                a.allocate(bytes);
            }
        }
        let mut free_after = plan.free_after.clone();
        free_after.sort_by_key(|f| f.0);
        let free_after = free_after.into();
        Self { allocators, at: Vec::new(), plan, free_after, moved, regions_changed, dead: None, notes: Vec::new() }
    }

    /// The plan it runs.
    pub(crate) fn plan(&self) -> &Plan {
        &self.plan
    }

    /// Applies one step with the fixes.
    pub(crate) fn apply(&mut self, seq: &Sequence, step: Step) {
        if self.dead.is_some() {
            return;
        }
        if self.at.len() < seq.buffers.len() {
            self.at.resize(seq.buffers.len(), None);
        }
        match step {
            Step::Alloc { id, pinned } => self.allocate(seq, id, pinned),
            Step::Free(id) => self.release(id),
            Step::End(operation_id) => {
                let from = self.free_after.partition_point(|f| f.0 < operation_id);
                let due = self.free_after.clone();
                for &(_, place, address) in due[from..].iter().take_while(|f| f.0 == operation_id) {
                    if let Some(id) = seq.live_at(place, address) {
                        self.release(id);
                    }
                }
            }
        }
    }

    fn release(&mut self, id: BufferId) {
        if let Some((place, address)) = self.at.get_mut(id).and_then(Option::take)
            && let Some(a) = self.allocators.get_mut(&place)
        {
            a.free(address);
        }
    }

    /// Places buffer `id`: in DRAM when a fix moves it there, at its recorded address when it
    /// was live before the replayed range (unless the regions moved), else by the policy.
    fn allocate(&mut self, seq: &Sequence, id: BufferId, pinned: bool) {
        let b = &seq.buffers[id];
        let (place, size) = match self.redirect(b, pinned) {
            Some(dram) => dram,
            None => (b.place, b.size_per_bank),
        };
        let Some(a) = self.allocators.get_mut(&place) else { return };
        if pinned && !self.regions_changed && place == b.place {
            // Live before the replayed range: where the run put it. A record outside the region
            // or over another is left out; the self-check says the picture is off.
            if a.allocate_at(b.address, size) {
                self.at[id] = Some((place, b.address));
            }
            return;
        }
        match a.allocate(size) {
            Some(address) => self.at[id] = Some((place, address)),
            None => {
                self.dead = Some(WhatIfNote::EarlierFailure {
                    operation_id: b.operation_id,
                    buffer_type: place.1,
                    size_per_bank: size,
                    largest_free_block: a.largest_free(),
                });
            }
        }
    }

    /// The DRAM place and per-bank size of a buffer a `to-dram` fix moves; none otherwise.
    fn redirect(&mut self, b: &Recorded, pinned: bool) -> Option<(Place, u64)> {
        if b.place.1 == BufferType::Dram {
            return None;
        }
        let index = self.plan.to_dram.iter().enumerate().position(|(i, t)| {
            !self.moved[i]
                && (t.tensor_id.is_some() && t.tensor_id == b.tensor_id
                    || t.place == b.place
                        && t.address == b.address
                        && (t.operation_id == b.operation_id || (pinned && t.operation_id.is_none())))
        });
        let moves_output = self.plan.output_to_dram_operation.is_some_and(|n| b.operation_id == Some(n))
            && b.place.1 == BufferType::L1;
        if index.is_none() && !moves_output {
            return None;
        }
        if let Some(i) = index {
            self.moved[i] = true;
        }
        let (size, exact) = self.plan.dram_size(b);
        if !exact {
            self.notes.push(WhatIfNote::DramSizeEstimated { tensor_id: b.tensor_id, size_per_bank: size });
        }
        Some(((b.place.0, BufferType::Dram), size))
    }

    /// The live buffers of a place: (buffer id, address, bytes taken), ascending by address.
    pub(crate) fn live_in(&self, place: Place) -> Vec<(BufferId, u64, u64)> {
        let Some(a) = self.allocators.get(&place) else { return Vec::new() };
        let mut out: Vec<(BufferId, u64, u64)> = self
            .at
            .iter()
            .enumerate()
            .filter_map(|(id, at)| {
                let (p, address) = (*at)?;
                (p == place).then(|| (id, address, a.size_at(address).unwrap_or(0)))
            })
            .collect();
        out.sort_unstable_by_key(|&(_, address, _)| address);
        out
    }
}
