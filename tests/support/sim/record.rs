//! Running the script: each operation's graph, rows and snapshot as its writer era records them,
//! and the failure with the truth at that moment.

use super::super::graph::{Alloc, Graph, NodeKey, Style};
use super::super::rows::{BufferRow, ErrorRow, Op};
use super::super::schema::{BufferType, Layout};
use super::{DRAM_BANKS, L1_BANKS, Sim, SimOp};

/// Which writer recorded the run (docs/rules/memory.md §1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Era {
    /// The decorator before the `errors` table: a failed operation leaves no `buffers` rows and
    /// no captured graph. With `errors_table: false` the report has no `errors` table at all
    /// (Legacy schema); with `true`, the C++ writer's `errors` row is there.
    DecoratorBeforeErrors { errors_table: bool },
    /// The decorator with the `errors` table: the failed operation's graph (up to the throw,
    /// then the frees of the unwinding) and its snapshot taken after the unwinding.
    DecoratorWithErrors,
    /// The graph-report importer: like the decorator with errors, nodes carry `id` (V2.1).
    Importer,
    /// The importer of ttnn 0.67–0.78 (docs/rules/reference.md §13.5): the failed operation leaves no
    /// `operations` row, no graph, no snapshot and no message, only the row
    /// `(0, name, 'incomplete_operation', "Operation 'name' started but never completed (likely
    /// crashed)")`; the message is in the run's log ([`Sim::log`]).
    ImporterWithoutMessage,
    /// No `buffers` rows at all: captured graphs only.
    GraphOnly,
}

/// Variations of what the writer kept.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// `tensors` has no rows (input and output rows remain).
    pub no_tensor_rows: bool,
    /// `devices` has no row.
    pub no_devices_row: bool,
    /// The message is a V2 one: bank size but no allocator figures.
    pub v2_message: bool,
    /// The message is a V0 one: no bank size, no figures (not an allocation failure to parse).
    pub v0_message: bool,
    /// ttnn 0.81 on a single chip opened as a mesh (docs/rules/memory.md §1): graph buffer nodes carry the
    /// mesh id 1, circular-buffer nodes 0, the tables [`Mesh::tables`]; the failing allocation
    /// throws inside `create_device_tensor`, and the failed operation's buffers are freed inside
    /// `Tensor::deallocate` scopes before the device operation's aborted end.
    pub mesh: Option<Mesh>,
    /// The failed operation writes no snapshot of its own (as ttnn 0.81's importer did).
    pub no_failure_snapshot: bool,
    /// The failed operation's buffers are freed while unwinding with no record of the frees.
    pub silent_unwinding: bool,
    /// Every operation has a Python stack trace: innermost ttnn's wrapper (`core.py`), then the
    /// model's `model/block.py`, line 100 + its id, then torch and `run.py`.
    pub stack_traces: bool,
}

/// The ids of a single chip opened as a mesh.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mesh {
    /// The id `buffers` and `tensors` carry: 0 while `devices` has one row, 1 once a program
    /// compiled (then `devices` has rows 0 and 1).
    pub tables: u64,
}

fn shape(per_bank: u64) -> String {
    format!("Shape([1, 1, 32, {}])", per_bank / 64)
}

fn banks(buffer_type: BufferType) -> u64 {
    if buffer_type == BufferType::Dram { DRAM_BANKS } else { L1_BANKS }
}

fn alloc(device: u64, buffer_type: BufferType, address: u64, per_bank: u64) -> Alloc {
    Alloc::new(per_bank * banks(buffer_type), address, buffer_type, Layout::Interleaved)
        .num_cores(0)
        .max_size_per_bank(per_bank)
        .device(device)
}

impl Sim {
    /// A graph buffer node's parameters for a buffer of device `d`.
    fn node(&self, d: u64, buffer_type: BufferType, address: u64, per_bank: u64) -> Alloc {
        alloc(self.graph_device(d), buffer_type, address, per_bank)
    }

