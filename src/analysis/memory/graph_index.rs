//! What the holder and circular-buffer rules look up in N's graph (docs/rules/memory.md §4, §7), indexed
//! once per graph so that asking for every buffer costs n log n, not n²: nodes by id (the tensor
//! an allocation connects to) and the innermost function scope open at each node.

use crate::analysis::graph::nodes::{GraphNode, NodeType};
use crate::analysis::graph::scopes::scope_closes;
use crate::analysis::int_hash::IntMap;
use crate::analysis::shared_text::SharedText;
use std::cell::OnceCell;
use std::collections::BinaryHeap;

/// N's graph with its lookups, each built on first use.
pub(crate) struct GraphIndex<'a> {
    nodes: &'a [GraphNode],
    by_id: OnceCell<ById>,
    innermost: OnceCell<Innermost>,
}

impl<'a> GraphIndex<'a> {
    /// Indexes nothing yet.
    pub(crate) fn new(nodes: &'a [GraphNode]) -> Self {
        Self { nodes, by_id: OnceCell::new(), innermost: OnceCell::new() }
    }

    /// The name of the innermost function scope open at node `position`, with the scope closes
    /// of docs/rules/reference.md §3.4: a scope is open from its start until the node before which it
    /// closes.
    pub(crate) fn open_scope(&self, position: usize) -> Option<SharedText> {
        let innermost = self.innermost.get_or_init(|| Innermost::of(self.nodes));
        let start = innermost.get(position)?;
        Some(self.nodes[start].name_shared())
    }

    /// The tensor a `buffer_allocate` node connects to: a `tensor` node among its connections
    /// or those of the `buffer` node it connects to.
    pub(crate) fn allocated_tensor(&self, position: usize) -> Option<u64> {
        let by_id = self.by_id.get_or_init(|| ById::of(self.nodes));
        let node_of = |id: u64| by_id.position(id).map(|i| &self.nodes[i]);
        let tensor_of = |id: u64| node_of(id).filter(|n| n.is(NodeType::Tensor)).and_then(|n| n.tensor_id());
        let node = self.nodes.get(position)?;
        node.connections().find_map(tensor_of).or_else(|| {
            node.connections()
                .filter_map(node_of)
                .filter(|n| n.is(NodeType::Buffer))
                .find_map(|b| b.connections().find_map(tensor_of))
        })
    }
}

/// Where the node with an id is: at the position its id names when every node's id is its
/// position (as the writer numbers them: no map of a million nodes to build), else by a map
/// (a later node wins an id given twice).
enum ById {
    Positions(usize),
    Map(IntMap<u64, usize>),
}

impl ById {
    fn of(nodes: &[GraphNode]) -> Self {
        match nodes.iter().enumerate().all(|(i, n)| n.id() == i as u64) {
            true => Self::Positions(nodes.len()),
            false => Self::Map(nodes.iter().enumerate().map(|(i, n)| (n.id(), i)).collect()),
        }
    }

    fn position(&self, id: u64) -> Option<usize> {
        match self {
            Self::Positions(len) => usize::try_from(id).ok().filter(|i| i < len),
            Self::Map(map) => map.get(&id).copied(),
        }
    }
}

/// For every position, the start of the innermost scope open there, in 32 bits (a failure's
/// graph may hold a million positions; `u32::MAX` is none) unless a graph is too long for them.
enum Innermost {
    Narrow(Vec<u32>),
    Wide(Vec<Option<usize>>),
}

impl Innermost {
    fn of(nodes: &[GraphNode]) -> Self {
        if u32::try_from(nodes.len()).is_ok_and(|len| len < u32::MAX) {
            // Every start is a position below the length: it fits, and is not `u32::MAX`.
            let mut starts = Vec::with_capacity(nodes.len());
            innermost_scopes(nodes, |start| starts.push(start.map_or(u32::MAX, |s| s as u32)));
            return Self::Narrow(starts);
        }
        let mut wide = Vec::with_capacity(nodes.len());
        innermost_scopes(nodes, |start| wide.push(start));
        Self::Wide(wide)
    }

    fn get(&self, position: usize) -> Option<usize> {
        match self {
            Self::Narrow(starts) => starts.get(position).filter(|&&s| s != u32::MAX).map(|&s| s as usize),
            Self::Wide(starts) => *starts.get(position)?,
        }
    }
}

/// For every position in order, the start of the innermost scope open there, given to `out`:
/// the greatest start below the position among the scopes that close after it (or never). One
/// sweep with a heap.
fn innermost_scopes(nodes: &[GraphNode], mut out: impl FnMut(Option<usize>)) {
    let mut closes: Vec<(usize, usize)> =
        scope_closes(nodes, true).iter().map(|c| (c.start, c.before.unwrap_or(usize::MAX))).collect();
    closes.sort_unstable();
    let mut open: BinaryHeap<(usize, usize)> = BinaryHeap::new();
    let mut next = 0;
    for position in 0..nodes.len() {
        while next < closes.len() && closes[next].0 < position {
            open.push(closes[next]);
            next += 1;
        }
        while open.peek().is_some_and(|&(_, before)| before <= position) {
            open.pop();
        }
        out(open.peek().map(|&(start, _)| start));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::graph::nodes::NodeFields;

    fn node(id: u64, node_type: NodeType, tensor_id: Option<u64>, connections: Vec<u64>) -> GraphNode {
        GraphNode::from(NodeFields { id, node_type: Some(node_type), tensor_id, connections, ..NodeFields::default() })
    }

    #[test]
    fn the_tensor_of_an_allocation_by_positions_or_by_ids() {
        // Ids are positions: found where the id says.
        let by_position = [
            node(0, NodeType::Tensor, Some(7), vec![]),
            node(1, NodeType::Buffer, None, vec![0]),
            node(2, NodeType::BufferAllocate, None, vec![1]),
        ];
        assert_eq!(GraphIndex::new(&by_position).allocated_tensor(2), Some(7));
        // Ids that are not positions, one given twice: the later node with the id wins.
        let by_id = [
            node(10, NodeType::Tensor, Some(7), vec![]),
            node(10, NodeType::Tensor, Some(8), vec![]),
            node(0, NodeType::BufferAllocate, None, vec![10]),
        ];
        assert_eq!(GraphIndex::new(&by_id).allocated_tensor(2), Some(8));
        let beyond = [node(0, NodeType::BufferAllocate, None, vec![5])];
        assert_eq!(GraphIndex::new(&beyond).allocated_tensor(0), None);
    }
}
