//! Who holds each live buffer (docs/rules/memory.md §4): the most recent tenant of its address, or for a
//! buffer the operation allocated, the tensor its graph connects it to; the tensor's producer,
//! last use, and whether it is an input of the operation or stale.

use super::live::Placed;
use super::picture::{LiveBuffer, Origin};
use crate::analysis::graph::nodes::GraphNode;
use crate::analysis::memory::graph_index::GraphIndex;
use crate::analysis::memory::inputs::{TensorFacts, TensorUse};
use crate::analysis::messages::failure::BufferType;
use crate::analysis::shared_text::SharedText;
use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;

/// True for the operation that frees a tensor: `ttnn.deallocate` or `ttnn::deallocate`.
pub(crate) fn is_deallocate(name: &str) -> bool {
    name == "ttnn.deallocate" || name == "ttnn::deallocate"
}

/// A tensor's producer (docs/rules/memory.md §4): its `output_tensors` row of the smallest operation id.
pub(crate) fn producer(uses: &[TensorUse]) -> Option<&TensorUse> {
    uses.iter().filter(|u| u.output).min_by_key(|u| u.operation_id)
}

/// A tensor's last use before operation `n` (docs/rules/memory.md §4): the greatest operation id < `n` among
/// its `input_tensors` rows whose operation is not a deallocation.
pub(crate) fn last_use(uses: &[TensorUse], n: u64) -> Option<u64> {
    uses.iter()
        .filter(|u| !u.output && u.operation_id < n && !is_deallocate(&u.operation_name))
        .map(|u| u.operation_id)
        .max()
}

/// The first `ttnn.deallocate` that took the tensor as input, when one did.
pub(crate) fn deallocated_at(uses: &[TensorUse]) -> Option<u64> {
    uses.iter().filter(|u| !u.output && is_deallocate(&u.operation_name)).map(|u| u.operation_id).min()
}

/// Whether a tensor found at a place can matter to the memory at operation `n` (an id): hold a
/// buffer there, or tie its producer's outputs by the producer's graph (docs/rules/memory.md §4).
/// Not when no operation ≤ `n` saw it (`first_seen`: its first link row; none without links),
/// nor when a deallocation before `n` freed it and it is not one of several outputs of its
/// producer (`shares_producer`), whose places the graph might move.
pub(crate) fn may_matter_at(n: u64, first_seen: Option<u64>, freed: Option<u64>, shares_producer: bool) -> bool {
    first_seen.is_some_and(|f| f <= n) && (freed.is_none_or(|f| f >= n) || shares_producer)
}

/// A tenant candidate of a place: its first sighting (the smallest operation id among its
/// rows), the first deallocation that took it as input, its id. Both figures do not depend on
/// N: "seen by an operation ≤ N" is `first_seen ≤ N`, "freed before N" is `freed < N`.
#[derive(Debug, Clone, Copy)]
struct Candidate {
    first_seen: u64,
    freed: Option<u64>,
    tensor_id: u64,
}

/// What the holder rules look at for operation N.
pub(crate) struct Holders<'a> {
    /// N's id.
    pub(crate) operation_id: u64,
    /// The map's device.
    pub(crate) device: u64,
    /// N's graph, indexed.
    graph: GraphIndex<'a>,
    /// N's input tensor ids.
    pub(crate) inputs: &'a [u64],
    /// Tensors by id.
    by_id: HashMap<u64, &'a TensorFacts>,
    /// The tenant candidates of each (device, address), of the map's buffer type when a
    /// tensor's type is known, ascending by (first sighting, tensor id).
    by_address: HashMap<(u64, u64), Vec<Candidate>>,
    /// Whether a buffer N allocated is named by address first (its post-operation picture: N's
    /// outputs are recorded with their addresses, and the output link names the tensor the run
    /// and every other view know, where the graph may name an internal one at the same address).
    pub(crate) own_by_address: bool,
    /// The producers' names as the live buffers share them, by the report's name.
    names: RefCell<HashMap<Arc<str>, SharedText>>,
}

