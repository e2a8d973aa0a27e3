//! Reports and a harness for the terminal-UI tests: small memory reports written with SQLite,
//! an `App` driven by actions and drawn to a `TestBackend` after every step.
#![allow(dead_code)]

pub mod graphs;
pub mod perf;
mod screen;

use ratatui::Terminal;
use ratatui::backend::TestBackend;
#[path = "../support/mod.rs"]
pub mod support;

use std::sync::atomic::{AtomicUsize, Ordering};
use support::{Device, ErrorRow, ReportBuilder, Schema};
use ttnn_tui::app::{Action, App, Availability, Job};
use ttnn_tui::report::{MemoryReport, ReportSource};
use ttnn_tui::tui::Session;
use ttnn_tui::ui::{Theme, View};

/// An operation of a test report.
pub struct Op {
    pub id: u64,
    pub name: &'static str,
    pub stack: String,
    pub graph: Option<String>,
    pub arguments: Vec<(&'static str, &'static str)>,
}

/// An error row.
pub struct Error {
    /// None: a NULL `operation_id`.
    pub operation_id: Option<u64>,
    pub operation_name: &'static str,
    pub error_type: &'static str,
    pub message: String,
    pub stack_trace: &'static str,
}

/// A report to write: operations and error rows.
#[derive(Default)]
pub struct Report {
    pub ops: Vec<Op>,
    pub errors: Vec<Error>,
}

static NEXT: AtomicUsize = AtomicUsize::new(0);

/// A Python stack trace whose first place is `file:line`.
pub fn python_stack(file: &str, line: u32) -> String {
    format!(
        "Traceback (most recent call last):\n  File \"/home/dev/models/{file}\", line {line}, in forward\n    y = ttnn.op(x)"
    )
}

impl Report {
    /// Writes the report as `resnet_run` and opens it.
    pub fn open(&self) -> MemoryReport {
        self.open_as("resnet_run")
    }

    /// Adds an operation with a stack trace at `model.py:{10 × id}`.
    pub fn op(mut self, id: u64, name: &'static str, graph: Option<String>) -> Self {
        let arguments =
            vec![("input_tensor_a", "Tensor(shape=[1, 1, 32, 32], dtype=BFLOAT16)"), ("memory_config", "L1")];
        self.ops.push(Op { id, name, stack: python_stack("model.py", 10 * id as u32), graph, arguments });
        self
    }

    /// Adds an error row.
    pub fn error(
        mut self,
        operation_id: u64,
        operation_name: &'static str,
        error_type: &'static str,
        message: &str,
    ) -> Self {
        let stack_trace = "  File \"/home/dev/models/model.py\", line 99, in run\n    out = op(x)";
        let message = format!(
            "TT_FATAL @ tt_metal/impl/allocator/bank_manager.cpp:486: false\ninfo:\n{message}\nbacktrace:\n --- libtt_metal.so(+0x570add)"
        );
        self.errors.push(Error { operation_id: Some(operation_id), operation_name, error_type, message, stack_trace });
        self
    }

    /// Writes the report without an `errors` table (the Legacy schema, before TT-NN recorded
    /// errors; error rows are left out) and opens it.
    pub fn open_legacy(&self) -> MemoryReport {
        self.open_with(Schema::Legacy, "legacy_run")
    }

    /// Writes the report with the shared fixture builder (schema V2.1), in a fresh folder
    /// named `name` (the report's name), and opens it.
    pub fn open_as(&self, name: &str) -> MemoryReport {
        self.open_with(Schema::V2_1, name)
    }

