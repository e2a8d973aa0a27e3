use super::*;

fn record(id: u64, op_code: &str, device: Option<u64>, duration: Option<f64>, ts: f64) -> PerfRecord {
    PerfRecord {
        id,
        op_code: op_code.into(),
        op_type: DEVICE_OP_TYPE.into(),
        device_id: device,
        host_start_ts: Some(ts),
        kernel_duration_ns: duration,
        ..PerfRecord::default()
    }
}

const MERGED: RowOptions = RowOptions { merge_devices: true, sort_by_host_start: true };
const UNMERGED: RowOptions = RowOptions { merge_devices: false, sort_by_host_start: true };

fn ids(rows: &[PerfRow]) -> Vec<u64> {
    rows.iter().map(|r| r.id).collect()
}

#[test]
fn merge_keeps_the_slowest_row_with_its_own_id() {
    let records = vec![
        record(2, "Matmul", Some(0), Some(100.0), 1.0),
        record(3, "Matmul", Some(1), Some(300.0), 2.0),
        record(4, "Add", Some(0), Some(50.0), 3.0),
        record(5, "Add", Some(1), Some(50.0), 4.0),
    ];
    let rows = build_rows(&records, MERGED);
    assert_eq!(ids(&rows), vec![3, 4]);
    assert_eq!(rows[0].device, Some(1));
    assert_eq!(rows[0].device_time_us, Some(0.3));
    // A tie goes to the lowest device.
    assert_eq!(rows[1].device, Some(0));
}

#[test]
fn collectives_keep_the_first_row_with_the_mean_duration() {
    let records = vec![
        record(2, "AllGatherAsync", Some(1), Some(3000.0), 1.0),
        record(3, "AllGatherAsync", Some(0), Some(1000.0), 2.0),
        record(4, "ReduceScatterMinimal", Some(0), None, 3.0),
        record(5, "ReduceScatterMinimal", Some(1), Some(500.0), 4.0),
    ];
    let rows = build_rows(&records, MERGED);
    assert_eq!(ids(&rows), vec![3, 4]);
    assert_eq!(rows[0].device, Some(0));
    assert_eq!(rows[0].device_time_us, Some(2.0));
    assert_eq!(rows[1].device_time_us, Some(0.5));
}

#[test]
fn missing_negative_and_hidden_durations_count_as_minus_one() {
    let mut hidden = record(3, "Matmul", Some(1), Some(5000.0), 2.0);
    hidden.op_to_op_latency_ns = Some(-20_000_000.0);
    let records = vec![record(2, "Matmul", Some(0), Some(10.0), 1.0), hidden];
    assert_eq!(ids(&build_rows(&records, MERGED)), vec![2]);
    let records = vec![record(2, "Matmul", Some(0), None, 1.0), record(3, "Matmul", Some(1), Some(-5.0), 2.0)];
    assert_eq!(ids(&build_rows(&records, MERGED)), vec![2]);
    // A large negative latency that is small next to the duration does not hide it.
    let mut kept = record(3, "Matmul", Some(1), Some(5_000_000.0), 2.0);
    kept.op_to_op_latency_ns = Some(-2_000_000.0);
    let records = vec![record(2, "Matmul", Some(0), Some(10.0), 1.0), kept];
    assert_eq!(ids(&build_rows(&records, MERGED)), vec![3]);
}

#[test]
fn lock_step_skips_a_device_whose_head_differs() {
    // Device 1 lacks the first Matmul: its Add waits for the next round.
    let records = vec![
        record(2, "Matmul", Some(0), Some(10.0), 1.0),
        record(3, "Add", Some(0), Some(10.0), 2.0),
        record(4, "Add", Some(1), Some(20.0), 3.0),
    ];
    let rows = build_rows(&records, MERGED);
    assert_eq!(ids(&rows), vec![2, 4]);
}

#[test]
fn merged_rows_end_in_csv_order_and_unmerged_in_host_order() {
    let records = vec![
        record(2, "A", Some(0), Some(10.0), 5.0),
        record(3, "B", Some(1), Some(10.0), 1.0),
        record(4, "B", Some(0), Some(10.0), 6.0),
        record(5, "A", Some(1), Some(10.0), 0.5),
    ];
    assert_eq!(ids(&build_rows(&records, UNMERGED)), vec![5, 3, 2, 4]);
    // Sorted: 5(A,d1) 3(B,d1) 2(A,d0) 4(B,d0) → queues d0 [2,4], d1 [5,3] → groups {2,5}, {4,3}.
    assert_eq!(ids(&build_rows(&records, MERGED)), vec![2, 4]);
}

