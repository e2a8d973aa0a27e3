//! Reading the memory at a failure from real databases: bad records give a partial picture and
//! a note, the earlier snapshot is found without scanning `buffers` (by index, by rowid, by one
//! scan only when the rows are out of order), any operation's post-operation picture, and the
//! report stays read-only and `Send` for the UI's worker thread.

use crate::support;

use support::sim::{Era, Options, Sim, SimOp};
use support::{
    BufferRow, BufferType, Device, ErrorRow, Graph, LOOKUP_INDEXES, Layout, Op, ReportBuilder, Schema, TempDir,
};
use ttnn_tui::analysis::memory::{MemoryAtFailure, MemoryNote, failure_lines};
use ttnn_tui::report::{FailureMemory, MemoryReport, resolve_report};

const V3: &str = "Out of Memory: Not enough space to allocate 6553600 B L1 buffer across 64 banks, where each bank needs to store 102400 B, but bank size is 1364928 B (allocated: 300000 B, free: 1064928 B, largest free block: 900000 B)";

fn open(dir: &TempDir) -> MemoryReport {
    MemoryReport::open(&resolve_report(Some(dir.path())).unwrap(), 0).unwrap()
}

fn found(report: &MemoryReport, id: u64) -> MemoryAtFailure {
    match report.pictures().at_failure(report.operation_index(id).unwrap(), None).unwrap() {
        FailureMemory::Found(m) => *m,
        other => panic!("{other:?}"),
    }
}

fn failing_graph() -> Graph {
    Graph::new()
        .capture_start()
        .start("ttnn.add")
        .start("BinaryNgDeviceOperation")
        .aborted_end("BinaryNgDeviceOperation", Some("Out of Memory"))
        .aborted_end("ttnn.add", Some("Out of Memory"))
        .capture_end()
}

#[test]
fn bad_records_give_a_partial_picture_with_one_line_notes() {
    let dir = TempDir::new("bad-records");
    let rows = vec![
        BufferRow::l1(0x1F000, 0x2000),
        BufferRow::l1(0x1F000, 0x1000),
        BufferRow::l1(0, 4096),
        BufferRow::l1(-64, 4096),
        BufferRow::l1(200_000, 0),
        BufferRow::l1(1_460_000, 20_000),
        BufferRow::dram(0x1F000, 64),
    ];
    // Operation 3 has no buffers rows: S0 (operation 2) replayed through its graph, whose free
    // names an address S0 never held.
    let graph3 = Graph::new()
        .capture_start()
        .start("ttnn.add")
        .buffer_deallocate(64 * 4096, 500_000, BufferType::L1, Layout::Interleaved)
        .start("BinaryNgDeviceOperation")
        .aborted_end("BinaryNgDeviceOperation", Some("Out of Memory"))
        .aborted_end("ttnn.add", Some("Out of Memory"))
        .capture_end();
    ReportBuilder::new(Schema::V2)
        .device(Device::wormhole(0))
        .operation(Op::new(1, "ttnn.relu").buffers(vec![BufferRow::l1(0x1F000, 0x2000)]))
        .operation(Op::new(2, "ttnn.add").graph(failing_graph()).buffers(rows.clone()))
        .operation(Op::new(3, "ttnn.add").graph(graph3))
        .error(ErrorRow::new(2, "ttnn.add", "RuntimeError", V3))
        .error(ErrorRow::new(3, "ttnn.add", "RuntimeError", V3))
        .sql("UPDATE buffers SET address = NULL WHERE address = 0")
        .write_to(dir.path());
    let report = open(&dir);
    let m = found(&report, 2);
    let spans: Vec<(u64, u64)> = m.live_buffers.iter().map(|b| (b.address, b.size_per_bank)).collect();
    assert_eq!(spans, [(1_460_000, 20_000), (0x1F000, 0x2000), (0x1F000, 0x1000)]);
    let notes: Vec<String> = m.notes.iter().map(|n| n.text(true)).collect();
    assert_eq!(
        notes,
        [
            "3 buffers rows with a missing, zero or negative address or size set aside",
            "2 buffers overlap at 0x1F000; the picture counts them once",
            "1 buffer lies outside the region 0x18C40–0x166000; the picture leaves it out",
        ]
    );
    // The shared bytes once, the part past the region's end left out: never a wrong exact.
    assert_eq!(m.map.used_per_bank, 0x2000 + (1_466_368 - 1_460_000));
    assert_eq!(m.check.status.as_str(), "under_counted");
    let m = found(&report, 3);
    assert_eq!((m.basis.as_str(), m.snapshot_operation_id), ("earlier_snapshot_and_graph", Some(2)));
    assert!(m.notes.contains(&MemoryNote::UnknownFrees { count: 1, address: 500_000 }));
    assert_eq!(
        failure_lines(&m, false).last().unwrap(),
        "Note: 1 buffer lies outside the region 101440–1466368; the picture leaves it out"
    );
}

