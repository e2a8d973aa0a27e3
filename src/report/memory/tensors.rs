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
//! Shapes and dtypes are read by `tensor_id` only for the tensors that hold a buffer.

use super::tensor_index::{Placement, TensorIndex};
use super::walk::Walk;
use crate::analysis::memory::{TensorFacts, TensorUse};
use crate::analysis::model::{Operation, operation_index};
use crate::analysis::sanitize::sanitize_line;
use crate::report::database::{buffer_type, int, tables_indexed_by, text, uint};
use crate::report::id_lists::{IN_LIST_CHUNK, id_list, id_runs, long_list};
use crate::report::store::Store;
use rusqlite::params;
use rusqlite::types::ValueRef;
use std::cell::{Cell, OnceCell, RefCell};
use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::Arc;

/// Past this many places to attribute over the whole run, the index of every tensor answers
/// (one pass over the tensor tables) rather than lists of addresses and ids.
const MAX_PLACES: usize = 2000;

/// A tensor's shape and dtype, as printed.
pub(crate) type TensorTexts = (Option<String>, Option<String>);

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
    placed: RefCell<HashMap<u64, Option<Placement>>>,
    /// The last walk back of the recent tenants (`recent.rs`).
    pub(super) walk: RefCell<Option<Walk>>,
    /// Whether a `tensors` row is found by its id alone: an index on `tensor_id`, no `rank`.
    by_id: OnceCell<bool>,
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

    /// Whether a `tensors` row is found by its id alone (asked of the schema once).
    fn rows_by_id(&self) -> rusqlite::Result<bool> {
        if let Some(&by_id) = self.cache.by_id.get() {
            return Ok(by_id);
        }
        let schema = &self.store.schema;
        let by_id = schema.has_table("tensors")
            && !schema.has_column("tensors", "rank")
            && tables_indexed_by(&self.store.conn, "tensor_id")?.iter().any(|t| t == "tensors");
        Ok(*self.cache.by_id.get_or_init(|| by_id))
    }

    /// The `tensors` rows matching `condition` as placements, the report's rank before rank 0.
    pub(super) fn placements(&self, condition: &str) -> rusqlite::Result<Vec<Placement>> {
        if !self.store.schema.has_table("tensors") {
            return Ok(Vec::new());
        }
        let columns = self.store.schema.select_list(
            "tensors",
            &[("tensor_id", "0"), ("device_id", "NULL"), ("address", "NULL"), ("buffer_type", "NULL"), ("rank", "0")],
        );
        let ranks =
            if self.store.schema.has_column("tensors", "rank") { "(rank = ?1 OR rank = 0)" } else { "(1 OR ?1)" };
        let sql = format!("SELECT {columns} FROM tensors WHERE ({condition}) AND {ranks} ORDER BY rowid");
        let mut stmt = self.store.conn.prepare(&sql)?;
        let mut rows = stmt.query(params![self.store.rank])?;
        let mut ranked: Vec<(u64, bool, usize, Placement)> = Vec::new();
        while let Some(r) = rows.next()? {
            let placement = placement(r)?;
            // Rows of the report's rank come before rank 0's; then table order.
            let own_rank = int(r.get_ref(4)?) as u32 == self.store.rank;
            ranked.push((placement.tensor_id, !own_rank, ranked.len(), placement));
        }
        ranked.sort_unstable_by_key(|r| (r.0, r.1, r.2));
        ranked.dedup_by_key(|r| r.0);
        Ok(ranked.into_iter().map(|r| r.3).collect())
    }

    /// The `tensors` rows of some ids, by the UNIQUE index on `tensor_id`, each read once for
    /// the report; one per tensor, by id.
    pub(super) fn placements_by_id(&self, ids: &[u64]) -> rusqlite::Result<Vec<Placement>> {
        let unread: Vec<u64> = {
            let placed = self.cache.placed.borrow();
            ids.iter().copied().filter(|id| !placed.contains_key(id)).collect()
        };
        let mut read = Vec::new();
        if self.rows_by_id()? {
            // One range of the UNIQUE index for each run of neighbouring ids (a few ids not asked
            // for skipped), an `IN` list costing a statement prepared and a sort.
            let columns = self.store.schema.select_list(
                "tensors",
                &[("tensor_id", "0"), ("device_id", "NULL"), ("address", "NULL"), ("buffer_type", "NULL")],
            );
            let sql = format!("SELECT {columns} FROM tensors WHERE tensor_id >= ?1 AND tensor_id <= ?2");
            let mut stmt = self.store.conn.prepare_cached(&sql)?;
            let wanted: BTreeSet<u64> = unread.iter().copied().collect();
            for (first, last) in id_runs(&wanted) {
                let bound = |id: u64| i64::try_from(id).unwrap_or(i64::MAX);
                let mut rows = stmt.query([bound(first), bound(last)])?;
                while let Some(r) = rows.next()? {
                    let p = placement(r)?;
                    if wanted.contains(&p.tensor_id) {
                        read.push(p);
                    }
                }
            }
        } else {
            for chunk in unread.chunks(IN_LIST_CHUNK) {
                read.extend(self.placements(&format!("tensor_id IN ({})", id_list(chunk.iter().copied())))?);
            }
        }
        let mut placed = self.cache.placed.borrow_mut();
        placed.extend(unread.iter().map(|&id| (id, None)));
        placed.extend(read.into_iter().map(|p| (p.tensor_id, Some(p))));
        let ids: BTreeSet<u64> = ids.iter().copied().collect();
        Ok(ids.iter().filter_map(|id| placed.get(id).copied().flatten()).collect())
    }

    /// The shape and dtype of some tensors, by id (their `tensors` rows, by the UNIQUE index).
    /// A list of ids longer than the table has rows is not written as SQL: the table is read
    /// once and the ids kept ([`long_list`]).
    pub(crate) fn describe(&self, ids: &[u64]) -> rusqlite::Result<HashMap<u64, TensorTexts>> {
        if long_list(&self.store.conn, "tensors", ids.len())? {
            let wanted: HashSet<u64> = ids.iter().copied().collect();
            return self.tensor_texts("1", Some(&wanted));
        }
        let mut out = HashMap::new();
        for chunk in ids.chunks(IN_LIST_CHUNK) {
            out.extend(self.tensor_texts(&format!("tensor_id IN ({})", id_list(chunk.iter().copied())), None)?);
        }
        Ok(out)
    }

    /// (shape, dtype) of the `tensors` rows matching `condition` (and of an id in `wanted`, when
    /// given), of the report's rank or else rank 0, by tensor id.
    fn tensor_texts(
        &self,
        condition: &str,
        wanted: Option<&HashSet<u64>>,
    ) -> rusqlite::Result<HashMap<u64, TensorTexts>> {
        let mut by_id: HashMap<u64, (bool, TensorTexts)> = HashMap::new();
        if !self.store.schema.has_table("tensors") {
            return Ok(HashMap::new());
        }
        let columns = self
            .store
            .schema
            .select_list("tensors", &[("tensor_id", "0"), ("shape", "''"), ("dtype", "''"), ("rank", "0")]);
        let ranks =
            if self.store.schema.has_column("tensors", "rank") { "(rank = ?1 OR rank = 0)" } else { "(1 OR ?1)" };
        let sql = format!("SELECT {columns} FROM tensors WHERE {condition} AND {ranks} ORDER BY rowid");
        let mut stmt = self.store.conn.prepare(&sql)?;
        let mut rows = stmt.query(params![self.store.rank])?;
        while let Some(r) = rows.next()? {
            let id = uint(r.get_ref(0)?);
            if wanted.is_some_and(|w| !w.contains(&id)) {
                continue;
            }
            let texts = |i: usize| -> rusqlite::Result<Option<String>> {
                let t = sanitize_line(&text(r.get_ref(i)?));
                Ok((!t.is_empty()).then_some(t))
            };
            let own_rank = int(r.get_ref(3)?) as u32 == self.store.rank;
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

/// A `tensors` row's first four columns (id, device, address, buffer type) as a placement.
/// A `tensors` row read as a placement (columns tensor_id, device_id, address, buffer_type).
fn placement(r: &rusqlite::Row<'_>) -> rusqlite::Result<Placement> {
    let optional = |v: ValueRef<'_>| (!matches!(v, ValueRef::Null)).then(|| uint(v));
    let address = optional(r.get_ref(2)?);
    Ok(Placement {
        tensor_id: uint(r.get_ref(0)?),
        device_id: optional(r.get_ref(1)?),
        address,
        buffer_type: address.and_then(|_| buffer_type(r.get_ref(3).ok()?).ok()),
    })
}
