//! Every tensor's placement and links, as one index built once per report from four narrow
//! columns (`tensors`, `device_tensors`, `input_tensors`, `output_tensors`) and kept with the
//! report's core for every later question about memory (docs/rules/memory.md §4). Reading the rows is
//! `tensors.rs`'s; this is what is kept and how it answers.

use crate::analysis::memory::failure::holders::{is_deallocate, may_matter_at};
use crate::analysis::memory::{TensorFacts, TensorUse};
use crate::analysis::messages::failure::BufferType;
use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

/// A `tensors` row as the index keeps it: where the tensor was first recorded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Placement {
    pub(crate) tensor_id: u64,
    pub(crate) device_id: Option<u64>,
    pub(crate) address: Option<u64>,
    pub(crate) buffer_type: Option<BufferType>,
}

/// Where a tensor's links are in the index's `uses`, and what [`may_matter_at`] asks of them.
#[derive(Debug, Clone, Copy)]
struct Links {
    start: usize,
    end: usize,
    /// The first deallocation that took it as input.
    freed: Option<u64>,
    /// Whether its producer has other outputs.
    shares_producer: bool,
}

/// Every tensor's placement and links; built once per report.
#[derive(Debug, Default)]
pub(crate) struct TensorIndex {
    /// `tensors` rows of the rank (else rank 0), by tensor id.
    rows: HashMap<u64, Placement>,
    /// (device, address, tensor id) of every recorded placement, `device_tensors` included,
    /// sorted.
    places: Vec<(u64, u64, u64)>,
    /// (tensor id, device, address) of the `device_tensors` rows, sorted.
    device_places: Vec<(u64, u64, u64)>,
    /// (tensor id, operation id, output) of the link rows, sorted: a tensor's first is its first
    /// sighting.
    uses: Vec<(u64, u64, bool)>,
    /// Each tensor's links in `uses`.
    links: HashMap<u64, Links>,
    /// The names of the operations in `uses`.
    operations: HashMap<u64, Arc<str>>,
}

/// The items of a slice sorted by `key` whose key is `wanted`.
fn range<'a, T, K: Ord>(items: &'a [T], wanted: &K, key: impl Fn(&T) -> K) -> &'a [T] {
    let start = items.partition_point(|t| key(t) < *wanted);
    let end = start + items[start..].partition_point(|t| key(t) == *wanted);
    &items[start..end]
}

impl TensorIndex {
    /// The index of `tensors` rows (one per tensor), `device_tensors` rows (tensor, device,
    /// address) and link rows (tensor, operation, output), naming operations by `name_of`.
    pub(crate) fn new(
        rows: Vec<Placement>,
        mut device_places: Vec<(u64, u64, u64)>,
        mut uses: Vec<(u64, u64, bool)>,
        name_of: impl Fn(u64) -> Arc<str>,
    ) -> Self {
        let rows: HashMap<u64, Placement> = rows.into_iter().map(|p| (p.tensor_id, p)).collect();
        device_places.sort_unstable();
        device_places.dedup();
        let mut places: Vec<(u64, u64, u64)> = rows
            .values()
            .filter_map(|r| Some((r.device_id?, r.address?, r.tensor_id)))
            .chain(device_places.iter().map(|&(t, d, a)| (d, a, t)))
            .collect();
        places.sort_unstable();
        places.dedup();
        uses.sort_unstable();
        uses.dedup();
        let mut operations = HashMap::new();
        let mut outputs: HashMap<u64, usize> = HashMap::new();
        for &(_, operation, output) in &uses {
            operations.entry(operation).or_insert_with(|| name_of(operation));
            *outputs.entry(operation).or_default() += usize::from(output);
        }
        let mut links = HashMap::new();
        let mut start = 0;
        for chunk in uses.chunk_by(|a, b| a.0 == b.0) {
            let deallocation = |l: &&(u64, u64, bool)| !l.2 && operations.get(&l.1).is_some_and(|n| is_deallocate(n));
            let freed = chunk.iter().filter(deallocation).map(|l| l.1).min();
            let producer = chunk.iter().filter(|l| l.2).map(|l| l.1).min();
            let shares_producer = producer.is_some_and(|p| outputs.get(&p).is_some_and(|&count| count > 1));
            links.insert(chunk[0].0, Links { start, end: start + chunk.len(), freed, shares_producer });
            start += chunk.len();
        }
        Self { rows, places, device_places, uses, links, operations }
    }

    /// The tensors recorded at any (device, address) of `places`, and the tensors `ids`, with
    /// their link rows; without shape and dtype. With `at` (an operation id), a tensor found at
    /// a place is kept only when it may matter to the memory at that operation
    /// ([`may_matter_at`]): at a much-reused address the others are thousands.
    pub(crate) fn facts(&self, places: &[(u64, u64)], ids: &[u64], at: Option<u64>) -> Vec<TensorFacts> {
        let mut wanted: BTreeSet<u64> = ids.iter().copied().collect();
        let matters = |id: u64| {
            at.is_none_or(|n| match self.links.get(&id) {
                Some(l) => may_matter_at(n, Some(self.uses[l.start].1), l.freed, l.shares_producer),
                None => may_matter_at(n, None, None, false),
            })
        };
        for &(device, address) in places {
            let found = range(&self.places, &(device, address), |p| (p.0, p.1)).iter().map(|p| p.2);
            wanted.extend(found.filter(|&id| matters(id)));
        }
        wanted.into_iter().map(|id| self.facts_of(id)).collect()
    }

    /// What the index knows of one tensor.
    fn facts_of(&self, id: u64) -> TensorFacts {
        let row = self.rows.get(&id);
        let (start, end) = self.links.get(&id).map_or((0, 0), |l| (l.start, l.end));
        let uses = self.uses[start..end]
            .iter()
            .map(|&(_, operation_id, output)| TensorUse {
                operation_id,
                operation_name: self.operations.get(&operation_id).cloned().unwrap_or_else(|| "".into()),
                output,
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
