//! The fixes resolved to what the replay acts on (docs/rules/memory.md §9.1): buffers freed after an
//! operation, buffers placed in DRAM instead, the failing request in DRAM, a larger L1_SMALL;
//! and the regions the allocators manage.

use super::sequence::{Place, Recorded};
use crate::analysis::messages::failure::BufferType;

/// The `[start, end)` each allocator of the device manages; none where the report does not say.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Regions {
    /// L1: `[A, A+B)`.
    pub l1: Option<(u64, u64)>,
    /// L1_SMALL: `[A+B, W)`.
    pub l1_small: Option<(u64, u64)>,
    /// DRAM: from its base, one bank's size.
    pub dram: Option<(u64, u64)>,
}

impl Regions {
    /// The regions of a device opened with `l1_small_size` (docs/rules/memory.md §9): L1_SMALL takes the
    /// size rounded up to 32 B from the end of worker L1, and L1's bank shrinks by as much.
    pub fn with_l1_small(self, l1_small_size: Option<u64>) -> Self {
        let (Some(bytes), Some((start, _)), Some((_, worker_end))) = (l1_small_size, self.l1, self.l1_small) else {
            return self;
        };
        let small = bytes.div_ceil(32) * 32;
        let boundary = worker_end.saturating_sub(small).max(start);
        Self { l1: Some((start, boundary)), l1_small: Some((boundary, worker_end)), dram: self.dram }
    }
}

/// A buffer a `to-dram` fix moves: found by its tensor, or by where and when the run allocated
/// it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DramMove {
    /// The tensor.
    pub tensor_id: Option<u64>,
    /// The operation that allocated it (none: live before the first recorded operation).
    pub operation_id: Option<u64>,
    /// Where the run allocated it.
    pub place: Place,
    /// Its recorded address.
    pub address: u64,
}

/// The fixes, resolved to the run's records.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Plan {
    /// Buffers freed right after an operation: (operation, place, recorded address).
    pub free_after: Vec<(u64, Place, u64)>,
    /// Buffers placed in DRAM instead.
    pub to_dram: Vec<DramMove>,
    /// The failing request placed in DRAM.
    pub output_to_dram: bool,
    /// For a circular-buffer failure moved to DRAM: the failed operation, whose own L1 buffers
    /// go to DRAM.
    pub output_to_dram_operation: Option<u64>,
    /// The device opened with this `l1_small_size`.
    pub l1_small_size: Option<u64>,
    /// Extra allocations per bank made before the first operation and kept (`reserve`).
    pub reserve: Vec<(BufferType, u64)>,
    /// DRAM banks, to spread a buffer moved there.
    pub dram_banks: u64,
    /// L1 banks, to tell a moved buffer's whole size when no graph recorded it.
    pub l1_banks: u64,
}

/// The page size a request's figures imply: the page `p` (a tile of a common data type, else a
/// power of two) that divides the request and for which `ceil(requested / p / banks) × p` is
/// the per-bank figure.
pub fn request_page(requested: u64, banks: u64, per_bank: u64) -> Option<u64> {
    const PAGES: [u64; 11] = [2048, 4096, 1088, 576, 1024, 512, 8192, 256, 128, 64, 32];
    let banks = banks.max(1);
    PAGES.into_iter().find(|&p| requested.is_multiple_of(p) && (requested / p).div_ceil(banks) * p == per_bank)
}

impl Plan {
    /// Bytes per bank of `bytes` in pages of `page` spread over the DRAM banks.
    pub fn dram_per_bank(&self, bytes: u64, page: u64) -> u64 {
        let page = page.max(1);
        bytes.div_ceil(page).div_ceil(self.dram_banks.max(1)) * page
    }

    /// A buffer's bytes per bank in DRAM, and whether that is exact (its graph gave its size and
    /// page) or estimated from its per-bank size in L1 with 2 KiB pages.
    pub(crate) fn dram_size(&self, b: &Recorded) -> (u64, bool) {
        match b.size {
            Some((bytes, page)) if page > 0 => (self.dram_per_bank(bytes, page), true),
            _ => {
                let banks = if b.place.1 == BufferType::Dram { self.dram_banks } else { self.l1_banks };
                (self.dram_per_bank(b.size_per_bank.saturating_mul(banks.max(1)), 2048), false)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_larger_l1_small_takes_the_top_of_worker_l1() {
        let r = Regions { l1: Some((105_824, 1_499_136)), l1_small: Some((1_499_136, 1_499_136)), dram: None };
        let fixed = r.with_l1_small(Some(100));
        assert_eq!(fixed.l1_small, Some((1_499_136 - 128, 1_499_136)));
        assert_eq!(fixed.l1, Some((105_824, 1_499_136 - 128)));
        assert_eq!(r.with_l1_small(None), r);
    }

    #[test]
    fn request_pages_and_dram_sizes() {
        // 8 MiB of bf16 tiles over 64 L1 banks: 128 KiB per bank; over 12 DRAM banks, 342 pages.
        assert_eq!(request_page(8_388_608, 64, 131_072), Some(2048));
        let plan = Plan { dram_banks: 12, l1_banks: 64, ..Plan::default() };
        assert_eq!(plan.dram_per_bank(8_388_608, 2048), 342 * 2048);
        // The real small model's 80 MiB DRAM tensor: 6991872 B per bank.
        assert_eq!(plan.dram_per_bank(83_886_080, 2048), 6_991_872);
        assert_eq!(request_page(1000, 64, 32), None);
    }
}
