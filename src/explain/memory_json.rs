//! The `memory` object of an operation entry (memory.md §8): every key always present, null
//! where the case has no value; addresses are numbers whatever `--hex` says.

use crate::analysis::memory::{Fit, LiveBuffer, MemoryAtFailure};
use serde_json::{Value, json};

/// The MEMORY object of memory.md §8.
pub fn memory_json(m: &MemoryAtFailure) -> Value {
    let region = &m.map.region;
    json!({
        "device_id": m.device_id,
        "buffer_type": m.buffer_type.token(),
        "basis": m.basis.as_str(),
        "snapshot_operation_id": m.snapshot_operation_id,
        "region": {"start": region.start, "end": region.end, "source": region.source.map(|s| s.as_str())},
        "live_buffers": m.live_buffers.iter().map(live_buffer_json).collect::<Vec<_>>(),
        "used_per_bank": m.map.used_per_bank,
        "free_blocks": m.map.free_blocks.iter().map(|b| json!({"address": b.address, "size": b.size})).collect::<Vec<_>>(),
        "largest_free_block": m.map.largest_free_block,
        "check": {
            "status": m.check.status.as_str(),
            "allocated": m.check.allocated,
            "free": m.check.free,
            "largest_free_block": m.check.largest_free_block,
        },
        "reason": m.reason.as_ref().map(|e| e.reason),
        "reason_label": m.reason.as_ref().map(|e| e.reason.label()),
        "fit": m.fit.as_ref().ok().map(fit_json),
        "circular_buffers": m.circular_buffers.as_ref().map(|c| json!({
            "region_end": c.region_end,
            "lowest_l1_address": c.lowest_l1_address,
            "clashing": c.clashing,
            "circular_buffers": c.circular_buffers.iter().map(|b| json!({
                "address": b.address,
                "size": b.size,
                "core_range": b.core_range,
                "device_operation": b.device_operation,
            })).collect::<Vec<_>>(),
        })),
    })
}

fn live_buffer_json(b: &LiveBuffer) -> Value {
    json!({
        "address": b.address,
        "size_per_bank": b.size_per_bank,
        "layout": b.layout,
        "origin": b.origin.map(|o| o.as_str()),
        "device_operation": b.device_operation,
        "tensor_id": b.tensor_id,
        "shape": b.shape,
        "dtype": b.dtype,
        "producer_operation_id": b.producer_operation_id,
        "producer_operation_name": b.producer_operation_name,
        "last_use_operation_id": b.last_use_operation_id,
        "input_of_failed_operation": b.input_of_operation,
        "stale": b.stale,
    })
}

fn fit_json(f: &Fit) -> Value {
    json!({
        "needed_per_bank": f.needed_per_bank,
        "free": f.free,
        "freed_per_bank": f.freed_per_bank,
        "block": {"address": f.block.address, "size": f.block.size},
    })
}
