//! The demo report committed as `fixtures/demo/` (see `fixtures/demo/README.md` for the table
//! of operations and what each one demonstrates).
//!
//! A V2.1 report of one run of a small model (a convolutional stem and one transformer block)
//! on a Wormhole. The model catches `RuntimeError` and retries with a fallback configuration,
//! so the run goes on after each failure. Every operation has arguments, a stack trace into
//! `source_files` row 1, and the `buffers` rows live after it, placed by tt-metal's policy
//! (`demo/mem.rs`) so that addresses in `buffers` and in the captured graphs agree and the
//! what-if replay reproduces them (`tests/explain/demo_replay.rs`).

use std::path::{Path, PathBuf};

use super::fixture::ReportBuilder;
use super::graph::{Graph, Style};
use super::rows::{Device, ErrorRow, Op, SourceFile};
use super::schema::{BufferType, Layout, Schema};

mod block;
mod finish;
mod mem;
mod patches;
mod stem;
pub mod text;

use mem::{Buf, Mem};
use text::{frame, op_stack};

pub const REPORT_NAME: &str = "ttnn-tui demo";

/// Writes the demo report folder into `dir` (`db.sqlite`, `config.json`); returns the db path.
pub fn build_demo(dir: &Path) -> PathBuf {
    demo_report().write_to(dir)
}

use BufferType::{Dram, L1};
use Layout::{HeightSharded as HS, Interleaved as IL};

const DRAM_MC: &str =
    "MemoryConfig(memory_layout=TensorMemoryLayout::INTERLEAVED,buffer_type=BufferType::DRAM,shard_spec=std::nullopt)";
const L1_MC: &str =
    "MemoryConfig(memory_layout=TensorMemoryLayout::INTERLEAVED,buffer_type=BufferType::L1,shard_spec=std::nullopt)";
const HS_MC: &str = "MemoryConfig(memory_layout=TensorMemoryLayout::HEIGHT_SHARDED,buffer_type=BufferType::L1,shard_spec=ShardSpec(grid={[(x=0,y=0) - (x=7,y=7)]},shape={800, 64},orientation=ShardOrientation::ROW_MAJOR))";
const DEVICE: &str = "MeshDevice(1x1 grid, 1 devices)";
const CORES_OLD: &str = "{[(x=0,y=0) - (x=7,y=7)]}";
const CORES_NEW: &str = "{[0-0 - 7-7]}";

fn tensor(shape: &str, layout: &str) -> String {
    format!("ttnn.Tensor(shape=Shape([{shape}]), dtype=DataType::BFLOAT16, layout=Layout::{layout})")
}

struct Demo {
    mem: Mem,
    ops: Vec<Op>,
    errors: Vec<ErrorRow>,
    clock: u32,
    /// The next operation's input and output tensors, by allocation name.
    io: (Vec<&'static str>, Vec<&'static str>),
    /// The next operation leaves no `buffers` rows (the decorator before the `errors` table).
    no_snapshot: bool,
}

impl Demo {
    /// Adds the next operation with its stack trace (model frames, innermost first), its
    /// arguments, its graph (or none) and the buffers live now; returns its id.
    fn op(
        &mut self,
        name: &str,
        duration: f64,
        frames: &[String],
        args: &[(&str, &str)],
        graph: Option<String>,
    ) -> i64 {
        let id = self.ops.len() as i64 + 1;
        let mut op = Op::new(id, name).duration(duration).stack_trace(&op_stack(frames)).source_file(1);
        if !std::mem::take(&mut self.no_snapshot) {
            op = op.buffers(self.mem.rows());
        }
        let (inputs, outputs) = std::mem::take(&mut self.io);
        let inputs: Vec<i64> = inputs.iter().map(|n| self.mem.tensor(n)).collect();
        let outputs: Vec<i64> = outputs.iter().map(|n| self.mem.tensor(n)).collect();
        op = op.inputs(&inputs).outputs(&outputs);
        for (k, v) in args {
            op = op.argument(k, v);
        }
        if let Some(g) = graph {
            op = op.graph(g);
        }
        self.ops.push(op);
        id
    }

