//! Where each error is marked on the memory over the run (tab 5's marks, `--peak`'s DRAM
//! ceiling): the failure's place as the memory at a failure finds it, found once per report.

use super::questions::Pictures;
use super::usage::MarkedFailure;
use crate::analysis::memory::failure_mark_place;
use crate::analysis::memory::usage_series::FailureMark;

impl<'r> Pictures<'r> {
    /// Every operation with an attached error, with the device and buffer type it failed on and
    /// its message's bank size (see [`Self::failure_mark_places`]): found once and kept; when
    /// the reads fail, every error is marked on every line.
    pub(super) fn marked_failures(&self) -> &'r [MarkedFailure] {
        self.report.marks.get_or_init(|| {
            self.failure_mark_places().unwrap_or_else(|_| {
                let with_error = self.report.operations.iter().filter(|o| o.error.is_some());
                with_error
                    .map(|o| (FailureMark { operation_id: o.id, device_id: None, buffer_type: None }, None))
                    .collect()
            })
        })
    }

    /// Where the error of each operation with one is marked on the memory over the run
    /// (`analysis::memory::failure_mark_place`: the failure's place of docs/rules/memory.md §2, the mesh-id
    /// rule included), with its allocation failure's bank size; in `operations` order.
    pub(super) fn failure_mark_places(&self) -> rusqlite::Result<Vec<MarkedFailure>> {
        let indexes: Vec<usize> =
            (0..self.report.operations.len()).filter(|&i| self.report.operations[i].error.is_some()).collect();
        let mut out = Vec::new();
        for mut p in self.failure_inputs(&indexes)? {
            let op = &self.report.operations[p.index];
            self.devices_with_rows(&mut p.inputs, op.id, op.rank)?;
            let (device_id, buffer_type) = failure_mark_place(&p.inputs);
            let bank_size = p.inputs.failure.as_ref().and_then(|f| f.figures.bank_size);
            out.push((FailureMark { operation_id: op.id, device_id, buffer_type }, bank_size));
        }
        Ok(out)
    }
}
