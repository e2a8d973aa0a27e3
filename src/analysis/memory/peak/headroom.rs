//! Headroom (docs/true-peak.md "Headroom"): the largest extra allocation per bank, made before
//! the first operation and kept to the end, with which every allocation the run recorded still
//! places and every circular-buffer region still fits — found by replaying the extracted events
//! in memory with that reservation (the fix `reserve TYPE=SIZE`), searched at the allocator's
//! alignment; and what fails first one step above it.

use super::events::{Event, RunEvents};
use crate::analysis::memory::whatif::{BankAllocator, Place};
use crate::analysis::messages::failure::{BufferType, FailureKind};
use crate::analysis::messages::reason::Reason;
use serde::Serialize;

/// What fails first in a replay.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct FirstFailure {
    /// The operation.
    pub operation_id: u64,
    /// Its kind, as `explain --json`'s `allocation_failure.kind`.
    pub kind: FailureKind,
    /// Why, as `explain --json`'s `reason`.
    pub reason: Option<Reason>,
}

/// How the replay without a reservation compares with the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ReplayCheck {
    /// Every allocation lands where the run put it.
    Exact,
    /// At least one does not: the figures are a model's.
    Differs,
}

/// One device and buffer type's headroom.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Headroom {
    /// The device.
    pub device_id: u64,
    /// The buffer type.
    pub buffer_type: BufferType,
    /// The largest extra allocation per bank that still lets the run place everything.
    pub per_bank: u64,
    /// The bank's size.
    pub bank_size: u64,
    /// The search's step: the allocator's alignment per bank.
    pub alignment: u64,
    /// The replay without a reservation against the run.
    pub replay_check: ReplayCheck,
    /// What fails first one step above the headroom (for a run that failed: its failure); none
    /// when even a reservation of the whole bank leaves nothing to fail.
    pub first_failure: Option<FirstFailure>,
    /// Operations whose programs' dataflow buffers no graph records (their regions are not in
    /// the replay: the headroom is then at most this).
    pub unrecorded_dataflow: Vec<u64>,
}

/// What the search is asked about one device and buffer type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HeadroomQuestion {
    /// The device and buffer type.
    pub place: Place,
    /// The allocator's region `[start, end)`.
    pub region: (u64, u64),
    /// The allocator's alignment per bank.
    pub alignment: u64,
    /// The run's own failure on this place, when it failed there.
    pub failed: Option<FirstFailure>,
}

/// The events of one place, in order, with the operation each falls in.
struct PlaceEvents {
    steps: Vec<(u64, Event)>,
}

impl PlaceEvents {
    fn new(run: &RunEvents, place: Place) -> Self {
        let mut op = 0;
        let mut steps = Vec::new();
        for &e in &run.events {
            match e {
                Event::Start(i) => op = run.operations.get(i as usize).map_or(0, |o| o.id),
                Event::Alloc(id) | Event::Free(id) if run.buffers[id as usize].place == place => steps.push((op, e)),
                Event::Cb { device, .. } | Event::CbClear(device) if place == (device, BufferType::L1) => {
                    steps.push((op, e))
                }
                _ => {}
            }
        }
        Self { steps }
    }
}

/// One replay's result: its first failure, and how many allocations landed elsewhere than
/// recorded.
struct Replayed {
    failure: Option<FirstFailure>,
    moved: usize,
}

