//! The fixed run's picture at the failure (docs/rules/memory.md §6, §9.3): what is in the way of
//! a request that does not fit, and the memory of its buffer type after the fix, for drawing.

use super::answer::{AfterFix, Answer, BufferAfterFix, InTheWay};
use super::run::WhatIfReplay;
use super::sequence::{BufferId, Place};
use crate::analysis::memory::failure::fit::fit;
use crate::analysis::memory::failure::map::build_map;
use crate::analysis::memory::failure::picture::{LiveBuffer, NoFit, Origin, Region, RegionSource};
use crate::analysis::messages::failure::BufferType;

impl WhatIfReplay {
    /// The cheapest set of buffers whose freeing would let the request fit (docs/rules/memory.md §6 on the
    /// fixed run's picture): inputs of the failed operation and its own buffers cannot go.
    pub(super) fn in_the_way_of(&self, place: Place, need: u64, inputs: &[(Place, u64)], failed: u64) -> Vec<InTheWay> {
        let Some(a) = self.fixed.allocators.get(&place) else { return Vec::new() };
        let live = self.fixed.live_in(place);
        let input_ids: Vec<BufferId> = inputs.iter().filter_map(|&(p, addr)| self.seq.live_at(p, addr)).collect();
        let buffers: Vec<LiveBuffer> = live
            .iter()
            .map(|&(id, address, size)| LiveBuffer {
                address,
                size_per_bank: size,
                input_of_operation: input_ids.contains(&id),
                origin: Some(if self.seq.buffers[id].operation_id == Some(failed) {
                    Origin::ThisOperation
                } else {
                    Origin::Earlier
                }),
                ..LiveBuffer::default()
            })
            .collect();
        match fit(&buffers, a.region(), need, place.1 != BufferType::Dram) {
            Ok(f) => f
                .free
                .iter()
                .filter_map(|addr| live.iter().find(|(_, a, _)| a == addr))
                .map(|&(id, address, size)| self.in_the_way(id, address, size))
                .collect(),
            Err(NoFit::Pinned | NoFit::LargerThanRegion { .. } | NoFit::NoRequest | NoFit::RegionUnknown)
            | Err(NoFit::CircularBuffers) => Vec::new(),
        }
    }

    pub(super) fn in_the_way(&self, id: BufferId, address: u64, size_per_bank: u64) -> InTheWay {
        let b = &self.seq.buffers[id];
        InTheWay {
            address,
            size_per_bank,
            recorded_address: b.address,
            operation_id: b.operation_id,
            tensor_id: b.tensor_id,
        }
    }

    /// The picture of the request's buffer type after the fix (the request placed when it fits).
    pub(super) fn after_fix(&self, answer: &Answer, device: u64) -> Option<AfterFix> {
        let place = (device, answer.buffer_type);
        let a = self.fixed.allocators.get(&place)?;
        let (start, end) = a.region();
        let live: Vec<BufferAfterFix> = self
            .fixed
            .live_in(place)
            .into_iter()
            .filter(|&(_, address, _)| answer.address != Some(address) || answer.circular_buffers)
            .map(|(id, address, size)| BufferAfterFix {
                address,
                size_per_bank: size,
                tensor_id: self.seq.buffers[id].tensor_id,
                recorded_address: self.seq.buffers[id].address,
            })
            .collect();
        let request = answer.address.zip(answer.size_per_bank).filter(|_| !answer.circular_buffers);
        let spans: Vec<(u64, u64)> = live.iter().map(|b| (b.address, b.size_per_bank)).chain(request).collect();
        let region = Region { start: Some(start), end: Some(end), source: Some(RegionSource::Devices) };
        let (map, _) = build_map(&spans, region);
        let circular_buffers = answer.cb_region.map(|(region_end, _)| (start, region_end));
        Some(AfterFix { map, live, request, circular_buffers })
    }
}
