//! Circular-buffer failures (docs/rules/memory.md §7): the failing program's circular buffers, the region
//! end, and the live L1 buffers in their way.

use super::picture::{CircularBuffer, CircularBufferClash, LiveBuffer};
use crate::analysis::graph::nodes::{GraphNode, NodeType};
use crate::analysis::memory::graph_index::GraphIndex;
use crate::analysis::memory::graph_walk::failure_point;
use crate::analysis::messages::failure::Figures;

/// The clash of kinds 3 and 4: the circular buffers allocated after the last deallocation of
/// all circular buffers before the failure point (tensor-backed ones skipped), and the live L1
/// buffers below the region end. None when the message gives no region end.
pub(crate) fn circular_buffer_clash(
    graph: &[GraphNode],
    figures: &Figures,
    live_l1: &[LiveBuffer],
) -> Option<CircularBufferClash> {
    let region_end = figures.region_end?;
    let through = failure_point(graph).map_or(0, |f| f + 1);
    let nodes = &graph[..through];
    let index = GraphIndex::new(graph);
    let from = nodes.iter().rposition(|n| n.is(NodeType::CircularBufferDeallocateAll)).map_or(0, |i| i + 1);
    let circular_buffers = nodes[from..]
        .iter()
        .enumerate()
        .filter(|(_, n)| n.is(NodeType::CircularBufferAllocate) && !n.globally_allocated())
        .filter_map(|(i, n)| {
            Some(CircularBuffer {
                address: n.address()?,
                size: n.size().unwrap_or(0),
                core_range: n.core_range_set().map(str::to_owned),
                device_operation: index.open_scope(from + i).map(|name| name.to_string()),
            })
        })
        .collect();
    let mut clashing: Vec<u64> = live_l1.iter().map(|b| b.address).filter(|&a| a < region_end).collect();
    clashing.sort_unstable();
    clashing.dedup();
    Some(CircularBufferClash {
        region_end,
        lowest_l1_address: live_l1.iter().map(|b| b.address).min(),
        clashing,
        circular_buffers,
    })
}