/// Replays a place's events with `reserve` bytes per bank allocated first.
fn replay(run: &RunEvents, events: &PlaceEvents, q: &HeadroomQuestion, reserve: u64) -> Replayed {
    let top_down = q.place.1 != BufferType::Dram;
    let mut a = BankAllocator::new(q.region.0, q.region.1, top_down, q.alignment);
    let bank = q.region.1.saturating_sub(q.region.0);
    let mut used = 0u64;
    let mut at = vec![None; run.buffers.len()];
    let mut moved = 0;
    let mut region_end: Option<u64> = None;
    let fail =
        |operation_id, kind, reason| Replayed { failure: Some(FirstFailure { operation_id, kind, reason }), moved: 0 };
    if reserve > 0 {
        if a.allocate(reserve).is_none() {
            return fail(
                events.steps.first().map_or(0, |s| s.0),
                FailureKind::BankOutOfMemory,
                Some(Reason::LargerThanEmptyBank),
            );
        }
        used += a.aligned(reserve);
    }
    for &(op, event) in &events.steps {
        match event {
            Event::Alloc(id) => {
                let b = &run.buffers[id as usize];
                let size = a.aligned(b.size_per_bank);
                match a.allocate(b.size_per_bank) {
                    Some(address) => {
                        moved += usize::from(address != b.address);
                        at[id as usize] = Some(address);
                        used += size;
                    }
                    None => {
                        let reason = if size > bank {
                            Reason::LargerThanEmptyBank
                        } else if bank - used >= size {
                            Reason::Fragmented
                        } else {
                            Reason::NotEnoughFreeSpace
                        };
                        return Replayed { moved, ..fail(op, FailureKind::BankOutOfMemory, Some(reason)) };
                    }
                }
            }
            Event::Free(id) => {
                if let Some(address) = at[id as usize].take() {
                    used = used.saturating_sub(a.size_at(address).unwrap_or(0));
                    a.free(address);
                }
            }
            Event::Cb { end, .. } => {
                let end = region_end.map_or(end, |r| r.max(end));
                region_end = Some(end);
                if end > q.region.1 {
                    let f = fail(op, FailureKind::CircularBuffersBeyondL1, Some(Reason::BeyondEndOfL1));
                    return Replayed { moved, ..f };
                }
                if a.lowest_used().is_some_and(|lowest| lowest < end) {
                    let f = fail(op, FailureKind::CircularBuffersClash, Some(Reason::OverlapsL1Buffer));
                    return Replayed { moved, ..f };
                }
            }
            Event::CbClear(_) => region_end = None,
            Event::Start(_) | Event::End(_) => {}
        }
    }
    Replayed { failure: None, moved }
}

/// The headroom of one device and buffer type: the largest reservation (a multiple of the
/// alignment) with which the replay places everything, by bisection over whole steps.
pub fn headroom(run: &RunEvents, q: &HeadroomQuestion) -> Headroom {
    let events = PlaceEvents::new(run, q.place);
    let step = q.alignment.max(1);
    let bank = q.region.1.saturating_sub(q.region.0);
    let plain = replay(run, &events, q, 0);
    let replay_check =
        if plain.moved == 0 && plain.failure.is_none() { ReplayCheck::Exact } else { ReplayCheck::Differs };
    let unrecorded_dataflow = match q.place.1 {
        BufferType::L1 => run.operations.iter().filter(|o| o.unrecorded_dataflow).map(|o| o.id).collect(),
        _ => Vec::new(),
    };
    let answer = |per_bank, first_failure| Headroom {
        device_id: q.place.0,
        buffer_type: q.place.1,
        per_bank,
        bank_size: bank,
        alignment: step,
        replay_check,
        first_failure,
        unrecorded_dataflow: unrecorded_dataflow.clone(),
    };
    if let Some(failed) = q.failed {
        return answer(0, Some(failed));
    }
    if let Some(failure) = plain.failure {
        return answer(0, Some(failure));
    }
    let (mut lo, mut hi) = (0u64, bank / step + 1); // in steps: lo passes, hi fails (or is beyond the bank)
    if replay(run, &events, q, (hi - 1) * step).failure.is_none() {
        return answer((hi - 1) * step, None);
    }
    hi -= 1;
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if replay(run, &events, q, mid * step).failure.is_none() { lo = mid } else { hi = mid }
    }
    let above = replay(run, &events, q, hi * step).failure;
    answer(lo * step, above)
}
