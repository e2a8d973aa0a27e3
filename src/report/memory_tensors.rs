//! The tensors the holder rules look at (memory.md §4): those recorded at the addresses of the
//! live buffers (in `tensors` or `device_tensors`), and those named by id, each with every
//! `input_tensors` / `output_tensors` row that mentions it.
//!
//! `tensors` has no index on `address`, so finding the tenants of some addresses reads the
//! table once (one row per tensor, far smaller than `buffers`); rows by `tensor_id` use its
//! UNIQUE index. The link tables are read by their `tensor_id` index when the report has one
//! (`idx_input_tensors_tensor_id`, …), else in one pass each. Everything is asked for in one
//! batch for every failure shown, so print mode pays each pass once.

use super::database::{int, text, uint};
use super::memory::MemoryReport;
use super::tensors::tensor_buffer_type;
use crate::analysis::memory::{TensorFacts, TensorUse};
use crate::analysis::sanitize::sanitize_line;
use rusqlite::params;
use rusqlite::types::ValueRef;
use std::collections::{BTreeSet, HashMap, HashSet};

/// How many values go into one `IN (…)` list.
const CHUNK: usize = 500;

fn list(values: &[u64]) -> String {
    values.iter().map(u64::to_string).collect::<Vec<_>>().join(",")
}

impl MemoryReport {
    /// The tensors recorded at any (device, address) of `places`, and the tensors `ids`, with
    /// their rows in the link tables; tensors of the report's rank, else of rank 0.
    pub(crate) fn tensor_facts(&self, places: &[(u64, u64)], ids: &[u64]) -> rusqlite::Result<Vec<TensorFacts>> {
        let wanted_places: HashSet<(u64, u64)> = places.iter().copied().collect();
        let addresses: Vec<u64> = places.iter().map(|p| p.1).collect::<BTreeSet<_>>().into_iter().collect();
        let mut facts: HashMap<u64, TensorFacts> = HashMap::new();
        for chunk in addresses.chunks(CHUNK) {
            for t in self.tensor_fact_rows(&format!("address IN ({})", list(chunk)))? {
                if let (Some(d), Some(a)) = (t.device_id, t.address)
                    && wanted_places.contains(&(d, a))
                {
                    facts.entry(t.tensor_id).or_insert(t);
                }
            }
        }
        let mut device_addresses: HashMap<u64, Vec<(u64, u64)>> = HashMap::new();
        if self.schema.has_table("device_tensors") {
            let columns = self
                .schema
                .select_list("device_tensors", &[("tensor_id", "0"), ("device_id", "0"), ("address", "NULL")]);
            for chunk in addresses.chunks(CHUNK) {
                let sql =
                    format!("SELECT {columns} FROM device_tensors WHERE address IN ({}) ORDER BY rowid", list(chunk));
                let mut stmt = self.conn.prepare(&sql)?;
                let mut rows = stmt.query([])?;
                while let Some(r) = rows.next()? {
                    let place = (uint(r.get_ref(1)?), uint(r.get_ref(2)?));
                    if wanted_places.contains(&place) {
                        device_addresses.entry(uint(r.get_ref(0)?)).or_default().push(place);
                    }
                }
            }
        }
        let missing: Vec<u64> = ids
            .iter()
            .chain(device_addresses.keys())
            .copied()
            .filter(|id| !facts.contains_key(id))
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        for chunk in missing.chunks(CHUNK) {
            for t in self.tensor_fact_rows(&format!("tensor_id IN ({})", list(chunk)))? {
                facts.entry(t.tensor_id).or_insert(t);
            }
        }
        for (id, places) in device_addresses {
            let t = facts.entry(id).or_insert_with(|| TensorFacts { tensor_id: id, ..TensorFacts::default() });
            t.device_addresses = places;
        }
        for id in ids {
            facts.entry(*id).or_insert_with(|| TensorFacts { tensor_id: *id, ..TensorFacts::default() });
        }
        let all: Vec<u64> = facts.keys().copied().collect::<BTreeSet<_>>().into_iter().collect();
        for (table, output) in [("input_tensors", false), ("output_tensors", true)] {
            for (operation_id, tensor_id) in self.uses_of(table, &all)? {
                if let Some(t) = facts.get_mut(&tensor_id) {
                    let name = self.operation_index(operation_id).map(|i| self.operations[i].name.clone());
                    t.uses.push(TensorUse { operation_id, operation_name: name.unwrap_or_default(), output });
                }
            }
        }
        let mut out: Vec<TensorFacts> = facts.into_values().collect();
        out.sort_by_key(|t| t.tensor_id);
        Ok(out)
    }

