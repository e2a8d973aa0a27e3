//! The sentences that say what the memory rules found, for print mode and the terminal UI alike:
//! the basis and the check, the largest holders, the fit advice (or why there is none), the
//! circular buffers in the way, and the notes. `hex` selects hexadecimal addresses.

use super::picture::{
    Basis, CheckStatus, CircularBuffer, Fit, LiveBuffer, MemoryAtFailure, MemoryMap, NoFit, OperationMemory,
};
use crate::analysis::format::{counted, format_address, format_percent, size};
use crate::analysis::memory::notes::MemoryNote;
use crate::analysis::messages::failure::{BufferType, FailureKind};

fn address(a: u64, hex: bool) -> String {
    format_address(Some(a), hex)
}

/// How the basis reads in a sentence.
fn basis_text(m: &MemoryAtFailure) -> String {
    let p = m.snapshot_operation_id.map_or_else(String::new, |p| p.to_string());
    match m.basis {
        Basis::AfterFailureSnapshot => "after-failure snapshot + unwinding".into(),
        Basis::EarlierSnapshotAndGraph => format!("snapshot after operation {p} + this operation's graph"),
        Basis::EarlierSnapshot => {
            format!("snapshot after operation {p}; this operation's own allocations are not recorded")
        }
        Basis::GraphOnly => "every captured graph replayed".into(),
    }
}

/// `21 live L1 buffers on device 0 hold 1.27 MiB per bank`, and the region when known; `device`
/// says where (`device 0`, `mesh device 2 (1×2, 2 chips; the same on each)`).
fn holding(count: usize, buffer_type: BufferType, device: &str, used: u64, m: &MemoryMap, hex: bool) -> String {
    let mut line = format!(
        "{} on {device} {} {} per bank",
        counted(
            count,
            &format!("live {} buffer", buffer_type.label()),
            &format!("live {} buffers", buffer_type.label())
        ),
        if count == 1 { "holds" } else { "hold" },
        size(used)
    );
    if let Some((start, end)) = m.region.bounds() {
        line.push_str(&format!(" of the {}–{} region ({})", address(start, hex), address(end, hex), size(end - start)));
    }
    line
}

/// `At the failure (after-failure snapshot + unwinding): 21 live L1 buffers on device 0 hold …`.
pub fn basis_sentence(m: &MemoryAtFailure, hex: bool) -> String {
    let what = holding(m.live_buffers.len(), m.buffer_type, &device_text(m), m.map.used_per_bank, &m.map, hex);
    format!("At the failure ({}): {what}", basis_text(m))
}

/// Where a failure happened: `device 0`; on a mesh of several chips (docs/rules/memory.md §2) `mesh device 2
/// (1×2, 2 chips; the same on each)`; on a one-chip mesh beside other mesh devices holding
/// buffers (a submesh), `mesh device 1 (1×1, 1 chip)`.
fn device_text(m: &MemoryAtFailure) -> String {
    let beside_others = m.notes.iter().any(|n| matches!(n, MemoryNote::OtherMeshDevices { .. }));
    match &m.mesh {
        Some(mesh) if mesh.chips() > 1 => {
            format!("mesh device {} ({}, {} chips; the same on each)", m.device_id, mesh.text(), mesh.chips())
        }
        Some(mesh) if beside_others => format!("mesh device {} ({}, 1 chip)", m.device_id, mesh.text()),
        _ => format!("device {}", m.named_device()),
    }
}

/// The check against the allocator's figures, with the difference when they disagree.
pub fn check_sentence(m: &MemoryAtFailure) -> String {
    let c = &m.check;
    let used = m.map.used_per_bank;
    let (allocated, largest) = (c.allocated.unwrap_or(0), c.largest_free_block.unwrap_or(0));
    match c.status {
        CheckStatus::Exact => format!(
            "The picture matches the allocator's figures (allocated {}, largest free block {}).",
            size(allocated),
            size(largest)
        ),
        CheckStatus::UnderCounted => format!(
            "The picture accounts for {} of the allocator's {} per bank: {} unaccounted, held by something the report did not record.",
            size(used),
            size(allocated),
            size(allocated - used)
        ),
        CheckStatus::OverCounted => format!(
            "The picture holds {} per bank, {} more than the allocator's {}: it counts buffers freed since.",
            size(used),
            size(used - allocated),
            size(allocated)
        ),
        CheckStatus::Contradiction => format!(
            "The picture's total matches the allocator's ({}), but its largest free block is {} where the allocator's is {}.",
            size(allocated),
            size(m.map.largest_free_block.unwrap_or(0)),
            size(largest)
        ),
        CheckStatus::Unchecked if m.map.region.bounds().is_none() => match m.buffer_type {
            BufferType::Dram => {
                "The message gives no bank size, so the DRAM region and its free blocks are unknown.".into()
            }
            _ => format!(
                "The {} region of device {} is unknown (no devices row with its addresses): no free blocks, no check.",
                m.buffer_type.label(),
                m.device_id
            ),
        },
        CheckStatus::Unchecked => match m.kind {
            FailureKind::CircularBuffersBeyondL1 | FailureKind::CircularBuffersClash => {
                "Circular-buffer messages give no allocator figures to check the picture against.".into()
            }
            _ => "The message gives no allocator figures to check the picture against.".into(),
        },
    }
}

