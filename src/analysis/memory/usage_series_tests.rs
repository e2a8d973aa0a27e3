use super::*;
use BufferType::{Dram, L1, L1Small};

/// A run of six operations on two devices. Device 0 has snapshots after 1, 2, 3 and 5; operation
/// 4 touched only device 1; operation 3's snapshot on device 0 holds only DRAM; operation 6
/// failed without a snapshot.
fn run() -> MemoryUsage {
    let mut u = MemoryUsage::default();
    let rows: &[(u64, u64, BufferType, u64)] = &[
        (1, 0, L1, 1_000),
        (1, 0, Dram, 10),
        (2, 0, L1, 1_000),
        (2, 0, L1, 2_500),
        (3, 0, Dram, 10),
        (4, 1, L1, 77),
        (5, 0, L1, 3_500),
        (5, 0, L1Small, 64),
    ];
    for &(op, dev, ty, size) in rows {
        u.add(op, dev, Some(ty), (Some(64), Some(size as i64)));
    }
    u.flush();
    u
}

const OPS: &[u64] = &[1, 2, 3, 4, 5, 6];

fn figures(series: &UsageSeries) -> Vec<(Option<u64>, bool)> {
    series.points.iter().map(|p| (p.used_per_bank, p.recorded)).collect()
}

#[test]
fn points_carry_the_last_snapshot_over_operations_without_one() {
    let s = UsageSeries::from_snapshots(&run(), (0, L1), OPS, &[], None);
    assert_eq!(
        figures(&s),
        vec![
            (Some(1_000), true),
            (Some(3_500), true),
            // A snapshot of device 0 without L1 rows: nothing in L1.
            (Some(0), true),
            (Some(0), false),
            (Some(3_500), true),
            (Some(3_500), false),
        ]
    );
    assert_eq!(s.points.iter().map(|p| p.operation_id).collect::<Vec<_>>(), OPS);
    // 3 500 after operation 2 and again after 5: the first one is the peak.
    assert_eq!(s.peak, Some(1));
    assert_eq!(s.basis, UsageBasis::Snapshots);
}

#[test]
fn before_the_first_snapshot_of_a_device_nothing_is_known() {
    let s = UsageSeries::from_snapshots(&run(), (1, L1), OPS, &[], None);
    assert_eq!(
        figures(&s),
        vec![(None, false), (None, false), (None, false), (Some(77), true), (Some(77), false), (Some(77), false)]
    );
    assert_eq!(s.peak_point().map(|p| p.operation_id), Some(4));
}

#[test]
fn failures_are_placed_on_the_lines_they_concern() {
    let failures = [
        FailureMark { operation_id: 6, device_id: Some(0), buffer_type: Some(L1) },
        FailureMark { operation_id: 3, device_id: Some(1), buffer_type: Some(L1) },
        FailureMark { operation_id: 2, device_id: None, buffer_type: Some(Dram) },
        FailureMark { operation_id: 4, device_id: None, buffer_type: None },
        FailureMark { operation_id: 99, device_id: None, buffer_type: None },
    ];
    let on = |key| UsageSeries::from_snapshots(&run(), key, OPS, &failures, None).failures;
    assert_eq!(on((0, L1)), vec![3, 5]);
    assert_eq!(on((1, L1)), vec![2, 3]);
    assert_eq!(on((0, Dram)), vec![1, 3]);
}

#[test]
fn a_series_from_another_source_gets_the_same_peak_and_marks() {
    let points = [(10, Some(5)), (11, Some(9)), (12, Some(9)), (13, None)]
        .map(|(operation_id, used_per_bank)| UsagePoint { operation_id, used_per_bank, recorded: true })
        .to_vec();
    let failures = [FailureMark { operation_id: 13, device_id: Some(0), buffer_type: Some(L1) }];
    let s = UsageSeries::new((0, L1), UsageBasis::GraphOnlyPass, points, &failures, None);
    assert_eq!((s.peak, s.failures.clone(), s.basis), (Some(1), vec![3], UsageBasis::GraphOnlyPass));
    let empty = UsageSeries::new((0, L1), UsageBasis::GraphOnlyPass, Vec::new(), &failures, None);
    assert_eq!((empty.peak, empty.failures), (None, vec![]));
}

#[test]
fn peaks_of_every_device_and_type() {
    let p = peaks(&run(), OPS);
    let as_tuples: Vec<_> = p.iter().map(|p| (p.device_id, p.buffer_type, p.operation_id, p.used_per_bank)).collect();
    assert_eq!(as_tuples, vec![(0, Dram, 1, 10), (0, L1, 2, 3_500), (0, L1Small, 5, 64), (1, L1, 4, 77)]);
}

#[test]
fn region_ceilings() {
    // Wormhole n150: A = 101440, B = 1364928, W = 1499136.
    let row = DeviceFacts {
        device_id: 0,
        l1_start: Some(101_440),
        l1_bank_size: 1_364_928,
        worker_l1_size: 1_499_136,
        l1_num_banks: 64,
    };
    let l1 = Some(&row);
    let devices = |size| Some(Ceiling { size, source: CeilingSource::Devices });
    assert_eq!(region_ceiling(L1, l1, None), devices(1_364_928));
    assert_eq!(region_ceiling(L1Small, l1, None), devices(1_499_136 - 101_440 - 1_364_928));
    assert_eq!(
        region_ceiling(Dram, l1, Some(1_073_741_824)),
        Some(Ceiling { size: 1_073_741_824, source: CeilingSource::Message })
    );
    assert_eq!(region_ceiling(Dram, l1, None), None);
    assert_eq!(region_ceiling(L1, None, None), None);
    // A report without address_at_first_l1_cb_buffer: L1's and L1_SMALL's regions are unknown
    // (docs/rules/memory.md §2), so neither has a ceiling.
    let no_start = DeviceFacts { l1_start: None, ..row.clone() };
    assert_eq!(
        (region_ceiling(L1, Some(&no_start), None), region_ceiling(L1Small, Some(&no_start), None)),
        (None, None)
    );
    // A device opened without L1_SMALL: its region is empty, which the chart draws no line for.
    let no_small = DeviceFacts { worker_l1_size: 101_440 + 1_364_928, ..row.clone() };
    assert_eq!(region_ceiling(L1Small, Some(&no_small), None), None);
    assert_eq!(region_ceiling(BufferType::Trace, l1, None), None);
}

#[test]
fn a_replayed_series_carries_figures_over_operations_without_a_graph() {
    // Operations 1..=5: 1 and 3 replayed holding L1, 4 replayed holding only DRAM, 2 and 5
    // without a graph.
    let after = [(1, (0, L1), 100), (3, (0, L1), 250), (3, (0, Dram), 7), (4, (0, Dram), 9)];
    let failures = [FailureMark { operation_id: 5, device_id: Some(0), buffer_type: Some(L1) }];
    let series = UsageSeries::from_replay(&after, (0, L1), &[1, 2, 3, 4, 5], &failures, None);
    let used: Vec<(Option<u64>, bool)> = series.points.iter().map(|p| (p.used_per_bank, p.recorded)).collect();
    assert_eq!(used, [(Some(100), true), (Some(100), false), (Some(250), true), (Some(0), true), (Some(0), false)]);
    assert_eq!((series.peak, series.failures.as_slice(), series.basis), (Some(2), &[4][..], UsageBasis::GraphOnlyPass));
}
