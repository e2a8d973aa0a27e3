//! The hardware a what-if replays on (docs/rules/memory.md §9.1): the regions of the followed
//! device's allocators and DRAM's bank count, from what the report records, else the defaults of
//! its release and architecture. Pure: `report/` fills [`HardwareFacts`].

use super::plan::Regions;
use crate::analysis::memory::failure::picture::MemoryAtFailure;
use crate::analysis::memory::inputs::DeviceFacts;
use crate::analysis::memory::mesh::chip_row;
use crate::analysis::memory::place::region;
use crate::analysis::messages::failure::BufferType;

/// The DRAM allocator's base when the report records no DRAM buffer: ttnn 0.75–0.81 on Wormhole
/// (schema 3 and later), and 32 before (schema 2, or no schema recorded).
const DRAM_BASE: u64 = 1_048_640;
const DRAM_BASE_SCHEMA_2: u64 = 32;

/// A DRAM bank when no DRAM failure gives its size: a Wormhole's 1 GiB, a Blackhole's 4 GiB.
const WORMHOLE_DRAM_BANK: u64 = 1 << 30;
const BLACKHOLE_DRAM_BANK: u64 = 1 << 32;

/// The DRAM allocator's base a release starts at, for a report that records no DRAM buffer
/// (docs/rules/memory.md §9.1): the one default the what-if and the true peak read.
pub(crate) fn default_dram_base(schema_version: Option<&str>) -> u64 {
    match schema_version {
        None => DRAM_BASE_SCHEMA_2,
        Some(v) if v.starts_with('2') => DRAM_BASE_SCHEMA_2,
        Some(_) => DRAM_BASE,
    }
}

/// What the report records of the hardware, as the what-if rules read it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct HardwareFacts {
    /// The `devices` rows.
    pub(crate) devices: Vec<DeviceFacts>,
    /// `report_metadata.schema_version`, when recorded.
    pub(crate) schema_version: Option<String>,
    /// Every DRAM allocation failure's (bank size, banks), in the `errors` table's order.
    pub(crate) dram_failures: Vec<(Option<u64>, Option<u64>)>,
}

impl HardwareFacts {
    /// The `devices` row `device` is read by (`mesh::chip_row`: its own, else a single chip's).
    pub(crate) fn device_row(&self, device: u64) -> Option<DeviceFacts> {
        chip_row(&self.devices, device).cloned()
    }

    /// Whether the report is a Blackhole's (more than 64 L1 banks on a device).
    fn blackhole(&self) -> bool {
        self.devices.iter().any(|d| d.l1_num_banks > 64)
    }

    /// The regions of the device's allocators, by the one formula of docs/rules/memory.md §2
    /// (`place::region`): L1 `[A, A+B)` and L1_SMALL `[A+B, W)` from its `devices` row, DRAM the
    /// failure's region ([`failure_dram`]) else [`Self::dram_region`] from `lowest_dram_address`,
    /// the lowest DRAM address recorded for the device up to N.
    pub(crate) fn regions(
        &self,
        device: u64,
        failure_dram: Option<(u64, u64)>,
        lowest_dram_address: Option<u64>,
    ) -> Regions {
        let row = self.device_row(device);
        Regions {
            l1: region(BufferType::L1, row.as_ref(), None, None).bounds(),
            l1_small: region(BufferType::L1Small, row.as_ref(), None, None).bounds(),
            dram: failure_dram.or_else(|| Some(self.dram_region(lowest_dram_address))),
        }
    }

    /// DRAM `[base, end)` for a failure that is not in DRAM (docs/rules/memory.md §9.1): the base
    /// the lowest DRAM address recorded (else the release's), one bank of the largest size a
    /// DRAM failure's message gives; without one, up to the end of the architecture's bank.
    pub(crate) fn dram_region(&self, lowest_dram_address: Option<u64>) -> (u64, u64) {
        let base = lowest_dram_address.unwrap_or_else(|| default_dram_base(self.schema_version.as_deref()));
        let bank = match self.dram_failures.iter().filter_map(|(size, _)| *size).max() {
            Some(bank) => bank,
            None if self.blackhole() => BLACKHOLE_DRAM_BANK.saturating_sub(base),
            None => WORMHOLE_DRAM_BANK.saturating_sub(base),
        };
        region(BufferType::Dram, None, Some(bank), Some(base)).bounds().unwrap_or((base, base))
    }

