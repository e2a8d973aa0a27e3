//! Loading memory reports of every era, built with the fixture builder: schema tolerance, ranks,
//! attachment on real databases, lazy reads, sanitising, and read-only opening.

use crate::support;

use std::path::Path;
use support::{ErrorRow, Graph, Op, ReadOnly, ReportBuilder, Schema, TempDir};
use ttnn_tui::analysis::messages::failure::FailureKind;
use ttnn_tui::report::{MemoryReport, ReportSource, resolve_report};

const OOM: &str = "TT_FATAL @ tt_metal/impl/allocator/bank_manager.cpp:486: false\ninfo:\nOut of Memory: Not enough space to allocate 3276800 B L1 buffer across 4 banks, where each bank needs to store 819200 B, but bank size is 1382720 B (allocated: 1000000 B, free: 382720 B, largest free block: 300000 B)\nbacktrace:\n --- build_Release/lib/libtt_metal.so(+0x570add) [0x7f0bc96eeadd]";

/// Opens a report folder, checking on drop that nothing in it was written or created.
fn open(dir: &Path, rank: u32) -> Result<ReadOnly<MemoryReport>, ttnn_tui::report::ReportError> {
    ReadOnly::read(dir, || MemoryReport::open(&resolve_report(Some(dir)).expect("resolves"), rank))
}

fn failing_graph() -> String {
    Graph::new()
        .capture_start()
        .start_at("ttnn.conv2d", 1)
        .start_at("HaloDeviceOperation", 2)
        .end_at("HaloDeviceOperation", 2)
        .start_at("Conv2dDeviceOperation", 2)
        .aborted_end("Conv2dDeviceOperation", Some("Out of Memory"))
        .aborted_end("ttnn.conv2d", Some("Out of Memory"))
        .capture_end()
        .to_json()
}

fn basic(schema: Schema) -> ReportBuilder {
    ReportBuilder::new(schema)
        .report_name("era test")
        .operation(Op::new(1, "ttnn.add").stack_trace("  File \"/m/model.py\", line 10, in f"))
        .operation(Op::new(2, "ttnn.conv2d").graph(failing_graph()))
}

#[test]
fn every_era_loads_and_read_only_opening_writes_nothing() {
    for schema in [Schema::Legacy, Schema::V2, Schema::V2_1, Schema::MultiHost] {
        let dir = TempDir::new("era");
        let mut builder = basic(schema);
        if schema != Schema::Legacy {
            builder = builder.error(ErrorRow::new(2, "ttnn.conv2d", "RuntimeError", OOM));
        }
        builder.write_to(dir.path());
        let before = support::folder_bytes(dir.path());
        let report = open(dir.path(), 0).unwrap_or_else(|e| panic!("{schema:?}: {e}"));
        assert_eq!(report.name, "era test");
        assert_eq!(report.operations.iter().map(|o| o.id).collect::<Vec<_>>(), vec![1, 2], "{schema:?}");
        if schema == Schema::Legacy {
            assert!(report.errors.is_empty(), "no errors table means no errors");
        } else {
            let error = report.error_of(1).expect("attached to ttnn.conv2d");
            assert_eq!(error.failure.as_ref().map(|f| f.kind), Some(FailureKind::BankOutOfMemory));
            assert_eq!(report.graphs().failed_device_operations(1), Ok(vec!["Conv2dDeviceOperation".to_string()]));
        }
        assert_eq!(report.details().stack_traces(&[0]).unwrap()[&0], "  File \"/m/model.py\", line 10, in f");
        drop(report);
        assert_eq!(support::folder_bytes(dir.path()), before, "{schema:?}: the folder must be byte-identical");
    }
}

#[test]
fn schema_version_is_read_and_a_newer_major_warns() {
    let dir = TempDir::new("version");
    ReportBuilder::new(Schema::V2_1).operation(Op::new(1, "ttnn.add")).write_to(dir.path());
    assert_eq!(open(dir.path(), 0).unwrap().schema_version.as_deref(), Some("2.1"));
    assert!(open(dir.path(), 0).unwrap().warnings.is_empty());
    let dir = TempDir::new("version4");
    ReportBuilder::new(Schema::V2).metadata("schema_version", "4.0").operation(Op::new(1, "x")).write_to(dir.path());
    assert_eq!(open(dir.path(), 0).unwrap().warnings, vec!["Incompatible report version".to_string()]);
}

