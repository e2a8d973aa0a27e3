//! The failed operation as a what-if answers at it (docs/rules/memory.md §9.1, §9.3): its request
//! as the replay places it, its inputs, what it allocates that no report shows, and the answer
//! once a replay has every operation before it — with the holders the failure's picture names.
//! Pure: `report/` fills [`AtFailure`] once per failure, however many fix sets are answered.

use super::answer::{Answer, CircularBufferUse, Request, WhatIfNote};
use super::fix::Fix;
use super::plan::request_page;
use super::run::{FailedOperation, WhatIfReplay};
use super::sequence::{OperationRecord, Place};
use crate::analysis::graph::nodes::GraphNode;
use crate::analysis::int_hash::IntMap;
use crate::analysis::memory::failure::picture::{LiveBuffer, MemoryAtFailure};
use crate::analysis::memory::inputs::SnapshotRow;
use crate::analysis::messages::failure::{AllocationFailure, BufferType, FailureKind};
use std::borrow::Cow;

/// Why an answer cannot be given without a picture of the failure.
pub(crate) const NO_PICTURE: &str = "the operation has no allocation failure with a memory picture";

/// Why an answer cannot be given for a message without a request.
const NO_REQUEST: &str = "the message gives no request to place";

/// What every answer at one failure shares: found once however many fixes are replayed.
pub(crate) struct AtFailure<'r> {
    /// The failed operation's index.
    pub(crate) index: usize,
    /// Its id.
    pub(crate) operation_id: u64,
    /// Its name.
    pub(crate) operation_name: &'r str,
    /// Whether its error is an allocation failure (else no answer can be given).
    pub(crate) failed: bool,
    /// Its captured graph (borrowed when read at open).
    pub(crate) graph: Cow<'r, [GraphNode]>,
    /// Its failure point in the graph.
    pub(crate) through: Option<usize>,
    /// Its own snapshot, when taken after the unwinding (docs/rules/memory.md §3.4).
    pub(crate) own: Option<std::sync::Arc<Vec<SnapshotRow>>>,
    /// The failed request as the replay places it (none: the message gives none).
    pub(crate) request: Option<Request>,
    /// Its input buffers, which cannot be freed before it runs ([`input_buffers`]).
    pub(crate) inputs: Vec<(Place, u64)>,
    /// The circular buffers of the most recent earlier operation of its name.
    pub(crate) hint: Option<CircularBufferUse>,
    /// The address of its own L1 allocation that a clash names and no record holds
    /// ([`own_unrecorded`]).
    pub(crate) own_unrecorded: Option<u64>,
    /// What it is known to allocate after its request that no report shows, as a note.
    pub(crate) more_after: Option<WhatIfNote>,
}

