//! The true peak and the headroom on small runs whose answer is worked out by hand.

use super::*;
use crate::analysis::graph::nodes::parse_graph;
use crate::analysis::memory::SnapshotRow;
use crate::analysis::messages::failure::{BufferType, FailureKind};
use crate::analysis::messages::reason::Reason;
use std::collections::HashMap;

/// L1 `[100000, 1100000)`: a 1 000 000 B bank on an 8×8 grid.
const LAYOUT: DeviceLayout =
    DeviceLayout { device_id: 0, l1: Some((100_000, 1_100_000)), l1_small: None, dram: None, grid: Some((8, 8)) };

fn alloc(counter: u64, address: u64, per_bank: u64, connections: &str) -> String {
    format!(
        r#"{{"counter":{counter},"node_type":"buffer_allocate","connections":[{connections}],"params":{{"address":{address},"buffer_type":1,"device_id":1,"layout":"INTERLEAVED","max_size_per_bank":{per_bank},"num_cores":0,"size":{}}}}}"#,
        per_bank * 64
    )
}

fn free(counter: u64, address: u64, per_bank: u64) -> String {
    format!(
        r#"{{"counter":{counter},"node_type":"buffer_deallocate","params":{{"address":{address},"buffer_type":1,"device_id":1,"max_size_per_bank":{per_bank}}}}}"#
    )
}

fn cb(counter: u64, address: u64, size: u64, cores: &str) -> String {
    format!(
        r#"{{"counter":{counter},"node_type":"circular_buffer_allocate","params":{{"address":{address},"size":{size},"core_range_set":"{cores}","device_id":0,"globally_allocated":"0"}}}}"#
    )
}

