//! The committed demo report and the fixture builder.
//!
//! `committed_demo_matches_builder` builds the demo (`tests/support/demo.rs`) into a temporary
//! folder and checks that the committed `fixtures/demo/db.sqlite` holds the same content (a
//! logical dump: the `sqlite_master` SQL, then every table's rows by rowid) and the same
//! `config.json`.
//!
//! To create or refresh the committed files after changing the demo, run
//! `UPDATE_DEMO=1 cargo test --test reading demo_fixture`: with `UPDATE_DEMO=1` the test rewrites
//! `fixtures/demo/db.sqlite` and `fixtures/demo/config.json` instead of comparing. Update
//! `fixtures/demo/README.md` by hand.

use crate::support;

use std::path::{Path, PathBuf};

use rusqlite::{Connection, OpenFlags, types::ValueRef};
use support::*;

fn demo_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/demo")
}

fn open_ro(db: &Path) -> Connection {
    Connection::open_with_flags(db, OpenFlags::SQLITE_OPEN_READ_ONLY).expect("open db")
}

/// A text rendering of a database's schema and rows, independent of its page layout.
fn logical_dump(db: &Path) -> String {
    let conn = open_ro(db);
    let mut out = String::new();
    let mut stmt = conn.prepare("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name").unwrap();
    let mut rows = stmt.query([]).unwrap();
    let mut tables = Vec::new();
    while let Some(r) = rows.next().unwrap() {
        let (kind, name, table): (String, String, String) = (r.get(0).unwrap(), r.get(1).unwrap(), r.get(2).unwrap());
        let sql: Option<String> = r.get(3).unwrap();
        out.push_str(&format!("{kind} {name} on {table}: {}\n", sql.unwrap_or_default()));
        if kind == "table" {
            tables.push(name);
        }
    }
    for table in tables {
        out.push_str(&format!("== {table}\n"));
        let mut stmt = conn.prepare(&format!("SELECT rowid, * FROM \"{table}\" ORDER BY rowid")).unwrap();
        let n = stmt.column_count();
        let mut rows = stmt.query([]).unwrap();
        while let Some(r) = rows.next().unwrap() {
            let cells: Vec<String> = (0..n)
                .map(|i| match r.get_ref(i).unwrap() {
                    ValueRef::Null => "NULL".to_string(),
                    ValueRef::Integer(v) => v.to_string(),
                    ValueRef::Real(v) => format!("{v:?}"),
                    ValueRef::Text(t) => format!("{:?}", String::from_utf8_lossy(t)),
                    ValueRef::Blob(b) => format!("x'{}'", hex(b)),
                })
                .collect();
            out.push_str(&cells.join(" | "));
            out.push('\n');
        }
    }
    out
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Panics with the first differing line rather than two whole dumps.
fn assert_same(what: &str, expected: &str, actual: &str) {
    if expected == actual {
        return;
    }
    let (e, a): (Vec<&str>, Vec<&str>) = (expected.lines().collect(), actual.lines().collect());
    let i = e.iter().zip(&a).position(|(x, y)| x != y).unwrap_or(e.len().min(a.len()));
    panic!(
        "{what} differs at line {}:\n  built:     {}\n  committed: {}\n\
         Run `UPDATE_DEMO=1 cargo test --test reading demo_fixture` if the change is intended.",
        i + 1,
        e.get(i).unwrap_or(&"<end>"),
        a.get(i).unwrap_or(&"<end>"),
    );
}

#[test]
fn committed_demo_matches_builder() {
    let committed = demo_dir();
    if std::env::var("UPDATE_DEMO").as_deref() == Ok("1") {
        support::demo::build_demo(&committed);
        eprintln!("rewrote {}", committed.display());
        return;
    }
    let tmp = TempDir::new("demo");
    let built = support::demo::build_demo(tmp.path());
    let committed_db = committed.join("db.sqlite");
    assert!(
        committed_db.exists(),
        "{} is missing: run `UPDATE_DEMO=1 cargo test --test reading demo_fixture`",
        committed_db.display()
    );
    assert_same("fixtures/demo/db.sqlite", &logical_dump(&built), &logical_dump(&committed_db));
    let read = |p: PathBuf| std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{p:?}: {e}"));
    assert_same(
        "fixtures/demo/config.json",
        &read(tmp.path().join("config.json")),
        &read(committed.join("config.json")),
    );
}

/// Facts about the demo that other tests rely on (see `fixtures/demo/README.md`).
#[test]
fn demo_shape() {
    let tmp = TempDir::new("demo-shape");
    let conn = open_ro(&support::demo::build_demo(tmp.path()));
    let count = |sql: &str| -> i64 { conn.query_row(sql, [], |r| r.get(0)).unwrap() };
    let ops = count("SELECT count(*) FROM operations");
    assert!((30..=40).contains(&ops), "{ops} operations");
    assert_eq!(
        count("SELECT count(*) FROM operations WHERE operation_id NOT IN (SELECT operation_id FROM stack_traces)"),
        0
    );
    // Operation 32 is recorded as the decorator before the errors table did: no buffers rows.
    let without_buffers: i64 = conn
        .query_row("SELECT group_concat(operation_id) FROM operations WHERE operation_id NOT IN (SELECT operation_id FROM buffers)", [], |r| r.get::<_, String>(0).map(|s| s.parse().unwrap()))
        .unwrap();
    assert_eq!(without_buffers, 32);
    // Every buffer an operation reads or produces is a `tensors` row at its address.
    assert_eq!(count("SELECT count(*) FROM input_tensors WHERE tensor_id NOT IN (SELECT tensor_id FROM tensors)"), 0);
    assert_eq!(count("SELECT count(*) FROM output_tensors WHERE tensor_id NOT IN (SELECT tensor_id FROM tensors)"), 0);
    assert!(count("SELECT count(*) FROM tensors") > 30);
    let version: String =
        conn.query_row("SELECT value FROM report_metadata WHERE key = 'schema_version'", [], |r| r.get(0)).unwrap();
    assert_eq!(version, "2.1");
    // Every stored graph parses and counters equal positions, except operation 15's.
    let mut stmt = conn.prepare("SELECT operation_id, captured_graph FROM captured_graph ORDER BY rowid").unwrap();
    let graphs: Vec<(i64, String)> =
        stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?))).unwrap().map(Result::unwrap).collect();
    let mut invalid = Vec::new();
    for (id, text) in &graphs {
        match serde_json::from_str::<serde_json::Value>(text) {
            Ok(v) => {
                for (i, node) in v.as_array().unwrap().iter().enumerate() {
                    assert_eq!(node["counter"], i, "operation {id}, node {i}");
                }
            }
            Err(_) => invalid.push(*id),
        }
    }
    assert_eq!(invalid, vec![15]);
    // Operation 36 has no captured graph.
    assert!(!graphs.iter().any(|(id, _)| *id == 36));
    // Unattached rows: the orphan at 0, the empty name, the second row for 13.
    assert_eq!(
        count(
            "SELECT count(*) FROM errors WHERE operation_id = 0 AND error_type = 'incomplete_operation' AND stack_trace = '' AND timestamp = ''"
        ),
        1
    );
    assert_eq!(count("SELECT count(*) FROM errors WHERE operation_name = ''"), 1);
    assert_eq!(count("SELECT count(*) FROM errors WHERE operation_id = 13"), 2);
}

