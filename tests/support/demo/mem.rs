//! The demo's allocator model and its tensors: DRAM bottom-up (bump, reclaiming above the last
//! live buffer), L1 first fit top-down in the Wormhole's L1 region `[A, A+B)` (memory.md §1),
//! a few buffers placed at the addresses their story needs; and the `tensors` rows of the
//! buffers that operations read or produce, with their ids.

use super::super::graph::Alloc;
use super::super::rows::{BufferRow, TensorRow};
use super::super::schema::{BufferType, Layout};
use super::{DRAM_MC, HS_MC, L1_MC};

/// The L1 allocator region of `Device::wormhole`: `address_at_first_l1_cb_buffer` + `l1_bank_size`.
pub(super) const L1_START: i64 = 101440;
pub(super) const L1_TOP: i64 = 101440 + 1364928;
const DRAM_BASE: i64 = 1024;

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
#[derive(Default)]
pub(super) struct Mem {
    live: Vec<(&'static str, Buf)>,
    /// Every allocation, in order: name, buffer, tensor id once an operation names it.
    history: Vec<(&'static str, Buf, Option<i64>)>,
    /// `tensors` rows of the buffers operations named.
    pub(super) tensors: Vec<TensorRow>,
}

impl Mem {
    pub(super) fn alloc(&mut self, name: &'static str, bt: BufferType, per_bank: i64, layout: Layout) -> Buf {
        let address = match bt {
            BufferType::Dram => {
                let end = self.live.iter().filter(|(_, b)| b.bt == BufferType::Dram);
                let end = end.map(|(_, b)| b.address + b.per_bank).max();
                end.map_or(DRAM_BASE, |e| (e + 31) / 32 * 32)
            }
            _ => self.first_fit_top_down(bt, per_bank),
        };
        self.alloc_at(name, bt, address, per_bank, layout)
    }

    /// The top of the highest free L1 range that holds `per_bank`, aligned to 32.
    fn first_fit_top_down(&self, bt: BufferType, per_bank: i64) -> i64 {
        let mut held: Vec<(i64, i64)> =
            self.live.iter().filter(|(_, b)| b.bt == bt).map(|(_, b)| (b.address, b.address + b.per_bank)).collect();
        held.sort_unstable();
        let mut gaps = Vec::new();
        let mut at = L1_START;
        for (s, e) in held {
            if s > at {
                gaps.push((at, s));
            }
            at = at.max(e);
        }
        gaps.push((at, L1_TOP));
        gaps.iter()
            .rev()
            .find_map(|&(s, e)| {
                let a = (e - per_bank) / 32 * 32;
                (a >= s).then_some(a)
            })
            .unwrap_or_else(|| panic!("no L1 room for {per_bank} B"))
    }

    /// Allocates at a given address (a buffer whose place its story decides).
    pub(super) fn alloc_at(
        &mut self,
        name: &'static str,
        bt: BufferType,
        address: i64,
        per_bank: i64,
        layout: Layout,
    ) -> Buf {
        let cores = if layout == Layout::Interleaved { 0 } else { 64 };
        let b = Buf { address, per_bank, bt, layout, cores };
        let clash = self
            .live
            .iter()
            .find(|(_, o)| o.bt == bt && o.address < address + per_bank && address < o.address + o.per_bank);
        assert!(clash.is_none(), "{name} at {address} overlaps {clash:?}");
        self.live.push((name, b));
        self.history.push((name, b, None));
        b
    }

    pub(super) fn free(&mut self, name: &str) -> Buf {
        let i = self.live.iter().position(|(n, _)| *n == name);
        self.live.remove(i.unwrap_or_else(|| panic!("{name} is not live"))).1
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
        "x5" | "y" | "z" => "1, 1, 3136, 64",
        "p" => "1, 196, 512",
        "pos" | "c" | "h" | "context" | "out" | "r" | "traced" => "1, 197, 512",
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
