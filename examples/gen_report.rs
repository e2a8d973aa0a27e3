//! Writes a large, realistic V2 memory report folder (`db.sqlite` + `config.json`) for
//! performance work:
//!
//! ```text
//! cargo run --release --example gen_report -- --ops 100000 --buffers-per-op 100 /tmp/big
//! ```
//!
//! Every operation gets a name from a realistic cycle, two arguments, a Python stack trace, a
//! newest-style captured graph (capture_start, the `ttnn.*` scope, its device operation, two
//! buffer allocations and circular buffers, ends, capture_end) and `--buffers-per-op` `buffers`
//! rows: the live set, of which two buffers change per operation. `--errors` operations, spread
//! through the run, fail with a full TT_FATAL allocation-failure message and an aborted graph.
//! With `--memory`, every buffer is a tensor that operations read and produce, L1 stays inside
//! the device's region, and the failures' figures are those of the live buffers (what the
//! memory at a failure reads).

#[path = "../tests/support/mod.rs"]
mod support;

#[path = "gen_report/memory.rs"]
mod memory;

use std::path::PathBuf;
use std::time::Instant;

use clap::Parser;
use rusqlite::{Connection, params, params_from_iter};

use support::demo::text;
use support::{Alloc, BufferType, Graph, LOOKUP_INDEXES, Layout, ReportBuilder, Schema};

#[derive(Parser, Debug)]
#[command(about = "Write a large synthetic TT-NN memory report (V2 schema)")]
struct Args {
    /// Number of operations.
    #[arg(long, default_value_t = 1000)]
    ops: u64,
    /// `buffers` rows per operation.
    #[arg(long, default_value_t = 20)]
    buffers_per_op: u64,
    /// Operations that fail with an allocation error, spread through the run.
    #[arg(long, default_value_t = 5)]
    errors: u64,
    /// Also create tt-metal's lookup indexes (idx_buffers_operation_id, …).
    #[arg(long)]
    indexes: bool,
    /// Replace an existing db.sqlite.
    #[arg(long)]
    force: bool,
    /// Tensors, operation inputs and outputs, and failures consistent with the buffers.
    #[arg(long)]
    memory: bool,
    /// The first failed operation's graph allocates this many more DRAM buffers (every other one
    /// a temporary freed after the next; the rest outputs, the last 1 000 freed as the failure
    /// unwinds, as ttnn 0.81 does), and its snapshot holds the outputs still live: a captured
    /// graph of that many allocations (issue 29).
    #[arg(long, default_value_t = 0)]
    failure_allocations: u64,
    /// Report folder to write.
    out: PathBuf,
}

/// (top-level op, its device operation, the model line that calls it)
const OPS: &[(&str, &str, &str)] = &[
    (
        "ttnn.to_memory_config",
        "InterleavedToShardedDeviceOperation",
        "x = ttnn.to_memory_config(x, self.sharded_config)",
    ),
    (
        "ttnn.conv2d",
        "Conv2dDeviceOperation",
        "x = ttnn.conv2d(input_tensor=x, weight_tensor=self.conv.weight, device=self.device, **self.conv_config)",
    ),
    ("ttnn.relu", "UnaryDeviceOperation", "x = ttnn.relu(x)"),
    ("ttnn.add", "BinaryNgDeviceOperation", "x = ttnn.add(x, residual)"),
    ("ttnn.layer_norm", "LayerNormDeviceOperation", "h = ttnn.layer_norm(x, weight=self.ln.weight, bias=self.ln.bias)"),
    ("ttnn.linear", "MatmulDeviceOperation", "qkv = ttnn.linear(h, self.qkv.weight, bias=self.qkv.bias)"),
    (
        "ttnn.experimental.nlp_create_qkv_heads",
        "NlpCreateHeadsDeviceOperation",
        "q, k, v = ttnn.experimental.nlp_create_qkv_heads(qkv, num_heads=16)",
    ),
    ("ttnn.matmul", "MatmulDeviceOperation", "scores = ttnn.matmul(q, k, transpose_b=True)"),
    ("ttnn.softmax", "SoftmaxDeviceOperation", "probs = ttnn.softmax(scores, dim=-1)"),
    ("ttnn.matmul", "MatmulDeviceOperation", "context = ttnn.matmul(probs, v)"),
    ("ttnn.linear", "MatmulDeviceOperation", "out = ttnn.linear(context, self.proj.weight, bias=self.proj.bias)"),
    ("ttnn.max_pool2d", "Pool2D", "x = ttnn.max_pool2d(x, **self.pool_config)"),
];

