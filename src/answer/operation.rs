//! What a report says about one operation whatever its outcome: where it is in the run
//! (`find_operations`), its page (arguments, stack trace, tensors, perf rows), and the memory
//! after it (tab 4's post-operation picture).

use super::memory::SnapshotAnswer;
use super::refusal::Refusal;
use crate::analysis::memory::OperationMemory;
use crate::analysis::messages::failure::BufferType;
use crate::analysis::stack::source_label;
use crate::report::memory::tensor_detail::TensorRecord;
use crate::report::perf::linked::LinkedReports;
use crate::report::{MemoryReport, ReportError};
use serde::Serialize;

/// One operation of `find_operations`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct OperationListing {
    /// Its id.
    pub operation_id: u64,
    /// Its name.
    pub operation_name: String,
    /// `{file}:{line}` of the model's call, from its stack trace; null without one.
    pub source: Option<String>,
    /// Whether an error row is attached to it.
    pub has_error: bool,
}

/// The operations whose name contains `name_contains` (any case), in id order: the first
/// `limit`, and how many more matched.
pub fn find_operations(
    report: &MemoryReport,
    name_contains: Option<&str>,
    limit: usize,
) -> Result<(Vec<OperationListing>, usize), ReportError> {
    let needle = name_contains.map(str::to_lowercase).unwrap_or_default();
    let matching = (0..report.operations.len()).filter(|&i| report.operations[i].name.to_lowercase().contains(&needle));
    let mut shown = Vec::new();
    let mut more = 0;
    for i in matching {
        match shown.len() < limit {
            true => shown.push(i),
            false => more += 1,
        }
    }
    let traces = report.details().stack_traces(&shown)?;
    let listing = shown
        .iter()
        .map(|&i| {
            let op = &report.operations[i];
            OperationListing {
                operation_id: op.id,
                operation_name: op.name.to_string(),
                source: traces.get(&i).and_then(|t| source_label(t)),
                has_error: op.error.is_some(),
            }
        })
        .collect();
    Ok((listing, more))
}

/// An operation's page: what it was called with, where from, its tensors, its perf rows.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OperationDetailAnswer {
    operation_id: u64,
    operation_name: String,
    recorded: bool,
    /// Host wall time in seconds, as the memory report records it; null for a failed operation.
    duration_s: Option<f64>,
    has_error: bool,
    /// `{name, value}` in table order (printed values, sanitised).
    pub arguments: Vec<ArgumentAnswer>,
    source: Option<String>,
    stack_trace: Option<String>,
    /// By `input_index`.
    pub inputs: Vec<TensorAnswer>,
    /// By `output_index`.
    pub outputs: Vec<TensorAnswer>,
    /// Present when a performance report was given: the link and the rows linked to it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub perf: Option<PerfRowsAnswer>,
}

/// One argument.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ArgumentAnswer {
    name: String,
    value: String,
}

/// One tensor of an operation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TensorAnswer {
    tensor_id: u64,
    shape: Option<String>,
    dtype: Option<String>,
    layout: Option<String>,
    memory_config: Option<String>,
    buffer_type: Option<&'static str>,
    addresses: Vec<AddressAnswer>,
}

/// Where a tensor's buffer is on one device.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
struct AddressAnswer {
    device_id: u64,
    address: u64,
}

/// The performance report's rows linked to an operation.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PerfRowsAnswer {
    /// `linked`, `unlinked` or `unavailable`.
    link: &'static str,
    /// Why it did not link; null when linked.
    reason: Option<String>,
    /// The rows of the device operations it launched, in row order.
    pub rows: Vec<PerfRowAnswer>,
}

/// One row of the performance report, with the figures the perf table shows.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PerfRowAnswer {
    id: u64,
    op_code: String,
    device: Option<u64>,
    device_time_us: Option<f64>,
    op_to_op_gap_us: Option<f64>,
    cores: Option<i64>,
    math_fidelity: String,
    cache_hit: Option<bool>,
}