#[test]
fn single_device_always_merges_and_no_device_keeps_host_order() {
    // Merged rows in host-start order, as tt-perf-report 1.4.1 gives them (measured on the demo
    // CSV with its second row started first: 1.4.1 writes IDs 3 2 4, 1.4.0 re-sorted them 2 3 4).
    let records = vec![record(2, "A", Some(0), Some(1.0), 2.0), record(3, "B", Some(0), Some(1.0), 1.0)];
    assert_eq!(ids(&build_rows(&records, UNMERGED)), vec![3, 2]);
    let records = vec![record(2, "A", None, Some(1.0), 2.0), record(3, "B", None, Some(1.0), 1.0)];
    assert_eq!(ids(&build_rows(&records, MERGED)), vec![3, 2]);
    // Ties in HOST START TS keep CSV order; missing timestamps go last (1.4.1 too, merged: a
    // device row without one came out last, IDs 2 4 3).
    let mut late = record(2, "C", None, None, 0.0);
    late.host_start_ts = None;
    let records = vec![late, record(3, "A", None, None, 1.0), record(4, "B", None, None, 1.0)];
    assert_eq!(ids(&build_rows(&records, MERGED)), vec![3, 4, 2]);
}

#[test]
fn signposts_are_kept_and_host_ops_hidden_without_renumbering() {
    let mut signpost = record(2, "start", None, None, 1.0);
    signpost.op_type = SIGNPOST_OP_TYPE.into();
    let mut host = record(4, "aten::add (torch)", None, None, 3.0);
    host.op_type = "python_fallback".into();
    let records = vec![
        signpost,
        record(3, "Matmul", Some(0), Some(2000.0), 2.0),
        host,
        record(5, "Add", Some(0), Some(2000.0), 4.0),
    ];
    let rows = build_rows(&records, MERGED);
    assert_eq!(ids(&rows), vec![2, 3, 5]);
    assert_eq!(&*rows[0].op_code, "start (signpost)");
    assert_eq!(&*rows[0].raw_op_code, "start");
    assert_eq!(rows[0].device_time_us, None);
    assert!(rows[0].is_signpost());
}

#[test]
fn op_to_op_gap_needs_a_previous_non_signpost_row() {
    let mut a = record(2, "A", Some(0), Some(1000.0), 1.0);
    a.op_to_op_latency_ns = Some(7000.0);
    let mut b = record(3, "B", Some(0), Some(3000.0), 2.0);
    b.op_to_op_latency_ns = Some(4000.0);
    let rows = build_rows(&[a, b], MERGED);
    assert_eq!(rows[0].op_to_op_gap_us, None);
    assert_eq!(rows[1].op_to_op_gap_us, Some(4.0));
    // Total % = (device time + gap) / (1 + 3 + 4) µs.
    assert_eq!(rows[0].total_percent, Some(12.5));
    assert_eq!(rows[1].total_percent, Some(87.5));
}

#[test]
fn lock_step_groups_by_device_and_op_code() {
    let rows = [(Some(1), "A"), (Some(0), "A"), (None, "S"), (Some(0), "B"), (Some(1), "B")];
    let groups = lock_step_groups(&rows, |r| r.0, |r| r.1);
    assert_eq!(groups.iter().collect::<Vec<_>>(), [[1, 0], [3, 4]]);
}

#[test]
fn tt_perf_report_op_codes_lose_their_suffix() {
    // As tt-perf-report 1.4.0 writes them without --raw-op-codes (docs/rules/reference.md §13.4).
    assert_eq!(raw_op_code_of("HaloDeviceOperation w=x s=x p=x d=x | x"), "HaloDeviceOperation");
    assert_eq!(raw_op_code_of("MatmulDeviceOperation 224 x 768 x 2304"), "MatmulDeviceOperation");
    assert_eq!(raw_op_code_of("Conv2dDeviceOperation unknown shape [ABH=x|x]"), "Conv2dDeviceOperation");
    assert_eq!(raw_op_code_of("SoftmaxDeviceOperation"), "SoftmaxDeviceOperation");
    assert_eq!(raw_op_code_of(""), "");
}

/// tt-perf-report 1.4.0's merged multi-device output is in `ID` order, an operation whose
/// slowest row was device 1's moved down; its `Global Call Count` puts it back. Rows without a
/// count stay after the row before them; rows whose counts ascend are kept as written.
#[test]
fn analysed_rows_in_call_order() {
    let row = |id: u64, call: &str| PerfRow { id, global_call_count: call.into(), ..PerfRow::default() };
    let by_id = vec![row(3, "1024.0"), row(5, "1026.0"), row(22, "nan"), row(31, "1025.0"), row(33, "1027.0")];
    let ids = |rows: Vec<PerfRow>| rows.iter().map(|r| r.id).collect::<Vec<_>>();
    assert_eq!(ids(in_call_order(by_id)), [3, 31, 5, 22, 33]);
    let host_order = vec![row(3, "1024.0"), row(31, "1025.0"), row(5, "1026.0"), row(2, "")];
    assert_eq!(ids(in_call_order(host_order)), [3, 31, 5, 2]);
}