const FAILURES: &[&str] =
    &[text::FRAGMENTED_DRAM, text::NOT_ENOUGH_FREE_DRAM, text::V2_DRAM, text::FRAGMENTED_L1, text::ONLY_WITH_STATS_L1];

const L1_TOP: u64 = 1499136;
/// The L1 allocator region of `Device::wormhole` (`--memory`).
const L1_REGION_START: u64 = 101440;
const L1_REGION_END: u64 = 101440 + 1364928;

/// A small deterministic generator (xorshift), so runs are reproducible.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

#[derive(Clone, Copy)]
struct Buf {
    address: u64,
    per_bank: u64,
    bt: BufferType,
    layout: Layout,
    /// The tensor it holds (`--memory`).
    tensor: u64,
}

impl Buf {
    fn alloc(&self) -> Alloc {
        let (banks, cores) = match (self.bt, self.layout) {
            (BufferType::Dram, _) => (12, 0),
            (_, Layout::Interleaved) => (64, 0),
            _ => (64, 64),
        };
        Alloc::new(self.per_bank * banks, self.address, self.bt, self.layout)
            .num_cores(cores)
            .max_size_per_bank(self.per_bank)
    }
}

/// The live buffers: a fixed-size set where each operation replaces a couple of entries with
/// freshly allocated buffers (DRAM bottom-up, L1 top-down, wrapping around).
struct Live {
    bufs: Vec<Buf>,
    dram_next: u64,
    l1_next: u64,
    l1_top: u64,
    cursor: usize,
    tensors: u64,
}

impl Live {
    fn new(n: u64, l1_top: u64, rng: &mut Rng) -> Self {
        let mut live = Live { bufs: Vec::new(), dram_next: 1024, l1_next: l1_top, l1_top, cursor: 0, tensors: 0 };
        for _ in 0..n {
            let b = live.fresh(rng);
            live.bufs.push(b);
        }
        live
    }

    fn fresh(&mut self, rng: &mut Rng) -> Buf {
        self.tensors += 1;
        let tensor = self.tensors;
        let per_bank = (1 + rng.below(32)) * 2048;
        if rng.below(3) == 0 {
            if self.l1_next < 400_000 + per_bank {
                self.l1_next = self.l1_top;
            }
            self.l1_next -= per_bank;
            let layout = if rng.below(2) == 0 { Layout::Interleaved } else { Layout::HeightSharded };
            Buf { address: self.l1_next, per_bank, bt: BufferType::L1, layout, tensor }
        } else {
            if self.dram_next > 1_000_000_000 {
                self.dram_next = 1024;
            }
            let b =
                Buf { address: self.dram_next, per_bank, bt: BufferType::Dram, layout: Layout::Interleaved, tensor };
            self.dram_next += per_bank;
            b
        }
    }

    /// Replaces the next entry with a new buffer; returns (new, old).
    fn churn(&mut self, rng: &mut Rng) -> Option<(Buf, Buf)> {
        if self.bufs.is_empty() {
            return None;
        }
        let new = self.fresh(rng);
        let i = self.cursor % self.bufs.len();
        self.cursor += 1;
        let old = std::mem::replace(&mut self.bufs[i], new);
        Some((new, old))
    }
}

fn graph(top: &str, dev: &str, new: &[(Buf, Buf)], failed: bool) -> String {
    let mut g = Graph::new().capture_start().start(top).tensor(1, "Shape([1, 1, 1024, 1024])").start(dev);
    for (b, _) in new {
        g = g.alloc(b.alloc());
    }
    g = g.cb_deallocate_all().cb_allocate(32768, 101440, "{[0-0 - 7-7]}").cb_allocate(16384, 134208, "{[0-0 - 7-7]}");
    if failed {
        g = g.aborted_end(dev, Some("Out of Memory")).aborted_end(top, Some("Out of Memory"));
    } else {
        g = g.end(dev);
        for (_, old) in new {
            g = g.dealloc(old.alloc());
        }
        g = g.end(top);
    }
    g.capture_end().to_json()
}

/// Where the big failure's buffers start (above the churned DRAM buffers), and their size.
const BIG_BASE: u64 = 100_000_000;
const BIG_PER_BANK: u64 = 2048;
const BIG_UNWOUND: usize = 1000;

