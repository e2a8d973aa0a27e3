//! `ttnn-tui headroom` as text: one line per device and buffer type (docs/true-peak.md).

use crate::analysis::format::size;
use crate::analysis::memory::peak::ReplayCheck;
use crate::analysis::messages::failure::{BufferType, FailureKind};
use crate::analysis::messages::reason::Reason;
use crate::answer::{FirstFailureAnswer, HeadroomAnswer, HeadroomEntry};
use std::fmt::Write;

/// One line per device and type, e.g. `L1 headroom on device 0: 212 KiB per bank (15 % of the
/// 1.33 MiB bank); above it, operation 7 ttnn.matmul fails first: its circular buffers clash
/// with an L1 buffer.`; a line below its `--min` says so; then the notes.
pub fn render_headroom_text(answer: &HeadroomAnswer, minimums: &[(BufferType, u64)]) -> String {
    let mut out = String::new();
    for e in &answer.headroom {
        out.push_str(&headroom_line(e));
        if let Some((_, min)) = answer.below(minimums).find(|(b, _)| std::ptr::eq(*b, e)) {
            let _ = write!(out, " Below the minimum of {} per bank.", size(min));
        }
        out.push('\n');
        if !e.unrecorded_dataflow.is_empty() {
            let ops: Vec<String> = e.unrecorded_dataflow.iter().map(|(id, name)| format!("{id} {name}")).collect();
            let _ = writeln!(
                out,
                "  Operations {} use dataflow buffers that no graph records: this headroom leaves them out and may be less.",
                ops.join(", ")
            );
        }
        if e.replay_check == ReplayCheck::Differs {
            out.push_str("  The replay does not put every allocation where the run did: this headroom is a model's.\n");
        }
    }
    for (device, t, why) in &answer.unknown {
        let _ = writeln!(out, "{} headroom on device {device}: unknown: {why}.", t.token());
    }
    if answer.headroom.is_empty() && answer.unknown.is_empty() {
        out.push_str("No headroom to tell: the report records no allocation and no devices row.\n");
    }
    out
}

/// The line of one entry, without its newline.
pub(crate) fn headroom_line(e: &HeadroomEntry) -> String {
    let (t, device) = (e.buffer_type.token(), e.named_device);
    let Some(f) = &e.first_failure else {
        return format!(
            "{t} headroom on device {device}: {} per bank (the whole {} bank): nothing fails with all of it reserved.",
            size(e.per_bank),
            size(e.bank_size)
        );
    };
    if e.failed {
        return format!(
            "{t} headroom on device {device}: 0 B per bank: the run failed here; {}.",
            failure_clause(f, false)
        );
    }
    let percent = (e.per_bank as u128 * 100).checked_div(e.bank_size as u128).unwrap_or(0);
    format!(
        "{t} headroom on device {device}: {} per bank ({percent} % of the {} bank); above it, {}.",
        size(e.per_bank),
        size(e.bank_size),
        failure_clause(f, true)
    )
}

/// `operation 7 ttnn.matmul fails first: its circular buffers clash with an L1 buffer`.
fn failure_clause(f: &FirstFailureAnswer, first: bool) -> String {
    let what = match f.kind {
        FailureKind::CircularBuffersClash => "its circular buffers clash with an L1 buffer".to_string(),
        FailureKind::CircularBuffersBeyondL1 => "its circular buffers grow beyond the end of L1".to_string(),
        _ => match f.reason {
            Some(Reason::Fragmented) => "out of memory: enough is free in all, but no block holds its buffer".into(),
            Some(Reason::LargerThanEmptyBank) => "out of memory: its buffer is larger than the bank".into(),
            Some(r) => format!("out of memory: {}", r.label().to_lowercase()),
            None => "out of memory".into(),
        },
    };
    let verb = if first { "fails first" } else { "failed" };
    format!("operation {} {} {verb}: {what}", f.operation_id, f.operation_name)
}
