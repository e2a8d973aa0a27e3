//! The input and output tensors of operations, read for the `DRAM fallback?` flag: each tensor's
//! buffer type, shape and address on every device (docs/rules/reference.md §1.3.4, §11.3).
//!
//! Everything here is read on demand, with the report's read-only connection, in a few queries
//! per table rather than one per operation. Missing tables read as no tensors, missing columns
//! as their defaults (docs/rules/reference.md §1.3).

use super::tensors::Tensors;
use crate::analysis::messages::failure::BufferType;
use crate::analysis::model::ErrorRecord;
use crate::analysis::perf::dram_fallback::{FallbackOperation, TensorPlacement, requested_l1};
use crate::analysis::sanitize::{sanitize_line, sanitize_text};
use crate::report::database::{buffer_type, int, text, uint};
use crate::report::error::ReportError;
use crate::report::id_lists::{IN_LIST_CHUNK, id_list};
use rusqlite::params;
use rusqlite::types::ValueRef;
use std::collections::{HashMap, HashSet};

/// How many operations after an allocation failure a retry may come (docs/rules/reference.md §11.3).
const RETRY_WINDOW: usize = 3;

/// An operation's tensors, as the memory report records them.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct OperationTensors {
    /// Input tensors, by `input_index`.
    pub inputs: Vec<TensorPlacement>,
    /// Output tensors, by `output_index`.
    pub outputs: Vec<TensorPlacement>,
}

/// One `input_tensors`/`output_tensors` row: (operation id, index, tensor id, rank).
pub(super) type TensorLink = (u64, i64, u64, u32);

/// The buffer type named in a printed memory config (`buffer_type=BufferType::L1`).
pub(crate) fn memory_config_buffer_type(memory_config: &str) -> Option<BufferType> {
    let (_, rest) = memory_config.split_once("buffer_type=BufferType::")?;
    let end = rest.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(rest.len());
    BufferType::from_token(&rest[..end])
}

/// A tensor's buffer type (docs/rules/reference.md §1.3.3–§1.3.4): from the `buffer_type` column when the
/// tensor has an address, otherwise from its memory config (the column's 0 is then ignored).
pub(crate) fn tensor_buffer_type(
    address: Option<u64>,
    column: ValueRef<'_>,
    memory_config: &str,
) -> Option<BufferType> {
    match address {
        Some(_) => buffer_type(column).ok().or_else(|| memory_config_buffer_type(memory_config)),
        None => memory_config_buffer_type(memory_config),
    }
}

