//! The subcommands and their arguments: each takes only the options that apply to it.

use super::options::{Colour, Linked, Opened, Shown};
use crate::analysis::memory::peak::parse_type_size;
use crate::analysis::memory::whatif::{Fix, FixError};
use crate::analysis::messages::failure::BufferType;
use clap::{Args, Subcommand};
use std::path::PathBuf;

/// Subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Print every error of the report, explained (text, or JSON with --json).
    Explain(ExplainArgs),
    /// Replay the run with a fix applied and say what tt-metal would do with the failed request
    /// (the first failure, or --operation N).
    Whatif(WhatifArgs),
    /// How close the run is to failing: for each device and buffer type, the largest extra
    /// allocation per bank it could take and what fails first above it (--min: a CI gate).
    Headroom(HeadroomArgs),
    /// Compare two runs: the failures gone, new and kept, the peaks, the operations aligned,
    /// the tensors held past their last use, and the first new failure explained.
    Diff(DiffArgs),
    /// Serve the Model Context Protocol on stdin/stdout, for an AI agent: the same answers as
    /// `explain --json`, read-only (register it with `claude mcp add ttnn-tui -- ttnn-tui mcp`).
    Mcp,
}

impl Command {
    /// Its name on the command line.
    pub fn name(&self) -> &'static str {
        match self {
            Self::Explain(_) => "explain",
            Self::Whatif(_) => "whatif",
            Self::Headroom(_) => "headroom",
            Self::Diff(_) => "diff",
            Self::Mcp => "mcp",
        }
    }

    /// The report it reads and whether it prints JSON, for the subcommands that take one.
    pub fn target(&self) -> Option<&Target> {
        match self {
            Self::Explain(args) => Some(&args.target),
            Self::Whatif(args) => Some(&args.target),
            Self::Headroom(args) => Some(&args.target),
            Self::Diff(_) | Self::Mcp => None,
        }
    }
}

/// The report a subcommand reads, and whether it prints JSON: `explain`, `whatif`, `headroom`.
#[derive(Debug, Args)]
pub struct Target {
    /// A report folder holding db.sqlite, or the database itself
    /// [default: the newest report under ./generated/ttnn/reports/]
    #[arg(value_name = "REPORT", conflicts_with = "demo")]
    pub report: Option<PathBuf>,
    /// Print JSON (a stable contract) instead of text.
    #[arg(long)]
    pub json: bool,
}

/// Arguments of `diff`: the two runs, and how to show them.
#[derive(Debug, Args)]
pub struct DiffArgs {
    /// The earlier run: a report folder holding db.sqlite, or the database itself.
    #[arg(value_name = "BEFORE")]
    pub before: PathBuf,
    /// The later run, the same way.
    #[arg(value_name = "AFTER")]
    pub after: PathBuf,
    /// Print JSON (a stable contract) instead of text.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub(super) shown: Shown,
    #[command(flatten)]
    pub(super) colour: Colour,
}

/// Arguments of `whatif`: the report and the fixes, several at once, and the operation.
#[derive(Debug, Args)]
pub struct WhatifArgs {
    #[command(flatten)]
    pub target: Target,
    /// Free tensor T right after operation K (T@K), or after its last use (T).
    #[arg(long, value_name = "T[@K]")]
    pub free: Vec<String>,
    /// Free the buffer at address A, live after operation K, right after it (for buffers
    /// without a recorded tensor).
    #[arg(long, value_name = "A@K")]
    pub free_buffer: Vec<String>,
    /// Free every tensor held past its last use at it.
    #[arg(long)]
    pub free_late: bool,
    /// Keep tensor T in DRAM from its producer on.
    #[arg(long, value_name = "T")]
    pub to_dram: Vec<u64>,
    /// Place the failing request in DRAM.
    #[arg(long)]
    pub output_to_dram: bool,
    /// Open the device with this l1_small_size (bytes).
    #[arg(long, value_name = "B")]
    pub l1_small_size: Option<u64>,
    /// Reserve SIZE bytes per bank of TYPE before the first operation and keep them (TYPE=SIZE,
    /// e.g. L1=64KiB).
    #[arg(long, value_name = "TYPE=SIZE")]
    pub reserve: Vec<String>,
    /// Replay the whole run from its first operation, not only from the snapshot before the
    /// first fix: slower on a long run, and the replay check then covers every allocation.
    #[arg(long)]
    pub from_start: bool,
    #[command(flatten)]
    pub(super) shown: Shown,
    #[command(flatten)]
    pub(super) opened: Opened,
}

impl WhatifArgs {
    /// The fixes given, in a fixed order: frees, buffer frees, free-late, DRAM moves, the
    /// output in DRAM, l1_small_size; a text that does not read is the reason why.
    pub fn fixes(&self) -> Result<Vec<Fix>, String> {
        let usage = |e: FixError| e.to_string();
        let mut fixes = Vec::new();
        for t in &self.free {
            fixes.push(Fix::parse(&format!("free {t}")).map_err(usage)?);
        }
        for t in &self.free_buffer {
            fixes.push(Fix::parse(&format!("free-buffer {t}")).map_err(usage)?);
        }
        if self.free_late {
            fixes.push(Fix::FreeLate);
        }
        fixes.extend(self.to_dram.iter().map(|&tensor| Fix::ToDram { tensor }));
        if self.output_to_dram {
            fixes.push(Fix::OutputToDram);
        }
        fixes.extend(self.l1_small_size.map(|bytes| Fix::L1SmallSize { bytes }));
        for r in &self.reserve {
            fixes.push(Fix::parse(&format!("reserve {r}")).map_err(usage)?);
        }
        Ok(fixes)
    }
}

/// Arguments of `headroom`: the report, JSON or text, and the CI gate's minimums.
#[derive(Debug, Args)]
pub struct HeadroomArgs {
    #[command(flatten)]
    pub target: Target,
    /// Exit 1 when the headroom of TYPE is below SIZE per bank (TYPE=SIZE, e.g. L1=64KiB;
    /// several allowed): a CI gate.
    #[arg(long, value_name = "TYPE=SIZE")]
    pub min: Vec<String>,
    #[command(flatten)]
    pub(super) shown: Shown,
    #[command(flatten)]
    pub(super) opened: Opened,
}

impl HeadroomArgs {
    /// The minimums given; a text that does not read is the reason why.
    pub fn minimums(&self) -> Result<Vec<(BufferType, u64)>, String> {
        self.min.iter().map(|m| parse_type_size(m).map_err(|why| format!("cannot read --min {m:?}: {why}"))).collect()
    }
}

/// Arguments of `explain`: the report, what to print, and the options of the UI.
#[derive(Debug, Args)]
pub struct ExplainArgs {
    #[command(flatten)]
    pub target: Target,
    /// Also give each device's peak memory use per buffer type (reads every buffers row).
    #[arg(long)]
    pub peak: bool,
    /// Also list the tensors held past their last use, with the line to free each at and what
    /// it would take off the peak (reads every buffers row).
    #[arg(long, conflicts_with = "follow")]
    pub late: bool,
    /// Keep printing failures as a running model writes them, until interrupted (implies --watch).
    #[arg(long, conflicts_with_all = ["json", "peak", "operation", "perf", "log"])]
    pub follow: bool,
    #[command(flatten)]
    pub(super) shown: Shown,
    #[command(flatten)]
    pub(super) colour: Colour,
    #[command(flatten)]
    pub(super) opened: Opened,
    #[command(flatten)]
    pub(super) linked: Linked,
}
