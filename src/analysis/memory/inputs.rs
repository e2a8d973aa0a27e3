//! The plain-data inputs of the memory rules (docs/rules/memory.md §1): what the report layer reads for one
//! operation, with bad values kept as written so that the rules can set them aside with a note.
//! Everything here can be built from arbitrary data; the rules never panic on it.

use crate::analysis::graph::nodes::{GraphNode, SharedGraph};
use crate::analysis::messages::failure::{AllocationFailure, BufferType};
use std::sync::Arc;

/// One `buffers` row as stored; NULL and negative values are kept, to be set aside with a note.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SnapshotRow {
    /// `device_id`.
    pub device_id: u64,
    /// `address`, none when NULL or not a number.
    pub address: Option<i64>,
    /// `max_size_per_bank`, none when NULL or not a number.
    pub size_per_bank: Option<i64>,
    /// `buffer_type`, none when it is no known type.
    pub buffer_type: Option<BufferType>,
    /// `buffer_layout` (TensorMemoryLayout code), when recorded.
    pub layout: Option<i64>,
}

impl SnapshotRow {
    /// Its (address, bytes per bank) by the one valid-row rule ([`valid_buffer`]); none for a
    /// row to set aside.
    pub(crate) fn valid(&self) -> Option<(u64, u64)> {
        let (address, size) = valid_buffer(self.address, self.size_per_bank)?;
        Some((address, allocated_per_bank(self.buffer_type, size)))
    }
}

/// The one valid-row rule of every view of memory (docs/rules/memory.md §3 "Valid rows"): a buffer's
/// (address, bytes per bank) when both are present and positive; none for a `buffers` row or
/// graph allocation to set aside and count in a note (no allocator hands out address 0).
pub(crate) fn valid_buffer(address: Option<i64>, size_per_bank: Option<i64>) -> Option<(u64, u64)> {
    let positive = |v: Option<i64>| v.and_then(|v| u64::try_from(v).ok()).filter(|&v| v > 0);
    Some((positive(address)?, positive(size_per_bank)?))
}

/// The bytes per bank the allocator takes for a buffer of `size` bytes per bank (docs/rules/memory.md §3):
/// tt-metal pads an L1_SMALL buffer to 32 B where the graph and the `buffers` rows give its
/// unaligned size (conv2d's config tensors, ttnn 0.81.1: 304 B recorded, 320 B in the
/// allocator's block table; 368 B recorded, 384 B placed, and the message's `allocated` counts
/// the padded blocks). Other types are taken as recorded: their recorded sizes were the
/// allocator's in every real report.
pub(crate) fn allocated_per_bank(buffer_type: Option<BufferType>, size: u64) -> u64 {
    match buffer_type {
        Some(BufferType::L1Small) => size.next_multiple_of(L1_SMALL_ALIGNMENT),
        _ => size,
    }
}

/// The alignment tt-metal's allocator pads L1_SMALL buffers to (measured on ttnn 0.81.1).
const L1_SMALL_ALIGNMENT: u64 = 32;

/// The `buffers` rows of the greatest earlier operation that has rows for the failure's device.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct EarlierSnapshot {
    /// That operation's id (P of docs/rules/memory.md §3.1).
    pub operation_id: u64,
    /// Its rows (every device; the rules keep the failure's).
    pub rows: Vec<SnapshotRow>,
}

/// What the memory rules need of one `devices` row.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct DeviceFacts {
    /// `device_id`.
    pub device_id: u64,
    /// `address_at_first_l1_cb_buffer` (A), none when the report's era lacks the column.
    pub l1_start: Option<u64>,
    /// `l1_bank_size` (B).
    pub l1_bank_size: u64,
    /// `worker_l1_size` (W).
    pub worker_l1_size: u64,
    /// `l1_num_banks`.
    pub l1_num_banks: u64,
}

/// One `input_tensors` or `output_tensors` row of a tensor.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TensorUse {
    /// The operation that read or produced it.
    pub operation_id: u64,
    /// That operation's name (to recognise `ttnn.deallocate`), shared.
    pub operation_name: std::sync::Arc<str>,
    /// True for an `output_tensors` row.
    pub output: bool,
}

