//! The truth at a failure, as the simulation knows it: the live buffers of the failure's
//! (device, buffer type), who holds them, the allocator's figures, and the cheapest set of
//! buffers whose freeing lets the request fit.

use super::super::schema::BufferType;
use super::{Sim, Truth, TruthBuffer};

impl Sim {
    /// The truth at the failure of operation `id` on (device, buffer type).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn truth_at(
        &self,
        id: u64,
        device: u64,
        buffer_type: BufferType,
        need: Option<u64>,
        own: &[(BufferType, u64, u64, Option<u64>)],
        inputs: &[i64],
        region_end: Option<u64>,
    ) -> Truth {
        let dev = &self.devices[device as usize];
        let allocator = if buffer_type == BufferType::Dram { &dev.dram } else { &dev.l1 };
        let mut live: Vec<TruthBuffer> = allocator
            .held
            .iter()
            .map(|h| {
                let own = own.iter().find(|&&(bt, a, _, _)| bt == buffer_type && a == h.address);
                let is_own = own.is_some();
                let tensor = if is_own {
                    None
                } else {
                    self.tensors.iter().find(|t| {
                        t.live && t.device == device && t.buffer_type == buffer_type && t.address == h.address
                    })
                };
                let input = tensor.is_some_and(|t| inputs.contains(&(t.id as i64)));
                let last_use = tensor.and_then(|t| t.consumers.iter().copied().filter(|&c| c < id).max());
                TruthBuffer {
                    address: h.address,
                    size: h.size,
                    tensor: tensor.map(|t| t.id).or(own.and_then(|o| o.3)),
                    own: is_own,
                    input,
                    stale: tensor.is_some() && !input && last_use.is_some(),
                    producer: tensor.and_then(|t| t.producer),
                    last_use,
                }
            })
            .collect();
        live.sort_by_key(|b| b.address);
        let to_free = need.and_then(|need| cheapest_to_free(allocator, &live, need));
        let fits_if_late_freed = need.map(|need| {
            let mut after = allocator.clone();
            for b in live.iter().filter(|b| b.stale) {
                after.free(b.address);
            }
            after.place(need).is_some()
        });
        let clashing =
            region_end.map(|end| live.iter().map(|b| b.address).filter(|&a| a < end).collect()).unwrap_or_default();
        Truth {
            operation_id: id,
            device: self.table_device(device),
            buffer_type,
            live,
            region: (allocator.start, allocator.end),
            allocated: allocator.allocated(),
            largest_free: allocator.largest_free(),
            need,
            to_free,
            fits_if_late_freed,
            region_end,
            clashing,
        }
    }
}

/// By trying every set of up to three movable buffers: the set with the fewest bytes (then the
/// fewest buffers) whose freeing lets the allocator place `need`.
fn cheapest_to_free(allocator: &super::Allocator, live: &[TruthBuffer], need: u64) -> Option<Vec<u64>> {
    let movable: Vec<&TruthBuffer> = live.iter().filter(|b| !b.own && !b.input).collect();
    let mut sets: Vec<Vec<&TruthBuffer>> = vec![Vec::new()];
    for (i, a) in movable.iter().enumerate() {
        sets.push(vec![a]);
        for (j, b) in movable.iter().enumerate().skip(i + 1) {
            sets.push(vec![a, b]);
            for c in movable.iter().skip(j + 1) {
                sets.push(vec![a, b, c]);
            }
        }
    }
    sets.into_iter()
        .filter(|set| {
            let mut after = allocator.clone();
            for b in set {
                after.free(b.address);
            }
            after.place(need).is_some()
        })
        .min_by_key(|set| (set.iter().map(|b| b.size).sum::<u64>(), set.len()))
        .map(|set| set.iter().map(|b| b.address).collect())
}