#[test]
fn missing_optional_tables_mean_no_data() {
    for table in
        ["errors", "captured_graph", "stack_traces", "devices", "report_metadata", "buffers", "operation_arguments"]
    {
        let dir = TempDir::new("without");
        basic(Schema::V2).without_table(table).write_to(dir.path());
        let report = open(dir.path(), 0).unwrap_or_else(|e| panic!("without {table}: {e}"));
        assert_eq!(report.operations.len(), 2, "without {table}");
        assert!(report.details().arguments(0).is_ok());
        assert!(report.graphs().graph(1).is_ok());
    }
}

#[test]
fn a_database_without_operations_is_refused() {
    let dir = TempDir::new("no-ops");
    basic(Schema::V2).without_table("operations").write_to(dir.path());
    let e = open(dir.path(), 0).err().expect("refused");
    assert!(e.to_string().starts_with("no operations table: not a TT-NN memory report: "), "{e}");
}

#[test]
fn ranks_of_a_multi_host_report() {
    let dir = TempDir::new("ranks");
    ReportBuilder::new(Schema::MultiHost)
        .operation(Op::new(1, "op_r0").rank(0))
        .operation(Op::new(2, "op_r1").rank(1))
        .operation(Op::new(3, "x").rank(1))
        .error(ErrorRow::new(1, "op_r0", "TypeError", "oops").rank(0))
        .error(ErrorRow::new(2, "op_r1", "ValueError", "nope").rank(1))
        .error(ErrorRow::new(3, "x", "RuntimeError", "rank-0 row for a rank-1 operation").rank(0))
        .write_to(dir.path());
    let r0 = open(dir.path(), 0).unwrap();
    assert_eq!(r0.operations.iter().map(|o| o.id).collect::<Vec<_>>(), vec![1]);
    assert_eq!(r0.error_of(0).unwrap().message, "oops");
    let r1 = open(dir.path(), 1).unwrap();
    assert_eq!(r1.operations.iter().map(|o| (o.id, o.rank)).collect::<Vec<_>>(), vec![(2, 1), (3, 1)]);
    assert_eq!(r1.error_of(0).unwrap().message, "nope");
    // The rank-0 fallback attaches a rank-0 row with the same id and name.
    assert_eq!(r1.error_of(1).unwrap().message, "rank-0 row for a rank-1 operation");
    assert_eq!(r1.unattached_errors().count(), 0);
}

#[test]
fn a_rank_is_refused_on_a_report_without_ranks() {
    let dir = TempDir::new("no-ranks");
    basic(Schema::V2).write_to(dir.path());
    let e = open(dir.path(), 1).err().expect("refused");
    let db = dir.path().join("db.sqlite");
    assert_eq!(
        e.to_string(),
        format!(
            "this report stores no per-rank data, so --rank 1 cannot be read: {} (omit --rank, or use --rank 0)",
            db.display()
        )
    );
    assert!(open(dir.path(), 0).is_ok());
}

/// docs/rules/reference.md §2.1: operations at ranks 0 and 1 and an `errors` table without a `rank` column:
/// every row belongs to every rank's view. The rank-1 view lists both rows, `ttnn.softmax`
/// attached to rank-1 operation 3 and `ttnn.add` unattached.
#[test]
fn an_errors_table_without_rank_belongs_to_every_rank() {
    let dir = TempDir::new("errors-without-rank");
    ReportBuilder::new(Schema::MultiHost)
        .without_column("errors", "rank")
        .operation(Op::new(3, "ttnn.add").rank(0))
        .operation(Op::new(3, "ttnn.softmax").rank(1))
        .error(ErrorRow::new(3, "ttnn.add", "RuntimeError", "add failed"))
        .error(ErrorRow::new(3, "ttnn.softmax", "RuntimeError", "softmax failed"))
        .write_to(dir.path());
    let listed = |r: &MemoryReport| r.errors.iter().map(|e| (e.operation_name.clone(), e.attached)).collect::<Vec<_>>();
    let r1 = open(dir.path(), 1).unwrap();
    assert_eq!(r1.operations.iter().map(|o| (o.id, o.rank)).collect::<Vec<_>>(), vec![(3, 1)]);
    assert_eq!(r1.error_of(0).unwrap().message, "softmax failed");
    assert_eq!(listed(&r1), [("ttnn.add".to_string(), false), ("ttnn.softmax".to_string(), true)]);
    assert_eq!(r1.unattached_errors().map(|e| e.message.as_str()).collect::<Vec<_>>(), ["add failed"]);
    // Rank 0: ttnn.add attached to its operation 3, ttnn.softmax listed unattached.
    let r0 = open(dir.path(), 0).unwrap();
    assert_eq!(r0.error_of(0).unwrap().message, "add failed");
    assert_eq!(listed(&r0), [("ttnn.add".to_string(), true), ("ttnn.softmax".to_string(), false)]);
}