impl Tensors<'_> {
    /// The input and output tensors of some operations (by index). An operation without rows in
    /// `input_tensors`/`output_tensors` has none; a tensor id without a `tensors` row reads as a
    /// tensor with no type, shape or address.
    pub fn operation_tensors(&self, indexes: &[usize]) -> Result<HashMap<usize, OperationTensors>, ReportError> {
        self.read_operation_tensors(indexes).map_err(ReportError::read("tensors"))
    }

    fn read_operation_tensors(&self, indexes: &[usize]) -> rusqlite::Result<HashMap<usize, OperationTensors>> {
        let ids: Vec<u64> = indexes.iter().map(|&i| self.operations[i].id).collect();
        let inputs = self.tensor_links("input_tensors", "input_index", &ids)?;
        let outputs = self.tensor_links("output_tensors", "output_index", &ids)?;
        let wanted: HashSet<u64> = inputs.iter().chain(&outputs).map(|l| l.2).collect();
        let tensors = self.tensor_rows(&wanted)?;
        let mut out = HashMap::new();
        for &i in indexes {
            let op = &self.operations[i];
            let placements = |links: &[TensorLink]| -> Vec<TensorPlacement> {
                // The operation's rank, falling back to rank 0 (docs/rules/reference.md §1.4).
                let of_rank = |rank: u32| links.iter().filter(move |l| l.0 == op.id && l.3 == rank);
                let rank = if of_rank(op.rank).next().is_some() { op.rank } else { 0 };
                let mut picked: Vec<&TensorLink> = of_rank(rank).collect();
                picked.sort_by_key(|l| l.1);
                picked.iter().map(|l| pick_tensor(&tensors, l.2, op.rank)).collect()
            };
            out.insert(i, OperationTensors { inputs: placements(&inputs), outputs: placements(&outputs) });
        }
        Ok(out)
    }

    /// The rows of `input_tensors` or `output_tensors` for some operation ids, of the report's
    /// rank and of rank 0, in table order.
    pub(super) fn tensor_links(&self, table: &str, index: &str, ids: &[u64]) -> rusqlite::Result<Vec<TensorLink>> {
        if !self.store.schema.has_table(table) {
            return Ok(Vec::new());
        }
        let columns = self
            .store
            .schema
            .select_list(table, &[("operation_id", "0"), (index, "0"), ("tensor_id", "0"), ("rank", "0")]);
        let ranks = if self.store.schema.has_column(table, "rank") { "(rank = ?1 OR rank = 0)" } else { "(1 OR ?1)" };
        let mut links = Vec::new();
        for condition in self.store.operation_rows(table, ids)? {
            let sql = format!("SELECT {columns} FROM {table} WHERE ({condition}) AND {ranks} ORDER BY rowid");
            let mut stmt = self.store.conn.prepare(&sql)?;
            let mut rows = stmt.query(params![self.store.rank])?;
            while let Some(r) = rows.next()? {
                let rank = int(r.get_ref(3)?) as u32;
                links.push((uint(r.get_ref(0)?), int(r.get_ref(1)?), uint(r.get_ref(2)?), rank));
            }
        }
        Ok(links)
    }

    /// The `tensors` rows of some tensor ids, by (tensor id, rank), with their per-device
    /// addresses from `device_tensors` when that table exists.
    fn tensor_rows(&self, wanted: &HashSet<u64>) -> rusqlite::Result<HashMap<(u64, u32), TensorPlacement>> {
        let mut out = HashMap::new();
        if wanted.is_empty() || !self.store.schema.has_table("tensors") {
            return Ok(out);
        }
        let columns = self.store.schema.select_list(
            "tensors",
            &[
                ("tensor_id", "0"),
                ("shape", "''"),
                ("memory_config", "''"),
                ("device_id", "NULL"),
                ("address", "NULL"),
                ("buffer_type", "NULL"),
                ("rank", "0"),
            ],
        );
        let ranks =
            if self.store.schema.has_column("tensors", "rank") { "(rank = ?1 OR rank = 0)" } else { "(1 OR ?1)" };
        let mut ids: Vec<u64> = wanted.iter().copied().collect();
        ids.sort_unstable();
        for chunk in ids.chunks(IN_LIST_CHUNK) {
            let list = id_list(chunk.iter().copied());
            let sql = format!("SELECT {columns} FROM tensors WHERE tensor_id IN ({list}) AND {ranks} ORDER BY rowid");
            let mut stmt = self.store.conn.prepare(&sql)?;
            let mut rows = stmt.query(params![self.store.rank])?;
            while let Some(r) = rows.next()? {
                let address = match r.get_ref(4)? {
                    ValueRef::Null => None,
                    v => Some(uint(v)),
                };
                let memory_config = text(r.get_ref(2)?);
                let shape = sanitize_line(&text(r.get_ref(1)?));
                let device = uint(r.get_ref(3)?);
                let placement = TensorPlacement {
                    buffer_type: tensor_buffer_type(address, r.get_ref(5)?, &memory_config),
                    shape: (!shape.is_empty()).then_some(shape),
                    addresses: address.map(|a| vec![(device, a)]).unwrap_or_default(),
                };
                out.insert((uint(r.get_ref(0)?), int(r.get_ref(6)?) as u32), placement);
            }
        }
        self.add_device_addresses(wanted, &mut out)?;
        Ok(out)
    }

    /// Adds the `device_tensors` addresses (one scan; the table has no index on `tensor_id`).
    /// Rows carry a rank only in some schemas; without one they apply to every rank.
    fn add_device_addresses(
        &self,
        wanted: &HashSet<u64>,
        tensors: &mut HashMap<(u64, u32), TensorPlacement>,
    ) -> rusqlite::Result<()> {
        if !self.store.schema.has_table("device_tensors") {
            return Ok(());
        }
        let has_rank = self.store.schema.has_column("device_tensors", "rank");
        let columns = self.store.schema.select_list(
            "device_tensors",
            &[("tensor_id", "0"), ("device_id", "0"), ("address", "NULL"), ("rank", "0")],
        );
        let mut stmt = self.store.conn.prepare(&format!("SELECT {columns} FROM device_tensors ORDER BY rowid"))?;
        let mut rows = stmt.query([])?;
        while let Some(r) = rows.next()? {
            let id = uint(r.get_ref(0)?);
            let (device, address, rank) = (uint(r.get_ref(1)?), r.get_ref(2)?, int(r.get_ref(3)?) as u32);
            if !wanted.contains(&id) || matches!(address, ValueRef::Null) {
                continue;
            }
            let entry = (device, uint(address));
            let ranks = if self.store.rank == 0 { vec![0] } else { vec![self.store.rank, 0] };
            for tensor_rank in ranks.into_iter().filter(|&r| !has_rank || r == rank) {
                if let Some(placement) = tensors.get_mut(&(id, tensor_rank))
                    && !placement.addresses.contains(&entry)
                {
                    placement.addresses.push(entry);
                }
            }
        }
        Ok(())
    }

    /// The memory-config arguments of every operation of the rank, by operation id, in table
    /// order. Other arguments cannot change the detection, so they are not read.
    fn memory_config_arguments(&self) -> rusqlite::Result<HashMap<u64, Vec<(String, String)>>> {
        let mut out: HashMap<u64, Vec<(String, String)>> = HashMap::new();
        if !self.store.schema.has_table("operation_arguments") {
            return Ok(out);
        }
        let columns = self
            .store
            .schema
            .select_list("operation_arguments", &[("operation_id", "0"), ("name", "''"), ("value", "''")]);
        let filter = self.store.schema.rank_filter("operation_arguments");
        if !self.store.schema.has_column("operation_arguments", "value") {
            return Ok(out);
        }
        let sql = format!(
            "SELECT {columns} FROM operation_arguments WHERE {filter} AND value LIKE '%MemoryConfig(%' ORDER BY rowid"
        );
        let mut stmt = self.store.conn.prepare(&sql)?;
        let mut rows = stmt.query(params![self.store.rank])?;
        while let Some(r) = rows.next()? {
            let argument = (sanitize_line(&text(r.get_ref(1)?)), sanitize_text(&text(r.get_ref(2)?)));
            out.entry(uint(r.get_ref(0)?)).or_default().push(argument);
        }
        Ok(out)
    }

    /// What the DRAM-fallback detection needs of every operation, in id order. Tensors are read
    /// only for the operations the detection can flag: those whose memory configs all ask for
    /// L1, and the few operations after an allocation failure (`errors`: the report's).
    pub fn fallback_operations(&self, errors: &[ErrorRecord]) -> Result<Vec<FallbackOperation>, ReportError> {
        let arguments = self.memory_config_arguments().map_err(ReportError::read("arguments"))?;
        let mut operations: Vec<FallbackOperation> = self
            .operations
            .iter()
            .map(|op| FallbackOperation {
                id: op.id,
                name: op.name.to_string(),
                arguments: arguments.get(&op.id).cloned().unwrap_or_default(),
                failure: op.error.and_then(|e| errors.get(e)?.failure.clone()),
                ..FallbackOperation::default()
            })
            .collect();
        let mut candidates: Vec<usize> = Vec::new();
        for (i, op) in operations.iter().enumerate() {
            if requested_l1(&op.arguments).is_some() {
                candidates.push(i);
            }
            if op.failure.is_some() {
                candidates.extend((i + 1..operations.len()).take(RETRY_WINDOW));
            }
        }
        candidates.sort_unstable();
        candidates.dedup();
        for (i, tensors) in self.operation_tensors(&candidates)? {
            operations[i].inputs = tensors.inputs;
            operations[i].outputs = tensors.outputs;
        }
        Ok(operations)
    }
}

