//! What the live buffers of each place are to the current operation — its own, live and used
//! later, held past their last use (a [`Composition`] without the circular buffers) — kept as
//! buffers come and go and operations begin, so that the composition of a peak on every core
//! alike costs no pass over the live buffers (the true peak recomputed it at every rise).

use super::composition::Composition;
use super::events::Buffer;
use crate::analysis::memory::whatif::Place;
use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap};

/// What a live buffer is to the current operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Part {
    Own,
    Live,
    Stale,
}

/// The parts of every place's live buffers at the current operation.
#[derive(Debug, Default)]
pub(super) struct Parts {
    sums: BTreeMap<Place, Composition>,
    /// Buffers counted live that turn stale once an operation's id passes their last use:
    /// (last use, id), least first. Entries of buffers freed since stay until they come up.
    ageing: BinaryHeap<Reverse<(u64, u32)>>,
    /// The buffers the current operation allocated, counted again when the next one begins.
    own: Vec<u32>,
    /// The last operation id begun.
    last_id: Option<u64>,
    /// False once an operation's id was lower than the one before: the sums are then not kept
    /// (a buffer could turn live again) and the caller counts the buffers itself.
    pub(super) usable: bool,
}

/// The part of buffer `b` (its tensor last used by `last_use`) at operation `op` (index, id):
/// its own when the operation allocated it, stale when its tensor was last used before it.
pub(super) fn part(b: &Buffer, last_use: Option<u64>, op: (u32, u64)) -> Part {
    match (b.operation == op.0 && !b.before_run, last_use) {
        (true, _) => Part::Own,
        (false, Some(last)) if last < op.1 => Part::Stale,
        _ => Part::Live,
    }
}

/// A composition's bytes of a part.
pub(super) fn of_part(c: &mut Composition, part: Part) -> &mut u64 {
    match part {
        Part::Own => &mut c.own,
        Part::Live => &mut c.live,
        Part::Stale => &mut c.stale,
    }
}

impl Parts {
    /// Nothing live.
    pub(super) fn new() -> Self {
        Self { usable: true, ..Self::default() }
    }

    fn sum(&mut self, place: Place, part: Part) -> &mut u64 {
        of_part(self.sums.entry(place).or_default(), part)
    }

    fn count(&mut self, id: u32, b: &Buffer, last_use: Option<u64>, op: (u32, u64)) {
        let p = part(b, last_use, op);
        *self.sum(b.place, p) += b.size_per_bank;
        match (p, last_use) {
            (Part::Own, _) => self.own.push(id),
            (Part::Live, Some(last)) => self.ageing.push(Reverse((last, id))),
            _ => {}
        }
    }

    /// Buffer `id` became live during operation `op`.
    pub(super) fn insert(&mut self, id: u32, b: &Buffer, last_use: Option<u64>, op: (u32, u64)) {
        if self.usable {
            self.count(id, b, last_use, op);
        }
    }

    /// A live buffer was freed during operation `op`.
    pub(super) fn remove(&mut self, b: &Buffer, last_use: Option<u64>, op: (u32, u64)) {
        if self.usable {
            *self.sum(b.place, part(b, last_use, op)) -= b.size_per_bank;
        }
    }

    /// Operation `op` begins: the last one's own buffers and those whose last use it passes are
    /// counted again. `buffer` gives a buffer with its last use, and whether it is still live.
    pub(super) fn start<'b>(&mut self, op: (u32, u64), buffer: &dyn Fn(u32) -> (&'b Buffer, Option<u64>, bool)) {
        self.usable &= self.last_id.is_none_or(|last| op.1 >= last);
        self.last_id = Some(op.1);
        if !self.usable {
            return;
        }
        for id in std::mem::take(&mut self.own) {
            let (b, last_use, live) = buffer(id);
            if live {
                *self.sum(b.place, Part::Own) -= b.size_per_bank;
                self.count(id, b, last_use, op);
            }
        }
        while let Some(&Reverse((last, id))) = self.ageing.peek() {
            if last >= op.1 {
                break;
            }
            self.ageing.pop();
            let (b, _, live) = buffer(id);
            if live {
                *self.sum(b.place, Part::Live) -= b.size_per_bank;
                *self.sum(b.place, Part::Stale) += b.size_per_bank;
            }
        }
    }

    /// The parts of a place's live buffers now (no circular buffers).
    pub(super) fn of(&self, place: Place) -> Composition {
        self.sums.get(&place).copied().unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::memory::peak::BEFORE_RUN;
    use crate::analysis::messages::failure::BufferType;

    /// The parts counted buffer by buffer, as the walk counted them before.
    fn counted(live: &[(u32, Buffer, Option<u64>)], place: Place, op: (u32, u64)) -> Composition {
        let mut c = Composition::default();
        for (_, b, last_use) in live.iter().filter(|(_, b, _)| b.place == place) {
            *of_part(&mut c, part(b, *last_use, op)) += b.size_per_bank;
        }
        c
    }

    #[test]
    fn the_parts_kept_are_the_parts_counted_at_every_moment() {
        let places: [Place; 2] = [(0, BufferType::L1), (0, BufferType::Dram)];
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = |n: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % n
        };
        let mut parts = Parts::new();
        let mut all: Vec<(Buffer, Option<u64>)> = Vec::new();
        let mut live: Vec<(u32, Buffer, Option<u64>)> = Vec::new();
        for op in 0..300u32 {
            // Operation ids rise, sometimes by more than one.
            let at = (op, 10 + 3 * u64::from(op) + next(3));
            let buffers = &all;
            let live_ids: Vec<u32> = live.iter().map(|l| l.0).collect();
            parts.start(at, &|id| (&buffers[id as usize].0, buffers[id as usize].1, live_ids.contains(&id)));
            for _ in 0..next(6) {
                if next(3) == 0 && !live.is_empty() {
                    let (_, b, last_use) = live.swap_remove(next(live.len() as u64) as usize);
                    parts.remove(&b, last_use, at);
                } else {
                    let before_run = op == 0 && next(2) == 0;
                    let b = Buffer {
                        place: places[next(2) as usize],
                        address: 64 * next(1000),
                        size_per_bank: 32 * (1 + next(50)),
                        cores: None,
                        tensor_id: None,
                        operation: if before_run { BEFORE_RUN } else { op },
                        before_run,
                    };
                    let last_use = (next(4) != 0).then(|| at.1.saturating_sub(20) + next(60));
                    let id = all.len() as u32;
                    all.push((b.clone(), last_use));
                    parts.insert(id, &b, last_use, at);
                    live.push((id, b, last_use));
                }
                for place in places {
                    assert_eq!(parts.of(place), counted(&live, place, at), "operation {op}, {place:?}");
                }
            }
        }
        assert!(parts.usable);
    }

    #[test]
    fn operation_ids_that_go_down_give_the_sums_up() {
        let mut parts = Parts::new();
        let none = |_: u32| -> (&Buffer, Option<u64>, bool) { unreachable!("nothing was counted") };
        parts.start((0, 10), &none);
        parts.start((1, 5), &none);
        assert!(!parts.usable);
    }
}