/// The reason computed from the map for messages without free figures: `From the map: …`.
pub fn reason_sentence(m: &MemoryAtFailure) -> Option<String> {
    // Larger than an empty bank needs no map: the callout already says it.
    let e = m.reason.as_ref().filter(|e| e.reason != crate::analysis::messages::reason::Reason::LargerThanEmptyBank)?;
    let source = if m.map.region.bounds().is_some() { "From the map" } else { "From the message" };
    Some(format!("{source}: {}. {}", e.reason.label(), e.detail))
}

/// One holder: `tensor 81 512 KiB (ttnn.matmul, op 40; last used op 44, stale)`.
fn holder(b: &LiveBuffer, hex: bool) -> String {
    let mut facts: Vec<String> = vec![match (&b.producer_operation_name, b.producer_operation_id, b.tensor_id) {
        (Some(name), Some(id), _) => format!("{name}, op {id}"),
        (_, _, Some(_)) => "not produced by a recorded operation".into(),
        _ => "no tensor recorded".into(),
    }];
    let mut tail: Vec<String> = Vec::new();
    if let Some(k) = b.last_use_operation_id {
        tail.push(format!("last used op {k}"));
    }
    if b.input_of_operation {
        tail.push("input".into());
    }
    if b.stale {
        tail.push("stale".into());
    }
    if b.is_this_operation() {
        tail.push(match &b.device_operation {
            Some(d) => format!("this operation, {d}"),
            None => "this operation".into(),
        });
    }
    if !tail.is_empty() {
        facts.push(tail.join(", "));
    }
    let who = match b.tensor_id {
        Some(id) => format!("tensor {id}"),
        None => format!("buffer at {}", address(b.address, hex)),
    };
    format!("{who} {} ({})", size(b.size_per_bank), facts.join("; "))
}

/// `Largest holders: … · …`, the biggest `count` live buffers; none when there are none.
pub fn holders_sentence(live: &[LiveBuffer], count: usize, hex: bool) -> Option<String> {
    if live.is_empty() {
        return None;
    }
    let shown: Vec<String> = live.iter().take(count).map(|b| holder(b, hex)).collect();
    let more = live.len().saturating_sub(count);
    let tail = if more > 0 { format!(" · {more} more") } else { String::new() };
    Some(format!("Largest holders: {}{tail}", shown.join(" · ")))
}

/// One buffer to free, with its evidence.
fn to_free(b: &LiveBuffer, hex: bool) -> String {
    let mut evidence = vec![format!("{} per bank", size(b.size_per_bank))];
    match (&b.producer_operation_name, b.producer_operation_id) {
        (Some(name), Some(id)) => evidence.push(format!("produced by operation {id} {name}")),
        _ if b.tensor_id.is_some() => evidence.push("not produced by a recorded operation".into()),
        _ => evidence.push("no tensor recorded".into()),
    }
    match (b.last_use_operation_id, &b.last_use_source) {
        (Some(k), Some(source)) => evidence.push(format!("last used at operation {k}, {source}")),
        (Some(k), None) => evidence.push(format!("last used at operation {k}")),
        _ => {}
    }
    match b.tensor_id {
        Some(id) => format!("tensor {id} ({})", evidence.join(", ")),
        None => format!("the buffer at {} ({})", address(b.address, hex), evidence.join(", ")),
    }
}

fn join_and(items: Vec<String>) -> String {
    match items.len() {
        0 | 1 => items.concat(),
        n => format!("{} and {}", items[..n - 1].join(", "), items[n - 1]),
    }
}

