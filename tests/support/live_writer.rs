//! A report writer for tests of reports still being written: one SQLite connection kept open,
//! in the journal mode TT-NN's writers use (`DELETE`, the rollback journal, or `WAL`), that
//! appends operations one transaction at a time, as a model run does. A test runs it in a
//! separate process and drives it through its standard input.
//!
//! Commands, one per line, each acknowledged with `ack <command>` once committed:
//!
//! * `op <id> <name>`: a completed operation: its row, stack trace, captured graph and
//!   `buffers` snapshot;
//! * `fail <id> <name>`: an operation that fails to allocate L1: its row (no duration), an
//!   aborted captured graph, the snapshot after the unwinding and its `errors` row;
//! * `error <id> <name>`: an `errors` row (not an allocation failure) for an operation already
//!   written;
//! * `quit`: closes the connection and returns.
//!
//! The first line written is `ready <journal mode>`, once the connection is open.

use std::io::{BufRead, Write};
use std::path::Path;

use rusqlite::Connection;

use super::{Alloc, BufferRow, BufferType, ErrorRow, Graph, Layout, Op, ReportBuilder, Schema};

/// The allocation failure a `fail` command writes, as TT-NN stores it.
pub const OOM_L1: &str = "TT_FATAL @ tt_metal/impl/allocator/bank_manager.cpp:486: false\ninfo:\nOut of Memory: Not enough space to allocate 3276800 B L1 buffer across 4 banks, where each bank needs to store 819200 B, but bank size is 1382720 B (allocated: 1000000 B, free: 382720 B, largest free block: 300000 B)\nbacktrace:\n --- build_Release/lib/libtt_metal.so(+0x570add) [0x7f0bc96eeadd]";

/// The error an `error` command writes.
pub const SHAPE_ERROR: &str = "TT_THROW @ ttnn/operations/eltwise/binary/binary.cpp:88: tt::exception\ninfo:\nShape mismatch: (1, 32) and (1, 64)\nbacktrace:\n --- build_Release/lib/libtt_metal.so(+0x570add) [0x7f0bc96eeadd]";

/// The device operation a `fail` command's graph fails in.
pub const FAILED_DEVICE_OPERATION: &str = "Conv2dDeviceOperation";

/// Serves commands from `input` against the report database at `db` (its tables already
/// written), in `journal_mode`, acknowledging on `output`.
pub fn serve(db: &Path, journal_mode: &str, input: impl BufRead, mut output: impl Write) {
    let mut conn = Connection::open(db).expect("the writer opens the report");
    conn.busy_timeout(std::time::Duration::from_secs(10)).expect("busy timeout");
    let mode: String =
        conn.query_row(&format!("PRAGMA journal_mode={journal_mode}"), [], |r| r.get(0)).expect("journal mode");
    writeln!(output, "ready {mode}").expect("stdout");
    output.flush().expect("stdout");
    for line in input.lines() {
        let line = line.expect("stdin");
        let words: Vec<&str> = line.split_whitespace().collect();
        let (id, name) = match words.as_slice() {
            ["quit"] => break,
            [_, id, name] => (id.parse::<i64>().expect("an operation id"), *name),
            _ => panic!("unknown command {line:?}"),
        };
        let builder = match words[0] {
            "op" => ReportBuilder::new(Schema::V2).operation(completed(id, name)),
            "fail" => ReportBuilder::new(Schema::V2).operation(failed(id, name)).error(ErrorRow::new(
                id,
                name,
                "RuntimeError",
                OOM_L1,
            )),
            "error" => ReportBuilder::new(Schema::V2).error(ErrorRow::new(id, name, "RuntimeError", SHAPE_ERROR)),
            other => panic!("unknown command {other:?}"),
        };
        builder.append_to(&mut conn);
        writeln!(output, "ack {line}").expect("stdout");
        output.flush().expect("stdout");
    }
    conn.close().expect("the writer closes the report");
}

/// The buffers live after every operation.
fn snapshot(id: i64) -> Vec<BufferRow> {
    vec![BufferRow::l1(1_400_000, 4_096 * (1 + id % 3)), BufferRow::dram(1_048_640, 65_536)]
}

fn completed(id: i64, name: &str) -> Op {
    let graph = Graph::new()
        .capture_start()
        .start(name)
        .start("BinaryNgDeviceOperation")
        .alloc(Alloc::new(262_144, 1_300_000, BufferType::L1, Layout::Interleaved))
        .end("BinaryNgDeviceOperation")
        .end(name)
        .capture_end()
        .to_json();
    Op::new(id, name)
        .duration(0.001)
        .stack_trace(&format!("  File \"/home/user/model.py\", line {id}, in forward\n    x = {name}(x)\n"))
        .graph(graph)
        .buffers(snapshot(id))
}

fn failed(id: i64, name: &str) -> Op {
    let graph = Graph::new()
        .capture_start()
        .start(name)
        .start(FAILED_DEVICE_OPERATION)
        .aborted_end(FAILED_DEVICE_OPERATION, Some("Out of Memory"))
        .aborted_end(name, Some("Out of Memory"))
        .capture_end()
        .to_json();
    Op::new(id, name).graph(graph).buffers(snapshot(id))
}
