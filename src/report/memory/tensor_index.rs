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

/// Every tensor's placement and links; built once per report. Sorted vectors searched by
/// halves, no hash maps: on a report of 200 000 tensors and 400 000 link rows, hashing was a
/// fifth of the build (docs/performance.md, issue 29). Operation names are made once, at the
/// build: made per fact, they cost more than the maps on a report of 80 failures.
#[derive(Debug, Default)]
pub(crate) struct TensorIndex {
    /// `tensors` rows of the rank (else rank 0), one per tensor, sorted by tensor id.
    rows: Vec<Placement>,
    /// (device, address, tensor id) of every recorded placement, `device_tensors` included,
    /// sorted.
    places: Vec<(u64, u64, u64)>,
    /// (tensor id, device, address) of the `device_tensors` rows, sorted.
    device_places: Vec<(u64, u64, u64)>,
    /// (tensor id, operation id, output) of the link rows, sorted.
    uses: Vec<(u64, u64, bool)>,
    /// The name of the operation of each link row (same order as `uses`): one shared copy per
    /// operation, found once at the build and cloned into every fact (a reused address may
    /// have had thousands of tenants, asked of at every failure).
    use_names: Vec<Arc<str>>,
}

/// The items of a slice sorted by `key` whose key is `wanted`.
fn range<'a, T, K: Ord>(items: &'a [T], wanted: &K, key: impl Fn(&T) -> K) -> &'a [T] {
    let start = items.partition_point(|t| key(t) < *wanted);
    let end = start + items[start..].partition_point(|t| key(t) == *wanted);
    &items[start..end]
}

impl TensorIndex {
    /// The index of `tensors` rows (one per tensor, sorted by id, as `Tensors::placements`
    /// gives them), `device_tensors` rows (tensor, device, address) and link rows (tensor,
    /// operation, output).
    pub(crate) fn new(
        mut rows: Vec<Placement>,
        mut device_places: Vec<(u64, u64, u64)>,
        mut uses: Vec<(u64, u64, bool)>,
        name_of: impl Fn(u64) -> Arc<str>,
    ) -> Self {
        // One row per tensor id, the first kept (already so from `placements`: checked, not assumed).
        if !rows.is_sorted_by(|a, b| a.tensor_id < b.tensor_id) {
            rows.sort_by_key(|r| r.tensor_id);
            rows.dedup_by_key(|r| r.tensor_id);
        }
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
        let mut operations: Vec<u64> = uses.iter().map(|u| u.1).collect();
        operations.sort_unstable();
        operations.dedup();
        let names: Vec<(u64, Arc<str>)> = operations.into_iter().map(|o| (o, name_of(o))).collect();
        let use_names = uses
            .iter()
            .map(|u| range(&names, &u.1, |n| n.0).first().map_or_else(|| "".into(), |n| n.1.clone()))
            .collect();
        Self { rows, places, device_places, uses, use_names }
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
        let start = self.uses.partition_point(|u| u.0 < id);
        let end = start + self.uses[start..].partition_point(|u| u.0 == id);
        let uses = self.uses[start..end]
            .iter()
            .zip(&self.use_names[start..end])
            .map(|(&(_, operation_id, output), name)| TensorUse { operation_id, operation_name: name.clone(), output })
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
