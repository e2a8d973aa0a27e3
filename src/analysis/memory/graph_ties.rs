//! Where a tensor's buffer is (docs/rules/memory.md §4): the one its producer's captured graph ties to it,
//! then `device_tensors`, then `tensors`. ttnn 0.81 gives a multi-output operation's third
//! output the second's address in `tensors` (`split_query_key_value_and_split_heads`) and may
//! record no `device_tensors` row for it; an output can have `tensors.address` NULL. The graph
//! allocates one buffer per output, in output order, and names its own internal tensor ids, so
//! the tie is by order: the buffers the producer allocated and still held at its end, one per
//! `output_tensors` row by `output_index`. Two tensors never own one buffer.

use super::failure::holders::producer;
use super::graph_walk::GraphWalk;
use super::inputs::TensorFacts;
use super::notes::MemoryNote;
use crate::analysis::graph::nodes::GraphNode;
use std::collections::{BTreeSet, HashMap};

/// The operations whose graphs must say where their outputs are: the producers of two tensors
/// recorded at one address (under either id of a single chip opened as a mesh, ttnn 0.81: one
/// output in `tensors` under the mesh id, another in `device_tensors` under the chip id) and of
/// a tensor with no recorded place, ascending.
pub(crate) fn producers_to_tie(tensors: &[TensorFacts]) -> Vec<u64> {
    let mut out = BTreeSet::new();
    let mut claims: HashMap<u64, Vec<u64>> = HashMap::new();
    for t in tensors {
        let Some(p) = producer(&t.uses).map(|u| u.operation_id) else { continue };
        let places = recorded_places(t);
        if places.is_empty() {
            out.insert(p);
        }
        let mut addresses: Vec<u64> = places.iter().map(|&(_, a)| a).collect();
        addresses.dedup();
        for address in addresses {
            let by = claims.entry(address).or_default();
            if by.contains(&p) {
                out.insert(p);
            }
            by.push(p);
        }
    }
    out.into_iter().collect()
}

/// Where the tables put a tensor: its `tensors` row's (device, address) and its `device_tensors`
/// rows, each once.
fn recorded_places(t: &TensorFacts) -> Vec<(u64, u64)> {
    let mut places = t.device_addresses.clone();
    if let (Some(d), Some(a)) = (t.device_id, t.address) {
        places.push((d, a));
    }
    places.sort_unstable();
    places.dedup();
    places
}

/// The (device, address) the producer's graph ties each of its outputs (`outputs`, by
/// `output_index`) to: the buffers it allocated and still held at its end, in allocation order.
/// None when there are not exactly as many such buffers as outputs, when one has no device, or
/// when an output whose recorded place no other output claims is not where the graph puts it
/// (the order would then be a guess).
pub(crate) fn output_places(
    graph: &[GraphNode],
    outputs: &[u64],
    tensors: &[TensorFacts],
) -> Option<Vec<(u64, (u64, u64))>> {
    let mut replay = GraphWalk::default();
    replay.run(graph, None);
    let mut held: Vec<(usize, u64, u64)> =
        replay.live.iter().filter_map(|e| Some((e.allocated_at?, e.buffer.device_id?, e.buffer.address))).collect();
    if held.len() != outputs.len() || held.len() != replay.live.iter().count() || outputs.is_empty() {
        return None;
    }
    held.sort_unstable();
    let ties: Vec<(u64, (u64, u64))> = outputs.iter().zip(&held).map(|(&t, &(_, d, a))| (t, (d, a))).collect();
    let recorded = |id: u64| tensors.iter().find(|t| t.tensor_id == id).map(recorded_places).unwrap_or_default();
    for &(id, (_, address)) in &ties {
        let own: Vec<u64> = recorded(id).iter().map(|&(_, a)| a).collect();
        let shared = outputs.iter().filter(|&&o| o != id).any(|&o| recorded(o).iter().any(|(_, a)| own.contains(a)));
        if !own.is_empty() && !shared && !own.contains(&address) {
            return None;
        }
    }
    Some(ties)
}

