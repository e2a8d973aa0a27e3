//! The eleven tools (docs/rules/interfaces.md §2, and `headroom`): what each answer means and what it cannot say, and each
//! call answered from the answer layer, serialised as the CLI serialises it.

use super::args;
use super::bound::{bounded, limit};
use super::cache::{Reports, read_log};
use crate::analysis::memory::whatif::Fix;
use crate::analysis::messages::failure::BufferType;
use crate::analysis::model::ERRORS_NOT_RECORDED;
use crate::analysis::sanitize::sanitize_line;
use crate::answer::{self, Entries, ErrorAnswer, LogAnswer, Refusal, ReportAnswer, Selection};
use crate::report::perf::linked::LinkedReports;
use crate::report::perf::perf_report::PerfReport;
use rmcp::handler::server::tool::schema_for_type;
use rmcp::model::{JsonObject, Tool, ToolAnnotations};
use rmcp::schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use std::sync::Arc;

/// Name, what the answer means and what it cannot say, and the arguments' schema.
struct Entry {
    name: &'static str,
    description: &'static str,
    schema: fn() -> Arc<JsonObject>,
}

fn entry<T: JsonSchema + 'static>(name: &'static str, description: &'static str) -> Entry {
    Entry { name, description, schema: schema_for_type::<T> }
}

