//! What the search for tensors held past their last use finds: its own file, so that the usage
//! pass can keep the findings without importing the search (which reads the usage).

use super::fit::LateAtFailure;
use crate::analysis::messages::failure::BufferType;

/// A tensor held past its last use.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LateTensor {
    /// Its device.
    pub device_id: u64,
    /// Its buffer type.
    pub buffer_type: BufferType,
    /// Its buffer's address.
    pub address: u64,
    /// Its buffer's bytes per bank.
    pub size_per_bank: u64,
    /// The tensor.
    pub tensor_id: u64,
    /// Its shape as recorded, when known (the report layer fills it).
    pub shape: Option<String>,
    /// The operation that produced it; none for a tensor created outside the report.
    pub producer_operation_id: Option<u64>,
    /// The last operation that read it (not a deallocation).
    pub last_use_operation_id: u64,
    /// That operation's name.
    pub last_use_operation_name: String,
    /// The last operation over which it is still held: the last snapshot that shows it, or the
    /// failure when the run ends in one with the buffer still live.
    pub held_until_operation_id: u64,
    /// The `file.py:line` of the last-use operation (docs/rules/reference.md §1.5), when its stack trace
    /// has one (the report layer fills it).
    pub source: Option<String>,
    /// How much lower the peak of its device and buffer type would be had it been freed right
    /// after its last use.
    pub peak_saving_per_bank: u64,
}

/// The peak of one device and buffer type, and what it would be with every late tensor freed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LateSummary {
    /// The device.
    pub device_id: u64,
    /// The buffer type.
    pub buffer_type: BufferType,
    /// The peak of the usage series.
    pub peak_per_bank: u64,
    /// The peak with every late tensor of this line taken out over its span.
    pub peak_if_all_freed_per_bank: u64,
    /// How many late tensors the line has.
    pub count: usize,
}

/// What the pass found: the late tensors, biggest peak saving first, and one summary per line.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LateFindings {
    /// Every tensor held past its last use.
    pub late: Vec<LateTensor>,
    /// One per (device, buffer type) with usage, in device then type order.
    pub summary: Vec<LateSummary>,
    /// At each allocation failure, whether freeing them would have let the request fit (the
    /// report layer fills it from the memory at each failure).
    pub failures: Vec<LateAtFailure>,
    /// The report's `tensor_lifetime` table against the list, when it has rows for it (filled
    /// by print mode).
    pub lifetime: Option<LifetimeCheck>,
}

/// What `tensor_lifetime` says of a tensor of the list that the list does not.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Disagreement {
    /// Another producer.
    Producer {
        /// The tensor.
        tensor_id: u64,
        /// `tensor_lifetime`'s.
        table: Option<u64>,
        /// The list's.
        list: Option<u64>,
    },
    /// Another last use.
    LastUse {
        /// The tensor.
        tensor_id: u64,
        /// `tensor_lifetime`'s.
        table: Option<u64>,
        /// The list's.
        list: u64,
    },
    /// Deallocated by an operation at or before the one the list holds it until.
    Deallocated {
        /// The tensor.
        tensor_id: u64,
        /// The deallocating operation.
        by: u64,
        /// Where the list holds it until.
        held_until: u64,
    },
    /// Another line for the last use.
    Source {
        /// The tensor.
        tensor_id: u64,
        /// `tensor_lifetime`'s.
        table: String,
        /// The list's.
        list: String,
    },
}

/// The list's tensors checked against the table: how many had a row, and what disagrees.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LifetimeCheck {
    /// Tensors of the list the table has a row for.
    pub checked: usize,
    /// What the table says otherwise, in the list's order.
    pub disagreements: Vec<Disagreement>,
}

impl LateFindings {
    /// How many of the late tensors the fix `free-late` frees before a failure: those of its
    /// buffer type on a device the failure's device is named by (`names_device`: one chip named
    /// by two ids is one device), last used before the failed operation.
    pub fn freed_before(&self, f: &LateAtFailure, names_device: impl Fn(u64) -> bool) -> usize {
        self.late
            .iter()
            .filter(|t| t.last_use_operation_id < f.operation_id && t.buffer_type == f.buffer_type)
            .filter(|t| names_device(t.device_id))
            .count()
    }
}
