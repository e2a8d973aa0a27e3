//! The `tensors` rows the tensor questions read (docs/rules/memory.md §4): placements by a
//! condition or by id — by the UNIQUE index on `tensor_id` where there is one, each row read
//! once per report — and the shapes and dtypes of the tensors shown.

use super::tensor_index::Placement;
use super::tensors::Tensors;
use crate::analysis::sanitize::sanitize_line;
use crate::report::database::{buffer_type, int, tables_indexed_by, text, uint};
use crate::report::id_lists::{IN_LIST_CHUNK, id_list, id_runs, long_list};
use rusqlite::params;
use rusqlite::types::ValueRef;
use std::collections::{BTreeSet, HashMap, HashSet};

/// A tensor's shape and dtype, as printed.
pub(crate) type TensorTexts = (Option<String>, Option<String>);

impl Tensors<'_> {
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
}

/// A `tensors` row's first four columns (id, device, address, buffer type) as a placement.
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