/// The eleven tools, in the order `tools/list` gives them.
fn table() -> [Entry; 11] {
    [
        entry::<args::ListFailures>(
            "list_failures",
            "The errors a TT-NN memory report (db.sqlite) recorded: one entry per operation with an error, in operation-id order, then the error rows no operation took (unattached_errors). An entry is `ttnn-tui explain --json`'s without the memory section: the error type and whole message, and for an allocation failure (allocation_failure, null for any other error) its kind, summary, reason and every figure tt-metal's message gives (bytes requested, per bank, bank size, allocated, free, largest free block), the device operations that failed in the operation's captured graph, and recorded: false for an operation the report never recorded (it started and the run died). Start here; explain_failure says what held the memory. No entry means no error row: when errors_recorded is false the report's version has no errors table and cannot say whether the run failed. unavailable lists what the report could not give.",
        ),
        entry::<args::ExplainFailure>(
            "explain_failure",
            "One operation's entry of `ttnn-tui explain --json`, with the memory at its failure rebuilt from the report: the buffers live on the failing device and buffer type (address, size per bank, the tensor holding each, the operation that produced it, its last use, whether it is an input of the failed operation), the free blocks and the largest, whether tt-metal's figures agree with the report (check), the reason, and fixes: each advice line replayed through a model of tt-metal's allocator (outcome fits or fails, the address it would land at). memory.basis says what the picture is built from: the operation's own buffers snapshot, an earlier one, or the captured graphs alone. It sees only what the report recorded: circular buffers and buffers allocated and freed inside an operation only when its graph captured them; a fix's outcome replays the recorded run, it does not re-run the model. unavailable lists the parts the report could not give, and why.",
        ),
        entry::<args::MemoryAfter>(
            "memory_after",
            "The memory after one operation completed (the picture of ttnn-tui's memory tab): the buffers live on one device and buffer type with the tensors holding them (shape, dtype, producer, last use), the free blocks and the largest, from the report's buffers snapshot after that operation; for an operation the report never recorded, the snapshot of the last one it did (the memory when it started). places lists every device and buffer type the snapshot holds; memory is null when the report has no buffers rows for the operation. Sizes and addresses are per bank. A snapshot records tensor buffers only: circular buffers and buffers freed inside the operation are not in it, so it is not the memory at a failure (explain_failure is).",
        ),
        entry::<args::LateTensors>(
            "late_tensors",
            "`ttnn-tui explain --late --json`: the tensors held in memory past their last use, biggest saving first — each with the model line that made it (source), the operation that last read it and the one it was still held at, and how much freeing it right after its last use lowers the peak (bytes per bank). late_summary gives each device and buffer type's peak and the peak if all were freed; late_failures says for each allocation failure whether freeing them all lets it fit, replayed through the allocator model. Reads every buffers row (seconds on a large report). Last use is the last operation of this run that read the tensor: one the model needs later (a cache, the next iteration) is listed too, and frees inside ttnn's own operations are not seen.",
        ),
        entry::<args::Peak>(
            "peak",
            "`ttnn-tui explain --peak --json`'s peak, true_peak and tightest. peak: each device's highest use per buffer type after an operation, in bytes per bank, with the operation, the size per bank of the region it lives in (region_source: the devices table, or a failure message's bank size) and the share of it in percent (null when the region is unknown); from the snapshots taken after each operation, tensor buffers only — do not read headroom from it. true_peak: the highest use inside any operation (live before it, its own allocations and frees in graph order, its circular buffers on their core ranges), on its busiest core (core null when every core holds the same), with its composition (circular_buffers, own, live, stale: held past their last use) and room_per_bank left; tightest: the operations with the least L1 room at their peak. Reads every buffers row and every captured graph. Dataflow buffers that no graph records (matmul, softmax in ttnn 0.81) are not in true_peak: use headroom for how close the run is to failing.",
        ),
        entry::<args::Headroom>(
            "headroom",
            "`ttnn-tui headroom --json`: for each device and buffer type the run uses, per_bank is the largest extra allocation per bank, made before the first operation and kept to the end, with which the recorded run still places everything it allocated and every circular-buffer region still fits — found by replaying the run's allocations in memory at the allocator's alignment (alignment: 32 B on Wormhole, 64 B on Blackhole); first_failure says what fails first one step above (operation, kind as explain_failure's allocation_failure.kind, reason). A run that failed has per_bank 0 on its failing type and first_failure is its failure. replay_check exact: replayed without a reservation, every allocation lands where tt-metal put it. Checked against real tt-metal re-runs with an extra L1 tensor. It cannot see dataflow buffers that no graph records (matmul, softmax in ttnn 0.81): then the headroom can be less; nor DRAM when no failure message gives the DRAM bank size (that type is left out).",
        ),
        entry::<args::WhatIf>(
            "what_if",
            "`ttnn-tui whatif --json`: replays the recorded run with fixes applied through a model of tt-metal's allocator and says what would happen to the failed request of operation_id: outcome fits (with the address it would land at) or fails (the largest free block, the buffers in the way), the room left for circular buffers, and a sentence. replay_check says whether replaying without any fix put every recorded allocation where tt-metal did (exact) or not (differs: the answer is a model, not a reproduction). It replays recorded allocations: it cannot say whether the model still computes the same after a fix, nor foresee allocations a fix changes inside operations.",
        ),
        entry::<args::ExplainLog>(
            "explain_log",
            "`ttnn-tui explain --log --json`: the allocation failures in a log (pytest output, a CI log) when there is no report — each with its line (and the other lines it repeats on), the operation and model line its traceback names, the pytest test, and the failure's kind, summary, reason and figures as in a report's entry. With no allocation failure, log.other_error gives the last TT_FATAL, TT_THROW or Python exception line. A log cannot say what held the memory: record a memory report for that.",
        ),
        entry::<args::FindOperations>(
            "find_operations",
            "Operations of a report whose name contains name_contains (any case; every operation when omitted), in id order: the operation id the other tools take, its name, the model's {file}:{line} from its stack trace (null when the report records none), and whether an error is attached to it.",
        ),
        entry::<args::OperationDetail>(
            "operation_detail",
            "One operation: its arguments (printed values), the stack trace and model line it was called from, its input and output tensors (shape, dtype, layout, memory config, buffer type, the address on each device), and when perf names a device performance report (profiler folder or ops_perf_results CSV) the rows of the device operations it launched, with device time in microseconds; perf.link says whether the two reports linked (unlinked: no rows, and why). duration_s is the memory report's host wall time in seconds, null for an operation that failed.",
        ),
        entry::<args::CompareRuns>(
            "compare_runs",
            "`ttnn-tui diff --json`: two reports of the same model compared (before and after a change, any two ttnn releases). failures: gone (only before), new (only after) and kept, matched by operation name and kind, each with its operation id on its side, summary and reason; peaks: each side's peak per device and buffer type, as `explain --peak` gives it on that side alone; aligned: the operations paired by name sequence and the first where the runs part; late: how many tensors each side held past their last use; next: the first new failure's explain_failure entry, the next thing to fix. Reads every buffers row of both (seconds on large reports). It compares what the reports recorded: a failure the after run never reached (it stopped earlier) is not 'gone' for a reason, and operations are matched by name, not by what they computed.",
        ),
    ]
}

/// The tools as `tools/list` gives them, each marked read-only.
pub(crate) fn tools() -> Vec<Tool> {
    table()
        .into_iter()
        .map(|e| {
            let annotations = ToolAnnotations::new().read_only(true).destructive(false).open_world(false);
            Tool::new(e.name, e.description, (e.schema)()).with_annotations(annotations)
        })
        .collect()
}