impl<'a> Holders<'a> {
    /// Indexes the tensors.
    pub fn new(
        operation_id: u64,
        (device, buffer_type): (u64, BufferType),
        graph: &'a [GraphNode],
        inputs: &'a [u64],
        tensors: &'a [TensorFacts],
    ) -> Self {
        let mut by_id = HashMap::new();
        let mut by_address: HashMap<(u64, u64), Vec<Candidate>> = HashMap::new();
        for t in tensors {
            by_id.entry(t.tensor_id).or_insert(t);
            let same_type = t.address.is_none() || t.buffer_type.is_none_or(|bt| bt == buffer_type);
            let Some(first_seen) = t.uses.iter().map(|u| u.operation_id).min().filter(|_| same_type) else { continue };
            let freed = deallocated_at(&t.uses);
            let mut places: Vec<(u64, u64)> = t.device_addresses.clone();
            if let (Some(d), Some(a)) = (t.device_id, t.address) {
                places.push((d, a));
            }
            places.sort_unstable();
            places.dedup();
            for place in places {
                by_address.entry(place).or_default().push(Candidate { first_seen, freed, tensor_id: t.tensor_id });
            }
        }
        for candidates in by_address.values_mut() {
            candidates.sort_unstable_by_key(|c| (c.first_seen, c.tensor_id));
        }
        Self {
            operation_id,
            device,
            graph: GraphIndex::new(graph),
            inputs,
            by_id,
            by_address,
            own_by_address: false,
            names: RefCell::default(),
        }
    }

    /// The most recent tenant of `address` (docs/rules/memory.md §4): a candidate at that address on the
    /// device, of the same buffer type when its type is known, seen by an operation ≤ N and not
    /// freed by a deallocation before N; the greatest first sighting wins, then the greatest id.
    /// (A binary search and, usually, one step: the late pass asks this for every buffer run.)
    pub(crate) fn tenant(&self, address: u64) -> Option<u64> {
        let candidates = self.by_address.get(&(self.device, address))?;
        let n = self.operation_id;
        let seen = candidates.partition_point(|c| c.first_seen <= n);
        candidates[..seen].iter().rev().find(|c| c.freed.is_none_or(|f| f >= n)).map(|c| c.tensor_id)
    }

    /// A tensor's facts, by id.
    pub(crate) fn facts(&self, tensor_id: u64) -> Option<&'a TensorFacts> {
        self.by_id.get(&tensor_id).copied()
    }

    /// A live buffer with its holder.
    pub(crate) fn hold(&self, placed: &Placed) -> LiveBuffer {
        let n = self.operation_id;
        let (origin, tensor_id, device_operation) = match placed.allocated_at {
            Some(at) => {
                let by_graph = self.graph.allocated_tensor(at);
                let tensor = if self.own_by_address { self.tenant(placed.address).or(by_graph) } else { by_graph };
                (Origin::ThisOperation, tensor, self.graph.open_scope(at))
            }
            None => (Origin::Earlier, self.tenant(placed.address), None),
        };
        let facts = tensor_id.and_then(|id| self.by_id.get(&id).copied());
        let uses = facts.map(|t| t.uses.as_slice()).unwrap_or_default();
        let producer = producer(uses);
        let last_use = last_use(uses, n);
        let input = tensor_id.is_some_and(|id| self.inputs.contains(&id));
        LiveBuffer {
            address: placed.address,
            size_per_bank: placed.size,
            layout: placed.layout.clone(),
            origin: Some(origin),
            device_operation,
            tensor_id,
            shape: facts.and_then(|t| t.shape.as_deref()).map(SharedText::from),
            dtype: facts.and_then(|t| t.dtype.as_deref()).map(SharedText::from),
            producer_operation_id: producer.map(|u| u.operation_id),
            producer_operation_name: producer.map(|u| self.shared_name(&u.operation_name)),
            last_use_operation_id: last_use,
            last_use_source: None,
            input_of_operation: input,
            stale: tensor_id.is_some() && !input && last_use.is_some_and(|k| k < n),
        }
    }

    /// An operation's name as the live buffers share it: made once per name.
    fn shared_name(&self, name: &Arc<str>) -> SharedText {
        let mut names = self.names.borrow_mut();
        names.entry(Arc::clone(name)).or_insert_with(|| SharedText::from(&**name)).clone()
    }

    /// Every live buffer with its holder, biggest first (ties by address).
    pub(crate) fn hold_all(&self, placed: &[Placed]) -> Vec<LiveBuffer> {
        let mut out: Vec<LiveBuffer> = placed.iter().map(|p| self.hold(p)).collect();
        out.sort_by(|a, b| b.size_per_bank.cmp(&a.size_per_bank).then(a.address.cmp(&b.address)));
        out
    }
}
