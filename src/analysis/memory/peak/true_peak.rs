//! The true peak of every operation (docs/true-peak.md): the highest memory in use per bank
//! *inside* it — what was live before it, its own allocations and frees in graph order, and its
//! circular buffers on their core ranges at the moment they stand together — per core where the
//! cores differ, with what filled the busiest core at that moment.

use super::composition::Composition;
use super::core_grid::{CoreGrid, Standing, grid_of};
use super::events::{Event, RunEvents};
use super::parts::{Parts, of_part, part};
use crate::analysis::memory::whatif::Place;
use crate::analysis::messages::failure::BufferType;
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};

/// What a device's allocators manage, as the report says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DeviceLayout {
    /// The device.
    pub device_id: u64,
    /// L1 `[A, A+B)`: circular buffers grow up from A, tensors come down from A+B.
    pub l1: Option<(u64, u64)>,
    /// L1_SMALL `[A+B, W)`.
    pub l1_small: Option<(u64, u64)>,
    /// DRAM `[base, base + bank)`, when the bank size is known.
    pub dram: Option<(u64, u64)>,
    /// The worker grid (x cores, y cores), for circular buffers and shards on part of it.
    pub grid: Option<(u32, u32)>,
}

/// The true peak of one operation on one device and buffer type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct OperationPeak {
    /// The operation.
    pub operation_id: u64,
    /// The device.
    pub device_id: u64,
    /// The buffer type.
    pub buffer_type: BufferType,
    /// The highest bytes in use per bank inside it, on its busiest core.
    pub peak_per_bank: u64,
    /// Bytes in use per bank after it (buffers only: the after-operation figure).
    pub after_per_bank: u64,
    /// The busiest core `[x, y]`, when the cores differ.
    pub core: Option<(u32, u32)>,
    /// The bank's capacity, when known.
    pub bank_size: Option<u64>,
    /// What was in use at the peak.
    pub composition: Composition,
}

impl OperationPeak {
    /// The room left on the busiest core at the peak (none: the bank is not known).
    pub fn room(&self) -> Option<u64> {
        self.bank_size.map(|b| b.saturating_sub(self.peak_per_bank))
    }
}

/// The live buffers of one place, as a set with O(1) insert and remove.
#[derive(Debug, Default)]
struct LiveSet {
    ids: Vec<u32>,
}

/// The walk's state.
struct Walk<'a> {
    run: &'a RunEvents,
    layouts: &'a [DeviceLayout],
    /// Each buffer's tensor's last operation id as an input (none: no recorded use), looked
    /// up once per buffer rather than per operation it stays live through.
    last_use: Vec<Option<u64>>,
    live: BTreeMap<Place, LiveSet>,
    /// Live buffers per place that occupy only some cores (sharded): none, and a place's
    /// cores are all alike without looking at its buffers.
    sharded: BTreeMap<Place, usize>,
    /// Position of each buffer in its place's live set.
    slot: Vec<u32>,
    /// Bytes per bank live per place, every bank alike (interleaved and unknown-core buffers).
    uniform: BTreeMap<Place, u64>,
    /// Circular buffers standing per device: (end, core set).
    cbs: BTreeMap<u64, Vec<(u64, Option<u32>)>>,
    /// The current operation's peak per place.
    current: BTreeMap<Place, OperationPeak>,
    /// The current operation: its index and id.
    op: (u32, u64),
    /// L1's grid per core at the current operation's peak, per device, when asked for.
    grids: Option<BTreeMap<u64, CoreGrid>>,
    /// What each place's live buffers are to the current operation, kept as they change.
    parts: Parts,
}

/// The true peak of every operation, per device and buffer type the run uses, in run order.
/// `last_use`: each tensor's last operation id as an input (`ttnn.deallocate` left out).
pub fn true_peaks(run: &RunEvents, layouts: &[DeviceLayout], last_use: &HashMap<u64, u64>) -> Vec<OperationPeak> {
    walk(run, layouts, last_use, false).0
}

