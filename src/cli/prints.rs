//! The print front ends that are not `explain`'s: `mcp`, `explain --log`, `whatif`, `headroom`
//! and `diff`, each with its exit code.

use super::command_line::Cli;
use super::inputs::{Failure, open_report, print, read_log};
use super::options::OpenArgs;
use super::subcommands::{HeadroomArgs, WhatifArgs};
use crate::explain::ExplainOptions;
use std::process::ExitCode;
use std::sync::Arc;

/// `mcp`: serves until the client closes stdin (0); 2 when a report option was given (the tools
/// take their report with each call), 1 when the server cannot start. Nothing but protocol is
/// written to stdout.
pub(crate) fn mcp(cli: &Cli) -> ExitCode {
    let open = cli.open_args();
    let any = open.report.is_some() || open.demo || open.log.is_some() || open.perf.is_some();
    if any || open.operation.is_some() || open.rank != 0 || open.hex || open.watch {
        eprintln!("error: `ttnn-tui mcp` takes no report or option: each tool call names its report");
        return ExitCode::from(2);
    }
    match crate::mcp::serve_stdio() {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => Failure { message, code: 1 }.exit(),
    }
}

/// `explain --log`: 0 when a failure was explained, 1 when the log holds none, 2 when it cannot
/// be read (as for a usage error: nothing was explained).
pub(crate) fn explain_log(path: &std::path::Path, json: bool, hex: bool, color: bool) -> ExitCode {
    let (name, findings) = match read_log(path) {
        Ok(log) => (log.path, log.findings),
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let text = if json {
        crate::explain::render_log_json(&findings, &name, hex)
    } else {
        crate::explain::render_log_text(&findings, hex, color)
    };
    print(&text);
    if findings.failures.is_empty() { ExitCode::from(1) } else { ExitCode::SUCCESS }
}

/// `whatif`: 0 when the replay answered (whatever it says), 1 when the report or the operation
/// cannot be read, 2 for usage errors (clap's, before this).
pub(crate) fn what_if(open: &OpenArgs, args: &WhatifArgs) -> ExitCode {
    let answered = (|| {
        let Some(mut report) = open_report(open, false, None)? else { return Ok(String::new()) };
        if let Some(path) = &open.log {
            // A release that records no message (0.67–0.78): the log's failure is replayed.
            let log = read_log(path).map_err(|message| Failure { message, code: 2 })?;
            report.join_log(Arc::new(log));
        }
        let fixes = args.fixes().map_err(|message| Failure { message, code: 2 })?;
        let answer = crate::answer::what_if(&report, open.operation, &fixes, args.from_start, open.hex)
            .map_err(|r| Failure { message: r.message, code: r.code })?;
        Ok(if args.target.json {
            crate::explain::render_whatif_json(&answer)
        } else {
            crate::explain::render_whatif_text(&answer)
        })
    })();
    match answered {
        Ok(text) => {
            print(&text);
            ExitCode::SUCCESS
        }
        Err(failure) => Failure::exit(failure),
    }
}

/// `headroom`: 0 when every headroom is at least its `--min`, 1 when one is below, 2 when the
/// report cannot be read.
pub(crate) fn headroom(open: &OpenArgs, args: &HeadroomArgs) -> ExitCode {
    let answered = (|| {
        let opened = open_report(open, false, None).map_err(|f| Failure { code: 2, ..f })?;
        let Some(report) = opened else { return Ok((String::new(), false)) };
        let minimums = args.minimums().map_err(|message| Failure { message, code: 2 })?;
        let fail = |e: crate::report::ReportError| Failure {
            message: format!("{e}: {}", report.source.display_path()),
            code: 2,
        };
        let answer = crate::answer::read_headroom(&report).map_err(fail)?;
        let below = answer.below(&minimums).next().is_some();
        let text = if args.target.json {
            serde_json::to_string_pretty(&answer).unwrap_or_default() + "\n"
        } else {
            crate::explain::render_headroom_text(&answer, &minimums)
        };
        Ok((text, below))
    })();
    match answered {
        Ok((text, below)) => {
            print(&text);
            if below { ExitCode::from(1) } else { ExitCode::SUCCESS }
        }
        Err(failure) => Failure::exit(failure),
    }
}

/// `diff` (and `--compare` when not drawn): 0 when both reports open (whatever changed), 2 when
/// one cannot be read.
pub(crate) fn diff((before, after): &(std::path::PathBuf, std::path::PathBuf), cli: &Cli, colours: bool) -> ExitCode {
    let options = ExplainOptions { operation: None, hex: cli.open_args().hex, color: colours };
    match crate::explain::diff_reports((before, after), cli.open_args().rank, cli.json(), &options) {
        Ok((notes, text)) => {
            for note in notes {
                eprintln!("{note}");
            }
            print(&text);
            ExitCode::SUCCESS
        }
        Err(message) => Failure { message, code: 2 }.exit(),
    }
}