    fn open_with(&self, schema: Schema, name: &str) -> MemoryReport {
        let unique = format!("ttnn-tui-test-{}-{}", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed));
        let folder = std::env::temp_dir().join(unique).join(name);
        std::fs::create_dir_all(&folder).unwrap();
        let mut builder = ReportBuilder::new(schema).device(Device::wormhole(0));
        for op in &self.ops {
            let mut row =
                support::Op::new(op.id as i64, op.name).duration(0.0125 * op.id as f64).stack_trace(&op.stack);
            for (name, value) in &op.arguments {
                row = row.argument(name, value);
            }
            if let Some(graph) = &op.graph {
                row = row.graph(graph.clone());
            }
            builder = builder.operation(row);
        }
        // A Legacy report has no `errors` table to write them to.
        for e in self.errors.iter().filter(|_| schema != Schema::Legacy) {
            let mut row = ErrorRow::new(e.operation_id.unwrap_or(0) as i64, e.operation_name, e.error_type, &e.message)
                .stack_trace(e.stack_trace)
                .timestamp("2026-01-01T00:00:00");
            // A NULL `operation_id`, as a writer that did not know the operation leaves it.
            row.operation_id = e.operation_id.map(|id| id as i64);
            builder = builder.error(row);
        }
        let database = builder.write_to(&folder);
        MemoryReport::open(&ReportSource::File { database, folder }, 0).unwrap()
    }
}

/// Allocation-failure messages, one per reason (docs/rules/reference.md §14.1).
pub mod messages {
    pub const NOT_ENOUGH: &str = "Out of Memory: Not enough space to allocate 3276800 B L1 buffer across 4 banks, where each bank needs to store 819200 B, but bank size is 1382720 B (allocated: 1000000 B, free: 382720 B, largest free block: 300000 B)";
    pub const FRAGMENTED: &str = "Out of Memory: Not enough space to allocate 1638400 B DRAM buffer across 2 banks, where each bank needs to store 819200 B, but bank size is 1382720 B (allocated: 382720 B, free: 1000000 B, largest free block: 300000 B)";
    pub const FREE_BLOCK: &str = "Out of Memory: Not enough space after considering dependencies to allocate 4096 B DRAM across 2 banks (2048 B per bank), bank size is 8192 B (allocated: 3072 B, free: 5120 B, largest free block: 3072 B). After subtracting 1 dependency range(s) and 0 additional occupied range(s), 2048 B remained placeable across 2 window(s), largest 1024 B";
    pub const LARGER_THAN_BANK: &str = "Out of Memory: Not enough space to allocate 8000000 B L1 buffer across 4 banks, where each bank needs to store 2000000 B, but bank size is only 1382720 B";
    pub const BEYOND_L1: &str = "Statically allocated circular buffers on core range [(x=0,y=0) - (x=7,y=7)] grow to 1600000 B which is beyond max L1 size of 1499136 B";
    pub const CLASH: &str = "Statically allocated circular buffers in program 166 clash with L1 buffers on core range [(x=0,y=0) - (x=4,y=7)]. L1 buffer allocated at 600256 and static circular buffer region ends at 621824";
}

/// The report most tests use: ten operations, the six reasons, a non-allocation error, every
/// tree shape, and `unattached` unattached errors.
pub fn scenario(unattached: usize) -> Report {
    use graphs::*;
    use messages::*;
    let mut r = Report::default()
        .op(1, "ttnn.from_torch", None)
        .op(2, "ttnn.matmul", Some(aborted_ends()))
        .op(3, "ttnn.add", Some(completed()))
        .op(4, "ttnn.conv2d", Some(stacking_levels()))
        .op(5, "ttnn.linear", Some(without_levels()))
        .op(6, "ttnn.softmax", None)
        .op(7, "ttnn.reshape", Some(unclosed()))
        .op(8, "ttnn.max_pool2d", Some("[{]".to_string()))
        .op(9, "ttnn.layer_norm", None)
        .op(10, "ttnn.concat", None)
        .error(2, "ttnn.matmul", "RuntimeError", NOT_ENOUGH)
        .error(4, "ttnn.conv2d", "RuntimeError", FRAGMENTED)
        .error(5, "ttnn.linear", "RuntimeError", FREE_BLOCK)
        .error(6, "ttnn.softmax", "RuntimeError", LARGER_THAN_BANK)
        .error(8, "ttnn.max_pool2d", "RuntimeError", BEYOND_L1)
        .error(9, "ttnn.layer_norm", "RuntimeError", CLASH);
    r.errors.push(Error {
        operation_id: Some(10),
        operation_name: "ttnn.concat",
        error_type: "TypeError",
        message: "Shape mismatch: cannot concatenate [1, 32] and [1, 16] along dim 0".to_string(),
        stack_trace: "",
    });
    let orphans = [("", "incomplete_operation"), ("ttnn.embedding", "RuntimeError"), ("ttnn.gelu", "TypeError")];
    for k in 0..unattached {
        let (name, kind) = orphans[k % orphans.len()];
        let message = if k == 1 {
            LARGER_THAN_BANK.to_string()
        } else {
            format!("Operation crashed before it was written ({k})")
        };
        r = r.error(10000 + k as u64, name, kind, &message);
    }
    r
}