/// The true peaks, and what filled every L1 core at each operation's peak (devices whose grid is
/// known), in run order: the busiest core of each grid is its operation's true peak.
pub fn true_peaks_per_core(
    run: &RunEvents,
    layouts: &[DeviceLayout],
    last_use: &HashMap<u64, u64>,
) -> (Vec<OperationPeak>, Vec<CoreGrid>) {
    walk(run, layouts, last_use, true)
}

fn walk(
    run: &RunEvents,
    layouts: &[DeviceLayout],
    last_use: &HashMap<u64, u64>,
    per_core: bool,
) -> (Vec<OperationPeak>, Vec<CoreGrid>) {
    let mut walk = Walk {
        run,
        layouts,
        last_use: run.buffers.iter().map(|b| b.tensor_id.and_then(|t| last_use.get(&t).copied())).collect(),
        live: BTreeMap::new(),
        sharded: BTreeMap::new(),
        slot: vec![u32::MAX; run.buffers.len()],
        uniform: BTreeMap::new(),
        cbs: BTreeMap::new(),
        current: BTreeMap::new(),
        op: (0, 0),
        grids: per_core.then(BTreeMap::new),
        parts: Parts::new(),
    };
    let (mut out, mut grids) = (Vec::new(), Vec::new());
    for &event in &run.events {
        match event {
            Event::Start(op) => walk.start(op),
            Event::Alloc(id) => {
                walk.insert(id);
                walk.observe(run.buffers[id as usize].place);
            }
            Event::Free(id) => walk.remove(id),
            Event::Cb { device, end, cores } => {
                walk.cbs.entry(device).or_default().push((end, cores));
                walk.observe((device, BufferType::L1));
            }
            Event::CbClear(device) => {
                walk.cbs.remove(&device);
            }
            Event::End(_) => {
                out.extend(walk.end());
                grids.extend(walk.grids.as_mut().map(std::mem::take).unwrap_or_default().into_values());
            }
        }
    }
    (out, grids)
}

fn op_id(run: &RunEvents, op: u32) -> u64 {
    run.operations.get(op as usize).map_or(0, |o| o.id)
}