/// The graph of a failed operation that allocates `n` DRAM buffers before it fails (see
/// `--failure-allocations`), and the buffers still live after its unwinding.
fn big_failed_graph(top: &str, dev: &str, n: u64) -> (String, Vec<Buf>) {
    let buf = |i: u64| Buf {
        address: BIG_BASE + i * BIG_PER_BANK,
        per_bank: BIG_PER_BANK,
        bt: BufferType::Dram,
        layout: Layout::Interleaved,
        tensor: 10_000_000 + i,
    };
    let mut g = Graph::new().capture_start().start(top).tensor(1, "Shape([1, 1, 1024, 1024])").start(dev);
    let mut outputs = Vec::new();
    for i in 0..n {
        g = g.alloc(buf(i).alloc());
        if i % 2 == 1 {
            g = g.buffer_tensor(buf(i).tensor, "Shape([1, 1, 32, 32])").dealloc(buf(i - 1).alloc());
            outputs.push(buf(i));
        }
    }
    g = g.start("tt::tt_metal::create_device_tensor").aborted_end("tt::tt_metal::create_device_tensor", None);
    for b in outputs.iter().rev().take(BIG_UNWOUND) {
        g = g.start("Tensor::deallocate").dealloc(b.alloc()).end("Tensor::deallocate");
    }
    g = g.aborted_end(dev, Some("Out of Memory")).aborted_end(top, Some("Out of Memory"));
    outputs.truncate(outputs.len().saturating_sub(BIG_UNWOUND));
    (g.capture_end().to_json(), outputs)
}

fn stack_trace(line: usize, code: &str) -> String {
    format!(
        "  File \"/home/user/tt-metal/models/demos/big_model/tt/model.py\", line {line}, in forward\n    {code}\n\n  \
         File \"/home/user/tt-metal/models/demos/big_model/tests/test_big_model.py\", line 57, in test_big_model\n    output = model(inputs)\n"
    )
}

fn main() {
    let args = Args::parse();
    if let Err(e) = run(&args) {
        eprintln!("gen_report: {e}");
        std::process::exit(1);
    }
}