/// A tensor of the operation's rank, else of rank 0, else an unknown tensor.
fn pick_tensor(tensors: &HashMap<(u64, u32), TensorPlacement>, id: u64, rank: u32) -> TensorPlacement {
    tensors.get(&(id, rank)).or_else(|| tensors.get(&(id, 0))).cloned().unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffer_type_from_the_memory_config() {
        let config = "MemoryConfig(memory_layout=TensorMemoryLayout::INTERLEAVED,buffer_type=BufferType::L1_SMALL,shard_spec=std::nullopt)";
        assert_eq!(memory_config_buffer_type(config), Some(BufferType::L1Small));
        assert_eq!(memory_config_buffer_type("MemoryConfig(buffer_type=BufferType::DRAM)"), Some(BufferType::Dram));
        assert_eq!(memory_config_buffer_type("MemoryConfig(buffer_type=BufferType::WEIRD)"), None);
        assert_eq!(memory_config_buffer_type(""), None);
    }

    #[test]
    fn buffer_type_of_a_tensor_without_address_ignores_the_column() {
        let config = "MemoryConfig(buffer_type=BufferType::L1)";
        assert_eq!(tensor_buffer_type(None, ValueRef::Integer(0), config), Some(BufferType::L1));
        assert_eq!(tensor_buffer_type(None, ValueRef::Integer(0), ""), None);
        assert_eq!(tensor_buffer_type(Some(64), ValueRef::Integer(0), config), Some(BufferType::Dram));
        assert_eq!(tensor_buffer_type(Some(64), ValueRef::Text(b"L1_SMALL"), ""), Some(BufferType::L1Small));
        assert_eq!(tensor_buffer_type(Some(64), ValueRef::Null, config), Some(BufferType::L1));
    }
}
