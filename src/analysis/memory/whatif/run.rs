//! The replay under way: the sequence rebuilt, the run as recorded beside the run with the fixes
//! (`machine.rs`), and the answer for the failed request once every operation up to it is given.

use super::answer::{
    Answer, CircularBufferUse, FailsOn, InTheWay, Mismatch, Outcome, ReplayCheck, Request, WhatIfNote,
};
use super::fix::Fix;
use super::machine::{Fixed, Recording};
use super::plan::{Plan, Regions};
use super::sequence::{self, BufferId, GraphEvent, OperationRecord, Place, Recorded, Sequence, Step};
use crate::analysis::memory::snapshot_diff::{LiveSet, SnapshotChanges};
use crate::analysis::messages::failure::BufferType;

/// The failed operation as the answer needs it: its id and name, its input buffers (place,
/// recorded address), which cannot be freed before it runs, the circular buffers of an earlier
/// operation (`cb_hint`), and what it is known to allocate after the request that the report
/// does not show (its outcome is then unknown).
#[derive(Debug, Clone)]
pub struct FailedOperation<'a> {
    /// Its id.
    pub operation_id: u64,
    /// Its name.
    pub operation_name: &'a str,
    /// Its input buffers.
    pub inputs: &'a [(Place, u64)],
    /// The circular buffers of the most recent earlier operation of the same name (else of any).
    pub cb_hint: Option<CircularBufferUse>,
    /// What it allocates after the request that the report cannot show, as a note.
    pub more_after: Option<WhatIfNote>,
}

/// A replay under way: the sequence being rebuilt, the run as recorded with the policy's
/// predictions, and the run with the fixes.
#[derive(Debug, Clone)]
pub struct WhatIfReplay {
    pub(super) seq: Sequence,
    recording: Recording,
    pub(super) fixed: Fixed,
    regions: Regions,
    fixed_regions: Regions,
    /// The failed operation's own L1 allocation that the report does not record, at the address
    /// its circular-buffer message names.
    own_unrecorded: Option<u64>,
    /// Whether a long operation's steps may go to the two runs on two threads ([`Self::apart`]).
    apart: bool,
}

/// From this many steps in one operation (a captured graph of 300 000 allocations), the run as
/// recorded and the run with the fixes take them on two threads: each reads the sequence and
/// keeps its own allocators, so the order between the two runs is immaterial.
const STEPS_APART: usize = 1 << 16;

impl WhatIfReplay {
    /// A replay of `view`'s device over `regions`, with the fixes of `plan`.
    pub fn new(view: sequence::DeviceView, regions: Regions, plan: Plan) -> Self {
        let device = view.device_id;
        let fixed_regions = regions.with_l1_small(plan.l1_small_size);
        let changed = fixed_regions != regions || !plan.reserve.is_empty();
        Self {
            seq: Sequence::new(view),
            recording: Recording::new(device, &regions),
            fixed: Fixed::new(device, &fixed_regions, plan, changed),
            regions,
            fixed_regions,
            own_unrecorded: None,
            apart: false,
        }
    }

    /// Lets a long operation's steps go to the two runs on two threads (`threads`: how many the
    /// caller may use; one keeps every step on the caller's).
    pub fn apart(mut self, threads: usize) -> Self {
        self.apart = threads >= 2;
        self
    }

    /// The failed operation allocated an L1 buffer at `address` that the report does not record
    /// (a release that records nothing of the failed operation; its clash message names it): it
    /// is placed there before any fix is judged, and goes only with the output in DRAM.
    pub fn own_allocation_at(&mut self, address: u64) {
        self.own_unrecorded = Some(address);
    }

    /// The unrecorded own allocation, where it stays in the fixed run.
    fn own_in_fixed(&self) -> Option<u64> {
        self.own_unrecorded.filter(|_| !self.fixed.plan().output_to_dram)
    }

    /// The sequence so far (its live buffers name the fixes' targets).
    pub fn sequence(&self) -> &Sequence {
        &self.seq
    }

