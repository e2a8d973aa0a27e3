//! Writes the seed corpora of the fuzz targets, one folder per target, from the fixtures and the
//! project's fixture builder (tests/support), never by hand:
//!
//! ```text
//! cargo run --manifest-path tests/fuzz/Cargo.toml --example seeds -- tests/fuzz/seeds docs/rules/messages.md
//! ```
//!
//! `failure_message`: the messages of `docs/rules/messages.md` and the demo report's errors; `graph`: the
//! demo report's captured graphs and a few built ones; `perf_csv`: the demo CSV and small CSVs of
//! each era; `sanitize`: hostile and real texts; `report`: small databases of every schema era
//! (page size 512, so each is a few KiB); `log`: the fixture logs of `tests/support/logs.rs`.

#[path = "../../support/mod.rs"]
#[allow(unused_imports)]
mod support;

use rusqlite::Connection;
use std::path::{Path, PathBuf};
use support::perf::{ANALYSED_HEADER, Era, PerfCsv, Row, analysed_row};
use support::{BufferRow, BufferType, Device, ErrorRow, Graph, Layout, Op, ReportBuilder, Schema, SourceFile, TempDir};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, out, messages] = &args[..] else {
        eprintln!("usage: seeds OUT_DIR MESSAGES_MD");
        std::process::exit(2);
    };
    let out = PathBuf::from(out);
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures");
    let demo = Connection::open_with_flags(fixtures.join("demo/db.sqlite"), rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
        .expect("the demo report opens");
    let column = |sql: &str| -> Vec<String> {
        let mut stmt = demo.prepare(sql).expect("valid query");
        stmt.query_map([], |r| r.get::<_, String>(0)).expect("query").map(|r| r.expect("text")).collect()
    };
    let demo_messages = column("SELECT error_message FROM errors ORDER BY rowid");
    let demo_graphs = column("SELECT captured_graph FROM captured_graph ORDER BY rowid");
    let demo_traces = column("SELECT stack_trace FROM stack_traces ORDER BY rowid");

    let mut messages = code_blocks(&std::fs::read_to_string(messages).expect("docs/rules/messages.md reads"));
    messages.extend(demo_messages.iter().cloned());
    write_all(&out.join("failure_message"), "message", messages.iter().map(String::as_bytes));

    let mut graphs: Vec<String> = demo_graphs.clone();
    graphs.extend(built_graphs());
    write_all(&out.join("graph"), "graph", graphs.iter().map(String::as_bytes));

    let csvs = perf_csvs(&fixtures.join("demo-perf/ops_perf_results_2026_11_29_10_12_00.csv"));
    write_all(&out.join("perf_csv"), "csv", csvs.iter().map(String::as_bytes));

    let mut texts: Vec<String> = hostile_texts().into_iter().map(String::from).collect();
    texts.extend(demo_messages.iter().take(4).cloned());
    texts.extend(demo_traces.iter().take(2).cloned());
    write_all(&out.join("sanitize"), "text", texts.iter().map(String::as_bytes));

    let reports = small_reports();
    write_all(&out.join("report"), "db", reports.iter().map(Vec::as_slice));

    let logs = support::logs::fixture_logs();
    write_all(&out.join("log"), "log", logs.iter().map(|(_, text)| text.as_bytes()));

    let memory = memory_seeds(&demo);
    write_all(&out.join("memory"), "failure", memory.iter().map(Vec::as_slice));
}

