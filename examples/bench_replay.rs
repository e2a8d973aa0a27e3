//! Benchmark of the memory at a failure on large captured graphs (issue 14 item 1): the replay,
//! the unwinding, the holders and the map must be linear or n log n in the graph's size.
//!
//! ```sh
//! cargo run --release --example bench_replay            # 10 k, 100 k and 300 k allocations
//! cargo run --release --example bench_replay -- 50000   # any sizes
//! ```
//!
//! For each size it builds, with the project's graph builder, the captured graph of a failed
//! operation that allocates that many DRAM buffers — every other one a temporary freed after
//! the next allocation, the rest its outputs with their tensors, so half stay live — then fails
//! inside `create_device_tensor` and frees its last 1 000 outputs in `Tensor::deallocate` scopes
//! (ttnn 0.81). It times (median wall time of 5 after a warm-up, and their mean CPU time)
//! `memory_at_failure` on the parsed graph
//! for two bases: `earlier_snapshot_and_graph` (an earlier snapshot of 1 000 rows replayed
//! through the graph) and `after_failure_snapshot` (a snapshot of every buffer live after the
//! unwinding). Parsing the JSON is timed apart.

#[path = "../tests/support/mod.rs"]
mod support;

use std::time::{Duration, Instant};
use support::{Alloc, BufferType, Graph, Layout};
use ttnn_tui::analysis::graph::nodes::parse_graph;
use ttnn_tui::analysis::memory::{EarlierSnapshot, FailureInputs, SnapshotRow, memory_at_failure};
use ttnn_tui::analysis::messages::failure::{BufferType as Type, parse_allocation_failure};

const BASE: u64 = 1_048_640;
const PER_BANK: u64 = 2048;
const UNWOUND: usize = 1000;
const RUNS: usize = 5;

fn node(address: u64) -> Alloc {
    Alloc::new(PER_BANK * 12, address, BufferType::Dram, Layout::Interleaved).num_cores(0).max_size_per_bank(PER_BANK)
}

/// The failed operation's graph with `allocations` buffer allocations, and the outputs live at
/// its end (after the unwinding).
fn failed_graph(allocations: usize, earlier: u64) -> (String, Vec<u64>) {
    let mut g = Graph::new().capture_start().start("ttnn.matmul").start("MatmulDeviceOperation");
    let address = |i: usize| BASE + (earlier + i as u64) * PER_BANK;
    let mut outputs = Vec::new();
    for i in 0..allocations {
        g = g.alloc(node(address(i)));
        if i % 2 == 1 {
            // The temporary allocated before this output is freed.
            g = g.buffer_tensor(10_000 + i as u64, "Shape([1, 1, 32, 32])").dealloc(node(address(i - 1)));
            outputs.push(address(i));
        }
    }
    g = g.start("tt::tt_metal::create_device_tensor").aborted_end("tt::tt_metal::create_device_tensor", None);
    for &a in outputs.iter().rev().take(UNWOUND) {
        g = g.start("Tensor::deallocate").dealloc(node(a)).end("Tensor::deallocate");
    }
    g = g.aborted_end("MatmulDeviceOperation", Some("Out of Memory")).aborted_end("ttnn.matmul", Some("Out of Memory"));
    outputs.truncate(outputs.len().saturating_sub(UNWOUND));
    (g.capture_end().to_json(), outputs)
}

fn rows(addresses: impl Iterator<Item = u64>) -> Vec<SnapshotRow> {
    addresses
        .map(|a| SnapshotRow {
            device_id: 0,
            address: Some(a as i64),
            size_per_bank: Some(PER_BANK as i64),
            buffer_type: Some(Type::Dram),
            layout: Some(0),
        })
        .collect()
}

/// The process's CPU time so far (user + system, from `/proc/self/stat`, in clock ticks of
/// 10 ms): on a shared machine the wall clock also counts other processes' turns.
fn cpu() -> Duration {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let after_name = stat.rsplit(')').next().unwrap_or("");
    let ticks: u64 = after_name.split_whitespace().skip(11).take(2).filter_map(|t| t.parse::<u64>().ok()).sum();
    Duration::from_millis(ticks * 10)
}

/// The median wall time of `RUNS` runs after a warm-up, and their mean CPU time.
fn median(f: impl Fn() -> Duration) -> (Duration, Duration) {
    f();
    let before = cpu();
    let mut samples: Vec<Duration> = (0..RUNS).map(|_| f()).collect();
    let used = (cpu() - before) / RUNS as u32;
    samples.sort();
    (samples[RUNS / 2], used)
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1000.0)
}

fn wall_cpu((wall, cpu): (Duration, Duration)) -> String {
    format!("{} (CPU {})", ms(wall), ms(cpu))
}

fn main() {
    let sizes: Vec<usize> = std::env::args().skip(1).filter_map(|a| a.parse().ok()).collect();
    let sizes = if sizes.is_empty() { vec![10_000, 100_000, 300_000] } else { sizes };
    println!(
        "| allocation nodes | graph nodes | parse | earlier_snapshot_and_graph | after_failure_snapshot | live buffers |"
    );
    println!("| ---: | ---: | ---: | ---: | ---: | ---: |");
    for n in sizes {
        let earlier = 1000u64;
        let (json, live_outputs) = failed_graph(n, earlier);
        let start = Instant::now();
        let graph = parse_graph(&json).expect("the builder writes valid graphs");
        let parse = start.elapsed();
        let message = format!(
            "Out of Memory: Not enough space to allocate {} B DRAM buffer across 12 banks, where each bank needs to store {} B, but bank size is 1072693184 B (allocated: 0 B, free: 0 B, largest free block: 0 B)",
            PER_BANK * 12 * 1000,
            PER_BANK * 1000
        );
        let s0 = rows((0..earlier).map(|k| BASE + k * PER_BANK));
        let mut inputs = FailureInputs {
            operation_id: 7,
            failure: parse_allocation_failure(&message),
            graph: graph.into(),
            earlier_snapshot: Some(EarlierSnapshot { operation_id: 6, rows: s0.clone() }),
            ..FailureInputs::default()
        };
        let time = |inputs: &FailureInputs| {
            median(|| {
                let start = Instant::now();
                std::hint::black_box(memory_at_failure(inputs));
                start.elapsed()
            })
        };
        let replayed = time(&inputs);
        let live = memory_at_failure(&inputs).map_or(0, |m| m.live_buffers.len());
        inputs.own_snapshot = s0.into_iter().chain(rows(live_outputs.into_iter())).collect::<Vec<_>>().into();
        let after = time(&inputs);
        let (nodes, parse) = (inputs.graph.len(), ms(parse));
        println!("| {n} | {nodes} | {parse} | {} | {} | {live} |", wall_cpu(replayed), wall_cpu(after));
    }
}