fn clear(counter: u64) -> String {
    format!(r#"{{"counter":{counter},"node_type":"circular_buffer_deallocate_all","params":{{"device_id":1}}}}"#)
}

fn tensor(counter: u64, tensor_id: u64) -> String {
    format!(r#"{{"counter":{counter},"node_type":"tensor","params":{{"tensor_id":{tensor_id}}}}}"#)
}

fn graph(nodes: &[String]) -> Vec<crate::analysis::graph::nodes::GraphNode> {
    parse_graph(&format!("[{}]", nodes.join(","))).unwrap()
}

/// Three operations: 1 allocates tensor 7 (100 000 B) at the top; 2 allocates an intermediate
/// (48 000 B), places two circular buffers — 20 000 B on the left half, then one up to 130 000 on
/// the right half — frees the intermediate and allocates its 32 000 B output; 3 frees tensor 7.
fn run() -> RunEvents {
    let mut run = RunEvents::new(Some(0), 64);
    let op1 = graph(&[alloc(1, 1_000_000, 100_000, "2"), tensor(2, 7)]);
    let op2 = graph(&[
        alloc(1, 952_000, 48_000, ""),
        clear(2),
        cb(3, 100_000, 20_000, "{[0-0 - 3-7]}"),
        cb(4, 120_000, 10_000, "{[4-0 - 7-7]}"),
        free(5, 952_000, 48_000),
        alloc(6, 968_000, 32_000, ""),
        clear(7),
    ]);
    let op3 = graph(&[free(1, 1_000_000, 100_000)]);
    for (id, g) in [(1, &op1), (2, &op2), (3, &op3)] {
        run.operation(&Records { operation_id: id, graph: g, snapshot: None });
    }
    run
}

#[test]
fn the_peak_inside_an_operation_stands_its_circular_buffers_on_their_cores() {
    let last_use = HashMap::from([(7, 1)]);
    let peaks = true_peaks(&run(), &[LAYOUT], &last_use);
    let two = peaks.iter().find(|p| p.operation_id == 2).unwrap();
    // 100 000 live before + 48 000 of its own + the right half's region 130 000 − 100 000.
    assert_eq!(two.peak_per_bank, 178_000);
    assert_eq!(two.after_per_bank, 132_000);
    assert_eq!(two.core, Some((4, 0)), "the right half is the busier");
    assert_eq!(two.composition, Composition { circular_buffers: 30_000, own: 48_000, live: 0, stale: 100_000 });
    assert_eq!(two.room(), Some(822_000));
    let one = peaks.iter().find(|p| p.operation_id == 1).unwrap();
    assert_eq!((one.peak_per_bank, one.core), (100_000, None));
    assert_eq!(one.composition, Composition { own: 100_000, ..Composition::default() });
    // Tensor 7 used later: live, not stale.
    let later = true_peaks(&run(), &[LAYOUT], &HashMap::from([(7, 3)]));
    let two = later.iter().find(|p| p.operation_id == 2).unwrap();
    assert_eq!((two.composition.live, two.composition.stale), (100_000, 0));
    let tight = tightest(&peaks, 2);
    assert_eq!(tight.iter().map(|p| p.operation_id).collect::<Vec<_>>(), vec![2, 3]);
    assert_eq!(run_peaks(&peaks)[0].operation_id, 2);
}

#[test]
fn a_sharded_buffer_counts_on_the_cores_of_its_shard_grid() {
    let mut run = RunEvents::new(Some(0), 64);
    let sharded = r#"{"counter":1,"node_type":"buffer_allocate","params":{"address":1000000,"buffer_type":1,"device_id":1,"layout":"HEIGHT_SHARDED","max_size_per_bank":40000,"num_cores":8}}"#;
    let t = r#"{"counter":2,"node_type":"tensor","params":{"tensor_id":3,"address":1000000,"memory_config":"MemoryConfig(memory_layout=TensorMemoryLayout::HEIGHT_SHARDED,shard_spec=ShardSpec{grid=[{\"start\":{\"x\":0,\"y\":0},\"end\":{\"x\":7,\"y\":0}}], shape=[32, 2048]})"}}"#;
    let g = graph(&[sharded.to_string(), t.to_string(), alloc(3, 900_000, 10_000, "")]);
    run.operation(&Records { operation_id: 1, graph: &g, snapshot: None });
    let peaks = true_peaks(&run, &[LAYOUT], &HashMap::new());
    assert_eq!(peaks[0].peak_per_bank, 50_000);
    assert_eq!(peaks[0].core, Some((0, 0)));
    assert_eq!(peaks[0].after_per_bank, 50_000);
}

#[test]
fn a_snapshot_shows_what_was_allocated_outside_any_graph() {
    let mut run = RunEvents::new(Some(0), 64);
    let row = |address, size| SnapshotRow {
        device_id: 0,
        address: Some(address),
        size_per_bank: Some(size),
        buffer_type: Some(BufferType::L1),
        layout: None,
    };
    let first = [row(1_000_000, 100_000)];
    run.operation(&Records { operation_id: 1, graph: &[], snapshot: Some(&first) });
    let second = [row(1_000_000, 100_000), row(900_000, 100_000)];
    run.operation(&Records { operation_id: 2, graph: &[], snapshot: Some(&second) });
    let peaks = true_peaks(&run, &[LAYOUT], &HashMap::new());
    assert_eq!(peaks.iter().map(|p| p.peak_per_bank).collect::<Vec<_>>(), vec![100_000, 200_000]);
    assert!(run.buffers[0].before_run && !run.buffers[1].before_run);
}

fn question(failed: Option<FirstFailure>) -> HeadroomQuestion {
    HeadroomQuestion { place: (0, BufferType::L1), region: (100_000, 1_100_000), alignment: 32, failed }
}

#[test]
fn headroom_is_the_largest_reservation_with_which_everything_still_places() {
    // With R reserved at the top, tensor 7 lands at 1 000 000 − R; the intermediate below it; the
    // circular buffers (up to 130 000) clash once the intermediate's bottom, 952 000 − R, falls
    // below 130 000: R ≤ 822 000, and 821 984 at 32 B steps.
    let h = headroom(&run(), &question(None));
    assert_eq!(h.per_bank, 821_984);
    assert_eq!((h.bank_size, h.alignment, h.replay_check), (1_000_000, 32, ReplayCheck::Exact));
    let f = h.first_failure.unwrap();
    assert_eq!(
        (f.operation_id, f.kind, f.reason),
        (2, FailureKind::CircularBuffersClash, Some(Reason::OverlapsL1Buffer))
    );
}

#[test]
fn without_circular_buffers_the_tensors_run_out_of_room() {
    let mut run = RunEvents::new(Some(0), 64);
    let g = graph(&[alloc(1, 1_000_000, 100_000, ""), alloc(2, 900_000, 100_000, "")]);
    run.operation(&Records { operation_id: 4, graph: &g, snapshot: None });
    let h = headroom(&run, &question(None));
    // 1 000 000 − 200 000, to the step of 32 B.
    assert_eq!(h.per_bank, 800_000);
    let f = h.first_failure.unwrap();
    assert_eq!((f.operation_id, f.kind, f.reason), (4, FailureKind::BankOutOfMemory, Some(Reason::NotEnoughFreeSpace)));
    // A run that failed has no headroom on its failing type.
    let failed = FirstFailure { operation_id: 9, kind: FailureKind::BankOutOfMemory, reason: None };
    assert_eq!(headroom(&run, &question(Some(failed))).per_bank, 0);
}

#[test]
fn a_hole_too_small_for_a_later_buffer_is_a_fragmented_failure() {
    // 300 000 at the top, 100 000 below it, the top one freed, then 350 000: with R reserved the
    // freed hole is 300 000 and the space below shrinks; 350 000 needs one block.
    let mut run = RunEvents::new(Some(0), 64);
    let g = graph(&[
        alloc(1, 800_000, 300_000, ""),
        alloc(2, 700_000, 100_000, ""),
        free(3, 800_000, 300_000),
        alloc(4, 750_000, 350_000, ""),
    ]);
    run.operation(&Records { operation_id: 1, graph: &g, snapshot: None });
    let h = headroom(&run, &question(None));
    assert_eq!(h.replay_check, ReplayCheck::Differs, "the recorded places are made up");
    // Below the 100 000 buffer at 700 000 − R there are 600 000 − R bytes.
    assert_eq!(h.per_bank, 249_984, "350 000 takes 350 016 at 32 B steps");
    assert_eq!(h.first_failure.unwrap().reason, Some(Reason::Fragmented));
}

#[test]
fn every_core_at_the_peak_and_the_busiest_is_the_true_peak() {
    let last_use = HashMap::from([(7, 1)]);
    let (peaks, grids) = true_peaks_per_core(&run(), &[LAYOUT], &last_use);
    assert_eq!(peaks, true_peaks(&run(), &[LAYOUT], &last_use), "the same peaks with or without the grid");
    for p in &peaks {
        let grid = grids.iter().find(|g| g.operation_id == p.operation_id).unwrap();
        let (core, fill) = grid.busiest();
        assert_eq!((fill, fill.total()), (p.composition, p.peak_per_bank), "operation {}", p.operation_id);
        assert_eq!(p.core.unwrap_or(core), core);
    }
    let two = grids.iter().find(|g| g.operation_id == 2).unwrap();
    // The left half stands its 20 000 B region, the right half its 30 000 B one.
    let left = Composition { circular_buffers: 20_000, own: 48_000, live: 0, stale: 100_000 };
    let right = Composition { circular_buffers: 30_000, ..left };
    assert_eq!((two.size, two.fills.clone(), two.counts()), ((8, 8), vec![left, right], vec![32, 32]));
    assert_eq!((two.fill((3, 7)), two.fill((4, 7)), two.busiest().0), (left, right, (4, 0)));
    let one = grids.iter().find(|g| g.operation_id == 1).unwrap();
    assert!(one.alike());
    assert_eq!((one.fill((7, 7)), one.counts()), (Composition { own: 100_000, ..Composition::default() }, vec![64]));
}

#[test]
fn a_sharded_buffer_fills_only_its_cores_in_the_grid() {
    let mut run = RunEvents::new(Some(0), 64);
    let sharded = r#"{"counter":1,"node_type":"buffer_allocate","params":{"address":1000000,"buffer_type":1,"device_id":1,"layout":"HEIGHT_SHARDED","max_size_per_bank":40000,"num_cores":8}}"#;
    let t = r#"{"counter":2,"node_type":"tensor","params":{"tensor_id":3,"address":1000000,"memory_config":"MemoryConfig(memory_layout=TensorMemoryLayout::HEIGHT_SHARDED,shard_spec=ShardSpec{grid=[{\"start\":{\"x\":0,\"y\":0},\"end\":{\"x\":7,\"y\":0}}], shape=[32, 2048]})"}}"#;
    let g = graph(&[sharded.to_string(), t.to_string(), alloc(3, 900_000, 10_000, "")]);
    run.operation(&Records { operation_id: 1, graph: &g, snapshot: None });
    let (_, grids) = true_peaks_per_core(&run, &[LAYOUT], &HashMap::new());
    let own = |own| Composition { own, ..Composition::default() };
    assert_eq!((grids[0].fill((7, 0)), grids[0].fill((0, 1))), (own(50_000), own(10_000)));
    assert_eq!((grids[0].counts(), grids[0].busiest().0), (vec![8, 56], (0, 0)));
    // No grid where the device's grid is not known.
    let unknown = DeviceLayout { grid: None, ..LAYOUT };
    assert!(true_peaks_per_core(&run, &[unknown], &HashMap::new()).1.is_empty());
}