/// A test UI: the session over the report, the app, its theme and a `TestBackend` terminal.
pub struct Harness {
    pub session: Session,
    pub app: App,
    pub theme: Theme,
    pub terminal: Terminal<TestBackend>,
}

impl Harness {
    /// Opens the app on a report, drawn once.
    pub fn new(report: MemoryReport, width: u16, height: u16, plain: bool, operation: Option<u64>) -> Self {
        let app = ttnn_tui::tui::app_for(&report, false, operation);
        let terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
        let mut h = Self { session: Session::new(report), app, theme: Theme::new(plain), terminal };
        h.draw();
        h
    }

    /// Reads and draws, as the loop does; tab 4's picture at a failure and its replays
    /// (background passes in the loop) are run here and now when the frame asks for them, and
    /// the screen drawn again with them, as the loop draws when they land.
    pub fn draw(&mut self) {
        ttnn_tui::tui::frame(&mut self.terminal, &mut self.app, &self.session, &self.theme).unwrap();
        for _ in 0..4 {
            let wanted: Vec<Job> =
                [Job::Picture, Job::Fixes, Job::WhatIf].into_iter().filter(|&j| self.app.want(j)).collect();
            if wanted.is_empty() {
                break;
            }
            for job in wanted {
                self.session.run_job(job, &mut self.app);
            }
            ttnn_tui::tui::frame(&mut self.terminal, &mut self.app, &self.session, &self.theme).unwrap();
        }
    }

    /// Runs the background passes the state wants, here and now (the loop runs them on worker
    /// threads), then draws.
    pub fn run_jobs(&mut self) {
        for job in self.app.wanted_jobs() {
            self.session.run_job(job, &mut self.app);
        }
        self.draw();
    }

    /// Applies actions as the loop does at the terminal's size, drawing after each.
    pub fn press(&mut self, actions: &[Action]) -> &mut Self {
        for &a in actions {
            let size = self.terminal.size().unwrap();
            ttnn_tui::tui::act(&mut self.app, a, size);
            self.draw();
        }
        self
    }

    /// Types a search, drawing after each character.
    pub fn type_text(&mut self, text: &str) -> &mut Self {
        for c in text.chars() {
            self.press(&[Action::SearchInput(c)]);
        }
        self
    }

    /// The screen as text.
    pub fn screen(&self) -> String {
        self.terminal.backend().to_string()
    }

    /// Resizes the terminal and draws.
    pub fn resize(&mut self, width: u16, height: u16) {
        self.terminal.backend_mut().resize(width, height);
        self.draw();
    }

    /// What the UI's regions read, for calling its text builders.
    pub fn view(&self) -> View<'_> {
        View { model: self.app.model(), hex: self.app.hex(), theme: &self.theme }
    }

    /// The id of the operation selected on the Operations tab.
    pub fn selected_id(&self) -> Option<u64> {
        self.app.selected_operation().map(|i| self.app.model().operations[i].id)
    }

    /// Whether an action is enabled in the focused pane.
    pub fn enabled(&self, action: Action) -> bool {
        self.app.availability(action) == Availability::Enabled
    }

    /// The screen's lines that contain `text` (without the quotes the backend prints).
    pub fn lines_with(&self, text: &str) -> Vec<String> {
        self.screen().lines().map(|l| l.trim_matches('"')).filter(|l| l.contains(text)).map(str::to_string).collect()
    }
}