impl Walk<'_> {
    fn layout(&self, device: u64) -> Option<&DeviceLayout> {
        self.layouts.iter().find(|l| l.device_id == device)
    }

    fn bank(&self, (device, t): Place) -> Option<(u64, u64)> {
        let l = self.layout(device)?;
        match t {
            BufferType::L1 => l.l1,
            BufferType::L1Small => l.l1_small,
            BufferType::Dram => l.dram,
            _ => None,
        }
    }

    fn insert(&mut self, id: u32) {
        let b = &self.run.buffers[id as usize];
        let set = self.live.entry(b.place).or_default();
        self.slot[id as usize] = set.ids.len() as u32;
        set.ids.push(id);
        if b.cores.is_none() {
            *self.uniform.entry(b.place).or_default() += b.size_per_bank;
        } else {
            *self.sharded.entry(b.place).or_default() += 1;
        }
        self.parts.insert(id, b, self.last_use[id as usize], self.op);
    }

    fn remove(&mut self, id: u32) {
        let b = &self.run.buffers[id as usize];
        let at = std::mem::replace(&mut self.slot[id as usize], u32::MAX);
        let Some(set) = self.live.get_mut(&b.place).filter(|_| at != u32::MAX) else { return };
        self.parts.remove(b, self.last_use[id as usize], self.op);
        set.ids.swap_remove(at as usize);
        if let Some(&moved) = set.ids.get(at as usize) {
            self.slot[moved as usize] = at;
        }
        if b.cores.is_none() {
            let sum = self.uniform.entry(b.place).or_default();
            *sum = sum.saturating_sub(b.size_per_bank);
        } else if let Some(n) = self.sharded.get_mut(&b.place) {
            *n = n.saturating_sub(1);
        }
    }

    /// A place's live buffers when some of them are sharded (none: all occupy every bank).
    fn sharded_live(&self, place: Place) -> Option<&LiveSet> {
        self.live.get(&place).filter(|_| self.sharded.get(&place).is_some_and(|&n| n > 0))
    }

    /// An operation begins: every place in use starts its peak at what is live before it.
    fn start(&mut self, op: u32) {
        self.op = (op, op_id(self.run, op));
        let (run, last_use, slot) = (self.run, &self.last_use, &self.slot);
        let buffer = |id: u32| (&run.buffers[id as usize], last_use[id as usize], slot[id as usize] != u32::MAX);
        self.parts.start(self.op, &buffer);
        self.current.clear();
        let places: Vec<Place> = self.live.iter().filter(|(_, s)| !s.ids.is_empty()).map(|(p, _)| *p).collect();
        for place in places {
            self.observe(place);
        }
    }

    /// Looks at a place now, keeping the moment when it is the operation's highest.
    fn observe(&mut self, place: Place) {
        let operation_id = self.op.1;
        let (used, core) = self.busiest(place);
        let bank_size = self.bank(place).map(|(s, e)| e.saturating_sub(s));
        let entry = self.current.entry(place).or_insert(OperationPeak {
            operation_id,
            device_id: place.0,
            buffer_type: place.1,
            peak_per_bank: 0,
            after_per_bank: 0,
            core: None,
            bank_size,
            composition: Composition::default(),
        });
        if used > entry.peak_per_bank {
            entry.peak_per_bank = used;
            entry.core = core;
            let composition = self.composition(place, core);
            if let Some(e) = self.current.get_mut(&place) {
                e.composition = composition;
            }
            if place.1 == BufferType::L1 && self.grids.is_some() {
                self.keep_grid(place.0, core, composition);
            }
        }
    }

    /// Keeps what fills every L1 core of a device now, the operation's peak so far.
    fn keep_grid(&mut self, device: u64, core: Option<(u32, u32)>, composition: Composition) {
        let Some(size) = self.layout(device).and_then(|l| l.grid) else { return };
        let operation_id = self.op.1;
        let grid = match core {
            None => CoreGrid::uniform(operation_id, device, size, composition),
            Some(_) => {
                let place = (device, BufferType::L1);
                let mut everywhere = Composition::default();
                let mut sharded: Vec<(u32, Composition)> = Vec::new();
                for &id in self.live.get(&place).map_or(&[][..], |s| &s.ids) {
                    match self.run.buffers[id as usize].cores {
                        None => self.add(&mut everywhere, id),
                        Some(set) => {
                            let mut c = Composition::default();
                            self.add(&mut c, id);
                            sharded.push((set, c));
                        }
                    }
                }
                let base = self.bank(place).map_or(0, |(s, _)| s);
                let regions: Vec<(u64, Option<u32>)> = self
                    .cbs
                    .get(&device)
                    .map_or(&[][..], Vec::as_slice)
                    .iter()
                    .map(|&(end, set)| (end.saturating_sub(base), set))
                    .collect();
                let standing =
                    Standing { everywhere, sharded: &sharded, regions: &regions, core_sets: &self.run.core_sets };
                grid_of(operation_id, device, size, &standing)
            }
        };
        if let Some(grids) = &mut self.grids {
            grids.insert(device, grid);
        }
    }

    /// Counts a buffer live now in what it is to the current operation: its own, stale or live.
    fn add(&self, c: &mut Composition, id: u32) {
        let b = &self.run.buffers[id as usize];
        *of_part(c, part(b, self.last_use[id as usize], self.op)) += b.size_per_bank;
    }

    /// The used bytes per bank on the busiest core of a place, and that core when cores differ.
    fn busiest(&self, place: Place) -> (u64, Option<(u32, u32)>) {
        let uniform = self.uniform.get(&place).copied().unwrap_or(0);
        let sharded: Vec<(u64, u32)> = self.sharded_live(place).map_or(Vec::new(), |s| {
            s.ids
                .iter()
                .map(|&id| &self.run.buffers[id as usize])
                .filter_map(|b| Some((b.size_per_bank, b.cores?)))
                .collect()
        });
        let cbs: &[(u64, Option<u32>)] = match place.1 {
            BufferType::L1 => self.cbs.get(&place.0).map_or(&[], Vec::as_slice),
            _ => &[],
        };
        let base = self.bank(place).map_or(0, |(s, _)| s);
        let grid = self.layout(place.0).and_then(|l| l.grid);
        let covers = |set: Option<u32>| match (set, grid) {
            (Some(i), Some(g)) => self.run.core_sets[i as usize].covers(g),
            _ => true,
        };
        let everywhere = sharded.iter().all(|&(_, c)| covers(Some(c))) && cbs.iter().all(|&(_, c)| covers(c));
        let Some((gx, gy)) = grid.filter(|_| !everywhere) else {
            let cb = cbs.iter().map(|&(end, _)| end.saturating_sub(base)).max().unwrap_or(0);
            return (uniform + sharded.iter().map(|s| s.0).sum::<u64>() + cb, None);
        };
        let at = |core: (u32, u32)| {
            let on = |set: u32| self.run.core_sets[set as usize].contains(core);
            let shards: u64 = sharded.iter().filter(|&&(_, c)| on(c)).map(|s| s.0).sum();
            let cb = cbs.iter().filter(|&&(_, c)| c.is_none_or(on)).map(|&(e, _)| e.saturating_sub(base)).max();
            uniform + shards + cb.unwrap_or(0)
        };
        let cores = (0..gy).flat_map(|y| (0..gx).map(move |x| (x, y)));
        let (mut best, mut lowest) = ((0, (0, 0)), u64::MAX);
        for core in cores {
            let used = at(core);
            lowest = lowest.min(used);
            if used > best.0 {
                best = (used, core);
            }
        }
        (best.0, (lowest < best.0).then_some(best.1))
    }

    /// What fills a core of a place now, for the current operation.
    fn composition(&self, place: Place, core: Option<(u32, u32)>) -> Composition {
        let mut c = Composition::default();
        let on = |set: Option<u32>| match (set, core) {
            (Some(i), Some(core)) => self.run.core_sets[i as usize].contains(core),
            _ => true,
        };
        if place.1 == BufferType::L1 {
            let base = self.bank(place).map_or(0, |(s, _)| s);
            let cbs = self.cbs.get(&place.0).map_or(&[][..], Vec::as_slice);
            c.circular_buffers =
                cbs.iter().filter(|&&(_, set)| on(set)).map(|&(e, _)| e.saturating_sub(base)).max().unwrap_or(0);
        }
        if core.is_none() && self.parts.usable {
            // Every live buffer counts: their parts are kept.
            let parts = self.parts.of(place);
            return Composition { own: parts.own, live: parts.live, stale: parts.stale, ..c };
        }
        let Some(set) = self.live.get(&place) else { return c };
        for &id in set.ids.iter().filter(|&&id| on(self.run.buffers[id as usize].cores)) {
            self.add(&mut c, id);
        }
        c
    }

    /// The operation ends: its peaks, each with what is live after it.
    fn end(&mut self) -> Vec<OperationPeak> {
        let mut out: Vec<OperationPeak> = std::mem::take(&mut self.current).into_values().collect();
        for p in &mut out {
            let place = (p.device_id, p.buffer_type);
            let sharded: u64 = self.sharded_live(place).map_or(0, |s| {
                s.ids
                    .iter()
                    .map(|&id| &self.run.buffers[id as usize])
                    .filter(|b| b.cores.is_some())
                    .map(|b| b.size_per_bank)
                    .sum()
            });
            p.after_per_bank = self.uniform.get(&place).copied().unwrap_or(0) + sharded;
        }
        out
    }
}

/// The run's tightest operations on L1: ranked by the room left on their busiest core, least
/// first (ties: the earlier operation), at most `count`.
pub fn tightest(peaks: &[OperationPeak], count: usize) -> Vec<OperationPeak> {
    let mut l1: Vec<OperationPeak> =
        peaks.iter().filter(|p| p.buffer_type == BufferType::L1 && p.bank_size.is_some()).copied().collect();
    l1.sort_by_key(|p| (p.room(), p.operation_id, p.device_id));
    l1.truncate(count);
    l1
}

/// The highest true peak of each device and buffer type (ties: the earlier operation).
pub fn run_peaks(peaks: &[OperationPeak]) -> Vec<OperationPeak> {
    let mut best: BTreeMap<Place, OperationPeak> = BTreeMap::new();
    for p in peaks {
        let entry = best.entry((p.device_id, p.buffer_type)).or_insert(*p);
        if p.peak_per_bank > entry.peak_per_bank {
            *entry = *p;
        }
    }
    best.into_values().collect()
}
