//! The plain-data inputs of the memory rules (memory.md §1): what the report layer reads for one
//! operation, with bad values kept as written so that the rules can set them aside with a note.
//! Everything here can be built from arbitrary data; the rules never panic on it.

use crate::analysis::failure::{AllocationFailure, BufferType};
use crate::analysis::graph::GraphNode;

/// One `buffers` row as stored; NULL and negative values are kept, to be set aside with a note.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct SnapshotRow {
    /// `device_id`.
    pub(crate) device_id: u64,
    /// `address`, none when NULL or not a number.
    pub(crate) address: Option<i64>,
    /// `max_size_per_bank`, none when NULL or not a number.
    pub(crate) size_per_bank: Option<i64>,
    /// `buffer_type`, none when it is no known type.
    pub(crate) buffer_type: Option<BufferType>,
    /// `buffer_layout` (TensorMemoryLayout code), when recorded.
    pub(crate) layout: Option<i64>,
}

/// The `buffers` rows of the greatest earlier operation that has rows for the failure's device.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct EarlierSnapshot {
    /// That operation's id (P of memory.md §3.1).
    pub(crate) operation_id: u64,
    /// Its rows (every device; the rules keep the failure's).
    pub(crate) rows: Vec<SnapshotRow>,
}

/// What the memory rules need of one `devices` row.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct DeviceFacts {
    /// `device_id`.
    pub(crate) device_id: u64,
    /// `address_at_first_l1_cb_buffer` (A), none when the report's era lacks the column.
    pub(crate) l1_start: Option<u64>,
    /// `l1_bank_size` (B).
    pub(crate) l1_bank_size: u64,
    /// `worker_l1_size` (W).
    pub(crate) worker_l1_size: u64,
    /// `l1_num_banks`.
    pub(crate) l1_num_banks: u64,
}

/// One `input_tensors` or `output_tensors` row of a tensor.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct TensorUse {
    /// The operation that read or produced it.
    pub(crate) operation_id: u64,
    /// That operation's name (to recognise `ttnn.deallocate`), shared.
    pub(crate) operation_name: std::sync::Arc<str>,
    /// True for an `output_tensors` row.
    pub(crate) output: bool,
}

/// A tensor of the report and every operation that read or produced it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct TensorFacts {
    /// `tensor_id`.
    pub(crate) tensor_id: u64,
    /// `tensors.device_id`.
    pub(crate) device_id: Option<u64>,
    /// `tensors.address` (where it was when first recorded); none when NULL.
    pub(crate) address: Option<u64>,
    /// `device_tensors` rows: (device, address).
    pub(crate) device_addresses: Vec<(u64, u64)>,
    /// Its buffer type, when its address is recorded and the type is known.
    pub(crate) buffer_type: Option<BufferType>,
    /// `shape` as printed.
    pub(crate) shape: Option<String>,
    /// `dtype` as printed.
    pub(crate) dtype: Option<String>,
    /// Its `input_tensors` and `output_tensors` rows.
    pub(crate) uses: Vec<TensorUse>,
}

/// A buffer live after replaying captured graphs (the graph-only pass, memory.md §3.4).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct GraphBuffer {
    /// `params.device_id`; none in captures that do not record it (then it matches any device).
    pub(crate) device_id: Option<u64>,
    /// The node's buffer type.
    pub(crate) buffer_type: Option<BufferType>,
    /// True when the type came from the integer `buffer_type`; `type` says only DRAM or L1.
    pub(crate) exact_type: bool,
    /// Bank-relative address.
    pub(crate) address: u64,
    /// `params.max_size_per_bank`.
    pub(crate) max_size_per_bank: Option<u64>,
    /// `params.size`, across banks.
    pub(crate) size: Option<u64>,
    /// `params.num_cores` (0 = interleaved).
    pub(crate) num_cores: Option<u64>,
    /// `params.layout`.
    pub(crate) layout: Option<String>,
}

/// Everything the rules of memory.md §2–§7 read for one failed operation N.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct FailureInputs {
    /// N's id.
    pub(crate) operation_id: u64,
    /// The allocation failure of N's attached error.
    pub(crate) failure: Option<AllocationFailure>,
    /// N's captured graph; empty when it has none.
    pub(crate) graph: Vec<GraphNode>,
    /// N's own `buffers` rows (every device).
    pub(crate) own_snapshot: Vec<SnapshotRow>,
    /// S0 for the failure's device, when there is one.
    pub(crate) earlier_snapshot: Option<EarlierSnapshot>,
    /// The buffers live after replaying every captured graph before N, when that pass has run.
    pub(crate) replayed_before: Option<Vec<GraphBuffer>>,
    /// The report's `devices` rows.
    pub(crate) devices: Vec<DeviceFacts>,
    /// N's input tensor ids, by `input_index`.
    pub(crate) input_tensor_ids: Vec<u64>,
    /// The tensors that may hold a live buffer, and N's inputs.
    pub(crate) tensors: Vec<TensorFacts>,
}

/// Everything the post-operation picture of any operation reads (the UI's tab 4).
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct OperationInputs {
    /// The operation's id.
    pub(crate) operation_id: u64,
    /// Its captured graph; empty when it has none.
    pub(crate) graph: Vec<GraphNode>,
    /// Its own `buffers` rows (every device and buffer type).
    pub(crate) snapshot: Vec<SnapshotRow>,
    /// The report's `devices` rows.
    pub(crate) devices: Vec<DeviceFacts>,
    /// Its input tensor ids.
    pub(crate) input_tensor_ids: Vec<u64>,
    /// The tensors that may hold a buffer of the snapshot.
    pub(crate) tensors: Vec<TensorFacts>,
}