#[test]
fn each_era_builds_and_opens() {
    let graph = Graph::new()
        .capture_start()
        .start("ttnn.add")
        .start("BinaryNgDeviceOperation")
        .buffer_allocate(65536, 1433600, BufferType::L1, Layout::Interleaved)
        .end("BinaryNgDeviceOperation")
        .end("ttnn.add")
        .capture_end();
    for schema in [Schema::Legacy, Schema::V2, Schema::V2_1, Schema::MultiHost] {
        let mut b = ReportBuilder::new(schema)
            .report_name("eras")
            .device(Device::wormhole(0))
            .operation(
                Op::new(1, "ttnn.add")
                    .duration(0.001)
                    .argument("input_tensor_a", "ttnn.Tensor(...)")
                    .stack_trace("  File \"/x/model.py\", line 42, in forward\n")
                    .graph(&graph)
                    .buffers(vec![BufferRow::dram(1024, 65536), BufferRow::l1(1433600, 65536).text_type()])
                    .outputs(&[7]),
            )
            .tensor(TensorRow::new(7, "Shape([1, 1, 32, 32])", "DataType::BFLOAT16", "Layout::TILE"));
        if schema != Schema::Legacy {
            b = b
                .error(ErrorRow::new(1, "ttnn.add", "RuntimeError", "boom").timestamp("t"))
                .metadata("capture_timestamp_ns", "1");
        }
        if schema == Schema::MultiHost {
            // ids restart per rank: the same operation and tensor ids on rank 1.
            b = b
                .device(Device::wormhole(0).rank(1))
                .operation(Op::new(1, "ttnn.add").rank(1).buffers(vec![BufferRow::dram(1024, 65536)]))
                .tensor(TensorRow::new(7, "Shape([1])", "DataType::BFLOAT16", "Layout::TILE").rank(1).size(2048))
                .error(ErrorRow::new(1, "ttnn.add", "RuntimeError", "boom").rank(1));
        }
        let tmp = TempDir::new("era");
        let db = b.write_to(tmp.path());
        let conn = open_ro(&db);
        let tables: Vec<String> = conn
            .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        let has = |t: &str| tables.iter().any(|x| x == t);
        assert_eq!(has("errors"), schema != Schema::Legacy, "{schema:?}");
        assert_eq!(has("report_metadata"), schema != Schema::Legacy, "{schema:?}");
        assert_eq!(has("device_tensors"), schema != Schema::Legacy, "{schema:?}");
        assert_eq!(has("source_files"), schema == Schema::V2_1, "{schema:?}");
        let columns = |t: &str| -> Vec<String> {
            conn.prepare(&format!("SELECT name FROM pragma_table_info('{t}')"))
                .unwrap()
                .query_map([], |r| r.get(0))
                .unwrap()
                .map(Result::unwrap)
                .collect()
        };
        assert_eq!(columns("buffers").contains(&"buffer_layout".to_string()), schema != Schema::Legacy);
        assert_eq!(columns("devices").contains(&"num_storage_cores".to_string()), schema != Schema::Legacy);
        assert_eq!(columns("captured_graph").contains(&"rank".to_string()), schema == Schema::MultiHost);
        assert_eq!(columns("stack_traces").contains(&"source_file_id".to_string()), schema == Schema::V2_1);
        let text_type: String =
            conn.query_row("SELECT buffer_type FROM buffers WHERE address = 1433600", [], |r| r.get(0)).unwrap();
        assert_eq!(text_type, "L1");
        let ops: i64 =
            conn.query_row("SELECT count(*) FROM operations WHERE operation_id = 1", [], |r| r.get(0)).unwrap();
        assert_eq!(ops, if schema == Schema::MultiHost { 2 } else { 1 });
        if schema == Schema::V2_1 {
            let version: String = conn
                .query_row("SELECT value FROM report_metadata WHERE key = 'schema_version'", [], |r| r.get(0))
                .unwrap();
            assert_eq!(version, "2.1");
            let index: i64 = conn
                .query_row(
                    "SELECT count(*) FROM sqlite_master WHERE name = 'idx_stack_traces_source_file_id'",
                    [],
                    |r| r.get(0),
                )
                .unwrap();
            assert_eq!(index, 1);
        }
        let config = std::fs::read_to_string(tmp.path().join("config.json")).unwrap();
        let config: serde_json::Value = serde_json::from_str(&config).unwrap();
        assert_eq!(config["report_name"], "eras");
    }
}