    /// `tensors` rows matching `condition`, of the report's rank or else rank 0, by tensor id.
    pub(super) fn tensor_fact_rows(&self, condition: &str) -> rusqlite::Result<Vec<TensorFacts>> {
        if !self.schema.has_table("tensors") {
            return Ok(Vec::new());
        }
        let columns = self.schema.select_list(
            "tensors",
            &[
                ("tensor_id", "0"),
                ("device_id", "NULL"),
                ("address", "NULL"),
                ("buffer_type", "NULL"),
                ("memory_config", "''"),
                ("shape", "''"),
                ("dtype", "''"),
                ("rank", "0"),
            ],
        );
        let ranks = if self.schema.has_column("tensors", "rank") { "(rank = ?1 OR rank = 0)" } else { "(1 OR ?1)" };
        let sql = format!("SELECT {columns} FROM tensors WHERE {condition} AND {ranks} ORDER BY rowid");
        let mut stmt = self.conn.prepare(&sql)?;
        let mut rows = stmt.query(params![self.rank])?;
        let mut by_id: HashMap<u64, (u32, TensorFacts)> = HashMap::new();
        while let Some(r) = rows.next()? {
            let optional = |v: ValueRef<'_>| (!matches!(v, ValueRef::Null)).then(|| uint(v));
            let address = optional(r.get_ref(2)?);
            let texts = |i: usize| -> rusqlite::Result<Option<String>> {
                let t = sanitize_line(&text(r.get_ref(i)?));
                Ok((!t.is_empty()).then_some(t))
            };
            let rank = int(r.get_ref(7)?) as u32;
            let facts = TensorFacts {
                tensor_id: uint(r.get_ref(0)?),
                device_id: optional(r.get_ref(1)?),
                address,
                buffer_type: tensor_buffer_type(address, r.get_ref(3)?, &text(r.get_ref(4)?)),
                shape: texts(5)?,
                dtype: texts(6)?,
                ..TensorFacts::default()
            };
            // The report's rank wins over rank 0.
            match by_id.get(&facts.tensor_id) {
                Some((kept, _)) if *kept == self.rank || rank != self.rank => {}
                _ => {
                    by_id.insert(facts.tensor_id, (rank, facts));
                }
            }
        }
        Ok(by_id.into_values().map(|(_, t)| t).collect())
    }

    /// (operation id, tensor id) of the rows of `input_tensors` or `output_tensors` for some
    /// tensors, of the report's rank.
    fn uses_of(&self, table: &str, ids: &[u64]) -> rusqlite::Result<Vec<(u64, u64)>> {
        let mut out = Vec::new();
        if !self.schema.has_table(table) {
            return Ok(out);
        }
        let columns = self.schema.select_list(table, &[("operation_id", "0"), ("tensor_id", "0")]);
        let ranked = self.schema.rank_filter(table);
        for chunk in ids.chunks(CHUNK) {
            let sql = format!("SELECT {columns} FROM {table} WHERE tensor_id IN ({}) AND {ranked}", list(chunk));
            let mut stmt = self.conn.prepare(&sql)?;
            let mut rows = stmt.query(params![self.rank])?;
            while let Some(r) = rows.next()? {
                out.push((uint(r.get_ref(0)?), uint(r.get_ref(1)?)));
            }
        }
        Ok(out)
    }
}