/// The failed request as the replay places it: an allocation of the message's size per bank (its
/// page from the request's figures), or circular buffers up to the region's end; none for a
/// message without one.
pub(crate) fn request_of(failure: &AllocationFailure, device: u64, m: &MemoryAtFailure) -> Option<Request> {
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

/// The failed operation's input buffers at the failure (place, recorded address).
pub(crate) fn input_buffers(m: &MemoryAtFailure) -> Vec<(Place, u64)> {
    m.live_buffers.iter().filter(|b| b.input_of_operation).map(|b| ((m.device_id, m.buffer_type), b.address)).collect()
}

/// A clash "past an L1 buffer at A" where nothing recorded lies at A: A is the failed
/// operation's own allocation, which the release does not record (docs/rules/memory.md §9.3).
pub(crate) fn own_unrecorded(failure: &AllocationFailure, m: &MemoryAtFailure) -> Option<u64> {
    let a = failure.figures.l1_buffer_address?;
    let clash = matches!(failure.kind, FailureKind::CircularBuffersClash);
    (clash && !m.live_buffers.iter().any(|b| b.address == a)).then_some(a)
}

/// What the failed operation is known to allocate after its request that no report shows:
/// conv2d allocates several L1_SMALL buffers (its halo and sharding configs) and a report of the
/// failure shows only the first that failed (docs/rules/memory.md §9).
pub(crate) fn more_after_request(name: &str, request: Option<&Request>) -> Option<WhatIfNote> {
    let l1_small = matches!(request, Some(Request::Allocation { place: (_, BufferType::L1Small), .. }));
    (l1_small && name.contains("conv")).then(|| WhatIfNote::MoreAfterRequest { operation_name: name.to_string() })
}

/// The fixes with each said once, in the order given (`--free 2@10 --free 2@10` is one fix).
pub(crate) fn distinct(fixes: &[Fix]) -> Vec<Fix> {
    let mut out: Vec<Fix> = Vec::with_capacity(fixes.len());
    for f in fixes {
        if !out.contains(f) {
            out.push(*f);
        }
    }
    out
}

/// Gives `run` (which has every operation before the failed one) the failed operation up to its
/// failure, and says what tt-metal would do with its request; the holders named as the
/// failure's picture names them (`live`, its live buffers). `Err(why)` when no answer can be
/// given.
pub(crate) fn answer_at_failure(
    mut run: WhatIfReplay,
    at: &AtFailure<'_>,
    fixes: &[Fix],
    live: &[LiveBuffer],
    notes: Vec<WhatIfNote>,
) -> Result<Answer, &'static str> {
    if !at.failed {
        return Err(NO_PICTURE);
    }
    run.operation(&OperationRecord {
        operation_id: at.operation_id,
        graph: &at.graph,
        through: at.through,
        // Only a snapshot taken after the unwinding says what N freed or found (§3.4).
        snapshot: at.own.as_deref().map(Vec::as_slice),
        failed: true,
    });
    // A clash "past an L1 buffer at A" where nothing recorded lies at A: the failed
    // operation's own allocation, which this release does not record (docs/rules/memory.md §9.3).
    if let Some(a) = at.own_unrecorded {
        run.own_allocation_at(a);
    }
    let failed = FailedOperation {
        operation_id: at.operation_id,
        operation_name: at.operation_name,
        inputs: &at.inputs,
        cb_hint: at.hint.clone(),
        more_after: at.more_after.clone(),
    };
    let Some(request) = at.request else { return Err(NO_REQUEST) };
    let mut answer = run.answer_for(failed, fixes.to_vec(), request);
    answer.notes.splice(0..0, notes);
    name_holders(&mut answer, live);
    Ok(answer)
}

/// The holder docs/rules/memory.md §4 finds at the failure names a buffer live then (`live`); a
/// graph's own tensor node (an inner tensor of the operation that made it) only the others.
fn name_holders(answer: &mut Answer, live: &[LiveBuffer]) {
    // By address, the first live buffer at each (a map: 150 000 live buffers looked up for
    // 150 000 buffers after the fix were 2 × 10¹⁰ comparisons).
    let mut by_address: IntMap<u64, Option<u64>> = IntMap::default();
    by_address.reserve(live.len());
    for b in live {
        by_address.entry(b.address).or_insert(b.tensor_id);
    }
    let held = |recorded: u64| by_address.get(&recorded).copied().flatten();
    for w in &mut answer.in_the_way {
        w.tensor_id = held(w.recorded_address).or(w.tensor_id);
    }
    if let Some(after) = &mut answer.after {
        for b in &mut after.live {
            b.tensor_id = held(b.recorded_address).or(b.tensor_id);
        }
    }
}

/// An answer that cannot be given at operation `operation_id`, with why.
pub(crate) fn unknown_answer(operation_id: u64, fixes: &[Fix], why: &str) -> Answer {
    let mut answer = Answer::unknown(operation_id, fixes.to_vec());
    answer.notes.push(WhatIfNote::NotFound { fix: "the replay".into(), what: why.into() });
    answer
}

#[cfg(test)]
mod tests {
    use super::super::answer::{AfterFix, BufferAfterFix, InTheWay};
    use super::super::plan::{Plan, Regions};
    use super::super::resolve_tests::memory;
    use super::super::sequence::DeviceView;
    use super::*;
    use crate::analysis::memory::failure::picture::MemoryMap;
    use crate::analysis::messages::failure::parse_allocation_failure;

