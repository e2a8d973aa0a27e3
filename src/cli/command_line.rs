//! The command line as clap reads it (`Cli`), and what it resolves to: the options in effect,
//! wherever they were given, and the conflicts clap cannot see.

use super::options::{Colour, Linked, OpenArgs, Opened, Shown};
use super::subcommands::Command;
use clap::error::ErrorKind;
use clap::{CommandFactory, Parser};
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
        let invalid = |message: String| Err(usage_error(name, ErrorKind::ValueValidation, message));
        if let Some(Command::Whatif(args)) = &self.command
            && let Err(message) = args.fixes()
        {
            return invalid(message);
        }
        if let Some(Command::Headroom(args)) = &self.command
            && let Err(message) = args.minimums()
        {
            return invalid(message);
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

    /// What to open and how: the REPORT given (after the subcommand, or before it) and the
    /// options in effect — the subcommand's, else those given before it, else the defaults.
    pub fn open_args(&self) -> OpenArgs {
        let none = (Shown::default(), Colour::default(), Opened::default(), Linked::default());
        let (shown, colour, opened, linked) = match &self.command {
            Some(Command::Explain(a)) => (&a.shown, &a.colour, &a.opened, &a.linked),
            Some(Command::Whatif(a)) => (&a.shown, &none.1, &a.opened, &none.3),
            Some(Command::Headroom(a)) => (&a.shown, &none.1, &a.opened, &none.3),
            Some(Command::Diff(a)) => (&a.shown, &a.colour, &none.2, &none.3),
            Some(Command::Mcp) | None => (&none.0, &none.1, &none.2, &none.3),
        };
        let report = match (&self.command, self.command.as_ref().and_then(Command::target)) {
            (Some(Command::Diff(args)), _) => Some(args.after.clone()),
            (_, Some(target)) => target.report.clone().or_else(|| self.report.clone()),
            (Some(_), None) => self.report.clone(),
            // Beside `--compare`, the UI shows the later run.
            (None, None) => self.compare.clone().or_else(|| self.report.clone()),
        };
        let (top, o, l) = (&self.shown, &self.opened, &self.linked);
        OpenArgs {
            report,
            demo: opened.demo || o.demo,
            operation: opened.operation.or(o.operation),
            rank: shown.rank.or(top.rank).unwrap_or(0),
            hex: shown.hex || top.hex,
            perf: linked.perf.clone().or_else(|| l.perf.clone()),
            watch: linked.watch || l.watch,
            log: opened.log.clone().or_else(|| o.log.clone()),
            threads: opened.threads.or(o.threads),
            color: colour.color.or(self.colour.color).unwrap_or_default(),
        }
    }

    /// `--log PATH`: the run's log, beside the report or instead of one.
    pub fn log(&self) -> Option<PathBuf> {
        self.open_args().log
    }

    /// `--json`, after the subcommand that takes it.
    pub fn json(&self) -> bool {
        match &self.command {
            Some(Command::Diff(args)) => args.json,
            command => command.as_ref().and_then(Command::target).is_some_and(|t| t.json),
        }
    }
}