/// The same rows in an `errors` table with a `rank` column, all at rank 0: rank 1 lists only
/// the row the rank-0 fallback attached (unchanged behaviour).
#[test]
fn an_errors_table_with_rank_keeps_rank_zero_rows_to_rank_zero() {
    let dir = TempDir::new("errors-with-rank");
    ReportBuilder::new(Schema::MultiHost)
        .operation(Op::new(3, "ttnn.add").rank(0))
        .operation(Op::new(3, "ttnn.softmax").rank(1))
        .error(ErrorRow::new(3, "ttnn.add", "RuntimeError", "add failed").rank(0))
        .error(ErrorRow::new(3, "ttnn.softmax", "RuntimeError", "softmax failed").rank(0))
        .write_to(dir.path());
    let r1 = open(dir.path(), 1).unwrap();
    assert_eq!(r1.error_of(0).unwrap().message, "softmax failed");
    assert_eq!(r1.errors.iter().map(|e| e.message.as_str()).collect::<Vec<_>>(), ["softmax failed"]);
    assert_eq!(r1.unattached_errors().count(), 0);
    let r0 = open(dir.path(), 0).unwrap();
    assert_eq!(r0.errors.len(), 2);
    assert_eq!(r0.unattached_errors().map(|e| e.message.as_str()).collect::<Vec<_>>(), ["softmax failed"]);
}

/// docs/rules/reference.md §14.7 on a real database.
#[test]
fn attachment_on_a_real_database() {
    let dir = TempDir::new("attach");
    ReportBuilder::new(Schema::V2)
        .operation(Op::new(1, "ttnn.add"))
        .operation(Op::new(2, "ttnn.conv2d"))
        .operation(Op::new(10000, "ttnn.matmul"))
        .error(ErrorRow::incomplete(0, "ttnn.conv2d"))
        .error(ErrorRow::new(2, "ttnn.conv2d", "RuntimeError", "first").stack_trace("trace"))
        .error(ErrorRow::new(2, "ttnn.conv2d", "RuntimeError", "second"))
        .error(ErrorRow::incomplete(10000, "ttnn.conv2d"))
        .error(ErrorRow::new(1, "", "RuntimeError", "boom"))
        .write_to(dir.path());
    let report = open(dir.path(), 0).unwrap();
    assert_eq!(report.operations.iter().map(|o| o.error.is_some()).collect::<Vec<_>>(), vec![false, true, false]);
    assert_eq!(report.error_of(1).unwrap().message, "first");
    let attached: Vec<_> = report.errors.iter().map(|e| (e.operation_id.unwrap(), e.attached)).collect();
    assert_eq!(attached, vec![(0, false), (2, true), (2, false), (10000, false), (1, false)]);
    assert_eq!(report.unattached_errors().count(), 4);
}

#[test]
fn an_invalid_graph_spoils_only_its_operation() {
    let dir = TempDir::new("bad-graph");
    ReportBuilder::new(Schema::V2)
        .operation(Op::new(1, "ttnn.linear").graph("[{\"node_type\": \"function_start\""))
        .operation(Op::new(2, "ttnn.conv2d").graph(failing_graph()))
        .error(ErrorRow::new(1, "ttnn.linear", "RuntimeError", OOM))
        .error(ErrorRow::new(2, "ttnn.conv2d", "RuntimeError", OOM))
        .write_to(dir.path());
    let report = open(dir.path(), 0).unwrap();
    assert!(
        report.graphs().failed_device_operations(0).unwrap_err().to_string().starts_with("invalid captured graph JSON")
    );
    assert_eq!(report.graphs().failed_device_operations(1), Ok(vec!["Conv2dDeviceOperation".to_string()]));
}