    const CLASH: &str = "Statically allocated circular buffers in program 8 clash with L1 buffers on core range [0-0 - 7-7]. L1 buffer allocated at ADDRESS and static circular buffer region ends at 118112";

    fn clash(address: u64) -> AllocationFailure {
        parse_allocation_failure(&CLASH.replace("ADDRESS", &address.to_string())).expect("a clash")
    }

    #[test]
    fn the_request_as_the_replay_places_it() {
        let m = memory();
        let l1 = parse_allocation_failure(
            "Out of Memory: Not enough space to allocate 30000 B L1 buffer across 10 banks, where each bank needs to store 3000 B, but bank size is 9000 B",
        )
        .expect("a bank failure");
        let allocation = Request::Allocation { place: (0, BufferType::L1), size_per_bank: 3000, size: None };
        assert_eq!(request_of(&l1, 0, &m), Some(allocation));
        let circular = Request::CircularBuffers { region_end: 118_112, beyond_l1: false };
        assert_eq!(request_of(&clash(2000), 0, &m), Some(circular));
        assert_eq!(input_buffers(&m), vec![((0, BufferType::L1), 4500)]);
    }

    #[test]
    fn what_the_failed_operation_allocates_that_no_record_shows() {
        let m = memory();
        // 2000 is tensor 81's: recorded; nothing lies at 3000.
        assert_eq!((own_unrecorded(&clash(2000), &m), own_unrecorded(&clash(3000), &m)), (None, Some(3000)));
        let small = Request::Allocation { place: (0, BufferType::L1Small), size_per_bank: 64, size: None };
        let more = WhatIfNote::MoreAfterRequest { operation_name: "ttnn.conv2d".into() };
        assert_eq!(more_after_request("ttnn.conv2d", Some(&small)), Some(more));
        assert_eq!(more_after_request("ttnn.add", Some(&small)), None);
        let free = Fix::Free { tensor: 2, after: Some(10) };
        assert_eq!(distinct(&[free, Fix::FreeLate, free]), vec![free, Fix::FreeLate]);
    }

    #[test]
    fn no_answer_without_a_failure_and_holders_named_as_the_failure_names_them() {
        let run = WhatIfReplay::new(DeviceView::default(), Regions::default(), Plan::default());
        let at = AtFailure {
            index: 9,
            operation_id: 10,
            operation_name: "ttnn.matmul",
            failed: false,
            graph: Cow::Borrowed(&[]),
            through: None,
            own: None,
            request: None,
            inputs: Vec::new(),
            hint: None,
            own_unrecorded: None,
            more_after: None,
        };
        assert_eq!(answer_at_failure(run, &at, &[], &[], Vec::new()), Err(NO_PICTURE));
        let mut answer = unknown_answer(10, &[Fix::FreeLate], "why");
        let way = |recorded_address, tensor_id| InTheWay {
            address: 100,
            size_per_bank: 64,
            recorded_address,
            operation_id: None,
            tensor_id,
        };
        answer.in_the_way = vec![way(2000, None), way(4000, Some(5))];
        // After the fix, each buffer is named by where the run recorded it, not where it moved.
        let moved = |address, recorded_address, tensor_id| BufferAfterFix {
            address,
            size_per_bank: 64,
            tensor_id,
            recorded_address,
        };
        let live = vec![moved(2000, 4000, None), moved(100, 2000, None), moved(300, 4000, Some(5))];
        answer.after = Some(AfterFix { map: MemoryMap::default(), live, request: None, circular_buffers: None });
        name_holders(&mut answer, &memory().live_buffers);
        assert_eq!(answer.in_the_way, vec![way(2000, Some(81)), way(4000, Some(5))]);
        let named = answer.after.as_ref().map(|a| a.live.clone());
        assert_eq!(named, Some(vec![moved(2000, 4000, None), moved(100, 2000, Some(81)), moved(300, 4000, Some(5))]));
        assert_eq!(note_text_of(&answer), ["the replay: why is not in the report"]);
    }

    fn note_text_of(answer: &Answer) -> Vec<String> {
        answer.notes.iter().map(super::super::sentences::note_text).collect()
    }
}