/// A tensor of the report and every operation that read or produced it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TensorFacts {
    /// `tensor_id`.
    pub tensor_id: u64,
    /// `tensors.device_id`.
    pub device_id: Option<u64>,
    /// `tensors.address` (where it was when first recorded); none when NULL.
    pub address: Option<u64>,
    /// `device_tensors` rows: (device, address).
    pub device_addresses: Vec<(u64, u64)>,
    /// Its buffer type, when its address is recorded and the type is known.
    pub buffer_type: Option<BufferType>,
    /// `shape` as printed.
    pub shape: Option<String>,
    /// `dtype` as printed.
    pub dtype: Option<String>,
    /// Its `input_tensors` and `output_tensors` rows.
    pub uses: Vec<TensorUse>,
}

/// A buffer live after replaying captured graphs (the graph-only pass, docs/rules/memory.md §3.4).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct GraphBuffer {
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
    /// `params.layout`, shared with the graph's nodes.
    pub(crate) layout: Option<crate::analysis::shared_text::SharedText>,
}

/// Everything the rules of docs/rules/memory.md §2–§7 read for one failed operation N.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct FailureInputs {
    /// N's id.
    pub operation_id: u64,
    /// The allocation failure of N's attached error.
    pub failure: Option<AllocationFailure>,
    /// N's captured graph, shared with the report; empty when it has none.
    pub graph: SharedGraph,
    /// N's own `buffers` rows (every device), shared with the report's recent snapshots (a
    /// failure's own can hold 300 000 rows).
    pub own_snapshot: Arc<Vec<SnapshotRow>>,
    /// S0 for the failure's device, when there is one.
    pub earlier_snapshot: Option<EarlierSnapshot>,
    /// The buffers live after replaying every captured graph before N, when that pass has run.
    pub replayed_before: Option<Vec<GraphBuffer>>,
    /// The devices the report found a `buffers` row for at an operation before N (the
    /// mesh-id rule of docs/rules/memory.md §2 also counts N's own rows); the report looks only when the
    /// device found has no row of its own.
    pub devices_with_rows: Vec<u64>,
    /// The lowest DRAM address the report found for the failure's device in `buffers` up to N
    /// beyond the snapshots given here (docs/rules/memory.md §2: the DRAM base).
    pub lowest_dram_address: Option<u64>,
    /// The report's `devices` rows.
    pub devices: Vec<DeviceFacts>,
    /// N's input tensor ids, by `input_index`.
    pub input_tensor_ids: Vec<u64>,
    /// The tensors that may hold a live buffer, and N's inputs.
    pub tensors: Vec<TensorFacts>,
}

/// Everything the post-operation picture of any operation reads (the UI's tab 4).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct OperationInputs {
    /// The operation's id.
    pub operation_id: u64,
    /// Its captured graph; empty when it has none.
    pub graph: Vec<GraphNode>,
    /// Its own `buffers` rows (every device and buffer type).
    pub snapshot: Vec<SnapshotRow>,
    /// The report's `devices` rows.
    pub devices: Vec<DeviceFacts>,
    /// Its input tensor ids.
    pub input_tensor_ids: Vec<u64>,
    /// The tensors that may hold a buffer of the snapshot.
    pub tensors: Vec<TensorFacts>,
}

/// How many banks a graph node's size is spread over when it does not say (docs/rules/memory.md §3): the
/// message's bank count, else the device's L1 bank count (L1, L1_SMALL) or 12 (DRAM).
pub(crate) fn default_banks(buffer_type: BufferType, message_banks: Option<u64>, device: Option<&DeviceFacts>) -> u64 {
    message_banks.filter(|&b| b > 0).unwrap_or_else(|| match buffer_type {
        BufferType::L1 | BufferType::L1Small => device.map_or(0, |d| d.l1_num_banks).max(1),
        _ => 12,
    })
}