#[test]
fn report_text_is_sanitised_at_load() {
    let dir = TempDir::new("sanitise");
    let hostile = "\x1b]52;c;cm0gLXJmIH4=\x07TT_FATAL \x1b[31mred\x1b[0m \u{202E}evil\u{202C}\nnext line\x07";
    ReportBuilder::new(Schema::V2)
        .operation(Op::new(1, "ttnn.add\x1b[2J").stack_trace("File \"a.py\", line 1\x1b[1m"))
        .error(ErrorRow::new(1, "ttnn.add\x1b[2J", "Runtime\x1bError", hostile))
        .write_to(dir.path());
    let report = open(dir.path(), 0).unwrap();
    assert_eq!(&*report.operations[0].name, "ttnn.add");
    let error = report.error_of(0).expect("names match after sanitising both");
    assert_eq!(error.message, "TT_FATAL red evil\nnext line\\x07");
    // ESC E is a whole two-character escape (NEL): removed, not shown.
    assert_eq!(error.error_type, "Runtimerror");
    assert!(!report.details().stack_traces(&[0]).unwrap()[&0].contains('\x1b'));
}

#[test]
fn config_of_the_rank_names_the_report() {
    let dir = TempDir::new("ranked-config");
    ReportBuilder::new(Schema::MultiHost).operation(Op::new(1, "a").rank(1)).write_to(dir.path());
    std::fs::write(dir.path().join("config_2_of_2.json"), "{\"report_name\": \"rank one\"}").unwrap();
    std::fs::write(dir.path().join("config_1_of_2.json"), "{\"report_name\": \"rank zero\"}").unwrap();
    assert_eq!(open(dir.path(), 1).unwrap().name, "rank one");
    assert_eq!(open(dir.path(), 0).unwrap().name, "rank zero");
    std::fs::write(dir.path().join("config.json"), "{\"report_name\": \"plain\"}").unwrap();
    assert_eq!(open(dir.path(), 1).unwrap().name, "plain");
}

#[test]
fn a_database_path_opens_and_its_folder_names_it() {
    let dir = TempDir::new("db-path");
    let db = ReportBuilder::new(Schema::V2).operation(Op::new(1, "a")).write_to(&dir.path().join("resnet_nov29_1012"));
    let report = MemoryReport::open(&resolve_report(Some(&db)).unwrap(), 0).unwrap();
    assert_eq!(report.name, "resnet_nov29_1012");
}

#[test]
fn a_wal_mode_database_opens_without_creating_files() {
    let dir = TempDir::new("wal");
    let db = basic(Schema::V2).write_to(dir.path());
    {
        let conn = rusqlite::Connection::open(&db).unwrap();
        let mode: String = conn.query_row("PRAGMA journal_mode=WAL", [], |r| r.get(0)).unwrap();
        assert_eq!(mode, "wal");
    }
    let before = support::folder_bytes(dir.path());
    assert!(!before.iter().any(|(name, _)| name.ends_with("-wal") || name.ends_with("-shm")));
    let report = open(dir.path(), 0).unwrap();
    assert_eq!(report.operations.len(), 2);
    assert!(report.graphs().graph(1).is_ok());
    drop(report);
    assert_eq!(support::folder_bytes(dir.path()), before);
}

#[test]
fn the_demo_opens_from_the_binary() {
    let report = MemoryReport::open(&ReportSource::Demo, 0).unwrap();
    assert!(report.operations.len() >= 20);
    assert!(report.errors.iter().any(|e| e.failure.is_some()));
    assert!(report.unattached_errors().count() >= 2);
    // Its `incomplete_operation` row at id 0 is the operation after the last (docs/rules/reference.md §13.5).
    let last = report.operations.last().unwrap();
    assert_eq!((last.id, last.name.as_ref(), last.recorded), (40, "ttnn.conv2d", false));
}

