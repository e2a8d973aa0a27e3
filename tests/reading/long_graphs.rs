//! Captured graphs longer than a megabyte are parsed as they are read from the table, in
//! pieces, and never held whole: the nodes are those the whole text gives, at open (a failure's
//! graph) and when asked for later; a long text the piece reader does not accept is read whole
//! and decides as any other (an invalid one is the same error; the piece reader's own refusals, bytes that are not
//! UTF-8 among them, are tested in `analysis::graph::stream`).

use crate::support;

use support::{BufferType, ErrorRow, Graph, Layout, Op, ReportBuilder, Schema, TempDir};
use ttnn_tui::analysis::graph::nodes::parse_graph;
use ttnn_tui::report::{MemoryReport, ReportError, resolve_report};

const OOM: &str = "Out of Memory: Not enough space to allocate 24576000 B DRAM buffer across 12 banks, where each bank needs to store 2048000 B, but bank size is 1073741824 B (allocated: 0 B, free: 1073741824 B, largest free block: 1073741824 B)";

/// A graph of 16 006 nodes (3.4 MB of JSON, several pieces), named `é` to cut a character
/// between pieces somewhere.
fn long_graph(name: &str) -> String {
    graph_of(name, "BinaryNgDeviceOperation é", 8000)
}

/// The graph of operation `name` whose device operation allocates `allocations` DRAM buffers
/// and fails: 2 × `allocations` + 6 nodes.
fn graph_of(name: &str, device_operation: &str, allocations: u64) -> String {
    let mut g = Graph::new().capture_start().start(name).start(device_operation);
    for i in 0..allocations {
        g = g.buffer_allocate(2048 * 12, (1 << 20) + i * 2048, BufferType::Dram, Layout::Interleaved);
    }
    let g = g.aborted_end(device_operation, Some("Out of Memory")).aborted_end(name, Some("Out of Memory"));
    g.capture_end().to_json()
}

fn open(dir: &TempDir) -> MemoryReport {
    MemoryReport::open(&resolve_report(Some(dir.path())).unwrap(), 0).unwrap()
}

#[test]
fn a_long_graph_read_in_pieces_gives_the_nodes_of_the_whole_text() {
    let (failed, other) = (long_graph("ttnn.add"), long_graph("ttnn.multiply"));
    assert!(failed.len() > 3 << 20, "{} bytes", failed.len());
    let dir = TempDir::new("long-graph");
    ReportBuilder::new(Schema::V2)
        .operation(Op::new(1, "ttnn.multiply").graph(other.clone()))
        .operation(Op::new(2, "ttnn.add").graph(failed.clone()))
        .error(ErrorRow::new(2, "ttnn.add", "RuntimeError", OOM))
        .write_to(dir.path());
    let report = open(&dir);
    let whole = parse_graph(&failed).unwrap();
    assert_eq!(whole.len(), 16_006);
    assert_eq!(report.graphs().graph(1).unwrap(), whole, "read at open");
    assert_eq!(report.graphs().graph(0).unwrap(), parse_graph(&other).unwrap(), "read when asked for");
    assert_eq!(report.graphs().failed_device_operations(1), Ok(vec!["BinaryNgDeviceOperation é".to_string()]));
}

#[test]
fn a_long_text_the_piece_reader_refuses_decides_as_a_whole() {
    // Trailing text: invalid JSON, the whole text's error.
    let invalid = format!("{} x", long_graph("ttnn.add"));
    let dir = TempDir::new("long-refused");
    ReportBuilder::new(Schema::V2).operation(Op::new(1, "ttnn.add").graph(invalid.clone())).write_to(dir.path());
    let report = open(&dir);
    let error = ReportError::from(parse_graph(&invalid).unwrap_err());
    assert_eq!(report.graphs().graph(0).unwrap_err().to_string(), error.to_string());
    assert_eq!(error.to_string(), "invalid captured graph JSON: trailing characters at line 1 column 3432746");
}

#[test]
fn a_graph_past_sixteen_megabytes_read_in_two_parts_at_once_gives_the_nodes_of_the_whole_text() {
    // 44 000 allocations: 18 MB, read in two halves on two cores where the machine has them.
    let text = graph_of("ttnn.add", "BinaryNgDeviceOperation },{ é", 44_000);
    assert!(text.len() > 16 << 20, "{} bytes", text.len());
    let dir = TempDir::new("graph-in-two");
    ReportBuilder::new(Schema::V2)
        .operation(Op::new(1, "ttnn.add").graph(text.clone()))
        .error(ErrorRow::new(1, "ttnn.add", "RuntimeError", OOM))
        .write_to(dir.path());
    let report = open(&dir);
    let whole = parse_graph(&text).unwrap();
    assert_eq!(whole.len(), 88_006);
    assert!(report.graphs().graph(0).unwrap() == whole, "read at open");
    assert_eq!(report.graphs().failed_device_operations(0), Ok(vec!["BinaryNgDeviceOperation },{ é".to_string()]));
}
