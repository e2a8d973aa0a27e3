//! The run's allocations in order (docs/rules/memory.md §9.1), rebuilt from what the report recorded: the
//! live buffers at a checkpoint, then, operation by operation, its captured graph's allocations
//! and frees in node order and its post-operation snapshot, which shows what was allocated or
//! freed outside any graph. Each buffer gets an id once, at its allocation, so that a fix can
//! name it and a replay can move it; the recorded address is kept to check the replay against.

use crate::analysis::graph::nodes::{GraphNode, NodeType};
use crate::analysis::memory::graph_index::GraphIndex;
use crate::analysis::memory::graph_walk::free_addresses;
use crate::analysis::memory::inputs::{DeviceFacts, GraphBuffer, SnapshotRow, default_banks};
use crate::analysis::memory::place::{graph_buffer_type, l1_small_region};
use crate::analysis::memory::snapshot_diff::{LiveKey, LiveSet, SnapshotChanges};
use crate::analysis::messages::failure::BufferType;

/// Where a buffer lives: a device and a buffer type (L1, L1_SMALL or DRAM).
pub type Place = (u64, BufferType);

/// The index of a buffer in [`Sequence::buffers`].
pub type BufferId = usize;

/// A buffer the run allocated, as the report recorded it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recorded {
    /// Its device and buffer type.
    pub place: Place,
    /// Where tt-metal placed it (per bank).
    pub address: u64,
    /// Bytes per bank.
    pub size_per_bank: u64,
    /// Bytes across every bank and the page size, when a graph node gives them: what placing it
    /// in another buffer type needs.
    pub size: Option<(u64, u64)>,
    /// The tensor its graph connects it to, when it does.
    pub tensor_id: Option<u64>,
    /// The operation during which it was allocated; none for a buffer live at the checkpoint.
    pub operation_id: Option<u64>,
}

/// One thing that happened, in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// A buffer was allocated. `pinned`: it was live before the replayed range began (the
    /// checkpoint, or allocated before the first recorded operation) and keeps its address.
    Alloc {
        /// The buffer.
        id: BufferId,
        /// Placed at its recorded address, not by the policy.
        pinned: bool,
    },
    /// A buffer was freed.
    Free(BufferId),
    /// An operation ended (the failed one never does).
    End(u64),
}

/// One operation's records.
#[derive(Debug, Clone, Copy)]
pub struct OperationRecord<'a> {
    /// Its id.
    pub operation_id: u64,
    /// Its captured graph (buffer nodes are enough); empty when it has none.
    pub graph: &'a [GraphNode],
    /// For the failed operation: its failure point (docs/rules/memory.md §3.3), the last node replayed.
    pub through: Option<usize>,
    /// Its post-operation `buffers` rows (every device and type), when it has any; for the
    /// failed operation, the snapshot taken after the unwinding.
    pub snapshot: Option<&'a [SnapshotRow]>,
    /// True for the failed operation: what its graph allocated before the failure stays live.
    pub failed: bool,
}

/// The device a replay follows, and the other ids its records name it by (a single chip opened
/// as a mesh: graph nodes on the mesh id, tables on the chip's, docs/rules/memory.md §1–§2).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct DeviceView {
    /// The failure's device.
    pub device_id: u64,
    /// Other ids that name the same device.
    pub aliases: Vec<u64>,
    /// Its `devices` row (L1 banks, for graph sizes without a per-bank figure).
    pub facts: Option<DeviceFacts>,
    /// The id its captured graphs name it by, when they number devices otherwise than the
    /// tables (submeshes whose parent holds nothing: graphs 1 and 2, tables 0 and 1); then a
    /// graph node of any other id is another device's.
    pub graph_id: Option<u64>,
}

impl DeviceView {
    /// True when a table record's device id names this device.
    pub(crate) fn names_device(&self, device: u64) -> bool {
        device == self.device_id || self.aliases.contains(&device)
    }

    /// True when a record's device id names this device (a record without one does).
    fn names(&self, device: Option<u64>) -> bool {
        device.is_none_or(|d| self.names_device(d))
    }

