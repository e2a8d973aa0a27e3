//! The tensors operations link (`input_tensors`, `output_tensors`), by operation index: the
//! operation's rank's rows, else rank 0's; an unrecorded operation's inputs from its Python call.

use super::questions::Pictures;
use std::collections::HashMap;

impl<'r> Pictures<'r> {
    /// The input tensor ids of some operations (by index), by `input_index`; rows of the
    /// operation's rank, else of rank 0.
    pub(super) fn input_tensor_ids(&self, indexes: &[usize]) -> rusqlite::Result<HashMap<usize, Vec<u64>>> {
        let mut out = self.linked_tensor_ids("input_tensors", "input_index", indexes)?;
        // An unrecorded operation's inputs are those of its Python call; unreadable, none.
        for &i in indexes.iter().filter(|&&i| !self.report.operations[i].recorded) {
            let call = self.report.details().python_call(i).ok().flatten();
            out.insert(i, call.map(|c| c.input_tensor_ids).unwrap_or_default());
        }
        Ok(out)
    }

    /// The tensor ids some operations (by index) link in `table` (`input_tensors`,
    /// `output_tensors`), by `index_column`; rows of the operation's rank, else of rank 0.
    pub(super) fn linked_tensor_ids(
        &self,
        table: &str,
        index_column: &str,
        indexes: &[usize],
    ) -> rusqlite::Result<HashMap<usize, Vec<u64>>> {
        let ids: Vec<u64> = indexes.iter().map(|&i| self.report.operations[i].id).collect();
        let links = self.report.tensors().tensor_links(table, index_column, &ids)?;
        let mut out = HashMap::new();
        for &i in indexes {
            let op = &self.report.operations[i];
            let of_rank = |rank: u32| links.iter().filter(move |l| l.0 == op.id && l.3 == rank);
            let rank = if of_rank(op.rank).next().is_some() { op.rank } else { 0 };
            let mut picked: Vec<_> = of_rank(rank).collect();
            picked.sort_by_key(|l| l.1);
            out.insert(i, picked.iter().map(|l| l.2).collect());
        }
        Ok(out)
    }
}
