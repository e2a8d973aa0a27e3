//! The option groups the UI and the subcommands share, and the options in effect.

use clap::{Args, ValueEnum};
use std::path::PathBuf;

/// How figures are read and shown: the UI, `explain`, `whatif` and `diff`.
#[derive(Debug, Args, Clone, Default)]
pub(super) struct Shown {
    /// Read this rank of a multi-host report [default: 0].
    #[arg(long, value_name = "N")]
    pub(super) rank: Option<u32>,
    /// Show addresses in hexadecimal.
    #[arg(long)]
    pub(super) hex: bool,
}

/// Colours: the UI, `explain` and `diff` (never JSON).
#[derive(Debug, Args, Clone, Default)]
pub(super) struct Colour {
    /// When to use colours, in the UI and in printed text (NO_COLOR, when set and non-empty,
    /// turns auto off) [default: auto].
    #[arg(long, value_enum)]
    pub(super) color: Option<ColorChoice>,
}

/// What is opened beside the report or instead of it, and how it is read: the UI, `explain`,
/// `whatif` and `headroom`.
#[derive(Debug, Args, Clone, Default)]
pub(super) struct Opened {
    /// Open the demo report built into the binary.
    #[arg(long)]
    pub(super) demo: bool,
    /// Show this operation (by operation id).
    #[arg(long, value_name = "ID")]
    pub(super) operation: Option<u64>,
    /// The run's log (pytest output, a CI log; `-` reads standard input): its allocation
    /// failures are joined to the report's operations, which matters for ttnn releases that
    /// record no allocator message. Without a REPORT, `explain --log` explains the log alone.
    #[arg(long, value_name = "PATH")]
    pub(super) log: Option<PathBuf>,
    /// Threads that read every buffers row (the run over time, --peak, --late, free-late) and
    /// share explain's work (a long graph, the entries of many failures) [default: the machine's
    /// cores].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=256))]
    pub(super) threads: Option<u32>,
}

/// What the UI and `explain` follow or link: a perf report, a report still being written.
#[derive(Debug, Args, Clone, Default)]
pub(super) struct Linked {
    /// A device performance report (profiler folder or ops_perf_results*.csv).
    #[arg(long, value_name = "PATH")]
    pub(super) perf: Option<PathBuf>,
    /// The report is still being written: follow what the run adds to it.
    #[arg(long)]
    pub(super) watch: bool,
}

/// What to open and how, whichever way the command line spelled it.
#[derive(Debug, Clone, Default)]
pub struct OpenArgs {
    /// The report folder or database; none for the newest under the default root.
    pub report: Option<PathBuf>,
    /// The demo report built into the binary.
    pub demo: bool,
    /// The operation to show.
    pub operation: Option<u64>,
    /// The rank to read.
    pub rank: u32,
    /// Hexadecimal addresses.
    pub hex: bool,
    /// A device performance report.
    pub perf: Option<PathBuf>,
    /// The report is still being written: follow what the run adds to it.
    pub watch: bool,
    /// The run's log, read beside the report.
    pub log: Option<PathBuf>,
    /// Threads of the passes over every `buffers` row (none: the machine's cores).
    pub threads: Option<u32>,
    /// When to use colours.
    pub color: ColorChoice,
}

/// When to colour the terminal UI and `explain`'s text (never its JSON).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, ValueEnum)]
pub enum ColorChoice {
    /// Colours unless NO_COLOR is set; `explain` only on a terminal.
    #[default]
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

    /// Whether print mode colours its text: `always`; `auto` on a terminal (`terminal`) unless
    /// `NO_COLOR` is set and non-empty; `never` not.
    pub fn colours_print(self, no_color: Option<&std::ffi::OsStr>, terminal: bool) -> bool {
        !self.plain(no_color) && (self == Self::Always || terminal)
    }
}