    /// DRAM banks: from the first DRAM failure's message, else a Wormhole's 12 (a Blackhole's 8).
    pub(crate) fn dram_banks(&self) -> u64 {
        let from_message = self.dram_failures.first().and_then(|(_, banks)| *banks);
        from_message.unwrap_or(if self.blackhole() { 8 } else { 12 })
    }
}

/// A DRAM failure's region, which the replay's DRAM allocator manages; none for a failure in
/// another buffer type (its DRAM region is then [`HardwareFacts::dram_region`]).
pub(crate) fn failure_dram(m: &MemoryAtFailure) -> Option<(u64, u64)> {
    match m.buffer_type {
        BufferType::Dram => m.map.region.bounds(),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(device_id: u64, l1_num_banks: u64) -> DeviceFacts {
        DeviceFacts { device_id, l1_start: Some(1000), l1_bank_size: 9000, worker_l1_size: 12000, l1_num_banks }
    }

    fn hardware(schema: Option<&str>, dram_failures: &[(Option<u64>, Option<u64>)]) -> HardwareFacts {
        HardwareFacts {
            devices: vec![row(0, 64)],
            schema_version: schema.map(str::to_string),
            dram_failures: dram_failures.to_vec(),
        }
    }

    #[test]
    fn l1_and_l1_small_from_the_device_s_row_dram_from_the_failure() {
        let r = hardware(Some("3.1"), &[]).regions(0, Some((64, 1064)), Some(5000));
        assert_eq!(r, Regions { l1: Some((1000, 10_000)), l1_small: Some((10_000, 12_000)), dram: Some((64, 1064)) });
        // A device without a row is read by a single chip's row, never by another device's; a
        // row without A has no L1 regions.
        let mut h = hardware(None, &[]);
        assert_eq!(h.device_row(5), Some(row(0, 64)));
        let two = HardwareFacts { devices: vec![row(0, 64), row(1, 56)], ..hardware(None, &[]) };
        assert_eq!((two.device_row(1), two.device_row(5)), (Some(row(1, 56)), None));
        h.devices[0].l1_start = None;
        assert_eq!((h.regions(0, None, None).l1, h.regions(0, None, None).l1_small), (None, None));
    }

    #[test]
    fn dram_from_the_lowest_address_and_the_largest_bank_else_the_release_and_the_architecture() {
        assert_eq!(hardware(None, &[]).dram_region(None), (32, 1 << 30));
        assert_eq!(hardware(Some("2.0"), &[]).dram_region(None), (32, 1 << 30));
        assert_eq!(hardware(Some("3.0"), &[]).dram_region(None), (1_048_640, 1 << 30));
        let failures = [(Some(1000), Some(12)), (Some(2000), None), (None, Some(6))];
        assert_eq!(hardware(Some("3.0"), &failures).dram_region(Some(5000)), (5000, 7000));
        let blackhole = HardwareFacts { devices: vec![row(0, 140)], ..hardware(Some("3.0"), &[]) };
        assert_eq!(blackhole.dram_region(Some(64)), (64, 1 << 32));
    }

    #[test]
    fn dram_banks_from_the_first_dram_failure_else_the_architecture_s() {
        assert_eq!(hardware(None, &[(Some(1000), Some(7)), (Some(1000), Some(9))]).dram_banks(), 7);
        assert_eq!(hardware(None, &[(Some(1000), None), (Some(1000), Some(9))]).dram_banks(), 12);
        let blackhole = HardwareFacts { devices: vec![row(0, 140)], ..hardware(None, &[]) };
        assert_eq!(blackhole.dram_banks(), 8);
    }
}
