//! The tensors the holder rules look at (memory.md §4): those recorded at the addresses of the
//! live buffers (in `tensors` or `device_tensors`), and those named by id, each with every
//! `input_tensors` / `output_tensors` row that mentions it.
//!
//! `tensors` has no index on `address`, and the link tables often none on `tensor_id`. Two ways
//! answer without scanning them per question:
//!
//! * the recent tenants first (`memory_recent.rs`): the link rows of the operations just before
//!   N, found by rowid span, and those tensors' rows by `tensor_id` (its UNIQUE index), in
//!   windows that double, until every live address has a tenant whose production was seen;
//! * else, once per report, an index of every tensor's placement and links — four narrow
//!   columns of `tensors` (one row per tensor, far smaller than `buffers`), `device_tensors` and
//!   the two link tables, each read once — kept with the report for every later question.
//!
//! Shapes and dtypes are read by `tensor_id` only for the tensors that hold a buffer.

use super::database::{int, text, uint};
use super::details::buffer_type;
use super::memory::MemoryReport;
use crate::analysis::failure::BufferType;
use crate::analysis::memory::{TensorFacts, TensorUse};
use crate::analysis::sanitize::sanitize_line;
use rusqlite::params;
use rusqlite::types::ValueRef;
use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

/// How many values go into one `IN (…)` list.
const CHUNK: usize = 500;

fn list(values: &[u64]) -> String {
    values.iter().map(u64::to_string).collect::<Vec<_>>().join(",")
}

/// A tensor's shape and dtype, as printed.
pub(crate) type TensorTexts = (Option<String>, Option<String>);

/// A `tensors` row as the index keeps it: where the tensor was first recorded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(super) struct Placement {
    pub(super) tensor_id: u64,
    pub(super) device_id: Option<u64>,
    pub(super) address: Option<u64>,
    pub(super) buffer_type: Option<BufferType>,
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
    /// (tensor id, operation id, output) of the link rows, sorted.
    uses: Vec<(u64, u64, bool)>,
    /// Where each tensor's links start and end in `uses`.
    use_ranges: HashMap<u64, (usize, usize)>,
    /// The names of the operations in `uses`.
    operations: HashMap<u64, Arc<str>>,
}

/// The items of a slice sorted by `key` whose key is `wanted`.
fn range<'a, T, K: Ord>(items: &'a [T], wanted: &K, key: impl Fn(&T) -> K) -> &'a [T] {
    let start = items.partition_point(|t| key(t) < *wanted);
    let end = start + items[start..].partition_point(|t| key(t) == *wanted);
    &items[start..end]
}

impl MemoryReport {
    /// The tensors recorded at any (device, address) of `places`, and the tensors `ids`, with
    /// their rows in the link tables; without shape and dtype (see [`Self::describe_tensors`]).
    /// The recent tenants of operation `n` (by index) are tried first.
    pub(crate) fn tensor_facts(
        &self,
        n: usize,
        places: &[(u64, u64)],
        ids: &[u64],
    ) -> rusqlite::Result<Vec<TensorFacts>> {
        if self.tensor_index.get().is_none() {
            if let Some(facts) = self.recent_tensor_facts(n, places, ids)? {
                return Ok(facts);
            }
            let built = self.build_tensor_index()?;
            let _ = self.tensor_index.set(built);
        }
        let index = self.tensor_index.get().expect("built above");
        let mut wanted: BTreeSet<u64> = ids.iter().copied().collect();
        for &(device, address) in places {
            wanted.extend(range(&index.places, &(device, address), |p| (p.0, p.1)).iter().map(|p| p.2));
        }
        Ok(wanted
            .into_iter()
            .map(|id| {
                let row = index.rows.get(&id);
                let (start, end) = index.use_ranges.get(&id).copied().unwrap_or_default();
                let uses = index.uses[start..end]
                    .iter()
                    .map(|&(_, operation_id, output)| TensorUse {
                        operation_id,
                        operation_name: index.operations.get(&operation_id).cloned().unwrap_or_else(|| "".into()),
                        output,
                    })
                    .collect();
                TensorFacts {
                    tensor_id: id,
                    device_id: row.and_then(|r| r.device_id),
                    address: row.and_then(|r| r.address),
                    buffer_type: row.and_then(|r| r.buffer_type),
                    device_addresses: range(&index.device_places, &id, |p| p.0).iter().map(|p| (p.1, p.2)).collect(),
                    uses,
                    ..TensorFacts::default()
                }
            })
            .collect())
    }

    /// One pass over `tensors`, `device_tensors`, `input_tensors` and `output_tensors`.
    pub(super) fn build_tensor_index(&self) -> rusqlite::Result<TensorIndex> {
        let mut index = TensorIndex {
            rows: self.placements("1")?.into_iter().map(|p| (p.tensor_id, p)).collect(),
            ..TensorIndex::default()
        };
        if self.schema.has_table("device_tensors") {
            let columns = self
                .schema
                .select_list("device_tensors", &[("tensor_id", "0"), ("device_id", "0"), ("address", "NULL")]);
            let mut stmt =
                self.conn.prepare(&format!("SELECT {columns} FROM device_tensors WHERE address IS NOT NULL"))?;
            let mut rows = stmt.query([])?;
            while let Some(r) = rows.next()? {
                index.device_places.push((uint(r.get_ref(0)?), uint(r.get_ref(1)?), uint(r.get_ref(2)?)));
            }
        }
        index.device_places.sort_unstable();
        index.device_places.dedup();
        index.places = index
            .rows
            .values()
            .filter_map(|r| Some((r.device_id?, r.address?, r.tensor_id)))
            .chain(index.device_places.iter().map(|&(t, d, a)| (d, a, t)))
            .collect();
        index.places.sort_unstable();
        index.places.dedup();
        for (table, output) in [("input_tensors", false), ("output_tensors", true)] {
            if !self.schema.has_table(table) {
                continue;
            }
            let columns = self.schema.select_list(table, &[("tensor_id", "0"), ("operation_id", "0")]);
            let ranked = self.schema.rank_filter(table);
            let mut stmt = self.conn.prepare(&format!("SELECT {columns} FROM {table} WHERE {ranked}"))?;
            let mut rows = stmt.query(params![self.rank])?;
            while let Some(r) = rows.next()? {
                index.uses.push((uint(r.get_ref(0)?), uint(r.get_ref(1)?), output));
            }
        }
        index.uses.sort_unstable();
        index.uses.dedup();
        for (i, chunk) in index.uses.chunk_by(|a, b| a.0 == b.0).scan(0, |at, c| {
            let start = *at;
            *at += c.len();
            Some((start, c))
        }) {
            index.use_ranges.insert(chunk[0].0, (i, i + chunk.len()));
        }
        for &(_, operation, _) in &index.uses {
            index.operations.entry(operation).or_insert_with(|| {
                Arc::from(self.operation_index(operation).map_or("", |i| self.operations[i].name.as_str()))
            });
        }
        Ok(index)
    }

