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
use super::tensor_index::{Placement, TensorIndex};
use crate::analysis::memory::TensorFacts;
use crate::analysis::sanitize::sanitize_line;
use rusqlite::params;
use rusqlite::types::ValueRef;
use std::collections::HashMap;
use std::sync::Arc;

/// How many values go into one `IN (…)` list.
const CHUNK: usize = 500;

fn list(values: &[u64]) -> String {
    values.iter().map(u64::to_string).collect::<Vec<_>>().join(",")
}

/// A tensor's shape and dtype, as printed.
pub(crate) type TensorTexts = (Option<String>, Option<String>);

/// Tensors and their links (memory.md §4): the tensors at the live addresses and those named,
/// each with its link rows; their shapes and dtypes. A question asked of the report's core,
/// borrowed; the index it builds once is kept in the core.
pub(crate) struct Tensors<'a> {
    pub(super) report: &'a MemoryReport,
}

impl MemoryReport {
    /// The questions about tensors and their links.
    pub(crate) fn tensors(&self) -> Tensors<'_> {
        Tensors { report: self }
    }
}

impl Tensors<'_> {
    /// The tensors recorded at any (device, address) of `places`, and the tensors `ids`, with
    /// their rows in the link tables; without shape and dtype (see [`Self::describe`]).
    /// The recent tenants of operation `n` (by index) are tried first.
    pub(crate) fn facts(&self, n: usize, places: &[(u64, u64)], ids: &[u64]) -> rusqlite::Result<Vec<TensorFacts>> {
        if self.report.tensor_index.get().is_none() {
            if let Some(facts) = self.recent_tensor_facts(n, places, ids)? {
                return Ok(facts);
            }
            let built = self.build_tensor_index()?;
            let _ = self.report.tensor_index.set(built);
        }
        Ok(self.report.tensor_index.get().expect("built above").facts(places, ids))
    }

    /// One pass over `tensors`, `device_tensors`, `input_tensors` and `output_tensors`.
    pub(super) fn build_tensor_index(&self) -> rusqlite::Result<TensorIndex> {
        let mut device_places = Vec::new();
        if self.report.schema.has_table("device_tensors") {
            let columns = self
                .report
                .schema
                .select_list("device_tensors", &[("tensor_id", "0"), ("device_id", "0"), ("address", "NULL")]);
            let mut stmt =
                self.report.conn.prepare(&format!("SELECT {columns} FROM device_tensors WHERE address IS NOT NULL"))?;
            let mut rows = stmt.query([])?;
            while let Some(r) = rows.next()? {
                device_places.push((uint(r.get_ref(0)?), uint(r.get_ref(1)?), uint(r.get_ref(2)?)));
            }
        }
        let mut uses = Vec::new();
        for (table, output) in [("input_tensors", false), ("output_tensors", true)] {
            if !self.report.schema.has_table(table) {
                continue;
            }
            let columns = self.report.schema.select_list(table, &[("tensor_id", "0"), ("operation_id", "0")]);
            let ranked = self.report.schema.rank_filter(table);
            let mut stmt = self.report.conn.prepare(&format!("SELECT {columns} FROM {table} WHERE {ranked}"))?;
            let mut rows = stmt.query(params![self.report.rank])?;
            while let Some(r) = rows.next()? {
                uses.push((uint(r.get_ref(0)?), uint(r.get_ref(1)?), output));
            }
        }
        let name_of = |operation| {
            Arc::from(self.report.operation_index(operation).map_or("", |i| self.report.operations[i].name.as_str()))
        };
        Ok(TensorIndex::new(self.placements("1")?, device_places, uses, name_of))
    }

    /// The `tensors` rows matching `condition` as placements, the report's rank before rank 0.
    pub(super) fn placements(&self, condition: &str) -> rusqlite::Result<Vec<Placement>> {
        if !self.report.schema.has_table("tensors") {
            return Ok(Vec::new());
        }
        let columns = self.report.schema.select_list(
            "tensors",
            &[("tensor_id", "0"), ("device_id", "NULL"), ("address", "NULL"), ("buffer_type", "NULL"), ("rank", "0")],
        );
        let ranks =
            if self.report.schema.has_column("tensors", "rank") { "(rank = ?1 OR rank = 0)" } else { "(1 OR ?1)" };
        let sql = format!("SELECT {columns} FROM tensors WHERE ({condition}) AND {ranks} ORDER BY rowid");
        let mut stmt = self.report.conn.prepare(&sql)?;
        let mut rows = stmt.query(params![self.report.rank])?;
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
            let own_rank = int(r.get_ref(4)?) as u32 == self.report.rank;
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
    pub(crate) fn describe(&self, ids: &[u64]) -> rusqlite::Result<HashMap<u64, TensorTexts>> {
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
        if !self.report.schema.has_table("tensors") {
            return Ok(HashMap::new());
        }
        let columns = self
            .report
            .schema
            .select_list("tensors", &[("tensor_id", "0"), ("shape", "''"), ("dtype", "''"), ("rank", "0")]);
        let ranks =
            if self.report.schema.has_column("tensors", "rank") { "(rank = ?1 OR rank = 0)" } else { "(1 OR ?1)" };
        let sql = format!("SELECT {columns} FROM tensors WHERE {condition} AND {ranks} ORDER BY rowid");
        let mut stmt = self.report.conn.prepare(&sql)?;
        let mut rows = stmt.query(params![self.report.rank])?;
        while let Some(r) = rows.next()? {
            let texts = |i: usize| -> rusqlite::Result<Option<String>> {
                let t = sanitize_line(&text(r.get_ref(i)?));
                Ok((!t.is_empty()).then_some(t))
            };
            let own_rank = int(r.get_ref(3)?) as u32 == self.report.rank;
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