    /// The checkpoint: the buffers live when the replayed range begins; `after` is the operation
    /// they are live after (its `free` fixes apply at once).
    pub fn start(&mut self, live: Vec<Recorded>, after: Option<u64>) {
        let mut steps = self.seq.start(live);
        steps.extend(after.map(Step::End));
        self.apply(&steps);
    }

    /// Whether what an advice line says of this replay is settled before the failed operation
    /// (docs/rules/memory.md §9.2): the run with the fixes already failed earlier (the outcome and
    /// the sentence are that failure's) and the run as recorded already differed from the model
    /// (the self-check's first difference is known). What would follow changes only the count of
    /// differences and notes that no advice line says.
    pub fn advice_settled(&self) -> bool {
        self.fixed.dead.is_some() && self.recording.first_mismatch.is_some()
    }

    /// One operation's records, in run order; the failed operation last.
    pub fn operation(&mut self, record: &OperationRecord<'_>) {
        let steps = self.seq.operation_on(record, self.apart);
        self.apply(&steps);
    }

    /// One operation as a recorded run keeps it (`recorded.rs`): its graph's events and, when
    /// it has a snapshot, what the snapshot changes in the live buffers
    /// ([`Sequence::operation_from`]); the same steps as [`Self::operation`].
    pub(crate) fn recorded_operation(
        &mut self,
        operation_id: u64,
        events: &[GraphEvent],
        diff: Option<impl FnOnce(&mut LiveSet<BufferId>) -> SnapshotChanges<BufferId>>,
    ) {
        let steps = self.seq.operation_from(operation_id, events, diff, false);
        self.apply(&steps);
    }

    fn apply(&mut self, steps: &[Step]) {
        let Self { seq, recording, fixed, .. } = self;
        if self.apart && steps.len() >= STEPS_APART {
            std::thread::scope(|s| {
                s.spawn(|| steps.iter().for_each(|&step| fixed.apply(seq, step)));
                steps.iter().for_each(|&step| recording.apply(seq, step));
            });
            return;
        }
        for &step in steps {
            recording.apply(seq, step);
            fixed.apply(seq, step);
        }
    }

    /// What tt-metal would do with the request once every operation up to the failed one has
    /// been given. `inputs`: the failed operation's input buffers (place, recorded address),
    /// which cannot be freed before it runs; `cb_hint`: the circular buffers of the most
    /// recent earlier operation of the same name.
    pub fn answer(
        self,
        operation_id: u64,
        fixes: Vec<Fix>,
        request: Request,
        inputs: &[(Place, u64)],
        cb_hint: Option<CircularBufferUse>,
    ) -> Answer {
        let failed = FailedOperation { operation_id, operation_name: "", inputs, cb_hint, more_after: None };
        self.answer_for(failed, fixes, request)
    }