/// Seeds of the `memory` target: each demo error's message and its operation's captured graph,
/// then its `buffers` rows in the target's 5-byte form (a header chunk saying a devices row, an
/// own snapshot and an earlier one are there).
fn memory_seeds(demo: &Connection) -> Vec<Vec<u8>> {
    let sql = "SELECT e.error_message, g.captured_graph, e.operation_id FROM errors e \
               JOIN captured_graph g ON g.operation_id = e.operation_id ORDER BY e.rowid";
    let mut stmt = demo.prepare(sql).expect("valid query");
    let failures: Vec<(String, String, i64)> = stmt
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .expect("query")
        .map(|r| r.expect("a row"))
        .collect();
    let mut rows = demo
        .prepare("SELECT address, max_size_per_bank, buffer_type FROM buffers WHERE operation_id = ?1")
        .expect("valid query");
    failures
        .into_iter()
        .map(|(message, graph, id)| {
            let mut seed = [message.as_bytes(), b"\0", graph.as_bytes(), b"\0"].concat();
            seed.extend([0x0F, 0x80, 0x80, 0x40, 0x00]);
            let buffers = rows.query_map([id], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?, r.get::<_, i64>(2)?)));
            for (address, size, kind) in buffers.expect("query").map(|r| r.expect("a row")) {
                let clip = |v: i64| u8::try_from(v.clamp(0, 255)).unwrap_or(0);
                seed.extend([0, clip((address - 1024) / 256), clip(size / 64), clip(kind) & 3, 0]);
            }
            seed
        })
        .collect()
}

/// Writes each seed as `{prefix}-{n}` in a fresh folder.
fn write_all<'a>(folder: &Path, prefix: &str, seeds: impl Iterator<Item = &'a [u8]>) {
    let _ = std::fs::remove_dir_all(folder);
    std::fs::create_dir_all(folder).expect("create the seed folder");
    let mut n = 0;
    for seed in seeds {
        std::fs::write(folder.join(format!("{prefix}-{n:02}")), seed).expect("write a seed");
        n += 1;
    }
    eprintln!("{}: {n} seeds", folder.display());
}

/// The fenced code blocks of a Markdown file.
fn code_blocks(markdown: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut current: Option<Vec<&str>> = None;
    for line in markdown.lines() {
        if line.starts_with("```") {
            match current.take() {
                Some(lines) => blocks.push(lines.join("\n")),
                None => current = Some(Vec::new()),
            }
        } else if let Some(lines) = &mut current {
            lines.push(line);
        }
    }
    blocks
}

fn built_graphs() -> Vec<String> {
    let failed = Graph::new()
        .capture_start()
        .start_at("ttnn.conv2d", 1)
        .start_at("HaloDeviceOperation", 2)
        .buffer_allocate(65_536, 1_048_576, BufferType::L1, Layout::HeightSharded)
        .end_at("HaloDeviceOperation", 2)
        .start_at("Conv2dDeviceOperation", 2)
        .cb_allocate(819_200, 101_440, "{[(x=0,y=0) - (x=7,y=7)]}")
        .aborted_end("Conv2dDeviceOperation", Some("Out of Memory"))
        .aborted_end("ttnn.conv2d", Some("Out of Memory"))
        .capture_end();
    let strings = Graph::strings_with_levels()
        .capture_start()
        .start("ttnn.matmul")
        .start("MatmulDeviceOperation")
        .buffer_allocate(4096, 0, BufferType::Dram, Layout::Interleaved)
        .buffer_deallocate(4096, 0, BufferType::Dram, Layout::Interleaved)
        .cb_deallocate_all()
        .end("MatmulDeviceOperation")
        .end("ttnn.matmul")
        .capture_end();
    let unclosed = Graph::new().capture_start().start("ttnn.add").start("BinaryNgDeviceOperation");
    vec![failed.to_json(), strings.to_json(), unclosed.to_json(), "[]".into(), String::new()]
}

fn perf_csvs(demo: &Path) -> Vec<String> {
    let mut csvs = vec![std::fs::read_to_string(demo).expect("the demo CSV reads")];
    for era in [Era::Y2023, Era::Y2025, Era::Y2026] {
        let mut csv = PerfCsv::new(era);
        csv.push(Row::signpost("start"));
        csv.push(Row::device("TilizeWithValPaddingDeviceOperation", 0, 5_000));
        csv.push(Row::device("MatmulDeviceOperation", 0, 90_000));
        csv.push(Row::device("MatmulDeviceOperation", 1, 80_000));
        csv.push(Row::host("aten::relu (torch)"));
        csv.push(Row { truncate: Some(3), ..Row::device("BinaryNgDeviceOperation", 0, 1_000) });
        csvs.push(csv.to_csv());
        csvs.push(PerfCsv::new(era).to_csv());
    }
    let analysed = [
        ANALYSED_HEADER.to_string(),
        analysed_row(2, ["", "", "start (signpost)", "", "", "", "", "start"]),
        analysed_row(
            3,
            ["60.0", "DRAM", "MatmulDeviceOperation", "93.8", "100", "81.2", "20.1", "MatmulDeviceOperation"],
        ),
        analysed_row(5, ["0.1", "HOST", "aten::add (torch)", "", "", "", "", "aten::add (torch)"]),
    ];
    csvs.push(analysed.join("\n") + "\n");
    csvs
}

