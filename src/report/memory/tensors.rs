//! The tensors the holder rules look at (docs/rules/memory.md §4): those recorded at the addresses of the
//! live buffers (in `tensors` or `device_tensors`), and those named by id, each with every
//! `input_tensors` / `output_tensors` row that mentions it.
//!
//! `tensors` has no index on `address`, and the link tables often none on `tensor_id`. Two ways
//! answer without scanning them per question:
//!
//! * the recent tenants first (`recent.rs`): the link rows of the operations just before
//!   N, found by rowid span, and those tensors' rows by `tensor_id` (its UNIQUE index), in
//!   windows that double, until every live address has a tenant whose production was seen;
//! * else, once per report, an index of every tensor's placement and links — four narrow
//!   columns of `tensors` (one row per tensor, far smaller than `buffers`), `device_tensors` and
//!   the two link tables, each read once — kept with the report for every later question.
//!
//! Shapes and dtypes are read by `tensor_id` only for the tensors that hold a buffer; the
//! `tensors` rows, placements and texts, are read in `tensor_rows.rs`.

use super::tensor_index::{Placement, TensorIndex};
use super::walk::Walk;
use crate::analysis::memory::{TensorFacts, TensorUse};
use crate::analysis::model::{Operation, operation_index};
use crate::report::database::uint;
use crate::report::id_lists::{IN_LIST_CHUNK, id_list};
use crate::report::store::Store;
use rusqlite::params;
use std::cell::{Cell, OnceCell, RefCell};
use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

/// Past this many places to attribute over the whole run, the index of every tensor answers
/// (one pass over the tensor tables) rather than lists of addresses and ids.
const MAX_PLACES: usize = 2000;

/// What [`Tensors`] keeps with the report between questions (a watched report drops it when
/// tensors are added): the index of every tensor's placement and links, built on the first
/// question that needs it, and the complete facts of tensors named by id that the recent
/// tenants' walk did not see produced (`recent.rs`), each read once.
#[derive(Debug, Default)]
pub(crate) struct TensorCache {
    index: OnceCell<TensorIndex>,
    named: RefCell<HashMap<u64, TensorFacts>>,
    /// The passes over the link tables made for `named`.
    passes: Cell<usize>,
    /// The `tensors` rows read by id so far (none: the tensor has no row): the walks back of
    /// neighbouring questions read mostly the same tensors.
    pub(super) placed: RefCell<HashMap<u64, Option<Placement>>>,
    /// The last walk back of the recent tenants (`recent.rs`).
    pub(super) walk: RefCell<Option<Walk>>,
    /// Whether a `tensors` row is found by its id alone: an index on `tensor_id`, no `rank`.
    pub(super) by_id: OnceCell<bool>,
    /// Whether `device_tensors` has an index on `address` (`recent.rs`).
    pub(super) device_by_address: OnceCell<bool>,
}

/// Reads of named tensors by id (each a pass over the link tables, which have no index on
/// `tensor_id`) before the index of every tensor, built once, is the cheaper way.
const NAMED_PASSES: usize = 2;

impl TensorCache {
    /// Whether the index of every tensor was built.
    pub(super) fn index_built(&self) -> bool {
        self.index.get().is_some()
    }
}

/// Tensors and their links (docs/rules/memory.md §4): the tensors at the live addresses and those named,
/// each with its link rows; their shapes and dtypes; the tensors of shown operations and the
/// DRAM-fallback records (`operation_tensors.rs`). A question asked of the report's store for its
/// operations, with the index it builds once.
pub struct Tensors<'a> {
    pub(super) store: &'a Store,
    pub(super) operations: &'a [Operation],
    pub(super) cache: &'a TensorCache,
}