    /// True when a graph node's device id names this device (a node without one does).
    fn names_in_graph(&self, device: Option<u64>) -> bool {
        match self.graph_id {
            Some(id) => device.is_none_or(|d| d == id),
            None => self.names(device),
        }
    }
}

/// The buffer types a replay places.
fn placed_type(t: Option<BufferType>) -> Option<BufferType> {
    t.filter(|t| matches!(t, BufferType::L1 | BufferType::L1Small | BufferType::Dram))
}

/// The sequence being rebuilt: every buffer seen so far, and which are live (by recorded
/// address) after the last step given out.
#[derive(Debug, Clone, Default)]
pub struct Sequence {
    /// The device followed.
    pub view: DeviceView,
    /// Every buffer, by id.
    pub buffers: Vec<Recorded>,
    /// The live buffers by (place, recorded address), with their sizes.
    live: LiveSet<BufferId>,
    /// Graph frees of addresses that were not live.
    pub unknown_frees: usize,
    /// Whether a checkpoint or an operation showing any buffer has been given: until then,
    /// buffers that appear were live before the records begin, and keep their addresses.
    started: bool,
}

impl Sequence {
    /// Nothing live yet.
    pub fn new(view: DeviceView) -> Self {
        Self { view, ..Self::default() }
    }

    /// The checkpoint: the buffers live when the replayed range begins, each pinned at its
    /// recorded address.
    pub fn start(&mut self, live: Vec<Recorded>) -> Vec<Step> {
        self.started = true;
        live.into_iter().map(|b| Step::Alloc { id: self.add(b), pinned: true }).collect()
    }

    /// The id of the buffer live at `address` in `place` now.
    pub fn live_at(&self, place: Place, address: u64) -> Option<BufferId> {
        self.live.get(&(place, address))
    }