/// Places each tied tensor where its producer's graph put it (`ties` from [`output_places`]);
/// a note for each tensor the tables recorded elsewhere or nowhere. A tensor the tables put at
/// a tied place it does not own, produced by the same operation, loses that place.
pub(crate) fn tie_outputs(
    tensors: &mut [TensorFacts],
    producer_id: u64,
    ties: &[(u64, (u64, u64))],
) -> Vec<MemoryNote> {
    let mut notes = Vec::new();
    for &(id, (device, address)) in ties {
        let Some(t) = tensors.iter_mut().find(|t| t.tensor_id == id) else { continue };
        if !recorded_places(t).iter().any(|&(_, a)| a == address) {
            notes.push(MemoryNote::PlacedByGraph {
                tensor_id: id,
                operation_id: producer_id,
                address,
                recorded: t.address,
            });
        }
        t.device_id = Some(device);
        t.address = Some(address);
        t.device_addresses = vec![(device, address)];
    }
    notes
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::graph::nodes::parse_graph;
    use crate::analysis::memory::TensorUse;

    fn output_of(id: u64, operation_id: u64, address: Option<u64>, device_addresses: Vec<(u64, u64)>) -> TensorFacts {
        TensorFacts {
            tensor_id: id,
            device_id: address.map(|_| 1),
            address,
            device_addresses,
            uses: vec![TensorUse { operation_id, operation_name: "split".into(), output: true }],
            ..TensorFacts::default()
        }
    }

    /// Three outputs allocated in order, as NlpCreateHeadsDeviceOperation does.
    fn three_outputs() -> Vec<GraphNode> {
        let alloc = |id: u64, address: u64| {
            format!(
                r#"{{"id": {id}, "node_type": "buffer_allocate", "connections": [], "params": {{"address": {address}, "device_id": 1, "buffer_type": 1, "max_size_per_bank": 69632}}}}"#
            )
        };
        let text = format!("[{}, {}, {}]", alloc(1, 1079296), alloc(2, 1009664), alloc(3, 940032));
        parse_graph(&text).unwrap()
    }

    #[test]
    fn the_third_output_recorded_at_the_second_s_address_is_placed_by_the_graph() {
        let mut tensors = vec![
            output_of(653, 315, Some(1079296), vec![(1, 1079296)]),
            output_of(654, 315, Some(1009664), vec![(1, 1009664)]),
            output_of(655, 315, Some(1009664), vec![]),
        ];
        assert_eq!(producers_to_tie(&tensors), vec![315]);
        let ties = output_places(&three_outputs(), &[653, 654, 655], &tensors).unwrap();
        assert_eq!(ties, vec![(653, (1, 1079296)), (654, (1, 1009664)), (655, (1, 940032))]);
        let notes = tie_outputs(&mut tensors, 315, &ties);
        assert_eq!(
            notes.iter().map(|n| n.text(false)).collect::<Vec<_>>(),
            [
                "tensor 655 is read at 940032, where operation 315's captured graph placed it (the tensors table records 1009664)"
            ]
        );
        assert_eq!((tensors[2].address, tensors[2].device_addresses.clone()), (Some(940032), vec![(1, 940032)]));
    }

    /// The sharded ViT: the first two outputs only in `device_tensors`, under the chip id (0);
    /// the third in `tensors` under the mesh id (1) at the second's address.
    #[test]
    fn two_outputs_at_one_address_under_the_two_ids_of_a_chip_are_in_doubt() {
        let mut tensors = vec![
            output_of(375, 169, None, vec![(0, 1079296)]),
            output_of(376, 169, None, vec![(0, 1009664)]),
            output_of(377, 169, Some(1009664), vec![]),
        ];
        assert_eq!(producers_to_tie(&tensors), vec![169]);
        let ties = output_places(&three_outputs(), &[375, 376, 377], &tensors).unwrap();
        tie_outputs(&mut tensors, 169, &ties);
        assert_eq!(tensors.iter().map(|t| t.address).collect::<Vec<_>>(), [Some(1079296), Some(1009664), Some(940032)]);
    }

    #[test]
    fn an_output_without_an_address_is_placed_and_a_contradicted_order_is_not_a_tie() {
        let tensors = vec![
            output_of(653, 315, Some(1079296), vec![]),
            output_of(654, 315, None, vec![]),
            output_of(655, 315, None, vec![]),
        ];
        assert_eq!(producers_to_tie(&tensors), vec![315]);
        let ties = output_places(&three_outputs(), &[653, 654, 655], &tensors).unwrap();
        assert_eq!(ties[1], (654, (1, 1009664)));
        // 653 recorded alone at the third buffer: the graph's order is not the outputs'.
        let swapped = vec![output_of(653, 315, Some(940032), vec![])];
        assert_eq!(output_places(&three_outputs(), &[653, 654, 655], &swapped), None);
        // Fewer buffers than outputs: no tie.
        assert_eq!(output_places(&three_outputs(), &[653, 654], &tensors), None);
        // Distinct places, every one recorded: nothing to tie.
        let clear = vec![output_of(1, 7, Some(64), vec![]), output_of(2, 7, Some(128), vec![])];
        assert_eq!(producers_to_tie(&clear), Vec::<u64>::new());
    }
}
