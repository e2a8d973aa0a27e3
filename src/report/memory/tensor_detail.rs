//! An operation's input and output tensors as its page describes them: id, shape, dtype, layout,
//! memory config, buffer type and the address on every device (MCP's `operation_detail`).

use super::operation_tensors::{TensorLink, tensor_buffer_type};
use super::tensors::Tensors;
use crate::analysis::messages::failure::BufferType;
use crate::analysis::sanitize::{sanitize_line, sanitize_text};
use crate::report::database::{int, text, uint};
use crate::report::error::ReportError;
use crate::report::id_lists::{IN_LIST_CHUNK, id_list};
use rusqlite::params;
use rusqlite::types::ValueRef;
use std::collections::{BTreeSet, HashMap};

/// One tensor of an operation, as recorded.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TensorRecord {
    /// `tensor_id`.
    pub tensor_id: u64,
    /// The shape as printed (`Shape([1, 1, 32, 64])`); none when not recorded.
    pub shape: Option<String>,
    /// `DataType::BFLOAT16`.
    pub dtype: Option<String>,
    /// `Layout::TILE`.
    pub layout: Option<String>,
    /// The printed `MemoryConfig(…)`.
    pub memory_config: Option<String>,
    /// Where its buffer lives.
    pub buffer_type: Option<BufferType>,
    /// (device id, address) on every device where the address is known.
    pub addresses: Vec<(u64, u64)>,
}

/// The inputs (by `input_index`) and outputs (by `output_index`) of an operation.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TensorRecords {
    /// Input tensors.
    pub inputs: Vec<TensorRecord>,
    /// Output tensors.
    pub outputs: Vec<TensorRecord>,
}

impl Tensors<'_> {
    /// The input and output tensors of an operation (by index), the operation's rank first and
    /// rank 0 else; a tensor id without a `tensors` row reads as a tensor with nothing known.
    pub fn tensor_records(&self, index: usize) -> Result<TensorRecords, ReportError> {
        self.read_tensor_records(index).map_err(ReportError::read("tensors"))
    }

    fn read_tensor_records(&self, index: usize) -> rusqlite::Result<TensorRecords> {
        let op = &self.operations[index];
        let inputs = self.tensor_links("input_tensors", "input_index", &[op.id])?;
        let outputs = self.tensor_links("output_tensors", "output_index", &[op.id])?;
        let ids: BTreeSet<u64> = inputs.iter().chain(&outputs).map(|l| l.2).collect();
        let mut rows = self.records(&ids)?;
        self.add_addresses(&ids, &mut rows)?;
        let pick = |links: &[TensorLink]| -> Vec<TensorRecord> {
            let of_rank = |rank: u32| links.iter().filter(move |l| l.3 == rank);
            let rank = if of_rank(op.rank).next().is_some() { op.rank } else { 0 };
            let mut picked: Vec<&TensorLink> = of_rank(rank).collect();
            picked.sort_by_key(|l| l.1);
            let record = |id: u64| {
                let found = rows.get(&(id, op.rank)).or_else(|| rows.get(&(id, 0)));
                found.cloned().unwrap_or(TensorRecord { tensor_id: id, ..TensorRecord::default() })
            };
            picked.iter().map(|l| record(l.2)).collect()
        };
        Ok(TensorRecords { inputs: pick(&inputs), outputs: pick(&outputs) })
    }

    /// The `tensors` rows of some ids, by (tensor id, rank); the first row of each wins.
    fn records(&self, ids: &BTreeSet<u64>) -> rusqlite::Result<HashMap<(u64, u32), TensorRecord>> {
        let mut out = HashMap::new();
        if ids.is_empty() || !self.store.schema.has_table("tensors") {
            return Ok(out);
        }
        let columns = self.store.schema.select_list(
            "tensors",
            &[
                ("tensor_id", "0"),
                ("shape", "''"),
                ("dtype", "''"),
                ("layout", "''"),
                ("memory_config", "''"),
                ("device_id", "NULL"),
                ("address", "NULL"),
                ("buffer_type", "NULL"),
                ("rank", "0"),
            ],
        );
        let ranks =
            if self.store.schema.has_column("tensors", "rank") { "(rank = ?1 OR rank = 0)" } else { "(1 OR ?1)" };
        let ids: Vec<u64> = ids.iter().copied().collect();
        for chunk in ids.chunks(IN_LIST_CHUNK) {
            let list = id_list(chunk.iter().copied());
            let sql = format!("SELECT {columns} FROM tensors WHERE tensor_id IN ({list}) AND {ranks} ORDER BY rowid");
            let mut stmt = self.store.conn.prepare(&sql)?;
            let mut rows = stmt.query(params![self.store.rank])?;
            while let Some(r) = rows.next()? {
                let key = (uint(r.get_ref(0)?), int(r.get_ref(8)?) as u32);
                if out.contains_key(&key) {
                    continue;
                }
                let line = |i: usize| -> rusqlite::Result<Option<String>> {
                    let t = sanitize_line(&text(r.get_ref(i)?));
                    Ok((!t.is_empty()).then_some(t))
                };
                let memory_config = text(r.get_ref(4)?);
                let address = match r.get_ref(6)? {
                    ValueRef::Null => None,
                    v => Some(uint(v)),
                };
                let device = uint(r.get_ref(5)?);
                let record = TensorRecord {
                    tensor_id: key.0,
                    shape: line(1)?,
                    dtype: line(2)?,
                    layout: line(3)?,
                    memory_config: Some(sanitize_text(&memory_config)).filter(|m| !m.is_empty()),
                    buffer_type: tensor_buffer_type(address, r.get_ref(7)?, &memory_config),
                    addresses: address.map(|a| vec![(device, a)]).unwrap_or_default(),
                };
                out.insert(key, record);
            }
        }
        Ok(out)
    }

    /// Adds the `device_tensors` addresses of the ids (rows without a rank apply to every rank).
    fn add_addresses(
        &self,
        ids: &BTreeSet<u64>,
        records: &mut HashMap<(u64, u32), TensorRecord>,
    ) -> rusqlite::Result<()> {
        if ids.is_empty() || !self.store.schema.has_table("device_tensors") {
            return Ok(());
        }
        let columns = self.store.schema.select_list(
            "device_tensors",
            &[("tensor_id", "0"), ("device_id", "0"), ("address", "NULL"), ("rank", "NULL")],
        );
        let list = id_list(ids.iter().copied());
        let sql = format!("SELECT {columns} FROM device_tensors WHERE tensor_id IN ({list}) ORDER BY rowid");
        let mut stmt = self.store.conn.prepare(&sql)?;
        let mut rows = stmt.query([])?;
        while let Some(r) = rows.next()? {
            let (id, device, address) = (uint(r.get_ref(0)?), uint(r.get_ref(1)?), r.get_ref(2)?);
            if matches!(address, ValueRef::Null) {
                continue;
            }
            let rank = match r.get_ref(3)? {
                ValueRef::Null => None,
                v => Some(int(v) as u32),
            };
            let entry = (device, uint(address));
            for ((tensor, tensor_rank), record) in records.iter_mut() {
                if *tensor == id && rank.is_none_or(|r| r == *tensor_rank) && !record.addresses.contains(&entry) {
                    record.addresses.push(entry);
                }
            }
        }
        Ok(())
    }
}
