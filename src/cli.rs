//! The command line: `ttnn-tui [REPORT] [options]` opens the terminal UI, `ttnn-tui explain`
//! prints, `whatif` replays a fix, `diff` compares two runs, `mcp` serves agents. Each
//! subcommand takes only the options that apply to it (its `--help` lists them); an option of
//! the UI given before a subcommand applies to it when the subcommand takes it.

use clap::error::ErrorKind;
use clap::{Args, CommandFactory, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

/// Explains TT-NN allocation failures from a memory report (db.sqlite), in a terminal.
#[derive(Debug, Parser)]
#[command(name = "ttnn-tui", version)]
pub struct Cli {
    /// Print instead of drawing.
    #[command(subcommand)]
    pub command: Option<Command>,
    /// A report folder holding db.sqlite, or the database itself
    /// [default: the newest report under ./generated/ttnn/reports/]
    #[arg(value_name = "REPORT", conflicts_with = "demo")]
    pub report: Option<PathBuf>,
    /// Open REPORT beside this later run (AFTER): the UI shows AFTER, tab 5 draws both runs'
    /// memory, tab 1 marks the failures gone and new (as `diff REPORT AFTER`).
    #[arg(long, value_name = "AFTER", requires = "report")]
    pub compare: Option<PathBuf>,
    #[command(flatten)]
    shown: Shown,
    #[command(flatten)]
    colour: Colour,
    #[command(flatten)]
    opened: Opened,
    #[command(flatten)]
    linked: Linked,
}

/// A usage error (exit 2) shown with the usage of `subcommand` (its name), or the top level's.
fn usage_error(subcommand: Option<&str>, kind: ErrorKind, message: impl std::fmt::Display) -> clap::Error {
    let mut command = Cli::command();
    command.build();
    match subcommand.and_then(|name| command.find_subcommand_mut(name)) {
        Some(sub) => sub.error(kind, message),
        None => command.error(kind, message),
    }
}

impl Cli {
    /// Parses the command line, exiting with a usage error (code 2) where clap would not see a
    /// conflict: `--demo` given before `explain` and a REPORT after it.
    pub fn parse_args() -> Self {
        let cli = Self::parse();
        if let Err(e) = cli.check() {
            e.exit();
        }
        cli
    }

    /// The conflicts options given on both sides of a subcommand can hide from clap, each
    /// shown with the usage of the subcommand it concerns.
    pub fn check(&self) -> Result<(), clap::Error> {
        let open = self.open_args();
        let name = self.command.as_ref().map(Command::name);
        let conflict = |message: &str| Err(usage_error(name, ErrorKind::ArgumentConflict, message));
        if let Some(flag) = self.given_before_but_not_taken() {
            return conflict(&format!("the argument '{flag}' cannot be used with '{}'", name.unwrap_or_default()));
        }
        // A log alone is explained as a log: what reads a report has nothing to read.
        if let (Some(Command::Explain(args)), Some(_), None) = (&self.command, &open.log, &open.report) {
            let without_report = [
                ("--peak", args.peak),
                ("--late", args.late),
                ("--operation <ID>", open.operation.is_some()),
                ("--perf <PATH>", open.perf.is_some()),
                ("--watch", open.watch),
            ];
            if let Some((flag, _)) = without_report.iter().find(|(_, given)| *given) {
                return conflict(&format!("the argument '--log <PATH>' cannot be used with '{flag}' without a REPORT"));
            }
        }
        if open.log.is_some() && (open.demo || open.watch) {
            let other = if open.demo { "--demo" } else { "--watch" };
            return conflict(&format!("the argument '--log <PATH>' cannot be used with '{other}'"));
        }
        if let Some(Command::Whatif(args)) = &self.command {
            args.fixes()?;
        }
        if let Some(Command::Headroom(args)) = &self.command {
            args.minimums()?;
        }
        if let Some(flag) = self.compare_conflict(&open) {
            return conflict(&flag);
        }
        if open.demo && open.report.is_some() {
            return conflict("the argument '--demo' cannot be used with '[REPORT]'");
        }
        Ok(())
    }

    /// An option of the UI given before a subcommand that does not take it (`mcp` takes none:
    /// it says so itself, naming the tool calls' reports).
    fn given_before_but_not_taken(&self) -> Option<&'static str> {
        let (takes_opened, takes_linked, takes_colour) = match &self.command {
            None | Some(Command::Explain(_)) | Some(Command::Mcp) => return None,
            Some(Command::Whatif(_)) | Some(Command::Headroom(_)) => (true, false, false),
            Some(Command::Diff(_)) => (false, false, true),
        };
        let (o, l) = (&self.opened, &self.linked);
        let given = [
            ("--demo", o.demo && !takes_opened),
            ("--operation <ID>", o.operation.is_some() && !takes_opened),
            ("--log <PATH>", o.log.is_some() && !takes_opened),
            ("--threads <N>", o.threads.is_some() && !takes_opened),
            ("--perf <PATH>", l.perf.is_some() && !takes_linked),
            ("--watch", l.watch && !takes_linked),
            ("--color <COLOR>", self.colour.color.is_some() && !takes_colour),
        ];
        given.iter().find(|(_, g)| *g).map(|(flag, _)| *flag)
    }

    /// What `diff` and `--compare` cannot be given with: options about one report only.
    fn compare_conflict(&self, open: &OpenArgs) -> Option<String> {
        let what = match (&self.command, &self.compare) {
            (Some(Command::Diff(_)), _) => "'diff'",
            (Some(_), Some(_)) => {
                return Some("the argument '--compare <AFTER>' cannot be used with a subcommand".into());
            }
            (None, Some(_)) => "'--compare <AFTER>'",
            (_, None) => return None,
        };
        let one_report = [("--demo", open.demo), ("--watch", open.watch), ("--log <PATH>", open.log.is_some())];
        let diff_only = [("--operation <ID>", open.operation.is_some()), ("--perf <PATH>", open.perf.is_some())];
        let diff = matches!(self.command, Some(Command::Diff(_)));
        let given = one_report.iter().chain(diff_only.iter().filter(|_| diff)).find(|(_, given)| *given)?;
        Some(format!("the argument '{}' cannot be used with {what}", given.0))
    }

    /// `--compare AFTER` (the UI), or `diff BEFORE AFTER`: the two runs, BEFORE first.
    pub fn compared(&self) -> Option<(PathBuf, PathBuf)> {
        match (&self.command, &self.compare, &self.report) {
            (Some(Command::Diff(args)), ..) => Some((args.before.clone(), args.after.clone())),
            (None, Some(after), Some(before)) => Some((before.clone(), after.clone())),
            _ => None,
        }
    }

    /// The options in effect: the subcommand's, else those given before it, else the defaults.
    pub fn options(&self) -> Options {
        let none = (Shown::default(), Colour::default(), Opened::default(), Linked::default());
        let (shown, colour, opened, linked) = match &self.command {
            Some(Command::Explain(a)) => (&a.shown, &a.colour, &a.opened, &a.linked),
            Some(Command::Whatif(a)) => (&a.shown, &none.1, &a.opened, &none.3),
            Some(Command::Headroom(a)) => (&a.shown, &none.1, &a.opened, &none.3),
            Some(Command::Diff(a)) => (&a.shown, &a.colour, &none.2, &none.3),
            Some(Command::Mcp) | None => (&none.0, &none.1, &none.2, &none.3),
        };
        let (top, o, l) = (&self.shown, &self.opened, &self.linked);
        Options {
            demo: opened.demo || o.demo,
            operation: opened.operation.or(o.operation),
            rank: shown.rank.or(top.rank).unwrap_or(0),
            hex: shown.hex || top.hex,
            perf: linked.perf.clone().or_else(|| l.perf.clone()),
            color: colour.color.or(self.colour.color).unwrap_or(ColorChoice::Auto),
            watch: linked.watch || l.watch,
            log: opened.log.clone().or_else(|| o.log.clone()),
            threads: opened.threads.or(o.threads),
        }
    }

    /// What to open: the REPORT given (after `explain`, or before it) and the options.
    pub fn open_args(&self) -> OpenArgs {
        let report = match &self.command {
            Some(Command::Explain(args)) => args.report.clone().or_else(|| self.report.clone()),
            Some(Command::Whatif(args)) => args.report.clone().or_else(|| self.report.clone()),
            Some(Command::Headroom(args)) => args.report.clone().or_else(|| self.report.clone()),
            Some(Command::Diff(args)) => Some(args.after.clone()),
            Some(Command::Mcp) => self.report.clone(),
            // Beside `--compare`, the UI shows the later run.
            None => self.compare.clone().or_else(|| self.report.clone()),
        };
        let o = self.options();
        OpenArgs {
            report,
            demo: o.demo,
            operation: o.operation,
            rank: o.rank,
            hex: o.hex,
            perf: o.perf,
            watch: o.watch,
            log: o.log,
            threads: o.threads,
        }
    }

    /// `--log PATH`: the run's log, beside the report or instead of one.
    pub fn log(&self) -> Option<PathBuf> {
        self.options().log
    }

    /// `explain --json`.
    pub fn json(&self) -> bool {
        match &self.command {
            Some(Command::Explain(args)) => args.json,
            Some(Command::Whatif(args)) => args.json,
            Some(Command::Headroom(args)) => args.json,
            Some(Command::Diff(args)) => args.json,
            Some(Command::Mcp) | None => false,
        }
    }
}

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
    shown: Shown,
    #[command(flatten)]
    colour: Colour,
}

