//! Every tensor's placement and links, as one index built once per report from four narrow
//! columns (`tensors`, `device_tensors`, `input_tensors`, `output_tensors`) and kept with the
//! report's core for every later question about memory (docs/rules/memory.md §4). Reading the rows is
//! `tensors.rs`'s; this is what is kept and how it answers.

use crate::analysis::memory::{TensorFacts, TensorUse};
use crate::analysis::messages::failure::BufferType;
use std::collections::BTreeSet;
use std::sync::Arc;

/// A `tensors` row as the index keeps it: where the tensor was first recorded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Placement {
    pub(crate) tensor_id: u64,
    pub(crate) device_id: Option<u64>,
    pub(crate) address: Option<u64>,
    pub(crate) buffer_type: Option<BufferType>,
}

/// Every tensor's placement and links; built once per report.
#[derive(Debug, Default)]
pub(crate) struct TensorIndex {
    /// `tensors` rows of the rank (else rank 0), one per tensor, by ascending id.
    rows: Vec<Placement>,
    /// (device, address, tensor id) of every recorded placement, `device_tensors` included,
    /// sorted.
    places: Vec<(u64, u64, u64)>,
    /// (tensor id, device, address) of the `device_tensors` rows, sorted.
    device_places: Vec<(u64, u64, u64)>,
    /// The link rows as [`link_key`]s, sorted: a tensor's links are one run, found by halves.
    uses: Vec<u128>,
    /// The names of the operations in `uses`, by operation id, sorted.
    operations: Vec<(u64, Arc<str>)>,
}

/// A link row (tensor id, operation id, output) as one integer ordered as the triple is: ids
/// read by `uint` are below 2⁶³, so the operation and the flag share the low 64 bits.
pub(crate) fn link_key(tensor_id: u64, operation_id: u64, output: bool) -> u128 {
    (u128::from(tensor_id) << 64) | (u128::from(operation_id) << 1) | u128::from(output)
}

/// The items of a slice sorted by `key` whose key is `wanted`.
fn range<'a, T, K: Ord>(items: &'a [T], wanted: &K, key: impl Fn(&T) -> K) -> &'a [T] {
    let start = items.partition_point(|t| key(t) < *wanted);
    let end = start + items[start..].partition_point(|t| key(t) == *wanted);
    &items[start..end]
}

impl TensorIndex {
    /// The index of `tensors` rows (one per tensor, by ascending id, as `Tensors::placements`
    /// gives them), `device_tensors` rows (tensor, device, address) and link rows
    /// ([`link_key`]s), naming operations by `name_of`.
    pub(crate) fn new(
        rows: Vec<Placement>,
        mut device_places: Vec<(u64, u64, u64)>,
        mut uses: Vec<u128>,
        name_of: impl Fn(u64) -> Arc<str>,
    ) -> Self {
        device_places.sort_unstable();
        device_places.dedup();
        let mut places: Vec<(u64, u64, u64)> = rows
            .iter()
            .filter_map(|r| Some((r.device_id?, r.address?, r.tensor_id)))
            .chain(device_places.iter().map(|&(t, d, a)| (d, a, t)))
            .collect();
        places.sort_unstable();
        places.dedup();
        uses.sort_unstable();
        uses.dedup();
        // The link tables are written in operation order: these ids come nearly sorted.
        let mut operation_ids: Vec<u64> = uses.iter().map(|&u| operation_of(u)).collect();
        operation_ids.sort_unstable();
        operation_ids.dedup();
        let operations = operation_ids.into_iter().map(|id| (id, name_of(id))).collect();
        Self { rows, places, device_places, uses, operations }
    }

    /// The tensors recorded at any (device, address) of `places`, and the tensors `ids`, with
    /// their link rows; without shape and dtype.
    pub(crate) fn facts(&self, places: &[(u64, u64)], ids: &[u64]) -> Vec<TensorFacts> {
        let mut wanted: BTreeSet<u64> = ids.iter().copied().collect();
        for &(device, address) in places {
            wanted.extend(range(&self.places, &(device, address), |p| (p.0, p.1)).iter().map(|p| p.2));
        }
        wanted.into_iter().map(|id| self.facts_of(id)).collect()
    }

    /// What the index knows of one tensor.
    fn facts_of(&self, id: u64) -> TensorFacts {
        let row = range(&self.rows, &id, |r| r.tensor_id).first();
        let name = |operation_id: u64| match self.operations.binary_search_by_key(&operation_id, |o| o.0) {
            Ok(i) => self.operations[i].1.clone(),
            Err(_) => "".into(),
        };
        let uses = range(&self.uses, &id, |&u| (u >> 64) as u64)
            .iter()
            .map(|&u| TensorUse {
                operation_id: operation_of(u),
                operation_name: name(operation_of(u)),
                output: u & 1 == 1,
            })
            .collect();
        TensorFacts {
            tensor_id: id,
            device_id: row.and_then(|r| r.device_id),
            address: row.and_then(|r| r.address),
            buffer_type: row.and_then(|r| r.buffer_type),
            device_addresses: range(&self.device_places, &id, |p| p.0).iter().map(|p| (p.1, p.2)).collect(),
            uses,
            ..TensorFacts::default()
        }
    }
}

/// The operation id of a [`link_key`].
fn operation_of(key: u128) -> u64 {
    (key as u64) >> 1
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tensor's facts as the test reads them: id, address, links (operation, name, output),
    /// `device_tensors` places.
    type Summary = (u64, Option<u64>, Vec<(u64, String, bool)>, Vec<(u64, u64)>);

    #[test]
    fn a_link_key_sorts_as_its_triple_and_gives_its_operation_back() {
        let big = u64::MAX >> 1;
        let triples = [(2, 0, true), (1, big, false), (1, 5, true), (1, 5, false), (big, 1, false), (1, big, true)];
        let mut by_key: Vec<(u64, u64, bool)> = triples.to_vec();
        by_key.sort_by_key(|&(t, o, out)| link_key(t, o, out));
        let mut by_triple = triples.to_vec();
        by_triple.sort();
        assert_eq!(by_key, by_triple);
        assert!(triples.iter().all(|&(t, o, out)| operation_of(link_key(t, o, out)) == o));
    }

    #[test]
    fn facts_give_each_tensor_its_row_and_its_links_in_operation_order() {
        let row = |tensor_id, address| Placement { tensor_id, device_id: Some(0), address, buffer_type: None };
        let rows = vec![row(3, Some(64)), row(7, Some(64)), row(9, None)];
        let uses = vec![link_key(7, 12, false), link_key(7, 4, true), link_key(3, 2, true), link_key(7, 12, false)];
        let names = |id: u64| -> Arc<str> { format!("op{id}").into() };
        let index = TensorIndex::new(rows, vec![(9, 1, 128)], uses, names);
        let facts = index.facts(&[(0, 64)], &[9]);
        let summary: Vec<Summary> = facts
            .iter()
            .map(|f| {
                let uses = f.uses.iter().map(|u| (u.operation_id, u.operation_name.to_string(), u.output)).collect();
                (f.tensor_id, f.address, uses, f.device_addresses.clone())
            })
            .collect();
        assert_eq!(
            summary,
            vec![
                (3, Some(64), vec![(2, "op2".to_string(), true)], vec![]),
                (7, Some(64), vec![(4, "op4".to_string(), true), (12, "op12".to_string(), false)], vec![]),
                (9, None, vec![], vec![(1, 128)]),
            ]
        );
    }
}
