//! The true peak of the run (docs/true-peak.md): each device and buffer type's highest memory
//! inside any operation with what filled its busiest core, and the run's tightest operations;
//! `explain --peak` and MCP's `peak` give them beside the after-operation peaks, tab 5 and
//! `explain` on a run without errors read them too.

use super::single_chip::on_a_single_chip;
use crate::analysis::memory::named_device;
use crate::analysis::memory::peak::{Composition, OperationPeak, run_peaks, tightest, true_peaks};
use crate::analysis::messages::failure::BufferType;
use crate::report::memory::run_events::RunFacts;
use crate::report::{MemoryReport, ReportError};
use serde::Serialize;

/// How many of the tightest operations are given.
pub const TIGHTEST: usize = 5;

/// One true peak: an operation's highest use on one device and buffer type.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TruePeakAnswer {
    /// The operation.
    pub operation_id: u64,
    /// Its name (text only).
    #[serde(skip)]
    pub operation_name: Option<String>,
    /// The device.
    pub device_id: u64,
    /// The id text names the device by: 0 for a single chip, whatever ids its tables use
    /// (issue 30 §4.5), the tables' id otherwise (text only).
    #[serde(skip)]
    pub named_device: u64,
    /// The buffer type.
    pub buffer_type: BufferType,
    /// Bytes per bank in use at the peak, on the busiest core.
    pub peak_per_bank: u64,
    /// Bytes per bank in use after the operation (buffers only).
    pub after_per_bank: u64,
    /// The busiest core `[x, y]` when the cores differ; null when every core holds the same.
    pub core: Option<[u32; 2]>,
    /// The bank's size, when known.
    pub bank_size: Option<u64>,
    /// What is left of the bank at the peak, when known.
    pub room_per_bank: Option<u64>,
    /// What filled the busiest core at the peak.
    pub composition: Composition,
}

/// The run's true peaks and its tightest operations.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct TruePeaks {
    /// The highest true peak of each device and buffer type.
    pub true_peak: Vec<TruePeakAnswer>,
    /// The operations with the least room left on their busiest L1 core, least first.
    pub tightest: Vec<TruePeakAnswer>,
}

/// Reads the run's events once and finds its true peaks.
pub fn read_true_peaks(report: &MemoryReport) -> Result<TruePeaks, ReportError> {
    Ok(true_peaks_of(report, &report.passes().run_facts()?))
}

/// The true peaks of events already read.
pub fn true_peaks_of(report: &MemoryReport, facts: &RunFacts) -> TruePeaks {
    let peaks = true_peaks(&facts.events, &facts.layouts, &facts.last_use);
    let single = on_a_single_chip(report, facts.layouts.iter().map(|l| l.device_id));
    let answer = |p: OperationPeak| TruePeakAnswer {
        named_device: named_device(p.device_id, single),
        operation_id: p.operation_id,
        operation_name: report.operation_index(p.operation_id).map(|i| report.operations[i].name.to_string()),
        device_id: p.device_id,
        buffer_type: p.buffer_type,
        peak_per_bank: p.peak_per_bank,
        after_per_bank: p.after_per_bank,
        core: p.core.map(|(x, y)| [x, y]),
        bank_size: p.bank_size,
        room_per_bank: p.room(),
        composition: p.composition,
    };
    TruePeaks {
        true_peak: run_peaks(&peaks).into_iter().map(answer).collect(),
        tightest: tightest(&peaks, TIGHTEST).into_iter().map(answer).collect(),
    }
}