/// Arguments of `whatif`: the report and the fixes, several at once, and the operation.
#[derive(Debug, Args)]
pub struct WhatifArgs {
    /// A report folder holding db.sqlite, or the database itself
    /// [default: the newest report under ./generated/ttnn/reports/]
    #[arg(value_name = "REPORT", conflicts_with = "demo")]
    pub report: Option<PathBuf>,
    /// Print JSON (a stable contract) instead of text.
    #[arg(long)]
    pub json: bool,
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
    shown: Shown,
    #[command(flatten)]
    opened: Opened,
}

impl WhatifArgs {
    /// The fixes given, in a fixed order: frees, buffer frees, free-late, DRAM moves, the
    /// output in DRAM, l1_small_size; a text that does not read is a usage error.
    pub fn fixes(&self) -> Result<Vec<crate::analysis::memory::whatif::Fix>, clap::Error> {
        use crate::analysis::memory::whatif::Fix;
        let usage =
            |e: crate::analysis::memory::whatif::FixError| usage_error(Some("whatif"), ErrorKind::ValueValidation, e);
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
    /// A report folder holding db.sqlite, or the database itself
    /// [default: the newest report under ./generated/ttnn/reports/]
    #[arg(value_name = "REPORT", conflicts_with = "demo")]
    pub report: Option<PathBuf>,
    /// Print JSON (a stable contract) instead of text.
    #[arg(long)]
    pub json: bool,
    /// Exit 1 when the headroom of TYPE is below SIZE per bank (TYPE=SIZE, e.g. L1=64KiB;
    /// several allowed): a CI gate.
    #[arg(long, value_name = "TYPE=SIZE")]
    pub min: Vec<String>,
    #[command(flatten)]
    shown: Shown,
    #[command(flatten)]
    opened: Opened,
}

impl HeadroomArgs {
    /// The minimums given; a text that does not read is a usage error.
    pub fn minimums(&self) -> Result<Vec<(crate::analysis::messages::failure::BufferType, u64)>, clap::Error> {
        self.min
            .iter()
            .map(|m| {
                crate::analysis::memory::peak::parse_type_size(m).map_err(|why| {
                    let message = format!("cannot read --min {m:?}: {why}");
                    usage_error(Some("headroom"), ErrorKind::ValueValidation, message)
                })
            })
            .collect()
    }
}

/// Arguments of `explain`: the report, what to print, and the options of the UI.
#[derive(Debug, Args)]
pub struct ExplainArgs {
    /// A report folder holding db.sqlite, or the database itself
    /// [default: the newest report under ./generated/ttnn/reports/]
    #[arg(value_name = "REPORT", conflicts_with = "demo")]
    pub report: Option<PathBuf>,
    /// Print JSON (a stable contract) instead of text.
    #[arg(long)]
    pub json: bool,
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
    shown: Shown,
    #[command(flatten)]
    colour: Colour,
    #[command(flatten)]
    opened: Opened,
    #[command(flatten)]
    linked: Linked,
}

/// How figures are read and shown: the UI, `explain`, `whatif` and `diff`.
#[derive(Debug, Args, Clone, Default)]
struct Shown {
    /// Read this rank of a multi-host report [default: 0].
    #[arg(long, value_name = "N")]
    rank: Option<u32>,
    /// Show addresses in hexadecimal.
    #[arg(long)]
    hex: bool,
}

/// Colours: the UI, `explain` and `diff` (never JSON).
#[derive(Debug, Args, Clone, Default)]
struct Colour {
    /// When to use colours, in the UI and in printed text (NO_COLOR, when set and non-empty,
    /// turns auto off) [default: auto].
    #[arg(long, value_enum)]
    color: Option<ColorChoice>,
}

/// What is opened beside the report or instead of it, and how it is read: the UI, `explain`,
/// `whatif` and `headroom`.
#[derive(Debug, Args, Clone, Default)]
struct Opened {
    /// Open the demo report built into the binary.
    #[arg(long)]
    demo: bool,
    /// Show this operation (by operation id).
    #[arg(long, value_name = "ID")]
    operation: Option<u64>,
    /// The run's log (pytest output, a CI log; `-` reads standard input): its allocation
    /// failures are joined to the report's operations, which matters for ttnn releases that
    /// record no allocator message. Without a REPORT, `explain --log` explains the log alone.
    #[arg(long, value_name = "PATH")]
    log: Option<PathBuf>,
    /// Threads that read every buffers row (the run over time, --peak, --late, free-late)
    /// [default: the machine's cores].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=256))]
    threads: Option<u32>,
}

/// What the UI and `explain` follow or link: a perf report, a report still being written.
#[derive(Debug, Args, Clone, Default)]
struct Linked {
    /// A device performance report (profiler folder or ops_perf_results*.csv).
    #[arg(long, value_name = "PATH")]
    perf: Option<PathBuf>,
    /// The report is still being written: follow what the run adds to it.
    #[arg(long)]
    watch: bool,
}

/// The options in effect, wherever the command line gave them.
#[derive(Debug, Clone)]
pub struct Options {
    /// Open the demo report built into the binary.
    pub demo: bool,
    /// Show this operation (by operation id).
    pub operation: Option<u64>,
    /// Read this rank of a multi-host report.
    pub rank: u32,
    /// Show addresses in hexadecimal.
    pub hex: bool,
    /// A device performance report.
    pub perf: Option<PathBuf>,
    /// When to use colours.
    pub color: ColorChoice,
    /// The report is still being written.
    pub watch: bool,
    /// The run's log.
    pub log: Option<PathBuf>,
    /// Threads that read every buffers row (none: the machine's cores).
    pub threads: Option<u32>,
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
}

/// When to colour the terminal UI and `explain`'s text (never its JSON).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    /// Colours unless NO_COLOR is set; `explain` only on a terminal.
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

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<Cli, clap::Error> {
        let cli = Cli::try_parse_from(std::iter::once("ttnn-tui").chain(args.iter().copied()))?;
        cli.check().map(|()| cli)
    }

