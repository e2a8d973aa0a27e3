//! Reading operations' input and output tensors for the `DRAM fallback?` flag (docs/rules/reference.md
//! §1.3.4, §11.3): buffer types, shapes and per-device addresses, tolerant of missing tables and
//! ranks; and the flag on linked perf rows.

use crate::support;

use support::perf::{Era, PerfCsv, Row};
use support::{BufferType, Device, ErrorRow, Graph, Op, ReportBuilder, Schema, TempDir, TensorRow};
use ttnn_tui::analysis::messages::failure::BufferType as Type;
use ttnn_tui::analysis::perf::dram_fallback::TensorPlacement;
use ttnn_tui::analysis::perf::flags::FlagKind;
use ttnn_tui::report::memory::operation_tensors::OperationTensors;
use ttnn_tui::report::perf::linked::LinkedReports;
use ttnn_tui::report::perf::perf_report::PerfReport;
use ttnn_tui::report::{MemoryReport, ReportSource, resolve_report};

const L1_MC: &str =
    "MemoryConfig(memory_layout=TensorMemoryLayout::INTERLEAVED,buffer_type=BufferType::L1,shard_spec=std::nullopt)";
const DRAM_MC: &str =
    "MemoryConfig(memory_layout=TensorMemoryLayout::INTERLEAVED,buffer_type=BufferType::DRAM,shard_spec=std::nullopt)";
const L1_OOM: &str = "TT_FATAL @ tt_metal/impl/allocator/bank_manager.cpp:486: false\ninfo:\nOut of Memory: Not enough space to allocate 3276800 B L1 buffer across 4 banks, where each bank needs to store 819200 B, but bank size is 1382720 B (allocated: 1000000 B, free: 382720 B, largest free block: 300000 B)\nbacktrace:\n --- build_Release/lib/libtt_metal.so(+0x570add) [0x7f0bc96eeadd]";

fn open(dir: &TempDir) -> MemoryReport {
    MemoryReport::open(&resolve_report(Some(dir.path())).unwrap(), 0).unwrap()
}

fn open_rank(dir: &TempDir, rank: u32) -> MemoryReport {
    let source = ReportSource::File { database: dir.path().join("db.sqlite"), folder: dir.path().to_path_buf() };
    MemoryReport::open(&source, rank).unwrap()
}

fn placement(buffer_type: Option<Type>, shape: &str, addresses: &[(u64, u64)]) -> TensorPlacement {
    TensorPlacement { buffer_type, shape: Some(shape.into()), addresses: addresses.to_vec() }
}

fn tensors_of(report: &MemoryReport, id: u64) -> OperationTensors {
    let i = report.operation_index(id).unwrap();
    report.tensors().operation_tensors(&[i]).unwrap().remove(&i).unwrap()
}

#[test]
fn inputs_and_outputs_with_types_shapes_and_device_addresses() {
    let dir = TempDir::new("tensors");
    ReportBuilder::new(Schema::V2)
        .operation(Op::new(1, "ttnn.add").inputs(&[10, 11]).outputs(&[12]))
        .tensor(TensorRow::new(10, "Shape([1, 32, 64])", "DataType::BFLOAT16", "Layout::TILE").on_device(
            0,
            4096,
            BufferType::Dram,
            DRAM_MC,
        ))
        // No address: the type comes from the memory config and the column's 0 is ignored.
        .tensor(TensorRow::new(11, "Shape([1, 32, 64])", "DataType::BFLOAT16", "Layout::TILE").on_device(
            0,
            0,
            BufferType::Dram,
            L1_MC,
        ))
        .tensor(TensorRow::new(12, "torch.Size([2048])", "DataType::BFLOAT16", "Layout::TILE").on_device(
            0,
            8192,
            BufferType::L1,
            L1_MC,
        ))
        .sql("UPDATE tensors SET address = NULL WHERE tensor_id = 11")
        .sql("INSERT INTO device_tensors VALUES (12, 0, 8192), (12, 1, 9216), (99, 0, 1)")
        .write_to(dir.path());
    let report = open(&dir);
    let tensors = tensors_of(&report, 1);
    assert_eq!(
        tensors.inputs,
        [
            placement(Some(Type::Dram), "Shape([1, 32, 64])", &[(0, 4096)]),
            placement(Some(Type::L1), "Shape([1, 32, 64])", &[])
        ]
    );
    assert_eq!(tensors.outputs, [placement(Some(Type::L1), "torch.Size([2048])", &[(0, 8192), (1, 9216)])]);
}

