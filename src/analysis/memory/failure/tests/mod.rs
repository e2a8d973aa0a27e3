//! Unit tests of every rule of docs/rules/memory.md, on inputs built by hand whose answer is known.

mod at_failure;
mod holders;
mod live;
mod mesh;
mod place;
mod sentences;

use crate::analysis::graph::nodes::{GraphNode, NodeFields, NodeType};
use crate::analysis::memory::place::{default_banks, l1_small_by_address, region};
use crate::analysis::memory::*;
use crate::analysis::messages::failure::{AllocationFailure, BufferType, parse_allocation_failure};

/// Device 0: L1 `[1000, 10000)`, L1_SMALL `[10000, 12000)`, 10 L1 banks.
fn device(id: u64) -> DeviceFacts {
    DeviceFacts { device_id: id, l1_start: Some(1000), l1_bank_size: 9000, worker_l1_size: 12000, l1_num_banks: 10 }
}

/// A V3 L1 failure: `need` per bank, bank size 9000, the allocator's figures.
fn l1_failure(need: u64, allocated: u64, free: u64, largest: u64) -> AllocationFailure {
    parse_allocation_failure(&format!(
        "Out of Memory: Not enough space to allocate {} B L1 buffer across 10 banks, where each bank needs to store {need} B, but bank size is 9000 B (allocated: {allocated} B, free: {free} B, largest free block: {largest} B)",
        need * 10
    ))
    .unwrap()
}

/// A V2 message of a buffer type: no allocator figures.
fn v2_failure(buffer_type: &str, need: u64, bank_size: u64) -> AllocationFailure {
    parse_allocation_failure(&format!(
        "Out of Memory: Not enough space to allocate {} B {buffer_type} buffer across 10 banks, where each bank needs to store {need} B, but bank size is only {bank_size} B",
        need * 10
    ))
    .unwrap()
}

/// An earlier snapshot after operation `operation_id` of device 0's `(type, address, size)` rows.
fn earlier(operation_id: u64, rows: &[(BufferType, i64, i64)]) -> Option<EarlierSnapshot> {
    Some(EarlierSnapshot { operation_id, rows: rows.iter().map(|&(t, a, s)| row(0, t, a, s)).collect() })
}

fn row(device: u64, buffer_type: BufferType, address: i64, size: i64) -> SnapshotRow {
    SnapshotRow {
        device_id: device,
        address: Some(address),
        size_per_bank: Some(size),
        buffer_type: Some(buffer_type),
        layout: Some(0),
    }
}

/// A captured graph under construction; node ids are positions.
#[derive(Default, Clone)]
struct G(Vec<GraphNode>);

impl G {
    fn push(mut self, node_type: NodeType, f: impl FnOnce(&mut NodeFields)) -> Self {
        let mut n = NodeFields { id: self.0.len() as u64, node_type: Some(node_type), ..NodeFields::default() };
        f(&mut n);
        self.0.push(n.into());
        self
    }
    fn start(self, name: &str) -> Self {
        self.push(NodeType::FunctionStart, |n| n.name = name.into())
    }
    fn end(self, name: &str) -> Self {
        self.push(NodeType::FunctionEnd, |n| n.name = name.into())
    }
    fn aborted(self, name: &str) -> Self {
        self.push(NodeType::FunctionEnd, |n| {
            n.name = name.into();
            n.aborted = true;
        })
    }
    /// A `buffer` node and a `buffer_allocate` connected to it, exact type, per-bank size given.
    fn alloc(self, device: u64, buffer_type: BufferType, address: u64, per_bank: u64) -> Self {
        let buffer = self.0.len() as u64;
        self.push(NodeType::Buffer, |_| {}).push(NodeType::BufferAllocate, |n| {
            n.device_id = Some(device);
            n.buffer_type = Some(buffer_type);
            n.buffer_type_code = true;
            n.address = Some(address);
            n.max_size_per_bank = Some(per_bank);
            n.connections = vec![buffer];
        })
    }
    /// A `tensor` node, connected from the last `buffer` node.
    fn tensor(mut self, tensor_id: u64) -> Self {
        let id = self.0.len() as u64;
        if let Some(b) = self.0.iter_mut().rev().find(|n| n.is(NodeType::Buffer)) {
            b.edit(|b| b.connections.push(id));
        }
        self.push(NodeType::Tensor, |n| n.tensor_id = Some(tensor_id))
    }
    fn free(self, device: u64, buffer_type: BufferType, address: u64, per_bank: u64) -> Self {
        self.push(NodeType::BufferDeallocate, |n| {
            n.device_id = Some(device);
            n.buffer_type = Some(buffer_type);
            n.buffer_type_code = true;
            n.address = Some(address);
            n.max_size_per_bank = Some(per_bank);
        })
    }
    fn cb(self, device: u64, address: u64, size: u64) -> Self {
        self.push(NodeType::CircularBufferAllocate, |n| {
            n.device_id = Some(device);
            n.address = Some(address);
            n.size = Some(size);
            n.core_range_set = Some("{[0-0 - 7-7]}".into());
        })
    }
    fn cb_reset(self) -> Self {
        self.push(NodeType::CircularBufferDeallocateAll, |_| {})
    }
    fn capture_end(self) -> Self {
        self.push(NodeType::CaptureEnd, |_| {})
    }
}

/// A tensor recorded at `address` on device 0 (L1), with its rows: (operation, name, output).
fn tensor(id: u64, address: u64, uses: &[(u64, &str, bool)]) -> TensorFacts {
    TensorFacts {
        tensor_id: id,
        device_id: Some(0),
        address: Some(address),
        buffer_type: Some(BufferType::L1),
        shape: Some(format!("Shape([{id}])")),
        dtype: Some("DataType::BFLOAT16".into()),
        uses: uses
            .iter()
            .map(|(op, name, output)| TensorUse { operation_id: *op, operation_name: (*name).into(), output: *output })
            .collect(),
        ..TensorFacts::default()
    }
}

/// Inputs of a failure of operation 10 on device 0.
fn inputs(failure: AllocationFailure, graph: G) -> FailureInputs {
    FailureInputs {
        operation_id: 10,
        failure: Some(failure),
        graph: graph.0.into(),
        devices: vec![device(0)],
        ..FailureInputs::default()
    }
}

fn addresses(m: &MemoryAtFailure) -> Vec<(u64, u64)> {
    let mut a: Vec<(u64, u64)> = m.live_buffers.iter().map(|b| (b.address, b.size_per_bank)).collect();
    a.sort_unstable();
    a
}