    #[test]
    fn options_before_or_after_the_subcommand() {
        for args in [
            &["--color", "never", "explain", "--demo"][..],
            &["explain", "--demo", "--color", "never"],
            &["--demo", "explain", "--color=never"],
        ] {
            let cli = parse(args).unwrap_or_else(|e| panic!("{args:?}: {e}"));
            assert!(matches!(cli.command, Some(Command::Explain(_))), "{args:?}");
            assert_eq!(cli.options().color, ColorChoice::Never, "{args:?}");
            assert!(cli.open_args().demo, "{args:?}");
        }
        for args in [&["--hex", "explain", "--demo"][..], &["explain", "--demo", "--hex"]] {
            let open = parse(args).unwrap().open_args();
            assert!(open.hex && open.demo, "{args:?}");
        }
        let open = parse(&["--rank", "2", "--operation", "7", "explain", "r", "--perf", "p.csv"]).unwrap().open_args();
        assert_eq!((open.rank, open.operation), (2, Some(7)));
        assert_eq!((open.report, open.perf), (Some("r".into()), Some("p.csv".into())));
        // An option given after the subcommand keeps a value given before it when repeated
        // only before; a default never overrides a value given.
        assert_eq!(parse(&["--rank", "3", "explain"]).unwrap().open_args().rank, 3);
        assert_eq!(parse(&["explain", "--rank", "3"]).unwrap().open_args().rank, 3);
    }