fn run(args: &Args) -> Result<(), Box<dyn std::error::Error>> {
    let db_path = args.out.join("db.sqlite");
    if db_path.exists() && !args.force {
        return Err(format!("{} exists; pass --force to replace it", db_path.display()).into());
    }
    let start = Instant::now();
    // The empty V2 schema and config.json, from the fixture builder.
    let name = format!("gen_report {} ops x {} buffers", args.ops, args.buffers_per_op);
    ReportBuilder::new(Schema::V2).report_name(&name).write_to(&args.out);

    let mut conn = Connection::open(&db_path)?;
    conn.execute_batch("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;")?;
    let tx = conn.transaction()?;
    {
        let mut ins_op = tx.prepare("INSERT INTO operations VALUES (?1, ?2, ?3)")?;
        let mut ins_arg = tx.prepare("INSERT INTO operation_arguments VALUES (?1, ?2, ?3)")?;
        let mut ins_st = tx.prepare("INSERT INTO stack_traces VALUES (?1, ?2)")?;
        let mut ins_graph = tx.prepare("INSERT INTO captured_graph VALUES (?1, ?2)")?;
        let mut ins_buf = tx.prepare("INSERT INTO buffers VALUES (?1, 0, ?2, ?3, ?4, ?5)")?;
        let mut ins_err = tx.prepare("INSERT INTO errors VALUES (?1, ?2, 'RuntimeError', ?3, ?4, ?5)")?;
        let mut ins_tensor =
            tx.prepare("INSERT INTO tensors VALUES (?1, ?2, 'DataType::BFLOAT16', 'Layout::TILE', ?3, 0, ?4, ?5)")?;
        let mut ins_input = tx.prepare("INSERT INTO input_tensors VALUES (?1, ?2, ?3)")?;
        let mut ins_output = tx.prepare("INSERT INTO output_tensors VALUES (?1, ?2, ?3)")?;
        let mut tensor = |b: &Buf| -> rusqlite::Result<()> {
            if args.memory {
                let (id, shape, config, address, bt) = memory::tensor_row(b);
                ins_tensor.execute(params![id, shape, config, address, bt])?;
            }
            Ok(())
        };
        let device: Vec<_> = support::Device::wormhole(0).values().into_iter().filter(|(k, _)| *k != "rank").collect();
        let names: Vec<&str> = device.iter().map(|(k, _)| *k).collect();
        let sql = format!("INSERT INTO devices ({}) VALUES ({})", names.join(", "), vec!["?"; names.len()].join(", "));
        tx.execute(&sql, params_from_iter(device.into_iter().map(|(_, v)| v)))?;

        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        let l1_top = if args.memory { L1_REGION_END } else { L1_TOP };
        let mut live = Live::new(args.buffers_per_op, l1_top, &mut rng);
        for b in &live.bufs {
            tensor(b)?;
        }
        let error_every = if args.errors > 0 { (args.ops / (args.errors + 1)).max(1) } else { 0 };
        let mut errors_left = args.errors;
        for id in 1..=args.ops {
            let (top, dev, code) = OPS[(id as usize - 1) % OPS.len()];
            let failed = errors_left > 0 && error_every > 0 && id % error_every == 0;
            let duration = (50 + rng.below(5000)) as f64 * 1e-6;
            ins_op.execute(params![id, top, duration])?;
            ins_arg.execute(params![
                id,
                "input_tensor",
                "ttnn.Tensor(shape=Shape([1, 1, 1024, 1024]), dtype=DataType::BFLOAT16, layout=Layout::TILE)"
            ])?;
            ins_arg.execute(params![id, "memory_config", "MemoryConfig(memory_layout=TensorMemoryLayout::INTERLEAVED,buffer_type=BufferType::DRAM,shard_spec=std::nullopt)"])?;
            let line = 40 + (id as usize - 1) % OPS.len() * 3;
            let trace = stack_trace(line, code);
            ins_st.execute(params![id, trace])?;
            // The operation reads the two buffers the cursor reaches next (their last use).
            let n = live.bufs.len().max(1);
            let inputs: Vec<u64> =
                (0..2.min(live.bufs.len())).map(|k| live.bufs[(live.cursor + 2 + k) % n].tensor).collect();
            let new: Vec<(Buf, Buf)> = (0..2).filter_map(|_| live.churn(&mut rng)).collect();
            if args.memory {
                for (k, t) in inputs.iter().enumerate() {
                    ins_input.execute(params![id, k, t])?;
                }
                if !failed {
                    for (k, (b, _)) in new.iter().enumerate() {
                        tensor(b)?;
                        ins_output.execute(params![id, k, b.tensor])?;
                    }
                }
            }
            if failed {
                // The new buffers never became live: put the old ones back.
                let base = live.cursor - new.len();
                for (i, (_, old)) in new.iter().enumerate().rev() {
                    let at = (base + i) % live.bufs.len();
                    live.bufs[at] = *old;
                }
            }
            let big = failed && args.failure_allocations > 0 && errors_left == args.errors;
            let (text, still_live) = match big {
                true => big_failed_graph(top, dev, args.failure_allocations),
                false => (graph(top, dev, &new, failed), Vec::new()),
            };
            ins_graph.execute(params![id, text])?;
            for b in live.bufs.iter().chain(&still_live) {
                let layout = match b.layout {
                    Layout::Interleaved => 0,
                    _ => 2,
                };
                ins_buf.execute(params![id, b.address, b.per_bank, b.bt.code(), layout])?;
            }
            if failed {
                errors_left -= 1;
                let n = args.errors - errors_left - 1;
                let message = if big {
                    let with_outputs: Vec<Buf> = live.bufs.iter().chain(&still_live).copied().collect();
                    memory::failure_message(1, &with_outputs)
                } else if args.memory {
                    memory::failure_message(n, &live.bufs)
                } else {
                    text::stored(FAILURES[n as usize % FAILURES.len()])
                };
                let secs = id;
                let timestamp =
                    format!("2026-03-18 {:02}:{:02}:{:02}.000", 10 + secs / 3600 % 12, secs / 60 % 60, secs % 60);
                let error_trace = format!("Traceback (most recent call last):\n{trace}");
                ins_err.execute(params![id, top, message, error_trace, timestamp])?;
            }
        }
    }
    if args.indexes {
        for sql in LOOKUP_INDEXES {
            tx.execute_batch(sql)?;
        }
    }
    tx.commit()?;
    let elapsed = start.elapsed();
    let size = std::fs::metadata(&db_path)?.len();
    println!("wrote {} in {:.2} s ({:.1} MiB)", db_path.display(), elapsed.as_secs_f64(), size as f64 / 1048576.0);
    let tables = [
        "operations",
        "operation_arguments",
        "stack_traces",
        "captured_graph",
        "buffers",
        "errors",
        "tensors",
        "input_tensors",
    ];
    for table in tables {
        let n: i64 = conn.query_row(&format!("SELECT count(*) FROM {table}"), [], |r| r.get(0))?;
        println!("  {table:20} {n:>12}");
    }
    if args.indexes {
        println!("  with lookup indexes: {}", LOOKUP_INDEXES.len());
    }
    Ok(())
}