    fn graph(&self) -> Graph {
        match self.era {
            Era::DecoratorBeforeErrors { .. } => Graph::strings_with_levels(),
            Era::Importer | Era::ImporterWithoutMessage => {
                Graph::with_style(Style::Integers).node_key(NodeKey::CounterAndId)
            }
            _ => Graph::new(),
        }
    }

    /// Every live buffer of every device, as `buffers` rows.
    fn snapshot(&self) -> Vec<BufferRow> {
        let mut rows = Vec::new();
        for (d, dev) in self.devices.iter().enumerate() {
            for (buffer_type, allocator) in [(BufferType::Dram, &dev.dram), (BufferType::L1, &dev.l1)] {
                let mut held = allocator.held.clone();
                held.sort_by_key(|h| h.address);
                for h in held {
                    let device = self.table_device(d as u64) as i64;
                    rows.push(BufferRow::new(buffer_type, h.address as i64, h.size as i64).device(device));
                }
            }
        }
        rows
    }

    fn record(&mut self, op: Op, snapshot: bool) {
        if snapshot && self.era != Era::GraphOnly {
            self.record_usage(op.id as u64);
        }
        if self.era == Era::GraphOnly {
            self.record_graph_usage(op.id as u64);
        }
        let op = match self.options.stack_traces {
            true => {
                let line = 100 + op.id;
                // As ttnn's graph capture stores it: innermost call first, the operation's own
                // Python wrapper inside the ttnn package before the model's line.
                op.stack_trace(&format!("  File \"/home/dev/tt-metal/ttnn/ttnn/operations/core.py\", line 9, in op\n    return _op(x)\n  File \"/home/dev/model/block.py\", line {line}, in forward\n    y = ttnn.op(x)\n  File \"/venv/lib/python3.10/site-packages/torch/nn/modules/module.py\", line 1501, in _call_impl\n    return forward_call(*args)\n  File \"/home/dev/run.py\", line 7, in <module>\n    main()"))
            }
            false => op,
        };
        let op = if snapshot && self.era != Era::GraphOnly { op.buffers(self.snapshot()) } else { op };
        self.ops.push(op);
    }

    /// The start of an operation's graph: its scope, its input tensors, its device operation.
    fn open(&self, op: &SimOp) -> Graph {
        let mut g = self.graph().capture_start().start(&op.name);
        for name in &op.inputs {
            let t = self.tensor(name);
            g = g.tensor(t.id, &shape(t.per_bank));
        }
        g.start(&op.device_op)
    }

    fn input_ids(&mut self, op: &SimOp, id: u64) -> Vec<i64> {
        let mut ids = Vec::new();
        for name in &op.inputs {
            let i = self.tensors.iter().rposition(|t| &t.name == name && t.live).expect("a live input");
            self.tensors[i].consumers.push(id);
            self.tensors[i].last_use = Some(id);
            ids.push(self.tensors[i].id as i64);
        }
        ids
    }

    /// Runs an operation that completes; returns its id.
    pub fn run(&mut self, op: SimOp) -> u64 {
        let id = self.ops.len() as u64 + 1;
        let mut g = self.open(&op);
        let d = op.device;
        let mut temps = Vec::new();
        for &(bt, per_bank) in &op.temps {
            let address = self.devices[d as usize].allocator(bt).allocate(per_bank).expect("temps fit");
            g = g.alloc(self.node(d, bt, address, per_bank));
            temps.push((bt, address, per_bank));
        }
        let mut outputs = Vec::new();
        for (name, bt, per_bank) in &op.outputs {
            let i = self.new_tensor(name, d, *bt, *per_bank).expect("outputs fit");
            self.tensors[i].producer = Some(id);
            let t = &self.tensors[i];
            g = g.alloc(self.node(d, *bt, t.address, *per_bank)).buffer_tensor(t.id, &shape(*per_bank));
            outputs.push(t.id as i64);
        }
        if !op.cbs.is_empty() {
            g = self.circular_buffers(g, &op);
        }
        g = g.end(&op.device_op);
        for (bt, address, per_bank) in temps {
            self.devices[d as usize].allocator(bt).free(address);
            g = g.dealloc(self.node(d, bt, address, per_bank));
        }
        let inputs = self.input_ids(&op, id);
        for name in &op.frees {
            let i = self.tensors.iter().rposition(|t| &t.name == name && t.live).expect("a live tensor");
            self.tensors[i].live = false;
            self.tensors[i].freed_at = Some(id);
            let t = self.tensors[i].clone();
            self.devices[t.device as usize].allocator(t.buffer_type).free(t.address);
            g = g.dealloc(self.node(t.device, t.buffer_type, t.address, t.per_bank));
        }
        let g = g.end(&op.name).capture_end();
        let row = Op::new(id as i64, &op.name).duration(0.0001).graph(g).inputs(&inputs).outputs(&outputs);
        self.record(row, true);
        self.apply_free_after(id);
        id
    }

