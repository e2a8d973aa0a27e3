//! The run's allocation events, extracted once (docs/true-peak.md "Events"): operation by
//! operation, what its `buffers` snapshot shows was allocated outside its graph, its graph's
//! allocations, frees and circular buffers in node order, and what its snapshot shows was freed.
//! The true peak (`true_peak.rs`) and the headroom search (`headroom.rs`) both walk this list, so
//! the report is read once whatever is asked of it.

use super::cores::CoreSet;
use crate::analysis::graph::nodes::{GraphNode, NodeType};
use crate::analysis::memory::graph_index::GraphIndex;
use crate::analysis::memory::graph_walk::free_addresses;
use crate::analysis::memory::inputs::{GraphBuffer, SnapshotRow, default_banks};
use crate::analysis::memory::snapshot_diff::LiveSet;
use crate::analysis::memory::whatif::Place;
use crate::analysis::messages::failure::BufferType;

/// Where a buffer was allocated: before the first recorded operation, or in this one (index).
pub const BEFORE_RUN: u32 = u32::MAX;

/// One buffer the run allocated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Buffer {
    /// Device and buffer type (L1, L1_SMALL, DRAM).
    pub place: Place,
    /// Where tt-metal placed it (per bank).
    pub address: u64,
    /// Bytes per bank.
    pub size_per_bank: u64,
    /// The cores a sharded buffer occupies; none: every bank (interleaved, or not known).
    pub cores: Option<u32>,
    /// The tensor its graph connects it to.
    pub tensor_id: Option<u64>,
    /// The operation (index) that allocated it, [`BEFORE_RUN`] when live before the records.
    pub operation: u32,
    /// Placed at its recorded address by the report, not seen allocated (live before the run).
    pub before_run: bool,
}

/// One thing that happened, in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event {
    /// An operation (index) begins.
    Start(u32),
    /// A buffer (index) was allocated.
    Alloc(u32),
    /// A buffer (index) was freed.
    Free(u32),
    /// A circular buffer stands on a device from the L1 base up to `end`, on `cores` (a core-set
    /// index; none: every core).
    Cb {
        /// The device.
        device: u64,
        /// Its end address.
        end: u64,
        /// Its core range.
        cores: Option<u32>,
    },
    /// Every circular buffer of a device released (a program's end, or the next program's start).
    CbClear(u64),
    /// The operation (index) ends.
    End(u32),
}

/// One operation of the run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OperationMark {
    /// Its id.
    pub id: u64,
    /// Its graph recorded circular-buffer releases but no circular buffer: a program whose
    /// dataflow buffers no graph records (matmul, softmax in ttnn 0.81).
    pub unrecorded_dataflow: bool,
}

/// The run's events and what they name.
#[derive(Debug, Clone, Default)]
pub struct RunEvents {
    /// The operations, in run order.
    pub operations: Vec<OperationMark>,
    /// Every buffer, by index.
    pub buffers: Vec<Buffer>,
    /// Every core set named, by index.
    pub core_sets: Vec<CoreSet>,
    /// The events, in order.
    pub events: Vec<Event>,
    /// Graph frees of addresses that were not live.
    pub unknown_frees: usize,
    /// The live buffers by (place, address), with their sizes.
    live: LiveSet<u32>,
    /// Device ids as the records name them → the device they stand for.
    device_map: Option<u64>,
    /// L1 banks per device, for graph sizes without a per-bank figure.
    l1_banks: u64,
}

/// One operation's records.
#[derive(Debug, Clone, Copy)]
pub struct Records<'a> {
    /// Its id.
    pub operation_id: u64,
    /// Its captured graph (empty: none).
    pub graph: &'a [GraphNode],
    /// Its post-operation `buffers` rows, when it has any.
    pub snapshot: Option<&'a [SnapshotRow]>,
}

impl RunEvents {
    /// Nothing yet. `single_device`: the id every record stands for, on a report of one chip
    /// (whose graphs name it by its mesh id and its tables by its chip id); none keeps each id.
    pub fn new(single_device: Option<u64>, l1_banks: u64) -> Self {
        Self { device_map: single_device, l1_banks: l1_banks.max(1), ..Self::default() }
    }

    /// Names every record's device `device` (one chip whose records use two ids).
    pub fn relabel(&mut self, device: u64) {
        for b in &mut self.buffers {
            b.place.0 = device;
        }
        for e in &mut self.events {
            match e {
                Event::Cb { device: d, .. } | Event::CbClear(d) => *d = device,
                _ => {}
            }
        }
        self.live.rekey(|((_, t), a)| ((device, t), a));
    }

    fn device(&self, id: Option<u64>) -> u64 {
        self.device_map.unwrap_or(id.unwrap_or(0))
    }

    fn core_set(&mut self, text: Option<&str>) -> Option<u32> {
        let set = CoreSet::parse(text?)?;
        if let Some(i) = self.core_sets.iter().position(|s| *s == set) {
            return Some(i as u32);
        }
        self.core_sets.push(set);
        Some(self.core_sets.len() as u32 - 1)
    }

    fn add(&mut self, b: Buffer) -> u32 {
        let id = self.buffers.len() as u32;
        self.live.insert((b.place, b.address), id, b.size_per_bank);
        self.buffers.push(b);
        id
    }

