//! The recent tenants first (docs/rules/memory.md §4 without scanning `tensors`): the link rows of the
//! operations just before N, newest first, in windows of operations that double (64, 128, …),
//! each window's rows found by rowid span (the link tables are written in operation order), and
//! the tensors they name read by `tensor_id` (its UNIQUE index).
//!
//! A buffer is live now, so its tenant is the tensor at its address that operations named last:
//! an earlier tenant's uses all came before it was freed. The walk stops once every live
//! address has a tenant whose production (an `output_tensors` row) it has seen — a tensor is
//! recorded no earlier than the operation that produced it, so nothing older could be a more
//! recent tenant — or at the first operation. Past [`MAX_OPERATIONS`] operations (a weight
//! produced before the report, a buffer no tensor holds), it gives up and the report's tensor
//! index answers instead. A tensor asked for by id whose production the walk did not see is read
//! whole by id instead (`Tensors::complete_facts`).

use super::tensor_index::Placement;
use super::walk::{Seen, Walk};
use crate::analysis::int_hash::{IntMap, IntSet};
use crate::analysis::memory::{TensorFacts, TensorUse};
use crate::analysis::model::operation_index;
use crate::report::database::{RowSpan, operation_row_span, tables_indexed_by, uint};
use crate::report::id_lists::{IN_LIST_CHUNK, id_list};
use rusqlite::types::ValueRef;
use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

/// How many operations back the walk may go.
pub(crate) const MAX_OPERATIONS: usize = 2048;
/// The link tables, and whether their rows are outputs.
const LINK_TABLES: [(&str, bool); 2] = [("input_tensors", false), ("output_tensors", true)];

use super::tensors::Tensors;