/// Whether a tool of this name exists.
pub(crate) fn exists(name: &str) -> bool {
    table().iter().any(|e| e.name == name)
}

/// Answers a call: the answer's JSON, or the refusal (the CLI's one-line message).
pub(crate) fn call(reports: &mut Reports, name: &str, arguments: JsonObject) -> Result<Value, Refusal> {
    match name {
        "list_failures" => list_failures(reports, parse(name, arguments)?),
        "explain_failure" => explain_failure(reports, parse(name, arguments)?),
        "memory_after" => memory_after(reports, parse(name, arguments)?),
        "late_tensors" => late_tensors(reports, parse(name, arguments)?),
        "peak" => peak(reports, parse(name, arguments)?),
        "headroom" => headroom(reports, parse(name, arguments)?),
        "what_if" => what_if(reports, parse(name, arguments)?),
        "explain_log" => explain_log(parse(name, arguments)?),
        "find_operations" => find_operations(reports, parse(name, arguments)?),
        "operation_detail" => operation_detail(reports, parse(name, arguments)?),
        "compare_runs" => compare_runs(parse(name, arguments)?),
        _ => Err(Refusal::usage(format!("no tool named {name:?}"))),
    }
}

/// The arguments of a call, or why they do not read.
fn parse<T: DeserializeOwned>(tool: &str, arguments: JsonObject) -> Result<T, Refusal> {
    serde_json::from_value(Value::Object(arguments))
        .map_err(|e| Refusal::usage(format!("the arguments of {tool} do not read: {e}")))
}

/// An answer as its JSON value.
fn value(answer: &impl serde::Serialize) -> Value {
    serde_json::to_value(answer).expect("an answer serialises")
}

/// A buffer type argument, by its token (`L1`, `DRAM`, `L1_SMALL`, `TRACE`).
fn buffer_type(given: Option<&str>) -> Result<Option<BufferType>, Refusal> {
    given
        .map(|t| {
            BufferType::from_token(&t.to_ascii_uppercase()).ok_or_else(|| {
                let t = sanitize_line(t);
                Refusal::usage(format!("no buffer type {t:?}: one of L1, DRAM, L1_SMALL, TRACE"))
            })
        })
        .transpose()
}

fn list_failures(reports: &mut Reports, a: args::ListFailures) -> Result<Value, Refusal> {
    let report = reports.get(&a.report, a.rank.unwrap_or(0), a.log.as_deref())?;
    let selection = Selection::collect(report, None, None).map_err(|id| Refusal::about(report, &id.to_string()))?;
    let entries = Entries::new(report, false);
    let answer = json!({
        "memory_report": ReportAnswer::new(report),
        "errors_recorded": report.records_errors(),
        "operations": selection.operations().map(|e| entries.summary(e)).collect::<Vec<_>>(),
        "unattached_errors": selection.unattached().map(|e| ErrorAnswer::new(e, false)).collect::<Vec<_>>(),
    });
    Ok(bounded(answer, &["operations", "unattached_errors"], limit(a.limit)))
}

fn explain_failure(reports: &mut Reports, a: args::ExplainFailure) -> Result<Value, Refusal> {
    let report = reports.get(&a.report, a.rank.unwrap_or(0), a.log.as_deref())?;
    let index = answer::operation_index(report, a.operation_id)?;
    let selection = Selection::collect(report, None, Some(a.operation_id))
        .map_err(|id| Refusal::about(report, &format!("no operation {id} in this report")))?;
    let Some(e) = selection.operations().next() else {
        let op = &report.operations[index];
        let what = match report.records_errors() {
            true => format!("operation {} {} has no error", op.id, op.name),
            false => {
                format!("operation {} {} has no error recorded: {}", op.id, op.name, ERRORS_NOT_RECORDED.to_lowercase())
            }
        };
        return Err(Refusal::about(report, &what));
    };
    let entry = Entries::new(report, false).operation(e);
    let lists = [
        "memory.live_buffers",
        "memory.free_blocks",
        "fixes",
        "memory_at_start.*.live_buffers",
        "memory_at_start.*.free_blocks",
    ];
    Ok(bounded(value(&entry), &lists, limit(a.limit)))
}