#[test]
fn named_buffer_types_index_order_and_unknown_tensors() {
    let dir = TempDir::new("tensors-named");
    ReportBuilder::new(Schema::Legacy)
        .operation(Op::new(3, "ttnn.concat").inputs(&[21, 20]).outputs(&[22]))
        .tensor(TensorRow::new(20, "Shape([4])", "DataType::BFLOAT16", "Layout::TILE").on_device(
            0,
            64,
            BufferType::Dram,
            DRAM_MC,
        ))
        .tensor(TensorRow::new(21, "Shape([8])", "DataType::BFLOAT16", "Layout::TILE").on_device(
            0,
            128,
            BufferType::Dram,
            DRAM_MC,
        ))
        .sql("UPDATE tensors SET buffer_type = 'L1_SMALL' WHERE tensor_id = 21")
        // Written in reverse index order: read back by input_index.
        .sql("UPDATE input_tensors SET input_index = 1 - input_index")
        .write_to(dir.path());
    let tensors = tensors_of(&open(&dir), 3);
    assert_eq!(
        tensors.inputs,
        [
            placement(Some(Type::Dram), "Shape([4])", &[(0, 64)]),
            placement(Some(Type::L1Small), "Shape([8])", &[(0, 128)])
        ]
    );
    // Tensor 22 has no `tensors` row: nothing is known about it.
    assert_eq!(tensors.outputs, [TensorPlacement::default()]);
}

#[test]
fn missing_tables_read_as_no_tensors() {
    for table in ["input_tensors", "tensors", "device_tensors", "operation_arguments"] {
        let dir = TempDir::new("tensors-missing");
        ReportBuilder::new(Schema::V2)
            .without_table(table)
            .operation(Op::new(1, "ttnn.add").argument("memory_config", L1_MC).inputs(&[1]).outputs(&[2]))
            .tensor(TensorRow::new(2, "Shape([4])", "DataType::BFLOAT16", "Layout::TILE").on_device(
                0,
                64,
                BufferType::Dram,
                DRAM_MC,
            ))
            .write_to(dir.path());
        let report = open(&dir);
        let tensors = tensors_of(&report, 1);
        let expected_outputs = if table == "tensors" {
            TensorPlacement::default()
        } else {
            placement(Some(Type::Dram), "Shape([4])", &[(0, 64)])
        };
        assert_eq!(tensors.outputs, [expected_outputs], "without {table}");
        assert_eq!(tensors.inputs.is_empty(), table == "input_tensors", "without {table}");
        assert!(report.tensors().fallback_operations(&report.errors).is_ok(), "without {table}");
    }
}

#[test]
fn rank_rows_fall_back_to_rank_zero() {
    let dir = TempDir::new("tensors-rank");
    ReportBuilder::new(Schema::MultiHost)
        .operation(Op::new(1, "ttnn.add").rank(1).outputs(&[5]))
        .operation(Op::new(1, "ttnn.add").outputs(&[5]))
        // Rank 1 has its own tensor 5; rank 0's is another one.
        .tensor(
            TensorRow::new(5, "Shape([1])", "DataType::BFLOAT16", "Layout::TILE")
                .on_device(0, 64, BufferType::Dram, DRAM_MC)
                .rank(1),
        )
        .tensor(TensorRow::new(5, "Shape([2])", "DataType::BFLOAT16", "Layout::TILE").on_device(
            0,
            128,
            BufferType::L1,
            L1_MC,
        ))
        .write_to(dir.path());
    assert_eq!(tensors_of(&open_rank(&dir, 1), 1).outputs, [placement(Some(Type::Dram), "Shape([1])", &[(0, 64)])]);
    assert_eq!(tensors_of(&open_rank(&dir, 0), 1).outputs, [placement(Some(Type::L1), "Shape([2])", &[(0, 128)])]);
}

fn pair_graph(top: &str, device: &str) -> String {
    Graph::new().capture_start().start(top).start(device).end(device).end(top).capture_end().to_json()
}

fn failed_graph(top: &str, device: &str) -> String {
    Graph::new()
        .capture_start()
        .start(top)
        .start(device)
        .aborted_end(device, Some("Out of Memory"))
        .aborted_end(top, Some("Out of Memory"))
        .capture_end()
        .to_json()
}