#[test]
fn without_table_and_raw_sql() {
    let tmp = TempDir::new("without");
    let db = ReportBuilder::new(Schema::V2)
        .without_table("errors")
        .operation(Op::new(1, "ttnn.add"))
        .error(ErrorRow::new(1, "ttnn.add", "RuntimeError", "dropped"))
        .sql("INSERT INTO operations (operation_id, name) VALUES (2, 'ttnn.mul')")
        .write_to(tmp.path());
    let conn = open_ro(&db);
    let errors: i64 =
        conn.query_row("SELECT count(*) FROM sqlite_master WHERE name = 'errors'", [], |r| r.get(0)).unwrap();
    assert_eq!(errors, 0);
    let ops: i64 = conn.query_row("SELECT count(*) FROM operations", [], |r| r.get(0)).unwrap();
    assert_eq!(ops, 2);
    assert!(!tmp.path().join("config.json").exists());
}

/// The two `buffer_allocate` samples of `docs/rules/formats.md` §3.8, byte for byte.
#[test]
fn graph_builder_matches_formats_examples() {
    let newest = Graph::new()
        .capture_start()
        .start("ttnn.add")
        .tensor(1, "Shape([1, 1, 2048, 512])")
        .tensor(2, "Shape([1, 1, 2048, 512])")
        .start("ttnn::prim::binary_ng")
        .tensor(3, "Shape([1, 1, 2048, 512])")
        .start("BinaryNgDeviceOperation")
        .alloc(
            Alloc::new(2097152, 0, BufferType::L1, Layout::Interleaved)
                .device(1)
                .page_size(2048)
                .max_size_per_bank(20480),
        );
    assert_eq!(
        newest.node_json(8),
        r#"{"counter":8,"node_type":"buffer_allocate","params":{"address":0,"buffer_type":1,"device_id":1,"layout":"INTERLEAVED","max_size_per_bank":20480,"num_cores":0,"page_size":2048,"size":2097152,"type":"L1"},"connections":[7],"stacking_level":3}"#
    );

    let mut old = Graph::strings().capture_start().start("ttnn.matmul");
    for id in 0..8 {
        old = old.tensor(id, "ttnn.Shape([32, 32])");
    }
    let old = old.buffer_allocate(24576, 1953396066, BufferType::L1, Layout::Interleaved);
    assert_eq!(
        old.node_json(11),
        r#"{"counter":11,"node_type":"buffer_allocate","params":{"address":"1953396066","layout":"INTERLEAVED","size":"24576","type":"L1"},"connections":[10]}"#
    );

    // The aborted end of §3.8, and capture nodes by era.
    let aborted = Graph::new()
        .capture_start()
        .start("ttnn.matmul")
        .start("MatmulDeviceOperation")
        .aborted_end("MatmulDeviceOperation", Some("Out of Memory"));
    let v: serde_json::Value = serde_json::from_str(&aborted.node_json(3)).unwrap();
    assert_eq!(
        v,
        serde_json::json!({"counter":3,"node_type":"function_end","params":{"name":"MatmulDeviceOperation","aborted":"true","abort_reason":"Out of Memory"},"connections":[],"stacking_level":2})
    );
    assert!(aborted.node_json(0).contains(r#""params":null"#));
    assert!(Graph::strings().capture_start().node_json(0).contains(r#""params":{}"#));
    let with_id = Graph::new().node_key(NodeKey::CounterAndId).capture_start();
    assert!(with_id.node_json(0).ends_with(r#""id":0}"#));
}
