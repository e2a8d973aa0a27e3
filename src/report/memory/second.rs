//! A second connection to an opened report, sharing what was read at open: for a worker thread
//! that asks the same questions of the same run beside the report's own thread (print mode
//! builds every second failure's entry there while its own thread builds the others).

use super::memory_report::MemoryReport;
use super::tensors::TensorCache;
use super::usage::MarkCache;

impl MemoryReport {
    /// The report again on a read-only connection of its own, its operations, errors, devices,
    /// error graphs (shared, not copied) and log as this one read them, its caches empty but for
    /// the DRAM base (shared: read once for both); none when it is held in memory or watched (its
    /// tables then change as it is read).
    pub fn second(&self) -> Option<MemoryReport> {
        if self.is_watched() {
            return None;
        }
        let store = self.store.second()?;
        Some(MemoryReport {
            source: self.source.clone(),
            name: self.name.clone(),
            schema_version: self.schema_version.clone(),
            warnings: self.warnings.clone(),
            operations: self.operations.clone(),
            errors: self.errors.clone(),
            devices: self.devices.clone(),
            error_graphs: self.error_graphs.clone(),
            store,
            watch: None,
            tensor_cache: TensorCache::default(),
            marks: MarkCache::default(),
            snapshot_cache: self.snapshot_cache.sharing_dram_base(),
            log: self.log.clone(),
            unjoined_log: self.unjoined_log.clone(),
        })
    }
}