    #[test]
    fn the_existing_forms() {
        let cli = parse(&["path/to/report", "--hex", "--perf", "x.csv", "--color", "always"]).unwrap();
        assert!(cli.command.is_none());
        assert_eq!(cli.open_args().report, Some("path/to/report".into()));
        assert_eq!(cli.options().color, ColorChoice::Always);
        let cli = parse(&["explain", "path/db.sqlite", "--json", "--operation", "12"]).unwrap();
        assert!(cli.json());
        assert_eq!(cli.open_args().report, Some("path/db.sqlite".into()));
        assert_eq!(parse(&[]).unwrap().open_args().report, None);
        // REPORT and --demo exclude each other, wherever they stand.
        assert!(parse(&["r", "--demo"]).is_err());
        assert!(parse(&["--demo", "explain", "r"]).is_err());
        assert!(parse(&["explain", "--bogus"]).is_err());
    }

    #[test]
    fn a_log_instead_of_a_report() {
        let cli = parse(&["explain", "--log", "ci.log", "--json", "--hex"]).unwrap();
        assert_eq!(cli.log(), Some("ci.log".into()));
        assert!(cli.json() && cli.options().hex);
        assert_eq!(parse(&["explain", "--log", "-"]).unwrap().log(), Some("-".into()));
        for args in [
            &["explain", "--log", "x.log", "--demo"][..],
            &["explain", "--log", "x.log", "--follow"],
            &["explain", "--log", "x.log", "--peak"],
            &["explain", "--log", "x.log", "--late"],
            &["explain", "--log", "x.log", "--perf", "p.csv"],
            &["explain", "--log", "x.log", "--operation", "3"],
            &["explain", "r", "--log", "x.log", "--watch"],
            &["explain", "--log"],
        ] {
            assert!(parse(args).is_err(), "{args:?}");
        }
        let e = parse(&["explain", "--log", "x.log", "--peak"]).unwrap_err().to_string();
        assert!(e.contains("'--log <PATH>' cannot be used with '--peak' without a REPORT"), "{e}");
    }