impl Tensors<'_> {
    /// The tensors recorded at any (device, address) of `places`, and the tensors `ids`, with
    /// their rows in the link tables; without shape and dtype (see [`Self::describe`]).
    /// The recent tenants of operation `n` (by index) are tried first.
    pub(crate) fn facts(&self, n: usize, places: &[(u64, u64)], ids: &[u64]) -> rusqlite::Result<Vec<TensorFacts>> {
        self.facts_at_failure(n, places, &[], ids)
    }

    /// [`Self::facts`] at a failure: `places` whose tenants hold earlier buffers, and `own`, the
    /// places of buffers the failed operation allocated, whose tensor its graph names
    /// (docs/rules/memory.md §4): their tensors are looked at too, but the recent tenants' walk
    /// does not go back for them (an intermediate's address may never have held a tensor).
    pub(crate) fn facts_at_failure(
        &self,
        n: usize,
        places: &[(u64, u64)],
        own: &[(u64, u64)],
        ids: &[u64],
    ) -> rusqlite::Result<Vec<TensorFacts>> {
        if self.cache.index.get().is_none()
            && let Some(facts) = self.recent_tensor_facts(n, places, own, ids)?
        {
            return Ok(facts);
        }
        let at = self.operations.get(n).map(|o| o.id);
        let all: Vec<(u64, u64)> = places.iter().chain(own).copied().collect();
        Ok(self.index()?.facts(&all, ids, at))
    }

    /// The index of every tensor's placement and links: built on the first call, then kept.
    fn index(&self) -> rusqlite::Result<&TensorIndex> {
        if let Some(index) = self.cache.index.get() {
            return Ok(index);
        }
        let built = self.build_tensor_index()?;
        Ok(self.cache.index.get_or_init(|| built))
    }

    /// Whether every fact of a tensor was read by id before ([`Self::complete_facts`]).
    pub(super) fn kept_facts(&self) -> impl Fn(u64) -> bool + '_ {
        |id| self.cache.named.borrow().contains_key(&id)
    }

    /// Every fact of the tensors `ids` over the whole run — their `tensors` and `device_tensors`
    /// rows and every link row, as the index gives them — read by id (the link tables filtered
    /// by SQLite, one pass each, for the ids not read before) and kept; none once reading them so
    /// would have cost more passes than [`NAMED_PASSES`] (the index is then the cheaper way).
    pub(super) fn complete_facts(&self, ids: &[u64]) -> rusqlite::Result<Option<Vec<TensorFacts>>> {
        if let Some(index) = self.cache.index.get() {
            return Ok(Some(index.facts(&[], ids, None)));
        }
        let unread: Vec<u64> = {
            let named = self.cache.named.borrow();
            ids.iter().copied().filter(|id| !named.contains_key(id)).collect::<BTreeSet<u64>>().into_iter().collect()
        };
        if !unread.is_empty() {
            if self.cache.passes.get() >= NAMED_PASSES {
                return Ok(None);
            }
            self.cache.passes.set(self.cache.passes.get() + 1);
            let rows: HashMap<u64, Placement> =
                self.placements_by_id(&unread)?.into_iter().map(|p| (p.tensor_id, p)).collect();
            let mut device_places = self.device_tensors_of(&unread)?;
            for places in device_places.values_mut() {
                places.sort_unstable();
                places.dedup();
            }
            let mut uses = self.links_of(&unread)?;
            let mut named = self.cache.named.borrow_mut();
            for id in unread {
                named.insert(id, whole_run_facts(id, rows.get(&id), &mut device_places, &mut uses));
            }
        }
        let named = self.cache.named.borrow();
        Ok(Some(ids.iter().filter_map(|id| named.get(id).cloned()).collect()))
    }

    /// One pass over `tensors`, `device_tensors`, `input_tensors` and `output_tensors`.
    pub(super) fn build_tensor_index(&self) -> rusqlite::Result<TensorIndex> {
        let mut device_places = Vec::new();
        if self.store.schema.has_table("device_tensors") {
            let columns = self
                .store
                .schema
                .select_list("device_tensors", &[("tensor_id", "0"), ("device_id", "0"), ("address", "NULL")]);
            let mut stmt =
                self.store.conn.prepare(&format!("SELECT {columns} FROM device_tensors WHERE address IS NOT NULL"))?;
            let mut rows = stmt.query([])?;
            while let Some(r) = rows.next()? {
                device_places.push((uint(r.get_ref(0)?), uint(r.get_ref(1)?), uint(r.get_ref(2)?)));
            }
        }
        let mut uses = Vec::new();
        for (table, output) in [("input_tensors", false), ("output_tensors", true)] {
            if !self.store.schema.has_table(table) {
                continue;
            }
            let columns = self.store.schema.select_list(table, &[("tensor_id", "0"), ("operation_id", "0")]);
            let ranked = self.store.schema.rank_filter(table);
            let mut stmt = self.store.conn.prepare(&format!("SELECT {columns} FROM {table} WHERE {ranked}"))?;
            let mut rows = stmt.query(params![self.store.rank])?;
            while let Some(r) = rows.next()? {
                uses.push((uint(r.get_ref(0)?), uint(r.get_ref(1)?), output));
            }
        }
        let name_of = |operation| {
            operation_index(self.operations, operation)
                .map_or_else(|| Arc::from(""), |i| self.operations[i].name.clone())
        };
        Ok(TensorIndex::new(self.placements("1")?, device_places, uses, name_of))
    }

    /// Every tensor ever recorded at `places` (every tenant over the whole run, not the recent
    /// ones), with its links: read by address and by id when the places are few, else from the
    /// report's index of every tensor (built once).
    pub(crate) fn every_tenant_at(&self, places: &[(u64, u64)]) -> rusqlite::Result<Vec<TensorFacts>> {
        if places.len() > MAX_PLACES || self.cache.index.get().is_some() {
            return Ok(self.index()?.facts(places, &[], None));
        }
        let wanted: BTreeSet<(u64, u64)> = places.iter().copied().collect();
        let addresses: BTreeSet<u64> = places.iter().map(|p| p.1).collect();
        let mut device_places = self.device_tensors_at(places)?;
        let mut rows: HashMap<u64, Placement> = HashMap::new();
        for p in self.placements(&format!("address IN ({})", id_list(addresses.iter().copied())))? {
            if p.device_id.zip(p.address).is_some_and(|place| wanted.contains(&place)) {
                rows.insert(p.tensor_id, p);
            }
        }
        let only_device: Vec<u64> = device_places.keys().filter(|id| !rows.contains_key(id)).copied().collect();
        rows.extend(self.placements_by_id(&only_device)?.into_iter().map(|p| (p.tensor_id, p)));
        let ids: Vec<u64> =
            rows.keys().chain(device_places.keys()).copied().collect::<BTreeSet<u64>>().into_iter().collect();
        let mut uses = self.links_of(&ids)?;
        Ok(ids.into_iter().map(|id| whole_run_facts(id, rows.get(&id), &mut device_places, &mut uses)).collect())
    }

    /// The `input_tensors` and `output_tensors` rows of some tensors, by tensor.
    fn links_of(&self, ids: &[u64]) -> rusqlite::Result<HashMap<u64, Vec<TensorUse>>> {
        let mut uses: HashMap<u64, Vec<TensorUse>> = HashMap::new();
        for (table, output) in [("input_tensors", false), ("output_tensors", true)] {
            if !self.store.schema.has_table(table) || ids.is_empty() {
                continue;
            }
            let columns = self.store.schema.select_list(table, &[("tensor_id", "0"), ("operation_id", "0")]);
            let ranked = self.store.schema.rank_filter(table);
            for chunk in ids.chunks(IN_LIST_CHUNK) {
                let sql = format!(
                    "SELECT {columns} FROM {table} WHERE tensor_id IN ({}) AND {ranked}",
                    id_list(chunk.iter().copied())
                );
                let mut stmt = self.store.conn.prepare(&sql)?;
                let mut found = stmt.query(params![self.store.rank])?;
                while let Some(r) = found.next()? {
                    let operation_id = uint(r.get_ref(1)?);
                    let operation_name = operation_index(self.operations, operation_id)
                        .map_or_else(|| Arc::from(""), |i| self.operations[i].name.clone());
                    let used = TensorUse { operation_id, operation_name, output };
                    uses.entry(uint(r.get_ref(0)?)).or_default().push(used);
                }
            }
        }
        Ok(uses)
    }
}

/// A tensor's facts over the whole run from its `tensors` row, and its `device_tensors` and link
/// rows (taken out of the maps): uses in (operation, output) order, each once, as the index keeps
/// them.
fn whole_run_facts(
    id: u64,
    row: Option<&Placement>,
    device_places: &mut HashMap<u64, Vec<(u64, u64)>>,
    uses: &mut HashMap<u64, Vec<TensorUse>>,
) -> TensorFacts {
    let mut uses = uses.remove(&id).unwrap_or_default();
    uses.sort_by_key(|u| (u.operation_id, u.output));
    uses.dedup();
    TensorFacts {
        tensor_id: id,
        device_id: row.and_then(|r| r.device_id),
        address: row.and_then(|r| r.address),
        buffer_type: row.and_then(|r| r.buffer_type),
        device_addresses: device_places.remove(&id).unwrap_or_default(),
        uses,
        ..TensorFacts::default()
    }
}
