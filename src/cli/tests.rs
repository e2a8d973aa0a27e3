//! The command line's forms: options before or after the subcommand, conflicts, usage errors.

use super::*;
use clap::{CommandFactory, Parser};

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
        assert_eq!(cli.open_args().color, ColorChoice::Never, "{args:?}");
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
    assert_eq!(cli.open_args().color, ColorChoice::Always);
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
    assert!(cli.json() && cli.open_args().hex);
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
    assert_eq!((cli.open_args().rank, cli.open_args().color), (1, ColorChoice::Never));
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