impl Tensors<'_> {
    /// The tensors at `places` and `own` and the tensors `ids`, from the link rows of the
    /// operations just before operation `n` (by index); none when the walk cannot answer (tables
    /// out of order or ranked, or no tenant found within [`MAX_OPERATIONS`]). The walk waits for
    /// a tenant of each of `places` only: `own` are the places of buffers the failed operation
    /// allocated, whose tensor its graph names (docs/rules/memory.md §4), looked at but not
    /// waited for.
    pub(super) fn recent_tensor_facts(
        &self,
        n: usize,
        places: &[(u64, u64)],
        own: &[(u64, u64)],
        ids: &[u64],
    ) -> rusqlite::Result<Option<Vec<TensorFacts>>> {
        // Tables with a `rank` column are left to the index, even on a single rank: on real 0.75 and
        // 0.81 reports the walk and the index do not yet give the same holders (a tensor whose
        // `tensors` row has no address), which the index's answers are tested against.
        let ranked = LINK_TABLES.iter().any(|(t, _)| self.store.schema.has_column(t, "rank"));
        if !self.store.rows_in_operation_order || ranked || n >= self.operations.len() {
            return Ok(None);
        }
        let all: Vec<(u64, u64)> = places.iter().chain(own).copied().collect();
        let device_places = self.device_tensors_at(&all)?;
        let place_set: IntSet<(u64, u64)> = all.into_iter().collect();
        let mut walk = match self.cache.walk.take() {
            Some(walk) if walk.n == n => walk,
            _ => Walk::new(n),
        };
        let facts = self.walk_facts(&mut walk, places, &place_set, &device_places, ids);
        self.cache.walk.replace(Some(walk));
        facts
    }

    /// [`Self::recent_tensor_facts`] from `walk`, walked on as far as the question needs.
    fn walk_facts(
        &self,
        walk: &mut Walk,
        places: &[(u64, u64)],
        place_set: &IntSet<(u64, u64)>,
        device_places: &HashMap<u64, Vec<(u64, u64)>>,
        ids: &[u64],
    ) -> rusqlite::Result<Option<Vec<TensorFacts>>> {
        let Walk { seen, windows, .. } = walk;
        // Back until every place has its tenant.
        let unplaced: Vec<u64> = std::mem::take(&mut seen.unplaced).into_iter().collect();
        self.place(seen, &unplaced)?;
        while !self.tenants_produced(places, place_set, &seen.placed, device_places, &seen.uses) {
            if windows.walked >= MAX_OPERATIONS && windows.next.is_some() {
                return Ok(None);
            }
            let Some((lo, hi)) = windows.next() else { break };
            let Some(new_ids) = self.window_links(lo, hi, seen)? else { return Ok(None) };
            self.place(seen, &new_ids)?;
        }
        // Then, link rows alone, until each tensor asked for by id was seen made (or was read
        // whole by id before).
        let kept = self.kept_facts();
        let waiting = |seen: &Seen| ids.iter().any(|&id| !seen.produced(id) && !kept(id));
        while waiting(seen) && windows.walked < MAX_OPERATIONS {
            let Some((lo, hi)) = windows.next() else { break };
            let Some(new_ids) = self.window_links(lo, hi, seen)? else { return Ok(None) };
            seen.unplaced.extend(new_ids);
        }
        let found: Vec<u64> = ids.iter().copied().filter(|id| seen.unplaced.remove(id)).collect();
        self.place(seen, &found)?;
        // A tensor asked for by id whose production the walk did not reach (made long before,
        // or never by an operation: a weight, the failed operation's own output): every fact of
        // it over the run, as the index would give them, read by id.
        let (seen_made, unseen): (Vec<u64>, Vec<u64>) = ids.iter().copied().partition(|&id| seen.produced(id));
        // Past one list of ids, each read is a pass over the link tables: the index is cheaper.
        if unseen.len() > IN_LIST_CHUNK {
            return Ok(None);
        }
        let mut wanted: BTreeSet<u64> = seen_made.into_iter().collect();
        let held = seen.placed.values().filter(|p| at(p, device_places, place_set).is_some());
        wanted.extend(held.map(|p| p.tensor_id));
        let Some(complete) = self.complete_facts(&unseen)? else { return Ok(None) };
        wanted.retain(|id| !unseen.contains(id));
        let mut facts: Vec<TensorFacts> =
            wanted.into_iter().map(|id| self.seen_facts(id, seen, device_places)).collect();
        facts.extend(complete);
        facts.sort_by_key(|t| t.tensor_id);
        Ok(Some(facts))
    }

    /// Places the tensors `ids` (their `tensors` rows; a tensor without one is placed nowhere).
    fn place(&self, seen: &mut Seen, ids: &[u64]) -> rusqlite::Result<()> {
        for id in ids {
            seen.placed.insert(*id, Placement { tensor_id: *id, ..Placement::default() });
        }
        for p in self.placements_by_id(ids)? {
            seen.placed.insert(p.tensor_id, p);
        }
        Ok(())
    }

    /// Reads the link rows of the operations `lo..=hi` (by index) into `seen.uses`; gives the
    /// tensors named for the first time, or none when a table's rows cannot be found by span.
    fn window_links(&self, lo: usize, hi: usize, seen: &mut Seen) -> rusqlite::Result<Option<Vec<u64>>> {
        let span = self.operations[lo].id..=self.operations[hi].id;
        let mut new_ids: BTreeSet<u64> = BTreeSet::new();
        for (table, output) in LINK_TABLES {
            if !self.store.schema.has_table(table) {
                continue;
            }
            let (start, end) = match operation_row_span(&self.store.conn, table, span.clone())? {
                RowSpan::Unknown => return Ok(None),
                RowSpan::Empty => continue,
                RowSpan::Rowids(start, end) => (start, end),
            };
            let sql = format!("SELECT operation_id, tensor_id FROM {table} WHERE rowid >= ?1 AND rowid < ?2");
            let mut stmt = self.store.conn.prepare_cached(&sql)?;
            let mut rows = stmt.query([start, end])?;
            while let Some(r) = rows.next()? {
                let (operation, tensor) = (uint(r.get_ref(0)?), uint(r.get_ref(1)?));
                seen.uses.entry(tensor).or_default().push((operation, output));
                if !seen.placed.contains_key(&tensor) && !seen.unplaced.contains(&tensor) {
                    new_ids.insert(tensor);
                }
            }
        }
        Ok(Some(new_ids.into_iter().collect()))
    }

    /// What the walk saw of one tensor: its placement, `device_tensors` rows and link rows.
    fn seen_facts(&self, id: u64, seen: &Seen, device_places: &HashMap<u64, Vec<(u64, u64)>>) -> TensorFacts {
        let p = seen.placed.get(&id).copied().unwrap_or(Placement { tensor_id: id, ..Placement::default() });
        let name = |operation: u64| -> Arc<str> {
            operation_index(self.operations, operation).map_or_else(|| "".into(), |i| self.operations[i].name.clone())
        };
        let uses = seen.uses.get(&id).into_iter().flatten();
        TensorFacts {
            tensor_id: id,
            device_id: p.device_id,
            address: p.address,
            buffer_type: p.buffer_type,
            device_addresses: device_places.get(&id).cloned().unwrap_or_default(),
            uses: uses
                .map(|&(operation_id, output)| TensorUse { operation_id, operation_name: name(operation_id), output })
                .collect(),
            ..TensorFacts::default()
        }
    }

    /// True when every address of `places` has a tenant among the tensors seen, on one of its
    /// devices at least, and at each of its places the most recent one's production was seen.
    /// A place of the other id of a chip named by two (docs/rules/memory.md §2) often never
    /// had a tenant: its address is answered by the other place, whose tenant is at least as
    /// recent as any the walk has not reached.
    fn tenants_produced(
        &self,
        places: &[(u64, u64)],
        place_set: &IntSet<(u64, u64)>,
        placed: &IntMap<u64, Placement>,
        device_places: &HashMap<u64, Vec<(u64, u64)>>,
        uses: &IntMap<u64, Vec<(u64, bool)>>,
    ) -> bool {
        let mut best: IntMap<(u64, u64), (u64, u64)> = IntMap::default();
        for p in placed.values() {
            for place in at(p, device_places, place_set).into_iter().flatten() {
                let first = uses.get(&p.tensor_id).and_then(|u| u.iter().map(|u| u.0).min()).unwrap_or(0);
                let entry = best.entry(place).or_insert((first, p.tensor_id));
                *entry = (*entry).max((first, p.tensor_id));
            }
        }
        let produced = |tensor: &u64| uses.get(tensor).is_some_and(|u| u.iter().any(|u| u.1));
        let held: IntSet<u64> = best.keys().map(|place| place.1).collect();
        places.iter().all(|place| match best.get(place) {
            Some((_, tensor)) => produced(tensor),
            None => held.contains(&place.1),
        })
    }

    /// Every `device_tensors` (device, address) of the tensors `ids`, by tensor.
    pub(super) fn device_tensors_of(&self, ids: &[u64]) -> rusqlite::Result<HashMap<u64, Vec<(u64, u64)>>> {
        let mut out: HashMap<u64, Vec<(u64, u64)>> = HashMap::new();
        if ids.is_empty() || !self.store.schema.has_table("device_tensors") {
            return Ok(out);
        }
        let columns = self
            .store
            .schema
            .select_list("device_tensors", &[("tensor_id", "0"), ("device_id", "0"), ("address", "NULL")]);
        let list = id_list(ids.iter().copied());
        let sql = format!("SELECT {columns} FROM device_tensors WHERE tensor_id IN ({list}) AND address IS NOT NULL");
        let mut stmt = self.store.conn.prepare(&sql)?;
        let mut rows = stmt.query([])?;
        while let Some(r) = rows.next()? {
            out.entry(uint(r.get_ref(0)?)).or_default().push((uint(r.get_ref(1)?), uint(r.get_ref(2)?)));
        }
        Ok(out)
    }

    /// The `device_tensors` rows at `places`, by tensor.
    pub(super) fn device_tensors_at(&self, places: &[(u64, u64)]) -> rusqlite::Result<HashMap<u64, Vec<(u64, u64)>>> {
        let mut out: HashMap<u64, Vec<(u64, u64)>> = HashMap::new();
        if places.is_empty() || !self.store.schema.has_table("device_tensors") {
            return Ok(out);
        }
        let wanted: BTreeSet<(u64, u64)> = places.iter().copied().collect();
        let addresses: BTreeSet<u64> = places.iter().map(|p| p.1).collect();
        let columns = self
            .store
            .schema
            .select_list("device_tensors", &[("tensor_id", "0"), ("device_id", "0"), ("address", "NULL")]);
        // Without an index on `address` the list only filters a scan of the table; a long one is
        // kept in Rust rather than prepared as SQL (`long_list`), with SQLite's equality: an
        // integer address, or a real one of the same value.
        let long = addresses.len() > IN_LIST_CHUNK && !self.device_tensors_by_address()?;
        let condition = match long {
            true => "address IS NOT NULL".to_string(),
            false => format!("address IN ({})", id_list(addresses.iter().copied())),
        };
        let mut stmt = self.store.conn.prepare(&format!("SELECT {columns} FROM device_tensors WHERE {condition}"))?;
        let mut rows = stmt.query([])?;
        while let Some(r) = rows.next()? {
            let address = r.get_ref(2)?;
            if long && !listed_address(address, &addresses) {
                continue;
            }
            let place = (uint(r.get_ref(1)?), uint(address));
            if wanted.contains(&place) {
                out.entry(uint(r.get_ref(0)?)).or_default().push(place);
            }
        }
        Ok(out)
    }

    /// Whether `device_tensors` has an index on `address` (asked of the schema once).
    fn device_tensors_by_address(&self) -> rusqlite::Result<bool> {
        if let Some(&indexed) = self.cache.device_by_address.get() {
            return Ok(indexed);
        }
        let indexed = tables_indexed_by(&self.store.conn, "address")?.iter().any(|t| t == "device_tensors");
        Ok(*self.cache.device_by_address.get_or_init(|| indexed))
    }
}

/// Whether a cell equals one of `addresses` as SQLite's `IN` compares it: an integer, or a real
/// of an integer's value; never a text or a blob.
fn listed_address(cell: ValueRef<'_>, addresses: &BTreeSet<u64>) -> bool {
    let value = match cell {
        ValueRef::Integer(i) => u64::try_from(i).ok(),
        ValueRef::Real(f) if f.fract() == 0.0 && (0.0..9.0e15).contains(&f) => Some(f as u64),
        _ => None,
    };
    value.is_some_and(|v| addresses.contains(&v))
}

/// The places of `places` a tensor was recorded at, when any; one set lookup each (a failure may
/// have 150 000 live places).
fn at(
    p: &Placement,
    device_places: &HashMap<u64, Vec<(u64, u64)>>,
    places: &IntSet<(u64, u64)>,
) -> Option<Vec<(u64, u64)>> {
    let mut found: Vec<(u64, u64)> = Vec::new();
    if let (Some(d), Some(a)) = (p.device_id, p.address)
        && places.contains(&(d, a))
    {
        found.push((d, a));
    }
    found.extend(device_places.get(&p.tensor_id).into_iter().flatten().filter(|pl| places.contains(pl)));
    (!found.is_empty()).then_some(found)
}