#[test]
fn a_huge_snapshot_is_cut_with_a_note() {
    let dir = TempDir::new("huge-snapshot");
    ReportBuilder::new(Schema::V2)
        .device(Device::wormhole(0))
        .operation(Op::new(1, "ttnn.add").graph(failing_graph()))
        .error(ErrorRow::new(1, "ttnn.add", "RuntimeError", V3))
        .sql(
            "WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 299999) \
             INSERT INTO buffers (operation_id, device_id, address, max_size_per_bank, buffer_type, buffer_layout) \
             SELECT 1, 0, 101440 + 4 * i, 4, 1, 0 FROM n",
        )
        .write_to(dir.path());
    let report = open(&dir);
    let m = found(&report, 1);
    assert_eq!(m.live_buffers.len(), 250_000);
    assert_eq!(m.notes[0].text(false), "operation 1's snapshot is too large: only its first 250000 rows were read");
    assert_eq!(m.map.used_per_bank, 1_000_000);
}

/// Operation 4 fails on device 1 with no rows of its own; operation 3 has rows only for device
/// 0; operation 2 has rows for device 1.
fn multi_device(dir: &TempDir, order: &[i64], indexes: bool) {
    let ops = [
        Op::new(1, "ttnn.relu").buffers(vec![BufferRow::l1(1_000_000, 64).device(1)]),
        Op::new(2, "ttnn.relu").buffers(vec![BufferRow::l1(900_000, 4096).device(1), BufferRow::l1(800_000, 64)]),
        Op::new(3, "ttnn.relu").buffers(vec![BufferRow::l1(700_000, 64)]),
        Op::new(4, "ttnn.add"),
    ];
    let mut b = ReportBuilder::new(Schema::V2).device(Device::wormhole(0)).device(Device::wormhole(1));
    for &id in order {
        b = b.operation(ops[id as usize - 1].clone());
    }
    b = b.operation(Op::new(5, "ttnn.x")).tensor(
        support::TensorRow::new(9, "Shape([1])", "DataType::BFLOAT16", "Layout::TILE").on_device(
            1,
            900_000,
            BufferType::L1,
            "",
        ),
    );
    let mut b = b.error(ErrorRow::new(4, "ttnn.add", "RuntimeError", V3));
    // The failed operation's first input lives on device 1.
    b = b.sql("INSERT INTO input_tensors VALUES (4, 0, 9)").sql("INSERT INTO input_tensors VALUES (3, 0, 9)");
    if indexes {
        for sql in LOOKUP_INDEXES {
            b = b.sql(sql);
        }
    }
    b.write_to(dir.path());
}

#[test]
fn the_earlier_snapshot_is_found_by_index_by_rowid_and_by_scan() {
    for (order, indexes) in [(vec![1, 2, 3, 4], true), (vec![1, 2, 3, 4], false), (vec![3, 1, 4, 2], false)] {
        let dir = TempDir::new("earlier");
        multi_device(&dir, &order, indexes);
        let report = open(&dir);
        let m = found(&report, 4);
        assert_eq!(
            (m.device_id, m.basis.as_str(), m.snapshot_operation_id),
            (1, "earlier_snapshot", Some(2)),
            "{order:?}"
        );
        let b = &m.live_buffers[0];
        assert_eq!(
            (b.address, b.size_per_bank, b.tensor_id, b.stale, b.input_of_operation),
            (900_000, 4096, Some(9), false, true)
        );
        assert_eq!(b.last_use_operation_id, Some(3));
    }
}