fn dram(id: i64, shape: &str, address: i64) -> TensorRow {
    TensorRow::new(id, shape, "DataType::BFLOAT16", "Layout::TILE").on_device(0, address, BufferType::Dram, DRAM_MC)
}

/// Op 1 failed to allocate L1, op 2 retried it with its output in DRAM (signal 2); op 3 asked for
/// L1 and got DRAM (signal 1); op 4 reshaped in place (a view: no flag).
fn fallback_report(dir: &TempDir) {
    ReportBuilder::new(Schema::V2)
        .device(Device::wormhole(0))
        .operation(Op::new(1, "ttnn.matmul").graph(failed_graph("ttnn.matmul", "MatmulDeviceOperation")).inputs(&[1]))
        .operation(
            Op::new(2, "ttnn.matmul")
                .graph(pair_graph("ttnn.matmul", "MatmulDeviceOperation"))
                .inputs(&[1])
                .outputs(&[2]),
        )
        .operation(
            Op::new(3, "ttnn.add")
                .argument("memory_config", L1_MC)
                .graph(pair_graph("ttnn.add", "BinaryNgDeviceOperation"))
                .inputs(&[2])
                .outputs(&[3]),
        )
        .operation(
            Op::new(4, "ttnn.reshape")
                .argument("memory_config", L1_MC)
                .graph(pair_graph("ttnn.reshape", "ReshapeViewDeviceOperation"))
                .inputs(&[3])
                .outputs(&[4]),
        )
        .tensor(dram(1, "Shape([1, 1, 1024, 1024])", 1024))
        .tensor(dram(2, "Shape([1, 1, 1024, 4096])", 2_098_176))
        .tensor(dram(3, "Shape([1, 1, 1024, 4096])", 10_486_784))
        .tensor(dram(4, "Shape([1, 4, 1024, 1024])", 10_486_784))
        .error(ErrorRow::new(1, "ttnn.matmul", "RuntimeError", L1_OOM))
        .write_to(dir.path());
}

fn fallback_csv(codes: &[&str]) -> PerfCsv {
    let mut csv = PerfCsv::new(Era::Y2026);
    for code in codes {
        csv.push(Row::device(code, 0, 20_000));
    }
    csv
}

#[test]
fn dram_fallback_flags_on_linked_rows() {
    let dir = TempDir::new("fallback");
    fallback_report(&dir);
    let report = open(&dir);
    let csv = fallback_csv(&["MatmulDeviceOperation", "BinaryNgDeviceOperation", "ReshapeViewDeviceOperation"]);
    let perf = PerfReport::open(&csv.write(dir.path(), "ops_perf_results.csv")).unwrap();
    let linked = LinkedReports::new(&report, perf).unwrap();
    assert!(linked.link.is_linked());
    let mut found: Vec<(u64, String)> = linked.fallbacks.iter().map(|(id, f)| (*id, f.detail())).collect();
    found.sort();
    assert_eq!(
        found,
        [
            (2, "Retries operation 1 (ttnn.matmul), which failed to allocate L1; 1 of 1 outputs in DRAM.".to_string()),
            (3, "Requested L1; 1 of 1 outputs in DRAM.".to_string()),
        ]
    );
    let flags = linked.flags();
    let fallback_rows: Vec<u64> = linked
        .rows
        .iter()
        .zip(&flags)
        .filter(|(_, f)| f.iter().any(|f| f.kind == FlagKind::DramFallback))
        .map(|(r, _)| r.id)
        .collect();
    assert_eq!(fallback_rows, [2, 3]);
}

#[test]
fn no_fallback_without_a_link() {
    let dir = TempDir::new("fallback-unlinked");
    fallback_report(&dir);
    let report = open(&dir);
    let csv = fallback_csv(&["SoftmaxDeviceOperation", "BinaryNgDeviceOperation"]);
    let perf = PerfReport::open(&csv.write(dir.path(), "ops_perf_results.csv")).unwrap();
    let linked = LinkedReports::new(&report, perf).unwrap();
    assert!(!linked.link.is_linked());
    assert!(linked.fallbacks.is_empty());
    assert!(linked.flags().iter().flatten().all(|f| f.kind != FlagKind::DramFallback));
    // The memory side alone still sees both signals.
    let operations = report.tensors().fallback_operations(&report.errors).unwrap();
    assert_eq!(ttnn_tui::analysis::perf::dram_fallback::detect_dram_fallbacks(&operations).len(), 2);
}