    /// Every live buffer's id, in no particular order.
    pub fn live_ids(&self) -> impl Iterator<Item = BufferId> + '_ {
        self.live.ids()
    }

    fn add(&mut self, b: Recorded) -> BufferId {
        let id = self.buffers.len();
        self.live.insert((b.place, b.address), id, b.size_per_bank);
        self.buffers.push(b);
        id
    }

    /// The steps of one operation: buffers freed and allocated outside any graph (what its
    /// snapshot shows that the graph does not), its graph's allocations and frees in order, the
    /// buffers its graph allocated that its snapshot no longer holds, and its end. The graph's
    /// events are taken as they are found, never gathered (a graph of 300 000 allocations).
    pub fn operation(&mut self, record: &OperationRecord<'_>) -> Vec<Step> {
        self.operation_on(record, false)
    }

    /// [`Self::operation`]; with `apart`, a long graph's events are found on another thread
    /// while this one takes them ([`DeviceView::events_beside`]), in the same order.
    pub(crate) fn operation_on(&mut self, record: &OperationRecord<'_>, apart: bool) -> Vec<Step> {
        let (first, before, view) = (!self.started, self.buffers.len(), self.view.clone());
        let allocations = view.graph_allocations(record);
        self.buffers.reserve(allocations);
        let mut steps = Vec::new();
        let take = |event| self.graph_step(record.operation_id, event, &mut steps);
        match apart && allocations >= EVENTS_APART {
            true => view.events_beside(record, take),
            false => view.each_graph_event(record, take),
        }
        let diff = record.snapshot.map(|rows| move |live: &mut LiveSet<BufferId>| live.changes(view.shown(rows)));
        self.after_graph(record.operation_id, (first, before), steps, diff, record.failed)
    }

    /// [`Self::operation`] from what a recorded run keeps of it: its graph's events and, when it
    /// has a snapshot, what the snapshot changes in the live buffers once the graph's steps are
    /// taken (`diff`: [`LiveSet::changes`] by its rows of the followed device,
    /// [`DeviceView::shown`], or the same found another way).
    pub(crate) fn operation_from(
        &mut self,
        operation_id: u64,
        events: &[GraphEvent],
        diff: Option<impl FnOnce(&mut LiveSet<BufferId>) -> SnapshotChanges<BufferId>>,
        failed: bool,
    ) -> Vec<Step> {
        let (first, before) = (!self.started, self.buffers.len());
        let mut steps = Vec::new();
        for event in events {
            self.graph_step(operation_id, event.clone(), &mut steps);
        }
        self.after_graph(operation_id, (first, before), steps, diff, failed)
    }

    /// The operation's steps once its graph's are taken (`steps`): `first`, whether no operation
    /// before showed any buffer; `before`, the number of buffers before the graph's.
    fn after_graph(
        &mut self,
        operation_id: u64,
        (first, before): (bool, usize),
        mut steps: Vec<Step>,
        diff: Option<impl FnOnce(&mut LiveSet<BufferId>) -> SnapshotChanges<BufferId>>,
        failed: bool,
    ) -> Vec<Step> {
        // Until the first operation that shows any buffer, what appears was there before.
        self.started |= !steps.is_empty();
        let Some(diff) = diff else {
            if !failed {
                steps.push(Step::End(operation_id));
            }
            return steps;
        };
        let changes = diff(&mut self.live);
        // Whether the snapshot shows any buffer of the followed device.
        self.started |= changes.shown > 0;
        // The graph's allocations, which the buffers the snapshot shows anew are placed after
        // when they meet (none asked when it shows none).
        let allocated_here: Vec<(Place, u64, u64)> = match changes.new.is_empty() {
            true => Vec::new(),
            false => steps
                .iter()
                .filter_map(|s| match s {
                    Step::Alloc { id, .. } => Some(&self.buffers[*id]),
                    _ => None,
                })
                .map(|b| (b.place, b.address, b.address + b.size_per_bank))
                .collect(),
        };
        let mut pre: Vec<Step> = Vec::new();
        let mut post: Vec<Step> = Vec::new();
        // Live now but not shown: freed outside the graph (before it, when it was live before;
        // after it, when the graph allocated it and recorded no free).
        let mut gone_here = Vec::new();
        for (key, id) in changes.gone {
            let here = id >= before;
            if here && failed {
                gone_here.push(key);
                continue; // allocated before the failure: live at it, whatever the unwinding freed
            }
            self.live.remove(&key);
            if here { post.push(Step::Free(id)) } else { pre.push(Step::Free(id)) }
        }
        // Shown but not live: allocated outside the graph — after it when its range meets one the
        // graph allocated (it can only have come after), else before it.
        // A key whose buffer stays live (the failed operation's) is not new.
        let mut new = changes.new;
        new.retain(|(key, _)| !gone_here.contains(key));
        new.sort_unstable_by_key(|((place, address), _)| {
            let top_down = place.1 != BufferType::Dram;
            (place.0, place.1 as u8, if top_down { u64::MAX - address } else { *address })
        });
        for ((place, address), size_per_bank) in new {
            let end = address + size_per_bank;
            let after = allocated_here.iter().any(|&(p, s, e)| p == place && s < end && address < e);
            let b = Recorded {
                place,
                address,
                size_per_bank,
                size: None,
                tensor_id: None,
                operation_id: Some(operation_id),
            };
            let step = Step::Alloc { id: self.add(b), pinned: first };
            if after { post.push(step) } else { pre.push(step) }
        }
        // In place: the graph's steps can be hundreds of thousands.
        steps.splice(0..0, pre);
        steps.extend(post);
        if !failed {
            steps.push(Step::End(operation_id));
        }
        steps
    }

    /// One of the graph's allocations or frees of the followed device
    /// ([`DeviceView::each_graph_event`]) as steps against the live buffers.
    fn graph_step(&mut self, operation_id: u64, event: GraphEvent, steps: &mut Vec<Step>) {
        match event {
            GraphEvent::Alloc(b) => {
                if let Some(old) = self.live.remove(&(b.place, b.address)) {
                    steps.push(Step::Free(old)); // its free went unrecorded
                }
                let b = Recorded { operation_id: Some(operation_id), ..b };
                steps.push(Step::Alloc { id: self.add(b), pinned: false });
            }
            GraphEvent::Free(place, address) => match address.and_then(|a| self.live.remove(&(place, a))) {
                Some(id) => steps.push(Step::Free(id)),
                None => self.unknown_frees += 1,
            },
        }
    }
}