#[test]
fn the_search_for_an_earlier_snapshot_is_bounded() {
    let dir = TempDir::new("bounded");
    ReportBuilder::new(Schema::V2)
        .device(Device::wormhole(0))
        .device(Device::wormhole(1))
        .operation(Op::new(1, "ttnn.relu").buffers(vec![BufferRow::l1(1_000_000, 64).device(1)]))
        .operation(Op::new(2, "ttnn.relu"))
        .operation(
            Op::new(3, "ttnn.add").graph(
                Graph::new()
                    .capture_start()
                    .start("ttnn.add")
                    .alloc(support::Alloc::new(64 * 64, 600_000, BufferType::L1, Layout::Interleaved).device(1))
                    .capture_end(),
            ),
        )
        .error(ErrorRow::new(3, "ttnn.add", "RuntimeError", V3))
        .sql(
            "WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 200009) \
             INSERT INTO buffers (operation_id, device_id, address, max_size_per_bank, buffer_type, buffer_layout) \
             SELECT 2, 0, 101440 + 4 * i, 4, 1, 0 FROM n",
        )
        .write_to(dir.path());
    let report = open(&dir);
    let index = report.operation_index(3).unwrap();
    // Device 1 has rows only at operation 1, beyond 200 000 rows of device 0: not found, and said.
    assert_eq!(report.pictures().at_failure(index, None).unwrap(), FailureMemory::NeedsReplay);
    let replay =
        report.graphs().graph_only_pass(&mut |_, _| {}, &std::sync::atomic::AtomicBool::new(false)).unwrap().unwrap();
    let FailureMemory::Found(m) = report.pictures().at_failure(index, Some(&replay)).unwrap() else { panic!() };
    assert_eq!((m.device_id, m.basis.as_str()), (1, "graph_only"));
    assert!(m.notes.contains(&MemoryNote::EarlierSearchStopped { rows: 200_000 }));
}

#[test]
fn any_operation_s_post_operation_picture() {
    let mut sim = Sim::new(Era::DecoratorWithErrors, Options::default(), 1);
    sim.weight("w", 0, BufferType::L1, 131_072);
    sim.run(SimOp::new("ttnn.to_layout", "TilizeDeviceOperation").input("w").output("x", BufferType::L1, 262_144));
    sim.run(SimOp::new("ttnn.matmul", "MatmulDeviceOperation").input("x").output("y", BufferType::Dram, 65_536));
    let dir = TempDir::new("any-operation");
    sim.report().write_to(dir.path());
    let report = open(&dir);
    let m = report.pictures().after_operation(1, None).unwrap().unwrap();
    assert_eq!(m.operation_id, 2);
    let places: Vec<(u64, &str)> = m.places.iter().map(|(d, t)| (*d, t.token())).collect();
    assert_eq!(places, [(0, "DRAM"), (0, "L1")]);
    assert_eq!(m.buffer_type.token(), "L1");
    let holders: Vec<(Option<u64>, bool, bool)> =
        m.live_buffers.iter().map(|b| (b.tensor_id, b.input_of_operation, b.stale)).collect();
    // x (its input, 256 KiB) then the weight (128 KiB, last used at 1: stale).
    assert_eq!(holders, [(Some(sim.tensor_id("x")), true, false), (Some(sim.tensor_id("w")), false, true)]);
    let dram = report
        .pictures()
        .after_operation(1, Some((0, ttnn_tui::analysis::messages::failure::BufferType::Dram)))
        .unwrap()
        .unwrap();
    let own = &dram.live_buffers[0];
    assert_eq!(
        (own.tensor_id, own.is_this_operation(), own.producer_operation_id),
        (Some(sim.tensor_id("y")), true, Some(2))
    );
    assert_eq!(report.pictures().after_operation(0, None).unwrap().map(|m| m.live_buffers.len()), Some(2));
}

#[test]
fn the_report_can_move_to_a_worker_thread() {
    fn send<T: Send>() {}
    send::<MemoryReport>();
    send::<ttnn_tui::report::GraphOnlyPass>();
}

#[test]
fn an_era_without_the_l1_region_column_has_no_l1_region() {
    let dir = TempDir::new("no-cb-column");
    ReportBuilder::new(Schema::V2)
        .device(Device::wormhole(0))
        .operation(Op::new(1, "ttnn.add").graph(failing_graph()).buffers(vec![BufferRow::l1(900_000, 4096)]))
        .error(ErrorRow::new(1, "ttnn.add", "RuntimeError", V3))
        .sql("ALTER TABLE devices DROP COLUMN address_at_first_l1_cb_buffer")
        .write_to(dir.path());
    let report = open(&dir);
    assert_eq!(report.devices[0].address_at_first_l1_cb_buffer, None);
    let m = found(&report, 1);
    assert_eq!((m.map.region.bounds(), m.check.status.as_str()), (None, "unchecked"));
    assert_eq!(m.map.used_per_bank, 4096);
}
