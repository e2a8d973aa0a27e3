//! The truth of where memory could have been freed: every tensor the run kept after its last
//! use, until it was really freed (or to the failure, or the end of the run), and what taking
//! its size out of the usage over that span does to the peak — by a plain scan of the usage the
//! simulation recorded after each operation.

use super::super::schema::BufferType;
use super::Sim;

/// A tensor held past its last use, as the simulation knows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LateTruth {
    pub device: u64,
    pub buffer_type: BufferType,
    pub address: u64,
    pub size: u64,
    pub tensor: u64,
    pub producer: Option<u64>,
    pub last_use: u64,
    pub held_until: u64,
    pub peak_saving: u64,
}

/// A line's peak and its peak with every late tensor freed at its last use.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SummaryTruth {
    pub device: u64,
    pub buffer_type: BufferType,
    pub peak: u64,
    pub peak_if_all_freed: u64,
}

impl Sim {
    /// Records the bytes held on every device after operation `id` (its snapshot).
    pub(super) fn record_usage(&mut self, id: u64) {
        for (d, dev) in self.devices.iter().enumerate() {
            for (bt, allocator) in [(BufferType::Dram, &dev.dram), (BufferType::L1, &dev.l1)] {
                let bytes = allocator.allocated();
                if bytes > 0 {
                    self.usage.push((id, self.table_device(d as u64), bt, bytes));
                }
            }
        }
    }

    /// Records the bytes the captured graphs show held on every device after operation `id`, for
    /// a run without `buffers` rows: only buffers some recorded operation allocated — a weight
    /// placed before the first operation is in no graph. Devices by the tables' ids, as the
    /// report names them.
    pub(super) fn record_graph_usage(&mut self, id: u64) {
        let mut held: Vec<(u64, BufferType, u64)> = Vec::new();
        for t in self.tensors.iter().filter(|t| t.live && t.producer.is_some()) {
            let device = self.table_device(t.device);
            match held.iter_mut().find(|h| (h.0, h.1) == (device, t.buffer_type)) {
                Some(h) => h.2 += t.per_bank,
                None => held.push((device, t.buffer_type, t.per_bank)),
            }
        }
        held.sort_by_key(|h| (h.0, h.1 as u8));
        self.usage.extend(held.into_iter().map(|(device, bt, bytes)| (id, device, bt, bytes)));
    }

    /// Whether the report shows tensor `t`'s buffer: a run without `buffers` rows shows only what
    /// the graphs allocated.
    fn shown(&self, t: &super::SimTensor) -> bool {
        self.era != super::Era::GraphOnly || t.producer.is_some()
    }

    /// The last operation of the run: the failure's, else the last one.
    fn end(&self) -> u64 {
        self.truth.as_ref().map_or(self.ops.len() as u64, |t| t.operation_id)
    }

    /// The usage of one line after each operation.
    fn series(&self, device: u64, bt: BufferType) -> Vec<(u64, u64)> {
        self.usage.iter().filter(|u| (u.1, u.2) == (device, bt)).map(|u| (u.0, u.3)).collect()
    }

    /// Every tensor held past its last use, in no particular order.
    pub fn late_truth(&self) -> Vec<LateTruth> {
        let mut out: Vec<LateTruth> = self
            .tensors
            .iter()
            .filter(|t| self.shown(t))
            .filter_map(|t| {
                let last_use = t.last_use?;
                let held_until = t.freed_at.map_or(self.end(), |f| f - 1);
                (held_until > last_use).then(|| LateTruth {
                    device: self.table_device(t.device),
                    buffer_type: t.buffer_type,
                    address: t.address,
                    size: t.per_bank,
                    tensor: t.id,
                    producer: t.producer,
                    last_use,
                    held_until,
                    peak_saving: 0,
                })
            })
            .collect();
        for t in &mut out {
            let series = self.series(t.device, t.buffer_type);
            let peak = series.iter().map(|p| p.1).max().unwrap_or(0);
            let without = series
                .iter()
                .map(|&(op, bytes)| if op > t.last_use && op <= t.held_until { bytes - t.size } else { bytes })
                .max()
                .unwrap_or(0);
            t.peak_saving = peak - without;
        }
        out
    }

    /// Every line with usage: its peak, and its peak with every late tensor freed.
    pub fn late_summary_truth(&self) -> Vec<SummaryTruth> {
        let late = self.late_truth();
        let mut lines: Vec<(u64, BufferType)> = self.usage.iter().map(|u| (u.1, u.2)).collect();
        lines.sort_by_key(|&(d, bt)| (d, bt as u8));
        lines.dedup();
        lines
            .into_iter()
            .map(|(device, buffer_type)| {
                let series = self.series(device, buffer_type);
                let freed = |op: u64| -> u64 {
                    late.iter()
                        .filter(|t| (t.device, t.buffer_type) == (device, buffer_type))
                        .filter(|t| op > t.last_use && op <= t.held_until)
                        .map(|t| t.size)
                        .sum()
                };
                SummaryTruth {
                    device,
                    buffer_type,
                    peak: series.iter().map(|p| p.1).max().unwrap_or(0),
                    peak_if_all_freed: series.iter().map(|&(op, bytes)| bytes - freed(op)).max().unwrap_or(0),
                }
            })
            .collect()
    }
}
