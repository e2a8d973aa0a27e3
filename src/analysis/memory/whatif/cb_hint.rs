//! The circular-buffer hint of a what-if (docs/rules/memory.md §9.3): what an earlier operation
//! used for its circular buffers, which the failed operation's own are judged by once its
//! outputs fit. Pure: the graphs are read by `report/`, through the `texts_of` it gives.

use super::answer::CircularBufferUse;
use crate::analysis::graph::nodes::{GraphNode, NodeType, parse_graph};
use crate::analysis::model::Operation;

/// How many earlier operations of the failed one's name (then of any name) are searched.
pub(crate) const CB_HINT_SEARCH: usize = 64;

/// The circular buffers of the most recent earlier operation with the failed one's name (at
/// `index`) that ran and allocated any, as the end of their region minus the L1 allocator's
/// start; else (matmul and softmax record their dataflow buffers in no graph) those of the most
/// recent operation that ran and recorded any, said as a weaker hint. `texts_of` reads the
/// graphs of some operations (by index) in one read; each list is read once, parsed one graph
/// at a time until one allocated circular buffers.
pub(crate) fn cb_hint(
    operations: &[Operation],
    index: usize,
    l1_start: Option<u64>,
    texts_of: &mut dyn FnMut(&[usize]) -> Vec<Option<String>>,
) -> Option<CircularBufferUse> {
    let start = l1_start?;
    let name = &operations[index].name;
    let ran = |i: &usize| operations[*i].error.is_none();
    let same: Vec<usize> =
        (0..index).rev().filter(ran).filter(|&i| &operations[i].name == name).take(CB_HINT_SEARCH).collect();
    let any: Vec<usize> = (0..index).rev().filter(ran).take(CB_HINT_SEARCH).collect();
    for (candidates, same_name) in [(same, true), (any, false)] {
        let texts = texts_of(&candidates);
        for (i, text) in candidates.iter().zip(texts) {
            let graph = text.as_deref().map(parse_graph).and_then(Result::ok);
            let Some(end) = graph.as_deref().and_then(circular_buffer_end) else { continue };
            let op = &operations[*i];
            return Some(CircularBufferUse {
                operation_id: op.id,
                operation_name: op.name.to_string(),
                used: end.saturating_sub(start),
                same_name,
            });
        }
    }
    None
}

/// Where the circular buffers a graph allocated after its last deallocation of them all end
/// (tensor-backed ones left out), when it allocated any.
pub(crate) fn circular_buffer_end(graph: &[GraphNode]) -> Option<u64> {
    let from = graph.iter().rposition(|n| n.is(NodeType::CircularBufferDeallocateAll)).map_or(0, |p| p + 1);
    graph[from..]
        .iter()
        .filter(|n| n.is(NodeType::CircularBufferAllocate) && !n.globally_allocated())
        .filter_map(|n| Some(n.address()? + n.size().unwrap_or(0)))
        .max()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn op(id: u64, name: &str, failed: bool) -> Operation {
        Operation { id, name: name.into(), duration: None, rank: 0, error: failed.then_some(0), recorded: true }
    }

    fn cb(address: u64, size: u64) -> String {
        format!(r#"{{"node_type":"circular_buffer_allocate","params":{{"address":"{address}","size":"{size}"}}}}"#)
    }

    #[test]
    fn the_most_recent_operation_of_the_name_that_ran_else_any_that_recorded_circular_buffers() {
        let ops =
            [op(1, "ttnn.add", false), op(2, "ttnn.softmax", false), op(3, "ttnn.add", true), op(4, "ttnn.add", true)];
        let graphs = [Some(format!("[{}]", cb(2000, 1000))), Some(format!("[{}]", cb(3000, 500))), None, None];
        let mut reads = Vec::new();
        let mut texts_of = |wanted: &[usize]| {
            reads.push(wanted.to_vec());
            wanted.iter().map(|&i| graphs[i].clone()).collect()
        };
        let hint = cb_hint(&ops, 3, Some(1000), &mut texts_of);
        let same =
            CircularBufferUse { operation_id: 1, operation_name: "ttnn.add".into(), used: 2000, same_name: true };
        assert_eq!((hint, reads.clone()), (Some(same), vec![vec![0]]));
        let none = [None, Some(format!("[{}]", cb(3000, 500))), None, None];
        let mut texts_of = |wanted: &[usize]| wanted.iter().map(|&i| none[i].clone()).collect();
        let other =
            CircularBufferUse { operation_id: 2, operation_name: "ttnn.softmax".into(), used: 2500, same_name: false };
        assert_eq!(cb_hint(&ops, 3, Some(1000), &mut texts_of), Some(other));
        assert_eq!(cb_hint(&ops, 3, None, &mut |_: &[usize]| Vec::new()), None);
    }

    #[test]
    fn circular_buffers_end_after_the_last_deallocation_of_them_all() {
        let text = format!(
            r#"[{},{{"node_type":"circular_buffer_deallocate_all","params":{{}}}},{},{}]"#,
            cb(9000, 9000),
            cb(1000, 200),
            r#"{"node_type":"circular_buffer_allocate","params":{"address":"5000","size":"100","globally_allocated":"1"}}"#
        );
        let graph = parse_graph(&text).expect("a graph");
        assert_eq!(circular_buffer_end(&graph), Some(1200));
        assert_eq!(circular_buffer_end(&[]), None);
    }
}