    fn circular_buffers(&self, mut g: Graph, op: &SimOp) -> Graph {
        let mut at = self.devices[op.device as usize].l1.start;
        g = g.cb_deallocate_all();
        for size in &op.cbs {
            g = g.cb_allocate(*size, at, "{[0-0 - 7-7]}");
            at += size;
        }
        g
    }

    /// A `ttnn.deallocate` of a tensor; returns its id.
    pub fn deallocate(&mut self, name: &str) -> u64 {
        let id = self.ops.len() as u64 + 1;
        let Some(i) = self.tensors.iter().rposition(|t| t.name == name && t.live) else {
            // A re-run's fix freed it already (`free_after`): the call frees nothing now.
            assert!(self.tensors.iter().any(|t| t.name == name), "a tensor called {name}");
            let g = self.graph().capture_start().start("ttnn.deallocate").end("ttnn.deallocate").capture_end();
            self.record(Op::new(id as i64, "ttnn.deallocate").duration(0.00001).graph(g), true);
            return id;
        };
        self.tensors[i].consumers.push(id);
        self.tensors[i].live = false;
        self.tensors[i].freed_at = Some(id);
        let t = self.tensors[i].clone();
        self.devices[t.device as usize].allocator(t.buffer_type).free(t.address);
        let g = self
            .graph()
            .capture_start()
            .start("ttnn.deallocate")
            .tensor(t.id, &shape(t.per_bank))
            .dealloc(self.node(t.device, t.buffer_type, t.address, t.per_bank))
            .end("ttnn.deallocate")
            .capture_end();
        let row = Op::new(id as i64, "ttnn.deallocate").duration(0.00001).graph(g).inputs(&[t.id as i64]);
        self.record(row, true);
        self.apply_free_after(id);
        id
    }