fn memory_after(reports: &mut Reports, a: args::MemoryAfter) -> Result<Value, Refusal> {
    let kind = buffer_type(a.buffer_type.as_deref())?;
    let report = reports.get(&a.report, a.rank.unwrap_or(0), None)?;
    let index = answer::operation_index(report, a.operation_id)?;
    let answer = answer::memory_after(report, index, a.device_id, kind)?;
    Ok(bounded(value(&answer), &["memory.live_buffers", "memory.free_blocks"], limit(a.limit)))
}

fn late_tensors(reports: &mut Reports, a: args::LateTensors) -> Result<Value, Refusal> {
    let kind = buffer_type(a.buffer_type.as_deref())?;
    let report = reports.get(&a.report, a.rank.unwrap_or(0), None)?;
    let late = answer::read_late(report).map_err(|e| Refusal::about(report, &e.to_string()))?;
    Ok(bounded(value(&late.only(a.device_id, kind)), &["late", "late_summary", "late_failures"], limit(a.limit)))
}

fn peak(reports: &mut Reports, a: args::Peak) -> Result<Value, Refusal> {
    let report = reports.get(&a.report, a.rank.unwrap_or(0), None)?;
    let peaks = answer::read_peaks(report).map_err(|e| Refusal::about(report, &e.to_string()))?;
    Ok(value(&peaks))
}

fn headroom(reports: &mut Reports, a: args::Headroom) -> Result<Value, Refusal> {
    let report = reports.get(&a.report, a.rank.unwrap_or(0), None)?;
    let headroom = answer::read_headroom(report).map_err(|e| Refusal::about(report, &e.to_string()))?;
    Ok(value(&headroom))
}

fn what_if(reports: &mut Reports, a: args::WhatIf) -> Result<Value, Refusal> {
    let fixes = a
        .fixes
        .iter()
        .map(|f| Fix::parse(f).map_err(|e| Refusal::usage(e.to_string())))
        .collect::<Result<Vec<_>, _>>()?;
    let report = reports.get(&a.report, a.rank.unwrap_or(0), a.log.as_deref())?;
    let answer = answer::what_if(report, Some(a.operation_id), &fixes, a.from_start.unwrap_or(false), false)?;
    Ok(value(&answer))
}

fn explain_log(a: args::ExplainLog) -> Result<Value, Refusal> {
    let log = read_log(&a.path)?;
    let answer = LogAnswer::new(&log.findings, &a.path, false);
    Ok(bounded(value(&answer), &["failures"], limit(a.limit)))
}

fn find_operations(reports: &mut Reports, a: args::FindOperations) -> Result<Value, Refusal> {
    let report = reports.get(&a.report, a.rank.unwrap_or(0), None)?;
    let limit = limit(a.limit);
    let (operations, more) = answer::find_operations(report, a.name_contains.as_deref(), limit)
        .map_err(|e| Refusal::about(report, &e.to_string()))?;
    let left_out = match more {
        0 => json!({}),
        n => json!({"operations": n}),
    };
    Ok(json!({"operations": operations, "left_out": left_out}))
}

fn operation_detail(reports: &mut Reports, a: args::OperationDetail) -> Result<Value, Refusal> {
    let report = reports.get(&a.report, a.rank.unwrap_or(0), None)?;
    let index = answer::operation_index(report, a.operation_id)?;
    let linked = match &a.perf {
        Some(path) => {
            let perf = PerfReport::open(std::path::Path::new(path)).map_err(|e| Refusal::usage(e.to_string()))?;
            Some(LinkedReports::new(report, perf).map_err(|e| Refusal::about(report, &e.to_string()))?)
        }
        None => None,
    };
    let detail =
        answer::operation_detail(report, index, linked.as_ref()).map_err(|e| Refusal::about(report, &e.to_string()))?;
    Ok(bounded(value(&detail), &["arguments", "inputs", "outputs", "perf.rows"], limit(a.limit)))
}

fn compare_runs(a: args::CompareRuns) -> Result<Value, Refusal> {
    // Two runs read whole (a pass over each one's `buffers`): opened for this call only.
    let rank = a.rank.unwrap_or(0);
    let (before, _) =
        answer::open_side(std::path::Path::new(&a.before), answer::Side::Before, rank).map_err(Refusal::usage)?;
    let (after, _) =
        answer::open_side(std::path::Path::new(&a.after), answer::Side::After, rank).map_err(Refusal::usage)?;
    let compared = answer::compare_opened(&before, &after).map_err(Refusal::usage)?;
    Ok(value(&answer::DiffAnswer::new(&compared, false)))
}