    /// [`Self::answer`] for the failed operation as [`FailedOperation`] describes it.
    pub fn answer_for(mut self, failed: FailedOperation<'_>, fixes: Vec<Fix>, request: Request) -> Answer {
        let FailedOperation { operation_id, operation_name, inputs, cb_hint, more_after } = failed;
        let device = self.seq.view.device_id;
        let mut notes = std::mem::take(&mut self.fixed.notes);
        if self.seq.unknown_frees > 0 {
            notes.push(WhatIfNote::UnknownFrees { count: self.seq.unknown_frees });
        }
        let refused_as_recorded = self.refused_as_recorded(request);
        let replay_check = match (self.recording.first_mismatch, refused_as_recorded) {
            (Some(first), _) => ReplayCheck::Differs { first, count: self.recording.mismatches },
            (None, Some(model)) => ReplayCheck::Differs {
                first: Mismatch {
                    operation_id: Some(operation_id),
                    buffer_type: model.0,
                    recorded: None,
                    model: model.1,
                },
                count: 1,
            },
            (None, None) => ReplayCheck::Exact,
        };
        let mut answer = Answer {
            circular_buffers: matches!(request, Request::CircularBuffers { .. }),
            cb_hint: cb_hint.as_ref().filter(|h| h.same_name).map(|h| h.used),
            replay_check,
            notes,
            ..Answer::unknown(operation_id, fixes)
        };
        if let Some(dead) = self.fixed.dead.take() {
            answer.outcome = Outcome::DoesNotFit;
            answer.notes.push(dead);
            return answer;
        }
        match request {
            Request::Allocation { place, size_per_bank, size } => {
                self.place_request(&mut answer, (place, size_per_bank, size), inputs, device);
            }
            Request::CircularBuffers { region_end, beyond_l1 } => {
                self.circular_buffers(&mut answer, region_end, beyond_l1, device);
            }
        }
        answer.after = self.after_fix(&answer, device);
        if cb_hint.is_none() {
            answer.guard_unrecorded_circular_buffers(operation_name);
        }
        if answer.outcome == Outcome::Fits
            && let (Some(room), Some(hint)) = (answer.cb_room, cb_hint)
            && hint.used > room
        {
            // The operation's circular buffers are checked after its outputs are placed
            // (docs/rules/memory.md §9): as the same operation used them earlier, they do not fit; as
            // another one did, whether its own fit is unknown.
            answer.outcome = if hint.same_name { Outcome::DoesNotFit } else { Outcome::Unknown };
            answer.fails_on = hint.same_name.then_some(FailsOn::CircularBuffers);
            answer.notes.push(WhatIfNote::CircularBuffersAfter {
                operation_id: hint.operation_id,
                operation_name: hint.operation_name,
                other_than: (!hint.same_name).then(|| operation_name.to_string()),
                used: hint.used,
                room,
            });
        }
        if answer.outcome == Outcome::Fits
            && let Some(more) = more_after
        {
            answer.outcome = Outcome::Unknown;
            answer.notes.push(more);
        }
        answer
    }

    /// None when the run as recorded refuses the request as tt-metal did; else where the model
    /// would have placed it (or, for circular buffers, the lowest L1 address it clears).
    fn refused_as_recorded(&self, request: Request) -> Option<(BufferType, Option<u64>)> {
        match request {
            Request::Allocation { place, size_per_bank, .. } => {
                let a = self.recording.allocators.get(&place)?;
                a.place(size_per_bank).map(|address| (place.1, Some(address)))
            }
            Request::CircularBuffers { region_end, beyond_l1 } => {
                let l1 = self.recording.allocators.get(&(self.seq.view.device_id, BufferType::L1))?;
                let lowest = l1.lowest_used().into_iter().chain(self.own_unrecorded).min();
                let clash = lowest.is_some_and(|lowest| lowest < region_end);
                (!beyond_l1 && !clash).then(|| (BufferType::L1, l1.lowest_used()))
            }
        }
    }

    /// Places an allocation request in the fixed run (in DRAM with `output-to-dram`).
    fn place_request(
        &mut self,
        answer: &mut Answer,
        (place, size_per_bank, size): (Place, u64, Option<(u64, u64)>),
        inputs: &[(Place, u64)],
        device: u64,
    ) {
        let plan = self.fixed.plan();
        let (place, need) = match (plan.output_to_dram, size) {
            (true, Some((bytes, page))) => ((device, BufferType::Dram), plan.dram_per_bank(bytes, page)),
            (true, None) => {
                answer.notes.push(WhatIfNote::NotFound {
                    fix: "output-to-dram".into(),
                    what: "the request's page size".into(),
                });
                return;
            }
            (false, _) => (place, size_per_bank),
        };
        answer.buffer_type = place.1;
        answer.size_per_bank = Some(need);
        if place.1 == BufferType::L1Small {
            answer.notes.push(WhatIfNote::SeveralL1Small);
        }
        let Some(a) = self.fixed.allocators.get_mut(&place) else {
            answer.notes.push(WhatIfNote::RegionUnknown { buffer_type: place.1 });
            return;
        };
        match a.allocate(need) {
            Some(address) => {
                answer.outcome = Outcome::Fits;
                answer.request_fits = Some(true);
                answer.address = Some(address);
                answer.cb_room = self.cb_room(device);
            }
            None => {
                answer.outcome = Outcome::DoesNotFit;
                answer.fails_on = Some(FailsOn::Request);
                answer.request_fits = Some(false);
                answer.largest_free_block = Some(a.largest_free());
                answer.in_the_way = self.in_the_way_of(place, need, inputs, answer.operation_id);
            }
        }
    }