/// From this many allocations in one graph, its events are found on another thread
/// ([`DeviceView::events_beside`]).
const EVENTS_APART: usize = 1 << 15;

/// The events handed over at a time by [`DeviceView::events_beside`].
const EVENT_CHUNK: usize = 4096;

/// One of the followed device's allocations or frees in an operation's graph, as the sequence
/// reads it: what a recorded run keeps of the graph.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum GraphEvent {
    /// A buffer allocated (its operation is set when the sequence takes it).
    Alloc(Recorded),
    /// A free in a place, of the address its node frees (none: the graph does not say).
    Free(Place, Option<u64>),
}

impl DeviceView {
    /// A snapshot's rows that show the device's buffers (valid, of a placed type), keyed as
    /// the live buffers are.
    pub(crate) fn shown<'a>(&'a self, rows: &'a [SnapshotRow]) -> impl Iterator<Item = (LiveKey, u64)> + 'a {
        rows.iter().filter(|r| self.names(Some(r.device_id))).filter_map(|r| {
            let (address, size) = r.valid()?;
            Some((((self.device_id, placed_type(r.buffer_type)?), address), size))
        })
    }

    /// How many `buffer_allocate` nodes an operation's graph has up to its failure point: at
    /// most the buffers its replay adds.
    fn graph_allocations(&self, record: &OperationRecord<'_>) -> usize {
        let last = record.through.map_or(record.graph.len(), |f| (f + 1).min(record.graph.len()));
        record.graph[..last].iter().filter(|n| n.is(NodeType::BufferAllocate)).count()
    }

    /// [`Self::each_graph_event`], the events found on another thread and handed over in
    /// chunks, so that finding them (each node's type, place and size) and taking them overlap.
    pub(crate) fn events_beside(&self, record: &OperationRecord<'_>, mut take: impl FnMut(GraphEvent)) {
        let (chunks, arrive) = std::sync::mpsc::sync_channel::<Vec<GraphEvent>>(4);
        std::thread::scope(|s| {
            s.spawn(move || {
                let mut chunk = Vec::with_capacity(EVENT_CHUNK);
                self.each_graph_event(record, |event| {
                    chunk.push(event);
                    if chunk.len() == EVENT_CHUNK {
                        // A closed channel: the taker stopped; the scope says why.
                        let _ = chunks.send(std::mem::replace(&mut chunk, Vec::with_capacity(EVENT_CHUNK)));
                    }
                });
                let _ = chunks.send(chunk);
            });
            arrive.iter().flatten().for_each(&mut take);
        });
    }

    /// The device's allocations and frees in an operation's graph, up to its failure point,
    /// given one at a time to `take`, in node order.
    pub(crate) fn each_graph_event(&self, record: &OperationRecord<'_>, mut take: impl FnMut(GraphEvent)) {
        let graph = record.graph;
        let last = record.through.map_or(graph.len(), |f| (f + 1).min(graph.len()));
        let frees = free_addresses(graph);
        let index = GraphIndex::new(graph);
        // Typed as the memory section types them (an `L1` node inside L1_SMALL is L1_SMALL).
        let l1_small = self.facts.as_ref().and_then(l1_small_region);
        for (i, node) in graph[..last].iter().enumerate() {
            if !self.names_in_graph(node.device_id()) {
                continue;
            }
            let Some(buffer_type) = placed_type(graph_buffer_type(node, l1_small.as_ref())) else { continue };
            let place = (self.device_id, buffer_type);
            if node.is(NodeType::BufferAllocate) {
                let Some(address) = node.address().filter(|&a| a > 0) else { continue };
                let banks = default_banks(buffer_type, None, self.facts.as_ref());
                let key = GraphBuffer { buffer_type: Some(buffer_type), ..GraphBuffer::key_of(node, address) };
                let Some(size_per_bank) = key.per_bank(banks) else { continue };
                take(GraphEvent::Alloc(Recorded {
                    place,
                    address,
                    size_per_bank,
                    size: node.size().zip(node.page_size()),
                    tensor_id: index.allocated_tensor(i),
                    operation_id: None,
                }));
            } else if node.is(NodeType::BufferDeallocate) {
                take(GraphEvent::Free(place, frees[i]));
            }
        }
    }
}
