//! The allocator of the simulation: one address range per (device, buffer type), first fit,
//! top-down (L1, as TT-NN places tensors) or bottom-up (DRAM), aligned to 32 B unless told
//! otherwise (tt-metal aligns L1 to 16 B, docs/rules/memory.md §9; the demo uses that).

/// A buffer the allocator holds: `[address, address + size)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Held {
    pub address: u64,
    pub size: u64,
}

/// One bank's allocator.
#[derive(Clone, Debug)]
pub struct Allocator {
    /// The region `[start, end)` the figures are computed over (docs/rules/memory.md's region).
    pub start: u64,
    pub end: u64,
    /// The lowest address placed (DRAM reserves a little at the bottom).
    pub base: u64,
    pub top_down: bool,
    pub held: Vec<Held>,
    /// Sizes are rounded up to, and addresses placed on, multiples of this.
    pub align: u64,
}

const ALIGN: u64 = 32;

impl Allocator {
    pub fn top_down(start: u64, end: u64) -> Self {
        Allocator { start, end, base: start, top_down: true, held: Vec::new(), align: ALIGN }
    }

    pub fn bottom_up(start: u64, base: u64, end: u64) -> Self {
        Allocator { start, end, base, top_down: false, held: Vec::new(), align: ALIGN }
    }

    /// The same allocator with another alignment.
    pub fn aligned(self, align: u64) -> Self {
        Allocator { align, ..self }
    }

    /// The free ranges within `[from, end)`, ascending.
    fn gaps(&self, from: u64) -> Vec<(u64, u64)> {
        let mut held = self.held.clone();
        held.sort_by_key(|h| h.address);
        let mut out = Vec::new();
        let mut at = from;
        for h in held {
            if h.address > at {
                out.push((at, h.address));
            }
            at = at.max(h.address + h.size);
        }
        if self.end > at {
            out.push((at, self.end));
        }
        out
    }

    /// Where a buffer of `size` would go, without placing it.
    pub fn place(&self, size: u64) -> Option<u64> {
        let align = self.align;
        let size = size.div_ceil(align) * align;
        let gaps = self.gaps(self.base);
        if self.top_down {
            gaps.iter().rev().find_map(|&(s, e)| {
                let a = (e - size.min(e)) / align * align;
                (e >= size && a >= s).then_some(a)
            })
        } else {
            gaps.iter().find_map(|&(s, e)| {
                let a = s.div_ceil(align) * align;
                (a + size <= e).then_some(a)
            })
        }
    }

    /// Allocates `size` bytes; none when no free block holds it.
    pub fn allocate(&mut self, size: u64) -> Option<u64> {
        let address = self.place(size)?;
        self.held.push(Held { address, size });
        Some(address)
    }

    /// Allocates at a given address (a buffer whose address another device decided).
    pub fn allocate_at(&mut self, address: u64, size: u64) {
        self.held.push(Held { address, size });
    }

    pub fn free(&mut self, address: u64) -> Held {
        let i = self.held.iter().position(|h| h.address == address).expect("freeing a held buffer");
        self.held.remove(i)
    }

    /// Bytes held.
    pub fn allocated(&self) -> u64 {
        self.held.iter().map(|h| h.size).sum()
    }

    /// The largest free block of the region.
    pub fn largest_free(&self) -> u64 {
        self.gaps(self.start).iter().map(|(s, e)| e - s).max().unwrap_or(0)
    }

    /// Free bytes of the region.
    pub fn free_bytes(&self) -> u64 {
        (self.end - self.start) - self.allocated()
    }
}