    /// docs/rules/reference.md §13.5: the log beside a report, after `explain` or before it, and at the top
    /// level (issue 22 §4.1: `ttnn-tui --log x.log` parses).
    #[test]
    fn a_log_beside_a_report() {
        for args in [
            &["explain", "r", "--log", "x.log"][..],
            &["r", "explain", "--log", "x.log"],
            &["--log", "x.log", "explain", "r", "--json", "--peak", "--operation", "3"],
            &["r", "--log", "x.log"],
        ] {
            let cli = parse(args).unwrap_or_else(|e| panic!("{args:?}: {e}"));
            assert_eq!(cli.log(), Some("x.log".into()), "{args:?}");
            assert_eq!(cli.open_args().report, Some("r".into()), "{args:?}");
            assert_eq!(cli.open_args().log, Some("x.log".into()), "{args:?}");
        }
        let cli = parse(&["--log", "x.log"]).unwrap();
        assert!(cli.command.is_none() && cli.open_args().report.is_none());
        assert!(parse(&["--log", "x.log", "--demo"]).is_err());
    }

    /// The text of a subcommand's `--help`.
    fn help_of(name: &str) -> String {
        let mut command = Cli::command();
        command.build();
        command.find_subcommand_mut(name).unwrap().render_long_help().to_string()
    }