    /// The `tensors` rows matching `condition` as placements, the report's rank before rank 0.
    pub(super) fn placements(&self, condition: &str) -> rusqlite::Result<Vec<Placement>> {
        if !self.schema.has_table("tensors") {
            return Ok(Vec::new());
        }
        let columns = self.schema.select_list(
            "tensors",
            &[("tensor_id", "0"), ("device_id", "NULL"), ("address", "NULL"), ("buffer_type", "NULL"), ("rank", "0")],
        );
        let ranks = if self.schema.has_column("tensors", "rank") { "(rank = ?1 OR rank = 0)" } else { "(1 OR ?1)" };
        let sql = format!("SELECT {columns} FROM tensors WHERE ({condition}) AND {ranks} ORDER BY rowid");
        let mut stmt = self.conn.prepare(&sql)?;
        let mut rows = stmt.query(params![self.rank])?;
        let mut ranked: Vec<(u64, bool, usize, Placement)> = Vec::new();
        while let Some(r) = rows.next()? {
            let optional = |v: ValueRef<'_>| (!matches!(v, ValueRef::Null)).then(|| uint(v));
            let address = optional(r.get_ref(2)?);
            let placement = Placement {
                tensor_id: uint(r.get_ref(0)?),
                device_id: optional(r.get_ref(1)?),
                address,
                buffer_type: address.and_then(|_| buffer_type(r.get_ref(3).ok()?).ok()),
            };
            // Rows of the report's rank come before rank 0's; then table order.
            let own_rank = int(r.get_ref(4)?) as u32 == self.rank;
            ranked.push((placement.tensor_id, !own_rank, ranked.len(), placement));
        }
        ranked.sort_unstable_by_key(|r| (r.0, r.1, r.2));
        ranked.dedup_by_key(|r| r.0);
        Ok(ranked.into_iter().map(|r| r.3).collect())
    }

    /// The `tensors` rows of some ids, by the UNIQUE index on `tensor_id`.
    pub(super) fn placements_by_id(&self, ids: &[u64]) -> rusqlite::Result<Vec<Placement>> {
        let mut out = Vec::new();
        for chunk in ids.chunks(CHUNK) {
            out.extend(self.placements(&format!("tensor_id IN ({})", list(chunk)))?);
        }
        Ok(out)
    }

    /// The shape and dtype of some tensors, by id (their `tensors` rows, by the UNIQUE index).
    pub(crate) fn describe_tensors(&self, ids: &[u64]) -> rusqlite::Result<HashMap<u64, TensorTexts>> {
        let mut out = HashMap::new();
        for chunk in ids.chunks(CHUNK) {
            out.extend(self.tensor_texts(&format!("tensor_id IN ({})", list(chunk)))?);
        }
        Ok(out)
    }

    /// (shape, dtype) of the `tensors` rows matching `condition`, of the report's rank or else
    /// rank 0, by tensor id.
    fn tensor_texts(&self, condition: &str) -> rusqlite::Result<HashMap<u64, TensorTexts>> {
        let mut by_id: HashMap<u64, (bool, TensorTexts)> = HashMap::new();
        if !self.schema.has_table("tensors") {
            return Ok(HashMap::new());
        }
        let columns =
            self.schema.select_list("tensors", &[("tensor_id", "0"), ("shape", "''"), ("dtype", "''"), ("rank", "0")]);
        let ranks = if self.schema.has_column("tensors", "rank") { "(rank = ?1 OR rank = 0)" } else { "(1 OR ?1)" };
        let sql = format!("SELECT {columns} FROM tensors WHERE {condition} AND {ranks} ORDER BY rowid");
        let mut stmt = self.conn.prepare(&sql)?;
        let mut rows = stmt.query(params![self.rank])?;
        while let Some(r) = rows.next()? {
            let texts = |i: usize| -> rusqlite::Result<Option<String>> {
                let t = sanitize_line(&text(r.get_ref(i)?));
                Ok((!t.is_empty()).then_some(t))
            };
            let own_rank = int(r.get_ref(3)?) as u32 == self.rank;
            let entry = (own_rank, (texts(1)?, texts(2)?));
            // The first row of the report's rank wins, else the first of rank 0.
            match by_id.get(&uint(r.get_ref(0)?)) {
                Some((kept, _)) if *kept || !own_rank => {}
                _ => {
                    by_id.insert(uint(r.get_ref(0)?), entry);
                }
            }
        }
        Ok(by_id.into_iter().map(|(id, (_, t))| (id, t)).collect())
    }
}
