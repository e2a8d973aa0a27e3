//! The params of a `buffer_allocate` / `buffer_deallocate` node.

use super::super::schema::{BufferType, Layout};

/// A `buffer_allocate` / `buffer_deallocate` with every param spelled out.
#[derive(Clone, Debug, PartialEq)]
pub struct Alloc {
    pub size: u64,
    pub address: u64,
    pub buffer_type: BufferType,
    pub layout: Layout,
    pub page_size: u64,
    /// 0 for interleaved buffers.
    pub num_cores: u64,
    pub device_id: u64,
    pub max_size_per_bank: u64,
}

impl Alloc {
    /// Defaults: device 0, page size 2048, interleaved over 12 DRAM banks or 64 L1 banks
    /// (sharded over 64 cores); `max_size_per_bank` computed as tt-metal does.
    pub fn new(size: u64, address: u64, buffer_type: BufferType, layout: Layout) -> Self {
        let num_cores = if layout == Layout::Interleaved { 0 } else { 64 };
        let mut a = Alloc {
            size,
            address,
            buffer_type,
            layout,
            page_size: 2048,
            num_cores,
            device_id: 0,
            max_size_per_bank: 0,
        };
        a.max_size_per_bank = a.computed_max_size_per_bank();
        a
    }
    pub fn page_size(mut self, page_size: u64) -> Self {
        self.page_size = page_size;
        self.max_size_per_bank = self.computed_max_size_per_bank();
        self
    }
    pub fn num_cores(mut self, num_cores: u64) -> Self {
        self.num_cores = num_cores;
        self.max_size_per_bank = self.computed_max_size_per_bank();
        self
    }
    pub fn device(mut self, device_id: u64) -> Self {
        self.device_id = device_id;
        self
    }
    pub fn max_size_per_bank(mut self, bytes: u64) -> Self {
        self.max_size_per_bank = bytes;
        self
    }

    fn computed_max_size_per_bank(&self) -> u64 {
        let banks = if self.layout != Layout::Interleaved && self.num_cores > 0 {
            self.num_cores
        } else if self.buffer_type == BufferType::Dram {
            12
        } else {
            64
        };
        let pages = self.size.div_ceil(self.page_size.max(1));
        pages.div_ceil(banks) * self.page_size
    }
}