    /// Names the next operation's input and output tensors (allocation names).
    fn io(&mut self, inputs: &[&'static str], outputs: &[&'static str]) {
        self.io = (inputs.to_vec(), outputs.to_vec());
    }

    /// Records an error of operation `id` with a Python traceback and a timestamp.
    fn error(&mut self, id: i64, name: &str, message: String, frames: &[String]) {
        let row = ErrorRow::new(id, name, "RuntimeError", &message)
            .stack_trace(&text::error_stack(frames))
            .timestamp(&self.timestamp());
        self.errors.push(row);
    }

    /// The next error timestamp: a few seconds after the previous one.
    fn timestamp(&mut self) -> String {
        self.clock += 7;
        format!("2026-03-18 14:{:02}:{:02}.{:03}", 2 + self.clock / 60, self.clock % 60, (self.clock * 37) % 1000)
    }
}

fn refs<'a>(args: &'a [(&'a str, String)]) -> Vec<(&'a str, &'a str)> {
    args.iter().map(|(k, v)| (*k, v.as_str())).collect()
}

/// Frames shared by the fallback helper.
fn attempt() -> String {
    frame("return attempt()", "with_fallback")
}
fn fallback() -> String {
    frame("return fallback()", "with_fallback")
}
fn lambda(needle: &str) -> String {
    frame(needle, "<lambda>")
}
fn call(needle: &str) -> String {
    frame(needle, "__call__")
}

/// The demo report, ready to write.
pub fn demo_report() -> ReportBuilder {
    let mut d = Demo {
        mem: Mem::default(),
        ops: Vec::new(),
        errors: Vec::new(),
        clock: 0,
        io: (Vec::new(), Vec::new()),
        no_snapshot: false,
    };
    // Weights and inputs placed before the first recorded operation.
    for (name, per_bank) in [
        ("conv1.weight", 4096),
        ("conv2.weight", 36864),
        ("pos_embedding", 34816),
        ("qkv.weight", 131072),
        ("proj.weight", 43008),
        ("scratch", 262144),
        ("next_pixels", 51200),
    ] {
        d.mem.alloc(name, Dram, per_bank, IL);
    }
    // The convolution weights, prepared on the device in L1 before the run: the top of L1.
    d.mem.alloc("conv1.prepared", L1, 131072, IL);
    d.mem.alloc("conv2.prepared", L1, 247552, IL);
    stem::stem(&mut d);
    stem::bottleneck(&mut d);
    patches::patches(&mut d);
    block::block(&mut d);
    finish::finish(&mut d);
    // graph_report's row for a top-level scope that never ended, at base id 0.
    d.errors.push(ErrorRow::incomplete(0, "ttnn.conv2d"));
    let report = ReportBuilder::new(Schema::V2_1)
        .report_name(REPORT_NAME)
        .device(Device::wormhole(0))
        .source_file(SourceFile::new(1, text::MODEL_PY_PATH, text::MODEL_PY));
    let report = d.ops.into_iter().fold(report, ReportBuilder::operation);
    let report = d.mem.tensors.into_iter().fold(report, ReportBuilder::tensor);
    d.errors.into_iter().fold(report, ReportBuilder::error)
}

/// A completed top-level op: one device op that allocates `out` (and runs `cbs` circular
/// buffers), then frees `frees`.
fn simple_graph(g: Graph, top: &str, dev: &str, out: &[Buf], cbs: &[(u64, u64)], frees: &[Buf]) -> Graph {
    let cores = if g.style() == Style::Integers { CORES_NEW } else { CORES_OLD };
    let mut g = g.capture_start().start(top).tensor(1001, "Shape([1, 1, 12544, 64])");
    if !dev.is_empty() {
        g = g.start(dev);
    }
    for b in out {
        g = g.alloc(b.alloc());
    }
    if !cbs.is_empty() {
        g = g.cb_deallocate_all();
        for (size, addr) in cbs {
            g = g.cb_allocate(*size, *addr, cores);
        }
    }
    if !dev.is_empty() {
        g = g.end(dev);
    }
    for b in frees {
        g = g.dealloc(b.alloc());
    }
    g.end(top).capture_end()
}
