//! What fills every core of L1 at an operation's true peak (docs/true-peak.md "Per core"): the
//! reference's per-core view, with the circular buffers it lacks. Built by the true-peak walk at
//! the moment the busiest core is highest, so the busiest core of the grid is the true peak.

use super::composition::Composition;
use super::cores::CoreSet;
use std::collections::HashMap;

/// L1 on every core of one device at one operation's true peak, bytes per bank.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CoreGrid {
    /// The operation.
    pub operation_id: u64,
    /// The device.
    pub device_id: u64,
    /// The worker grid: x cores across, y cores down.
    pub size: (u32, u32),
    /// The distinct fills, the first one's core first.
    pub fills: Vec<Composition>,
    /// Each core's fill (an index into `fills`), row by row (y, then x); empty: every core holds
    /// the first fill.
    at: Vec<u16>,
}

impl CoreGrid {
    /// Every core holding the same `fill`.
    pub fn uniform(operation_id: u64, device_id: u64, size: (u32, u32), fill: Composition) -> Self {
        Self { operation_id, device_id, size, fills: vec![fill], at: Vec::new() }
    }

    /// What core `(x, y)` holds (outside the grid: the first fill).
    pub fn fill(&self, (x, y): (u32, u32)) -> Composition {
        let k = (y as usize) * (self.size.0 as usize) + x as usize;
        self.fills[self.at.get(k).copied().unwrap_or(0) as usize]
    }

    /// Whether every core holds the same.
    pub fn alike(&self) -> bool {
        self.fills.len() == 1
    }

    /// The busiest core (the first, row by row, among equals) and what it holds.
    pub fn busiest(&self) -> ((u32, u32), Composition) {
        let mut best = ((0, 0), self.fill((0, 0)));
        for core in self.cores() {
            let fill = self.fill(core);
            if fill.total() > best.1.total() {
                best = (core, fill);
            }
        }
        best
    }

    /// How many cores hold each fill, in the order of `fills`.
    pub fn counts(&self) -> Vec<usize> {
        let mut counts = vec![0; self.fills.len()];
        if self.at.is_empty() {
            counts[0] = (self.size.0 * self.size.1) as usize;
        }
        for &k in &self.at {
            counts[k as usize] += 1;
        }
        counts
    }

    /// Every core, row by row.
    pub fn cores(&self) -> impl Iterator<Item = (u32, u32)> + use<> {
        let (gx, gy) = self.size;
        (0..gy).flat_map(move |y| (0..gx).map(move |x| (x, y)))
    }
}

/// What stands on a device's cores at one moment, for [`grid_of`].
pub(super) struct Standing<'a> {
    /// What every core holds alike (interleaved buffers).
    pub everywhere: Composition,
    /// Sharded buffers: their core set and what they add on each of its cores.
    pub sharded: &'a [(u32, Composition)],
    /// Circular-buffer regions from the L1 base: bytes and core set (none: every core).
    pub regions: &'a [(u64, Option<u32>)],
    /// The core sets named.
    pub core_sets: &'a [CoreSet],
}

/// The grid of what stands, `size` cores.
pub(super) fn grid_of(operation_id: u64, device_id: u64, size: (u32, u32), s: &Standing) -> CoreGrid {
    let mut grid = CoreGrid { operation_id, device_id, size, fills: Vec::new(), at: Vec::new() };
    let mut seen: HashMap<Composition, u16> = HashMap::new();
    for core in grid.cores() {
        let on = |set: u32| s.core_sets[set as usize].contains(core);
        let mut fill = s.everywhere;
        for (_, c) in s.sharded.iter().filter(|(set, _)| on(*set)) {
            fill.own += c.own;
            fill.live += c.live;
            fill.stale += c.stale;
        }
        fill.circular_buffers =
            s.regions.iter().filter(|(_, set)| set.is_none_or(on)).map(|&(r, _)| r).max().unwrap_or(0);
        let next = seen.len() as u16;
        let k = *seen.entry(fill).or_insert_with(|| {
            grid.fills.push(fill);
            next
        });
        grid.at.push(k);
    }
    if grid.fills.len() <= 1 {
        grid.at.clear();
    }
    if grid.fills.is_empty() {
        grid.fills.push(Composition::default());
    }
    grid
}