    /// Runs an operation that fails: its first allocation that does not fit, or else its
    /// circular buffers running into L1 buffers. Records it as the era does; returns its id.
    pub fn fail(&mut self, op: SimOp) -> u64 {
        let id = self.ops.len() as u64 + 1;
        let d = op.device;
        let mut g = self.open(&op);
        // N's own buffers: type, address, size, the tensor its graph names.
        let mut own: Vec<(BufferType, u64, u64, Option<u64>)> = Vec::new();
        let mut failed: Option<(BufferType, u64)> = None;
        let requests: Vec<(Option<String>, BufferType, u64)> = op
            .temps
            .iter()
            .map(|&(bt, s)| (None, bt, s))
            .chain(op.outputs.iter().map(|(n, bt, s)| (Some(n.clone()), *bt, *s)))
            .collect();
        for (name, bt, per_bank) in requests {
            match self.devices[d as usize].allocator(bt).allocate(per_bank) {
                Some(address) => {
                    g = g.alloc(self.node(d, bt, address, per_bank));
                    // An output allocated before the failure: a tensor only the graph names.
                    let tensor = name.map(|_| 1000 + own.len() as u64);
                    if let Some(tid) = tensor {
                        g = g.buffer_tensor(tid, &shape(per_bank));
                    }
                    own.push((bt, address, per_bank, tensor));
                }
                None => {
                    failed = Some((bt, per_bank));
                    break;
                }
            }
        }
        let inputs = self.input_ids(&op, id);
        let (message, truth) = match failed {
            Some((bt, need)) => {
                let truth = self.truth_at(id, d, bt, Some(need), &own, &inputs, None);
                (self.bank_message(d, bt, need), truth)
            }
            None => {
                g = self.circular_buffers(g, &op);
                let l1 = &self.devices[d as usize].l1;
                let end = l1.start + op.cbs.iter().sum::<u64>();
                let lowest = l1.held.iter().map(|h| h.address).min().unwrap_or(l1.end);
                assert!(end > lowest, "the script's circular buffers must clash");
                let message = format!(
                    "Statically allocated circular buffers in program 7 clash with L1 buffers on core range [0-0 - 7-7]. L1 buffer allocated at {lowest} and static circular buffer region ends at {end}"
                );
                (message, self.truth_at(id, d, BufferType::L1, None, &own, &inputs, Some(end)))
            }
        };
        self.truth = Some(truth);
        let g = self.unwind(g, &op, &own, failed.is_some()).capture_end();
        let text = format!(
            "TT_FATAL @ tt_metal/impl/allocator/bank_manager.cpp:486: false\ninfo:\n{message}\nbacktrace:\n --- x"
        );
        self.message = Some(message);
        if self.era == Era::ImporterWithoutMessage {
            self.errors.push(ErrorRow::incomplete(0, &op.name));
            self.unrecorded = Some(Op::new(id as i64, &op.name).inputs(&inputs));
            return id;
        }
        let mut row = Op::new(id as i64, &op.name).inputs(&inputs);
        let (graph, snapshot) = match self.era {
            Era::DecoratorBeforeErrors { .. } => (false, false),
            Era::DecoratorWithErrors | Era::Importer => (true, !self.options.no_failure_snapshot),
            Era::GraphOnly | Era::ImporterWithoutMessage => (true, false),
        };
        if graph {
            row = row.duration(0.0001).graph(g);
        }
        self.record(row, snapshot);
        self.errors.push(ErrorRow::new(id as i64, &op.name, "RuntimeError", &text));
        id
    }

    /// The end of a failed operation's graph: the unwinding frees N's own buffers (newest
    /// first) after the device operation's aborted end, or — ttnn 0.81 — the failing allocation's
    /// aborted `create_device_tensor` scope, each free inside a `Tensor::deallocate` scope, then
    /// the aborted end; frees left out when the unwinding is silent.
    fn unwind(&mut self, mut g: Graph, op: &SimOp, own: &[(BufferType, u64, u64, Option<u64>)], bank: bool) -> Graph {
        let d = op.device;
        let mesh = self.options.mesh.is_some();
        if mesh && bank {
            g = g.start("tt::tt_metal::create_device_tensor").aborted_end("tt::tt_metal::create_device_tensor", None);
        }
        if !mesh {
            g = g.aborted_end(&op.device_op, Some("Out of Memory"));
        }
        for &(bt, address, per_bank, _) in own.iter().rev() {
            self.devices[d as usize].allocator(bt).free(address);
            if self.options.silent_unwinding {
                continue;
            }
            let free = self.node(d, bt, address, per_bank);
            g = if mesh {
                g.start("Tensor::deallocate").dealloc(free).end("Tensor::deallocate")
            } else {
                g.dealloc(free)
            };
        }
        if mesh {
            g = g.aborted_end(&op.device_op, Some("Out of Memory"));
        }
        g.aborted_end(&op.name, Some("Out of Memory"))
    }

    fn bank_message(&self, d: u64, bt: BufferType, need: u64) -> String {
        let allocator = &self.devices[d as usize];
        let a = if bt == BufferType::Dram { &allocator.dram } else { &allocator.l1 };
        let head = format!(
            "Out of Memory: Not enough space to allocate {} B {} buffer across {} banks, where each bank needs to store {need} B",
            need * banks(bt),
            bt.token(),
            banks(bt)
        );
        let bank = a.end - a.start;
        if self.options.v0_message {
            head
        } else if self.options.v2_message {
            format!("{head}, but bank size is only {bank} B")
        } else {
            format!(
                "{head}, but bank size is {bank} B (allocated: {} B, free: {} B, largest free block: {} B)",
                a.allocated(),
                a.free_bytes(),
                a.largest_free()
            )
        }
    }
}