    /// Issue 30 §4.6: each subcommand's help lists only the options it takes.
    #[test]
    fn each_subcommand_lists_only_its_own_options() {
        let flags = |name: &str| -> Vec<String> {
            let help = help_of(name);
            let mut flags: Vec<String> = help
                .lines()
                .filter(|l| l.trim_start().starts_with('-'))
                .filter_map(|l| l.split([' ', ',']).find(|w| w.starts_with("--")).map(str::to_string))
                .collect();
            flags.sort();
            flags
        };
        assert_eq!(flags("mcp"), ["--help"]);
        assert_eq!(flags("diff"), ["--color", "--help", "--hex", "--json", "--rank"]);
        let whatif = flags("whatif");
        assert!(!whatif.iter().any(|f| ["--color", "--perf", "--watch"].contains(&f.as_str())), "{whatif:?}");
        assert!(["--demo", "--operation", "--log", "--rank", "--hex"].iter().all(|f| whatif.contains(&f.to_string())));
        let explain = flags("explain");
        for f in ["--demo", "--operation", "--log", "--color", "--perf", "--watch", "--rank", "--hex", "--follow"] {
            assert!(explain.contains(&f.to_string()), "{f} in {explain:?}");
        }
    }

    /// An error in a subcommand shows that subcommand's usage, whether clap or the fixes find it.
    #[test]
    fn a_subcommand_s_error_shows_its_own_usage() {
        let usage = |args: &[&str]| {
            let e = parse(args).unwrap_err();
            assert_eq!(e.exit_code(), 2, "{args:?}");
            let text = e.render().to_string();
            text.lines().find(|l| l.starts_with("Usage:")).unwrap_or_default().to_string()
        };
        assert_eq!(usage(&["whatif", "--free", "banana"]), "Usage: ttnn-tui whatif [OPTIONS] [REPORT]");
        assert_eq!(usage(&["whatif", "--perf", "p.csv"]), "Usage: ttnn-tui whatif [OPTIONS] [REPORT]");
        assert_eq!(usage(&["diff", "--demo", "a", "b"]), "Usage: ttnn-tui diff [OPTIONS] <BEFORE> <AFTER>");
        assert_eq!(usage(&["--demo", "diff", "a", "b"]), "Usage: ttnn-tui diff [OPTIONS] <BEFORE> <AFTER>");
        assert_eq!(usage(&["mcp", "--demo"]), "Usage: ttnn-tui mcp");
        assert_eq!(usage(&["--perf", "p.csv", "whatif"]), "Usage: ttnn-tui whatif [OPTIONS] [REPORT]");
        let e = parse(&["--watch", "whatif"]).unwrap_err().to_string();
        assert!(e.contains("the argument '--watch' cannot be used with 'whatif'"), "{e}");
        // What whatif and diff take, before the subcommand or after it, still applies.
        let open = parse(&["--operation", "4", "--hex", "whatif", "--demo", "--free", "3"]).unwrap().open_args();
        assert_eq!((open.operation, open.hex, open.demo), (Some(4), true, true));
        let cli = parse(&["--rank", "1", "diff", "a", "b", "--color", "never"]).unwrap();
        assert_eq!((cli.options().rank, cli.options().color), (1, ColorChoice::Never));
    }

    #[test]
    fn no_color_only_when_non_empty_and_never_overrides() {
        assert!(!ColorChoice::Auto.plain(None));
        assert!(!ColorChoice::Auto.plain(Some(std::ffi::OsStr::new(""))));
        assert!(ColorChoice::Auto.plain(Some(std::ffi::OsStr::new("1"))));
        assert!(ColorChoice::Never.plain(None));
        assert!(!ColorChoice::Always.plain(Some(std::ffi::OsStr::new("1"))));
    }

    #[test]
    fn print_mode_colours_always_or_on_a_terminal() {
        let set = Some(std::ffi::OsStr::new("1"));
        assert!(ColorChoice::Always.colours_print(None, false));
        assert!(ColorChoice::Always.colours_print(set, false));
        assert!(ColorChoice::Auto.colours_print(None, true));
        assert!(!ColorChoice::Auto.colours_print(None, false));
        assert!(!ColorChoice::Auto.colours_print(set, true));
        assert!(!ColorChoice::Never.colours_print(None, true));
    }
}