    /// The room circular buffers have in the fixed run: from the L1 allocator's start to the
    /// lowest L1 buffer (to the end of L1 when none is live).
    fn cb_room(&self, device: u64) -> Option<u64> {
        let l1 = self.fixed.allocators.get(&(device, BufferType::L1))?;
        let (start, end) = l1.region();
        Some(l1.lowest_used().unwrap_or(end).saturating_sub(start))
    }

    /// Where the failed operation's first buffer still live lies in the fixed run (its output,
    /// in DRAM when `output-to-dram` moved it): what a circular-buffer answer gives as `address`.
    fn own_output(&self, device: u64, n: u64) -> Option<(BufferType, u64)> {
        [BufferType::L1, BufferType::Dram]
            .into_iter()
            .flat_map(|t| self.fixed.live_in((device, t)).into_iter().map(move |(id, a, _)| (id, t, a)))
            .filter(|&(id, _, _)| self.seq.buffers[id].operation_id == Some(n))
            .min_by_key(|&(id, _, _)| id)
            .map(|(_, t, a)| (t, a))
    }

    /// Circular buffers from the L1 allocator's start to `region_end` fit when they end within
    /// L1 and no live L1 buffer starts below their end.
    fn circular_buffers(&self, answer: &mut Answer, region_end: u64, beyond_l1: bool, device: u64) {
        answer.buffer_type = BufferType::L1;
        let place = (device, BufferType::L1);
        if !self.fixed.allocators.contains_key(&place) {
            answer.notes.push(WhatIfNote::RegionUnknown { buffer_type: BufferType::L1 });
            return;
        }
        let own = self.own_in_fixed();
        let lowest = self.fixed.allocators.get(&place).and_then(|a| a.lowest_used()).into_iter().chain(own).min();
        answer.cb_room = self.cb_room(device).map(|room| match (own, self.regions.l1) {
            (Some(a), Some((start, _))) => room.min(a.saturating_sub(start)),
            _ => room,
        });
        answer.cb_region = Some((region_end, lowest));
        answer.output = self.own_output(device, answer.operation_id);
        if beyond_l1 {
            answer.outcome = Outcome::DoesNotFit;
            answer.fails_on = Some(FailsOn::CircularBuffers);
            answer.notes.push(WhatIfNote::BeyondL1);
            return;
        }
        answer.in_the_way = self
            .fixed
            .live_in(place)
            .into_iter()
            .filter(|&(_, address, _)| address < region_end)
            .map(|(id, address, size)| self.in_the_way(id, address, size))
            .collect();
        if let Some(a) = own.filter(|&a| a < region_end) {
            let own = InTheWay {
                address: a,
                size_per_bank: 0,
                recorded_address: a,
                operation_id: Some(answer.operation_id),
                tensor_id: None,
            };
            let at = answer.in_the_way.partition_point(|b| b.address < a);
            answer.in_the_way.insert(at, own);
        }
        (answer.outcome, answer.fails_on) = if answer.in_the_way.is_empty() {
            (Outcome::Fits, None)
        } else {
            (Outcome::DoesNotFit, Some(FailsOn::CircularBuffers))
        };
    }

    /// The regions of the fixed run (they differ with a larger `l1_small_size`).
    pub fn fixed_regions(&self) -> Regions {
        self.fixed_regions
    }

    /// The regions as recorded.
    pub fn regions(&self) -> Regions {
        self.regions
    }
}
