//! `--memory`: what the memory at a failure reads, written consistently — a `tensors` row for
//! every buffer, the inputs and outputs of every operation, L1 kept inside the device's region,
//! and allocation failures whose figures are those of the live buffers.

use super::{Buf, L1_REGION_END, L1_REGION_START};
use crate::support::BufferType;
use crate::support::demo::text;

/// (used, largest free block) per bank of `bufs` of one type in `[start, end)`: overlapping
/// buffers counted once, as the allocator would.
fn figures(bufs: &[Buf], bt: BufferType, start: u64, end: u64) -> (u64, u64) {
    let mut ranges: Vec<(u64, u64)> = bufs
        .iter()
        .filter(|b| b.bt == bt)
        .map(|b| (b.address.max(start), (b.address + b.per_bank).min(end)))
        .filter(|(s, e)| e > s)
        .collect();
    ranges.sort_unstable();
    let (mut used, mut largest, mut at) = (0, 0, start);
    for (s, e) in ranges {
        if s > at {
            largest = largest.max(s - at);
        }
        if e > at {
            used += e - s.max(at);
            at = e;
        }
    }
    (used, largest.max(end - at))
}

/// A V3 allocation failure of the `n`-th failing operation, alternating L1 and DRAM, asking for
/// one more page than the largest free block of the live buffers.
pub fn failure_message(n: u64, bufs: &[Buf]) -> String {
    let (bt, start, end, banks) = if n.is_multiple_of(2) {
        (BufferType::L1, L1_REGION_START, L1_REGION_END, 64)
    } else {
        (BufferType::Dram, 0, 1_073_741_792, 12)
    };
    let (used, largest) = figures(bufs, bt, start, end);
    let need = (largest / 2048 + 1) * 2048;
    let message = format!(
        "Out of Memory: Not enough space to allocate {} B {} buffer across {banks} banks, where each bank needs to store {need} B, but bank size is {} B (allocated: {used} B, free: {} B, largest free block: {largest} B)",
        need * banks,
        bt.token(),
        end - start,
        end - start - used,
    );
    text::wrapped(&text::bank_manager_header(486, "false"), &message, text::ALLOCATOR_BACKTRACE)
}

/// The `tensors` row values of a buffer's tensor: id, shape, memory config, address, type.
pub fn tensor_row(b: &Buf) -> (u64, String, String, u64, i64) {
    let config = format!(
        "MemoryConfig(memory_layout=TensorMemoryLayout::{},buffer_type=BufferType::{},shard_spec=std::nullopt)",
        b.layout.name(),
        b.bt.token()
    );
    (b.tensor, format!("Shape([1, 1, 32, {}])", b.per_bank / 64), config, b.address, b.bt.code())
}
