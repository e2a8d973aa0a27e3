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