#[test]
fn buffers_are_read_on_demand_with_text_or_integer_types() {
    use support::BufferRow;
    use ttnn_tui::analysis::messages::failure::BufferType;
    for schema in [Schema::Legacy, Schema::V2] {
        let dir = TempDir::new("buffers");
        ReportBuilder::new(schema)
            .operation(Op::new(1, "ttnn.add").buffers(vec![
                BufferRow::dram(1024, 4096),
                BufferRow::l1(1_433_600, 65_536).text_type(),
                BufferRow::l1_small(98_304, 2048),
            ]))
            .write_to(dir.path());
        let report = open(dir.path(), 0).unwrap();
        let rows = report.snapshots().buffers(&report.operations[0]).unwrap();
        let types: Vec<_> = rows.iter().map(|b| b.buffer_type.clone()).collect();
        assert_eq!(types, vec![Ok(BufferType::Dram), Ok(BufferType::L1), Ok(BufferType::L1Small)], "{schema:?}");
        assert_eq!((rows[1].address, rows[1].max_size_per_bank), (1_433_600, 65_536));
        assert_eq!(rows[0].buffer_layout.is_some(), schema != Schema::Legacy);
    }
}

/// The rowid binary search must give what a scan gives: tables in operation order, tables out
/// of order (found by probing, then scanned), tables with the lookup indexes, and ids with no row.
#[test]
fn lookups_by_operation_agree_with_a_scan_in_every_table_order() {
    let ops: Vec<u64> = (1..=60).collect();
    let trace = |id: u64| format!("  File \"/m/model.py\", line {id}, in f");
    let builders = [
        ("in order", ReportBuilder::new(Schema::V2)),
        ("with indexes", ReportBuilder::new(Schema::V2).sql(&support::LOOKUP_INDEXES.join(";\n"))),
    ];
    for (label, mut builder) in builders {
        for &id in &ops {
            // Every fifth operation has no stack trace; the others one each.
            let mut op = Op::new(id as i64, "ttnn.add");
            if id % 5 != 0 {
                op = op.stack_trace(&trace(id));
            }
            builder = builder.operation(op);
        }
        let dir = TempDir::new("lookup");
        builder.write_to(dir.path());
        let report = open(dir.path(), 0).unwrap();
        let all: Vec<usize> = (0..ops.len()).collect();
        let traces = report.details().stack_traces(&all).unwrap();
        for (i, &id) in ops.iter().enumerate() {
            let expected = if id % 5 == 0 { String::new() } else { trace(id) };
            assert_eq!(traces[&i], expected, "{label}: operation {id}");
        }
    }
    // Out of order: rows written for operations 30..1 then 31..60; still every answer right.
    let dir = TempDir::new("lookup-disorder");
    let mut builder = ReportBuilder::new(Schema::V2);
    for id in (1..=30).rev().chain(31..=60) {
        builder = builder.operation(Op::new(id, "ttnn.add").stack_trace(&trace(id as u64)));
    }
    builder.write_to(dir.path());
    let report = open(dir.path(), 0).unwrap();
    let traces = report.details().stack_traces(&(0..60).collect::<Vec<_>>()).unwrap();
    for i in 0..60 {
        assert_eq!(traces[&i], trace(report.operations[i].id), "disorder: index {i}");
    }
}

/// Many rows per operation, some operations with none, ids with gaps: every operation's
/// arguments come back complete and in order, found by the rowid search.
#[test]
fn rows_of_every_operation_are_found_with_gaps_and_repeats() {
    let dir = TempDir::new("arguments");
    let mut builder = ReportBuilder::new(Schema::V2);
    let ids: Vec<i64> = (1..=400).map(|i| i * 3 + (i % 3)).collect();
    for &id in &ids {
        let mut op = Op::new(id, "ttnn.add");
        for k in 0..(id % 4) {
            op = op.argument(&format!("arg{k}"), &format!("value {id}.{k}"));
        }
        builder = builder.operation(op);
    }
    builder.write_to(dir.path());
    let report = open(dir.path(), 0).unwrap();
    for (i, &id) in ids.iter().enumerate() {
        let expected: Vec<(String, String)> =
            (0..(id % 4)).map(|k| (format!("arg{k}"), format!("value {id}.{k}"))).collect();
        assert_eq!(report.details().arguments(i).unwrap(), expected, "operation {id}");
    }
}