/// The fit advice, the circular buffers in the way, or why there is no advice.
pub fn advice_sentence(m: &MemoryAtFailure, hex: bool) -> String {
    let n = m.operation_id;
    let need = size(m.needed_per_bank.unwrap_or(0));
    // Memory the report did not record may lie anywhere: say what the picture shows, no more.
    let missing = (m.check.status == CheckStatus::UnderCounted)
        .then(|| size(m.check.allocated.unwrap_or(0).saturating_sub(m.map.used_per_bank)));
    match &m.fit {
        Ok(fit) if fit.free.is_empty() => match missing {
            Some(missing) => format!(
                "No advice: a free block of {} at {} would hold the {need} request in the picture, but the picture misses {missing} the allocator held.",
                size(fit.block.size),
                address(fit.block.address, hex)
            ),
            None => format!(
                "A free block of {} at {} already holds the {need} request: the allocator refused it for a reason the report does not show.",
                size(fit.block.size),
                address(fit.block.address, hex)
            ),
        },
        Ok(fit) => freeing_sentence(m, fit, missing.as_deref(), hex),
        Err(NoFit::CircularBuffers) => clash_sentence(m, hex),
        Err(NoFit::Pinned) => format!(
            "No buffer can be freed right before operation {n} to make room: every {need} window overlaps an input of operation {n} or a buffer it allocated."
        ),
        Err(NoFit::LargerThanRegion { size: limit }) => {
            // The limit is the message's bank size when that is below the region's size.
            let region = m.map.region.bounds().map(|(s, e)| e - s);
            let what =
                if region.is_some_and(|r| r > *limit) { "the bank the allocator reports" } else { "the whole region" };
            format!("The {need} request is larger than {what} ({}): no freeing makes it fit.", size(*limit))
        }
        Err(NoFit::RegionUnknown) => "No advice on what to free: the region is unknown.".into(),
        Err(NoFit::NoRequest) => "No advice on what to free: the message gives no per-bank request.".into(),
    }
}

/// The buffers to free before the operation and the block that opens; `missing`, what the
/// picture misses of what the allocator held, makes it a caveat.
fn freeing_sentence(m: &MemoryAtFailure, fit: &Fit, missing: Option<&str>, hex: bool) -> String {
    let buffers: Vec<String> = fit
        .free
        .iter()
        .filter_map(|a| m.live_buffers.iter().find(|b| b.address == *a))
        .map(|b| to_free(b, hex))
        .collect();
    let caveat = missing.map_or_else(String::new, |missing| {
        format!(", as far as the picture shows (it misses {missing} the allocator held)")
    });
    format!(
        "Freeing {} before operation {} opens a {} block at {}: the {} request fits{caveat}.",
        join_and(buffers),
        m.operation_id,
        size(fit.block.size),
        address(fit.block.address, hex),
        size(m.needed_per_bank.unwrap_or(0))
    )
}

/// The circular buffers' end and the L1 buffers below it, with the advice to move them.
fn clash_sentence(m: &MemoryAtFailure, hex: bool) -> String {
    match &m.circular_buffers {
        Some(c) if !c.clashing.is_empty() => format!(
            "{} Move {} to DRAM or free {} before operation {} for the circular buffers to fit.",
            clash_facts(m, hex),
            if c.clashing.len() == 1 { "it" } else { "them" },
            if c.clashing.len() == 1 { "it" } else { "them" },
            m.operation_id
        ),
        _ => clash_facts(m, hex),
    }
}

/// The circular buffers' end and the L1 buffers below it.
pub fn clash_facts(m: &MemoryAtFailure, hex: bool) -> String {
    let Some(c) = &m.circular_buffers else {
        return "No advice: the message gives no circular-buffer region end.".into();
    };
    let programs = circular_buffer_sizes(&c.circular_buffers).map_or_else(String::new, |s| format!(" ({s})"));
    let head = format!("The circular buffers{programs} need L1 up to {}", address(c.region_end, hex));
    if c.clashing.is_empty() {
        return format!("{head}; no live L1 buffer lies below it, so nothing recorded is in their way.");
    }
    let listed: Vec<String> = c
        .clashing
        .iter()
        .take(3)
        .filter_map(|a| m.live_buffers.iter().find(|b| b.address == *a))
        .map(|b| {
            let who = b.tensor_id.map_or_else(|| "a buffer".to_string(), |id| format!("tensor {id}"));
            let own = if b.is_this_operation() { ", this operation" } else { "" };
            format!("{who} at {} ({}{own})", address(b.address, hex), size(b.size_per_bank))
        })
        .collect();
    let more = c.clashing.len().saturating_sub(listed.len());
    let more = if more > 0 { format!(" and {more} more") } else { String::new() };
    format!(
        "{head}; {} below it: {}{more}.",
        counted(c.clashing.len(), "live L1 buffer lies", "live L1 buffers lie"),
        listed.join(", ")
    )
}

