//! The demo's allocator model and its tensors: every buffer placed by tt-metal's policy
//! (docs/rules/memory.md §9, the simulation's allocator): DRAM bottom-up from the demo's DRAM base, the
//! lowest free block that holds it, aligned to 32 B; L1 top-down in the Wormhole's L1 region
//! `[A, A+B)` (docs/rules/memory.md §1), the highest free block that holds it at its top, aligned to 16 B.
//! No address is chosen by hand, so the what-if replay of the demo reproduces it (see
//! `tests/explain/demo_replay.rs`). Also the `tensors` rows of the buffers that operations read or
//! produce, with their ids.

use super::super::graph::Alloc;
use super::super::rows::{BufferRow, TensorRow};
use super::super::schema::{BufferType, Layout};
use super::super::sim::Allocator;
use super::{DRAM_MC, HS_MC, L1_MC};

/// The L1 allocator region of `Device::wormhole`: `address_at_first_l1_cb_buffer` + `l1_bank_size`.
const L1_START: u64 = 101440;
const L1_TOP: u64 = 101440 + 1364928;
/// The lowest DRAM address: the replay reads the DRAM region's base from it (docs/rules/memory.md §9).
const DRAM_BASE: u64 = 1024;
/// One DRAM bank (1 GiB), more than the demo ever holds.
const DRAM_BANK: u64 = 1 << 30;

/// A device buffer of the allocator model.
#[derive(Clone, Copy, Debug)]
pub(super) struct Buf {
    pub(super) address: i64,
    pub(super) per_bank: i64,
    pub(super) bt: BufferType,
    pub(super) layout: Layout,
    /// Shard count; 0 for interleaved buffers.
    pub(super) cores: u64,
}

impl Buf {
    fn banks(&self) -> u64 {
        match (self.layout, self.bt) {
            (Layout::Interleaved, BufferType::Dram) => 12,
            (Layout::Interleaved, _) => 64,
            _ => self.cores,
        }
    }
    fn size(&self) -> u64 {
        self.per_bank as u64 * self.banks()
    }
    pub(super) fn alloc(&self) -> Alloc {
        Alloc::new(self.size(), self.address as u64, self.bt, self.layout)
            .num_cores(self.cores)
            .max_size_per_bank(self.per_bank as u64)
    }
    fn row(&self) -> BufferRow {
        BufferRow::new(self.bt, self.address, self.per_bank).layout(self.layout)
    }
}

/// The allocator model, with every allocation it made (for naming tensors).
pub(super) struct Mem {
    live: Vec<(&'static str, Buf)>,
    /// Every allocation, in order: name, buffer, tensor id once an operation names it.
    history: Vec<(&'static str, Buf, Option<i64>)>,
    /// `tensors` rows of the buffers operations named.
    pub(super) tensors: Vec<TensorRow>,
    l1: Allocator,
    dram: Allocator,
}

impl Default for Mem {
    fn default() -> Self {
        Mem {
            live: Vec::new(),
            history: Vec::new(),
            tensors: Vec::new(),
            l1: Allocator::top_down(L1_START, L1_TOP).aligned(16),
            dram: Allocator::bottom_up(DRAM_BASE, DRAM_BASE, DRAM_BASE + DRAM_BANK),
        }
    }
}

impl Mem {
    /// Places an interleaved or sharded (on 64 cores) buffer of `per_bank` bytes by the policy.
    pub(super) fn alloc(&mut self, name: &'static str, bt: BufferType, per_bank: i64, layout: Layout) -> Buf {
        let cores = if layout == Layout::Interleaved { 0 } else { 64 };
        self.alloc_on(name, bt, per_bank, layout, cores)
    }

    /// Places a buffer sharded on `cores` cores by the policy.
    pub(super) fn alloc_on(
        &mut self,
        name: &'static str,
        bt: BufferType,
        per_bank: i64,
        layout: Layout,
        cores: u64,
    ) -> Buf {
        let allocator = self.allocator(bt);
        let address = allocator.allocate(per_bank as u64);
        let address = address.unwrap_or_else(|| panic!("no {bt:?} room for {name} ({per_bank} B per bank)")) as i64;
        let b = Buf { address, per_bank, bt, layout, cores };
        self.live.push((name, b));
        self.history.push((name, b, None));
        b
    }

    fn allocator(&mut self, bt: BufferType) -> &mut Allocator {
        match bt {
            BufferType::Dram => &mut self.dram,
            BufferType::L1 => &mut self.l1,
            other => panic!("the demo places no {other:?} buffer"),
        }
    }

    pub(super) fn free(&mut self, name: &str) -> Buf {
        let i = self.live.iter().position(|(n, _)| *n == name);
        let b = self.live.remove(i.unwrap_or_else(|| panic!("{name} is not live"))).1;
        self.allocator(b.bt).free(b.address as u64);
        b
    }

    pub(super) fn rows(&self) -> Vec<BufferRow> {
        let mut bufs: Vec<Buf> = self.live.iter().map(|(_, b)| *b).collect();
        bufs.sort_by_key(|b| (b.bt.code(), b.address));
        bufs.iter().map(Buf::row).collect()
    }

    /// The tensor id of the newest allocation called `name`, giving it a `tensors` row the first
    /// time an operation names it.
    pub(super) fn tensor(&mut self, name: &str) -> i64 {
        let i = self.history.iter().rposition(|(n, _, _)| *n == name).unwrap_or_else(|| panic!("no buffer {name}"));
        if let Some(id) = self.history[i].2 {
            return id;
        }
        let id = 2000 + self.tensors.len() as i64 + 1;
        let b = self.history[i].1;
        let config = match (b.bt, b.layout) {
            (BufferType::Dram, _) => DRAM_MC,
            (_, Layout::Interleaved) => L1_MC,
            _ => HS_MC,
        };
        let elements = b.size() / 2;
        let shape = shape_of(name).map_or_else(|| format!("Shape([1, {elements}])"), |s| format!("Shape([{s}])"));
        let row =
            TensorRow::new(id, &shape, "DataType::BFLOAT16", "Layout::TILE").on_device(0, b.address, b.bt, config);
        self.tensors.push(row);
        self.history[i].2 = Some(id);
        id
    }
}

/// The shapes of the model's tensors, as its arguments print them.
fn shape_of(name: &str) -> Option<&'static str> {
    Some(match name {
        "x0" | "x1" => "1, 224, 224, 4",
        "x2" => "1, 1, 50176, 4",
        "x3" | "x4" => "1, 1, 12544, 64",
        "x" | "x5" | "y" | "z" => "1, 1, 3136, 64",
        "p" => "1, 196, 512",
        "pos" | "residual" | "c" | "h" | "context" | "out" | "r" | "traced" => "1, 197, 512",
        "qkv" => "1, 1, 197, 1536",
        "q" | "k" | "v" => "1, 8, 197, 64",
        "scores" | "probs" => "1, 8, 197, 197",
        "conv1.prepared" => "64, 4, 7, 7",
        "conv2.prepared" => "64, 64, 3, 3",
        "pos_embedding" => "197, 512",
        "qkv.weight" => "512, 1536",
        "proj.weight" => "512, 512",
        "scratch" => "1, 1, 1536, 1024",
        "next_pixels" | "next_input" => "1, 1, 50176, 4",
        _ => return None,
    })
}