/// Rows written out of operation order (locally swapped ids): the search meets the disorder and
/// falls back to a scan, or finds the right rows; never the wrong ones.
#[test]
fn rows_written_out_of_order_are_still_found() {
    let dir = TempDir::new("arguments-disorder");
    let mut builder = ReportBuilder::new(Schema::V2);
    let ids: Vec<i64> = (1..=400).map(|i| i * 3 + (i % 7)).collect();
    for &id in &ids {
        builder = builder.operation(Op::new(id, "ttnn.add").argument("value", &id.to_string()));
    }
    builder.write_to(dir.path());
    let report = open(dir.path(), 0).unwrap();
    for &id in &ids {
        let index = report.operation_index(id as u64).unwrap();
        assert_eq!(
            report.details().arguments(index).unwrap(),
            vec![("value".to_string(), id.to_string())],
            "operation {id}"
        );
    }
}

/// A report held in memory (what the `report` fuzz target opens) reads as the same file does.
#[test]
fn a_report_opens_from_its_bytes() {
    let dir = TempDir::new("from-bytes");
    let db = basic(Schema::V2).write_to(dir.path());
    let bytes = std::fs::read(&db).unwrap();
    let in_memory = MemoryReport::from_bytes(&bytes, "copy", 0).unwrap();
    let on_disk = open(dir.path(), 0).unwrap();
    assert_eq!(in_memory.operations, on_disk.operations);
    assert_eq!(in_memory.errors, on_disk.errors);
    assert_eq!(in_memory.name, "copy");
    let error = |bytes: &[u8]| MemoryReport::from_bytes(bytes, "copy", 0).err().map(|e| e.to_string());
    assert_eq!(error(b"").as_deref(), Some("empty file, not a TT-NN memory report: copy"));
    assert_eq!(error(&bytes[..100]).as_deref(), Some("the database is damaged (truncated or corrupt): copy"));
}

/// Issue 27 §3: a report of a newer schema than 3.5 — its version, tables no release wrote yet
/// and graph node types never seen — is read as the same report with additions: no warning,
/// nothing refused, the same failure and the same answer as without them.
#[test]
fn a_newer_minor_schema_new_tables_and_node_types_are_additions() {
    let graph = |extra: bool| {
        let g = Graph::new().capture_start().start_at("ttnn.conv2d", 1).start_at("HaloDeviceOperation", 2);
        let g = if extra {
            g.raw(serde_json::json!({"node_type": "mesh_trace_capture", "params": {"trace_id": 3, "device_id": 0}}))
        } else {
            g
        };
        g.end_at("HaloDeviceOperation", 2)
            .start_at("Conv2dDeviceOperation", 2)
            .aborted_end("Conv2dDeviceOperation", Some("Out of Memory"))
            .aborted_end("ttnn.conv2d", Some("Out of Memory"))
            .capture_end()
            .to_json()
    };
    let build = |extra: bool| {
        let mut b = ReportBuilder::new(Schema::V2_1)
            .report_name("newer schema")
            .operation(Op::new(1, "ttnn.add"))
            .operation(Op::new(2, "ttnn.conv2d").graph(graph(extra)))
            .error(ErrorRow::new(2, "ttnn.conv2d", "RuntimeError", OOM));
        if extra {
            b = b.metadata("schema_version", "3.9").sql(
                "CREATE TABLE mesh_workloads (workload_id INTEGER PRIMARY KEY, operation_id INT, mesh_shape TEXT);
                 INSERT INTO mesh_workloads VALUES (1, 2, '[1, 2]');",
            );
        }
        let dir = TempDir::new(if extra { "newer-schema" } else { "schema-3-5" });
        b.write_to(dir.path());
        dir
    };
    let json = |dir: &TempDir| {
        let report = open(dir.path(), 0).unwrap();
        assert!(report.warnings.is_empty(), "{:?}", report.warnings);
        let options = ttnn_tui::explain::ExplainOptions::default();
        let explanation = ttnn_tui::explain::collect(&report, None, &options).unwrap();
        let doc: serde_json::Value =
            serde_json::from_str(&ttnn_tui::explain::render_json(&report, &explanation, &options)).unwrap();
        doc["operations"].clone()
    };
    let (plain, newer) = (build(false), build(true));
    assert_eq!(open(newer.path(), 0).unwrap().schema_version.as_deref(), Some("3.9"));
    let operations = json(&newer);
    assert_eq!(operations.as_array().map(Vec::len), Some(1));
    assert_eq!(operations[0]["allocation_failure"]["kind"], "bank_out_of_memory");
    assert_eq!(operations, json(&plain));
}