/// The page of an operation (by index); `linked` adds its perf rows.
pub fn operation_detail(
    report: &MemoryReport,
    index: usize,
    linked: Option<&LinkedReports>,
) -> Result<OperationDetailAnswer, ReportError> {
    let op = &report.operations[index];
    let details = report.details();
    let trace = details.stack_traces(&[index])?.remove(&index).filter(|t| !t.is_empty());
    let tensors = report.tensors().tensor_records(index)?;
    Ok(OperationDetailAnswer {
        operation_id: op.id,
        operation_name: op.name.to_string(),
        recorded: op.recorded,
        duration_s: op.duration,
        has_error: op.error.is_some(),
        arguments: details.arguments(index)?.into_iter().map(|(name, value)| ArgumentAnswer { name, value }).collect(),
        source: trace.as_deref().and_then(source_label),
        stack_trace: trace,
        inputs: tensors.inputs.iter().map(tensor_answer).collect(),
        outputs: tensors.outputs.iter().map(tensor_answer).collect(),
        perf: linked.map(|l| perf_rows(l, op.id)),
    })
}

fn tensor_answer(t: &TensorRecord) -> TensorAnswer {
    TensorAnswer {
        tensor_id: t.tensor_id,
        shape: t.shape.clone(),
        dtype: t.dtype.clone(),
        layout: t.layout.clone(),
        memory_config: t.memory_config.clone(),
        buffer_type: t.buffer_type.map(BufferType::token),
        addresses: t.addresses.iter().map(|&(device_id, address)| AddressAnswer { device_id, address }).collect(),
    }
}

fn perf_rows(linked: &LinkedReports, operation_id: u64) -> PerfRowsAnswer {
    let ids = linked.link.map.rows_of(operation_id);
    let rows = linked
        .rows
        .iter()
        .filter(|r| ids.contains(&r.id))
        .map(|r| PerfRowAnswer {
            id: r.id,
            op_code: r.op_code.to_string(),
            device: r.device,
            device_time_us: r.device_time_us,
            op_to_op_gap_us: r.op_to_op_gap_us,
            cores: r.cores,
            math_fidelity: r.math_fidelity.to_string(),
            cache_hit: r.cache_hit,
        })
        .collect();
    PerfRowsAnswer { link: linked.state().as_str(), reason: linked.reason(), rows }
}

/// The memory after an operation (tab 4's post-operation picture) on one device and buffer type.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MemoryAfterAnswer {
    operation_id: u64,
    operation_name: String,
    /// Every (device, buffer type) its snapshot holds.
    places: Vec<PlaceAnswer>,
    /// The picture asked for; null when the report has no `buffers` row for the operation.
    pub memory: Option<SnapshotAnswer>,
    /// What was set aside on the way, in a sentence each.
    notes: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
struct PlaceAnswer {
    device_id: u64,
    buffer_type: &'static str,
}

/// The memory after an operation (by index): on `device_id` and `buffer_type` when given (the
/// other taken from the default picture: its L1 of the lowest device, else the first place).
pub fn memory_after(
    report: &MemoryReport,
    index: usize,
    device_id: Option<u64>,
    buffer_type: Option<BufferType>,
) -> Result<MemoryAfterAnswer, Refusal> {
    let fail = |e: ReportError| Refusal::about(report, &e.to_string());
    let op = &report.operations[index];
    let first = report.pictures().after_operation(index, None).map_err(fail)?;
    let memory = match (&first, device_id, buffer_type) {
        (Some(m), None, None) => Some(m.clone()),
        (Some(m), device, kind) => {
            let place = (device.unwrap_or(m.device_id), kind.unwrap_or(m.buffer_type));
            if !m.places.contains(&place) {
                let held: Vec<String> = m.places.iter().map(|(d, t)| format!("device {d} {}", t.token())).collect();
                let what = format!(
                    "operation {} {} holds nothing on device {} {} after it (its snapshot holds: {})",
                    op.id,
                    op.name,
                    place.0,
                    place.1.token(),
                    held.join(", ")
                );
                return Err(Refusal::about(report, &what));
            }
            report.pictures().after_operation(index, Some(place)).map_err(fail)?
        }
        (None, _, _) => None,
    };
    Ok(MemoryAfterAnswer {
        operation_id: op.id,
        operation_name: op.name.to_string(),
        places: first
            .iter()
            .flat_map(|m| &m.places)
            .map(|&(device_id, t)| PlaceAnswer { device_id, buffer_type: t.token() })
            .collect(),
        notes: memory.iter().flat_map(|m: &OperationMemory| m.notes.iter().map(|n| n.text(false))).collect(),
        memory: memory.as_ref().map(SnapshotAnswer::new),
    })
}