fn hostile_texts() -> Vec<&'static str> {
    vec![
        "\x1b]52;c;cm0gLXJmIH4=\x07\u{202E}Out of Memory\x1b[2J",
        "a\x1b[31mred\x1b[0m\tb\r\nc\u{9b}2Jd\u{9d}0;t\u{9c}e",
        "\x1bPq#0;2;0;0;0\x1b\\ \x1b(B \x1b",
        "\u{2066}iso\u{2069} \u{200F}mark\u{200E} \u{061C}",
        "bell\x07 del\x7f c1\u{85} nul\0",
        "Out of Memory: Not enough space — 3.13 MiB [(x=0,y=0) - (x=7,y=7)] ✖",
    ]
}

/// Small report databases of every era, written by the fixture builder then rewritten with
/// 512-byte pages.
fn small_reports() -> Vec<Vec<u8>> {
    let oom = "TT_FATAL @ tt_metal/impl/allocator/bank_manager.cpp:486: false\ninfo:\nOut of Memory: Not enough space to allocate 3276800 B L1 buffer across 4 banks, where each bank needs to store 819200 B, but bank size is 1382720 B (allocated: 1000000 B, free: 382720 B, largest free block: 300000 B)";
    let graph = built_graphs().remove(0);
    let trace = "  File \"/home/u/model.py\", line 66, in forward";
    // Legacy reports have no errors table.
    let base = |schema: Schema| {
        let with_errors = schema != Schema::Legacy;
        let builder = ReportBuilder::new(schema)
            .device(Device::wormhole(0))
            .operation(
                Op::new(1, "ttnn.tilize")
                    .stack_trace(trace)
                    .argument(
                        "memory_config",
                        "MemoryConfig(memory_layout=TensorMemoryLayout::INTERLEAVED,buffer_type=BufferType::L1)",
                    )
                    .graph(built_graphs().remove(1))
                    .buffers(vec![
                        BufferRow::dram(1_024, 65_536),
                        BufferRow::l1(1_048_576, 4_096).layout(Layout::Interleaved),
                    ]),
            )
            .operation(Op::new(2, "ttnn.conv2d").stack_trace(trace).graph(graph.clone()));
        if !with_errors {
            return builder;
        }
        builder
            .error(ErrorRow::new(2, "ttnn.conv2d", "RuntimeError", oom).stack_trace(trace))
            .error(ErrorRow::incomplete(0, "ttnn.conv2d"))
    };
    let ranked = ReportBuilder::new(Schema::MultiHost)
        .operation(Op::new(3, "ttnn.add").rank(0))
        .operation(Op::new(3, "ttnn.softmax").rank(1).graph(graph.clone()))
        .error(ErrorRow::new(3, "ttnn.softmax", "RuntimeError", oom).rank(1))
        .error(ErrorRow::new(3, "ttnn.add", "RuntimeError", "add failed").rank(0));
    let builders = [
        base(Schema::V2),
        base(Schema::Legacy),
        base(Schema::V2_1).source_file(SourceFile::new(1, "/home/u/model.py", "x = 1\n")),
        ranked,
    ];
    let dir = TempDir::new("fuzz-seeds");
    builders
        .iter()
        .enumerate()
        .map(|(i, b)| {
            let path = dir.path().join(format!("{i}.sqlite"));
            b.write_db(&path);
            let conn = Connection::open(&path).expect("the seed opens");
            conn.execute_batch("PRAGMA page_size = 512; VACUUM;").expect("vacuum");
            drop(conn);
            std::fs::read(&path).expect("the seed reads")
        })
        .collect()
}