    /// Adds one operation's events: buffers its snapshot shows allocated outside the graph,
    /// its graph in node order, then buffers its snapshot no longer shows.
    pub fn operation(&mut self, records: &Records<'_>) {
        let op = self.operations.len() as u32;
        let graph = records.graph;
        let has_cb = graph.iter().any(|n| n.is(NodeType::CircularBufferAllocate));
        let clears = graph.iter().any(|n| n.is(NodeType::CircularBufferDeallocateAll));
        self.operations.push(OperationMark { id: records.operation_id, unrecorded_dataflow: clears && !has_cb });
        self.events.push(Event::Start(op));
        // Buffers get ids in order: those live before the graph are the ones below this.
        let before = self.buffers.len() as u32;
        let graph_events = self.graph_events(op, graph);
        let Some(rows) = records.snapshot else {
            self.events.extend(graph_events);
            self.events.push(Event::End(op));
            return;
        };
        let shown = rows.iter().filter_map(|r| {
            let (address, size) = r.valid()?;
            let t = placed(r.buffer_type)?;
            Some((((self.device_map.unwrap_or(r.device_id), t), address), size))
        });
        let changes = self.live.changes(shown);
        let (mut pre, mut post) = (Vec::new(), Vec::new());
        for (key, id) in changes.gone {
            self.live.remove(&key);
            if id < before { pre.push(Event::Free(id)) } else { post.push(Event::Free(id)) }
        }
        let mut new = changes.new;
        new.sort_unstable_by_key(|((place, address), _)| {
            let top_down = place.1 != BufferType::Dram;
            (place.0, place.1 as u8, if top_down { u64::MAX - address } else { *address })
        });
        let first = self.operations.len() == 1;
        for ((place, address), size_per_bank) in new {
            let b = Buffer {
                place,
                address,
                size_per_bank,
                cores: None,
                tensor_id: None,
                operation: if first { BEFORE_RUN } else { op },
                before_run: first,
            };
            pre.push(Event::Alloc(self.add(b)));
        }
        self.events.extend(pre);
        self.events.extend(graph_events);
        self.events.extend(post);
        self.events.push(Event::End(op));
    }

    /// The graph's events in node order (live buffers updated on the way).
    fn graph_events(&mut self, op: u32, graph: &[GraphNode]) -> Vec<Event> {
        let frees = free_addresses(graph);
        let index = GraphIndex::new(graph);
        let mut out = Vec::new();
        for (i, node) in graph.iter().enumerate() {
            let device = self.device(node.device_id());
            match node.node_type() {
                Some(NodeType::CircularBufferAllocate) if !node.globally_allocated() => {
                    let (Some(address), Some(size)) = (node.address(), node.size()) else { continue };
                    let cores = self.core_set(node.core_range_set());
                    out.push(Event::Cb { device, end: address + size, cores });
                }
                Some(NodeType::CircularBufferDeallocateAll) => out.push(Event::CbClear(device)),
                Some(NodeType::BufferAllocate) => {
                    let Some(t) = placed(node.buffer_type()) else { continue };
                    let Some(address) = node.address().filter(|&a| a > 0) else { continue };
                    let banks = match t {
                        BufferType::Dram => default_banks(t, None, None),
                        _ => self.l1_banks,
                    };
                    let Some(size_per_bank) = GraphBuffer::key_of(node, address).per_bank(banks) else { continue };
                    let place = (device, t);
                    if let Some(old) = self.live.remove(&(place, address)) {
                        out.push(Event::Free(old)); // its free went unrecorded
                    }
                    let sharded = node.layout().is_some_and(|l| l.contains("SHARDED"));
                    let cores = if sharded { self.shard_cores(graph, address) } else { None };
                    let b = Buffer {
                        place,
                        address,
                        size_per_bank,
                        cores,
                        tensor_id: index.allocated_tensor(i),
                        operation: op,
                        before_run: false,
                    };
                    out.push(Event::Alloc(self.add(b)));
                }
                Some(NodeType::BufferDeallocate) => {
                    let Some(t) = placed(node.buffer_type()) else { continue };
                    let freed = frees[i].and_then(|address| self.live.remove(&((device, t), address)));
                    match freed {
                        Some(id) => out.push(Event::Free(id)),
                        None => self.unknown_frees += 1,
                    }
                }
                _ => {}
            }
        }
        out
    }

    /// The cores a sharded buffer at `address` occupies: the shard grid of a tensor node of the
    /// graph at that address (its memory config), when one says.
    fn shard_cores(&mut self, graph: &[GraphNode], address: u64) -> Option<u32> {
        let grid = graph
            .iter()
            .filter(|n| n.is(NodeType::Tensor) && n.address() == Some(address))
            .find_map(|n| n.memory_config().and_then(shard_grid))?;
        self.core_set(Some(&grid))
    }
}

/// The `grid=[…]` of a memory config's shard spec, as text a [`CoreSet`] reads.
fn shard_grid(memory_config: &str) -> Option<String> {
    let start = memory_config.find("grid=")? + "grid=".len();
    let rest = &memory_config[start..];
    let end = rest.find("],")? + 1;
    Some(rest[..end].to_string())
}

/// The buffer types the allocators place.
fn placed(t: Option<BufferType>) -> Option<BufferType> {
    t.filter(|t| matches!(t, BufferType::L1 | BufferType::L1Small | BufferType::Dram))
}
