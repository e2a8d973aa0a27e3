//! The command line: `ttnn-tui [REPORT] [options]` opens the terminal UI, `ttnn-tui explain`
//! prints.

use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

/// Explains TT-NN allocation failures from a memory report (db.sqlite), in a terminal.
#[derive(Debug, Parser)]
#[command(name = "ttnn-tui", version, args_conflicts_with_subcommands = true)]
pub struct Cli {
    /// Print instead of drawing.
    #[command(subcommand)]
    pub command: Option<Command>,
    /// Which report to open.
    #[command(flatten)]
    pub open: OpenArgs,
    /// When to use colours (NO_COLOR, when set and non-empty, means never).
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
}

/// Subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Print every error of the report, explained (text, or JSON with --json).
    Explain(ExplainArgs),
}

/// Arguments of `explain`.
#[derive(Debug, Args)]
pub struct ExplainArgs {
    /// Which report to open.
    #[command(flatten)]
    pub open: OpenArgs,
    /// Print JSON (a stable contract) instead of text.
    #[arg(long)]
    pub json: bool,
    /// Also give each device's peak memory use per buffer type (reads every buffers row).
    #[arg(long)]
    pub peak: bool,
    /// Keep printing failures as a running model writes them, until interrupted (implies --watch).
    #[arg(long, conflicts_with_all = ["json", "peak", "operation", "perf"])]
    pub follow: bool,
}

/// Choosing the report, shared by the UI and `explain`.
#[derive(Debug, Args, Clone)]
pub struct OpenArgs {
    /// A report folder holding db.sqlite, or the database itself
    /// [default: the newest report under ./generated/ttnn/reports/]
    #[arg(value_name = "REPORT", conflicts_with = "demo")]
    pub report: Option<PathBuf>,
    /// Open the demo report built into the binary.
    #[arg(long)]
    pub demo: bool,
    /// Show this operation (by operation id).
    #[arg(long, value_name = "ID")]
    pub operation: Option<u64>,
    /// Read this rank of a multi-host report.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub rank: u32,
    /// Show addresses in hexadecimal.
    #[arg(long)]
    pub hex: bool,
    /// A device performance report (profiler folder or ops_perf_results*.csv).
    #[arg(long, value_name = "PATH")]
    pub perf: Option<PathBuf>,
    /// The report is still being written: follow what the run adds to it.
    #[arg(long)]
    pub watch: bool,
}

/// When to colour the terminal UI.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    /// Colours unless NO_COLOR is set.
    Auto,
    /// Always colours.
    Always,
    /// Never colours.
    Never,
}

impl ColorChoice {
    /// Whether to draw without colours, given the value of `NO_COLOR` (set and non-empty means
    /// no colour unless `--color always`).
    pub fn plain(self, no_color: Option<&std::ffi::OsStr>) -> bool {
        let no_color = no_color.is_some_and(|v| !v.is_empty());
        match self {
            Self::Never => true,
            Self::Auto => no_color,
            Self::Always => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsStr;

    #[test]
    fn no_color_only_when_non_empty_and_never_overrides() {
        assert!(!ColorChoice::Auto.plain(None));
        assert!(!ColorChoice::Auto.plain(Some(OsStr::new(""))));
        assert!(ColorChoice::Auto.plain(Some(OsStr::new("1"))));
        assert!(ColorChoice::Never.plain(None));
        assert!(!ColorChoice::Always.plain(Some(OsStr::new("1"))));
    }
}