/// How many circular buffers and their size per core: "3 circular buffers of 4 KiB per core"
/// when they are alike, "3 circular buffers, 12 KiB per core in all" when they differ; none
/// without circular buffers.
pub(crate) fn circular_buffer_sizes(buffers: &[CircularBuffer]) -> Option<String> {
    let first = buffers.first()?.size;
    let count = counted(buffers.len(), "circular buffer", "circular buffers");
    if buffers.iter().all(|b| b.size == first) {
        return Some(format!("{count} of {} per core", size(first)));
    }
    let total: u64 = buffers.iter().map(|b| b.size).sum();
    Some(format!("{count}, {} per core in all", size(total)))
}

/// Every line of the memory at a failure, in order: basis, check, reason from the map, holders,
/// advice, notes.
pub fn failure_lines(m: &MemoryAtFailure, hex: bool) -> Vec<String> {
    failure_lines_with_fixes(m, &[], hex)
}

/// [`failure_lines`] with the advice said as replayed fixes (docs/rules/memory.md §9.2): the fix lines
/// replace the freeing advice and the circular buffers' "move them" — a claim only a replay may
/// make — while the reasons no freeing helps stay.
pub fn failure_lines_with_fixes(m: &MemoryAtFailure, fixes: &[String], hex: bool) -> Vec<String> {
    let mut lines = vec![basis_sentence(m, hex), check_sentence(m)];
    lines.extend(reason_sentence(m));
    lines.extend(holders_sentence(&m.live_buffers, 3, hex));
    match &m.fit {
        _ if fixes.is_empty() => lines.push(advice_sentence(m, hex)),
        Ok(fit) if !fit.free.is_empty() => {}
        Err(NoFit::CircularBuffers) => lines.push(clash_facts(m, hex)),
        _ => lines.push(advice_sentence(m, hex)),
    }
    lines.extend(fixes.iter().cloned());
    lines.extend(m.notes.iter().map(|n| format!("Note: {}", n.text(hex))));
    lines
}

/// Every line of an operation's post-operation picture (or, for an unrecorded operation, of the
/// snapshot it started from): what it holds, the largest free block, the holders, the notes.
pub fn operation_lines(m: &OperationMemory, hex: bool) -> Vec<String> {
    let device = format!("device {}", m.named_device());
    let what = holding(m.live_buffers.len(), m.buffer_type, &device, m.map.used_per_bank, &m.map, hex);
    let mut first = match m.snapshot_operation_id {
        Some(p) => format!("When operation {} started (the snapshot after operation {p}): {what}", m.operation_id),
        None => format!("After operation {}: {what}", m.operation_id),
    };
    if let Some(largest) = m.map.largest_free_block {
        first.push_str(&format!("; largest free block {}", size(largest)));
    }
    let mut lines = vec![first];
    lines.extend(holders_sentence(&m.live_buffers, 3, hex));
    lines.extend(m.notes.iter().map(|n| format!("Note: {}", n.text(hex))));
    lines
}

/// How fragmented the region's free space is, as TT-NN Visualizer shows it (tab 4, any
/// operation), e.g. `Free space: 3 blocks, the largest 510 KiB; 43.21% of the free space lies
/// outside it.`; none when the region is unknown.
pub fn fullness_sentence(map: &MemoryMap) -> Option<String> {
    let largest = map.largest_free_block?;
    let free: u64 = map.free_blocks.iter().map(|b| b.size).sum();
    if free == 0 {
        return Some("Free space: none.".to_string());
    }
    let outside = format_percent((free - largest) as f64 * 100.0 / free as f64);
    let blocks = counted(map.free_blocks.len(), "block", "blocks");
    Some(format!("Free space: {blocks}, the largest {}; {outside} of the free space lies outside it.", size(largest)))
}
