//! From the command line to a front end: the terminal UI, `explain`, or one of the prints.

use super::command_line::Cli;
use super::inputs::{Failure, open_before, open_perf, open_report, perf_source, read_log};
use super::options::{ColorChoice, OpenArgs};
use super::prints::{diff, explain_log, headroom, mcp, what_if};
use super::subcommands::{Command, ExplainArgs};
use crate::explain::{
    ExplainOptions, FollowEnd, collect, read_late_beside, read_peaks_beside, render_text, write_json,
};
use crate::report::perf::linked::LinkedReports;
use crate::report::perf::perf_report::PerfSource;
use crate::report::{MemoryReport, ReportError, resolve_report};
use crate::ui::Theme;
use std::io::{BufWriter, IsTerminal, Write};
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

/// Runs what the command line asks for and gives the process's exit code.
pub fn run(cli: &Cli) -> ExitCode {
    return_freed_memory();
    if let Some(Command::Mcp) = cli.command {
        return mcp(cli);
    }
    let open = cli.open_args();
    let no_color = std::env::var_os("NO_COLOR");
    let colours = open.color.colours_print(no_color.as_deref(), std::io::stdout().is_terminal());
    if let Some(log) = &open.log
        && !matches!(cli.command, Some(Command::Whatif(_)))
        && log_alone(&open, cli.command.is_some())
    {
        return explain_log(log, cli.json(), open.hex, colours);
    }
    // `diff`, and `--compare` printed rather than drawn.
    let compared = cli.compared();
    if let Some(runs) = compared.as_ref().filter(|_| cli.command.is_some() || !std::io::stdout().is_terminal()) {
        return diff(runs, cli, colours);
    }
    let explain = match &cli.command {
        Some(Command::Whatif(args)) => return what_if(&open, args),
        Some(Command::Headroom(args)) => return headroom(&open, args),
        Some(Command::Diff(_)) => return diff(compared.as_ref().expect("diff names two runs"), cli, colours),
        Some(Command::Explain(args)) => Some(args),
        Some(Command::Mcp) => return mcp(cli),
        None => None,
    };
    let tui = cli.command.is_none() && std::io::stdout().is_terminal();
    let before = compared.as_ref().map(|(before, _)| before.as_path());
    match open_and_show(&open, explain, (tui.then_some(open.color), before), colours) {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) => failure.exit(),
    }
}

/// Whether `--log` is explained alone: `explain --log` without a REPORT; at the top level
/// (`ttnn-tui --log x.log`), only when no report is found either, else the newest report is
/// opened with the log beside it.
fn log_alone(open: &OpenArgs, explain: bool) -> bool {
    open.report.is_none() && !open.demo && (explain || resolve_report(None).is_err())
}

/// Has glibc give freed memory back to the system: blocks of 4 MiB or more mapped apart (and
/// unmapped when freed), the heap trimmed past 16 MiB free at its top. By default glibc raises
/// both bars to the largest block freed so far (up to 32 and 64 MiB): a report's long graph,
/// its pictures and replays free tens of MB between one failure's questions and the next, and
/// the process kept them (graph-300k: 206 MB at most instead of 183 MB, docs/performance.md).
fn return_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt sets one of the allocator's tunables under the allocator's own lock.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 4 << 20);
        libc::mallopt(libc::M_TRIM_THRESHOLD, 16 << 20);
    }
}

/// Prints the explanation (its text coloured when `colours`), or draws the terminal UI when `tui`
/// gives the colour choice (compared with `before` when given).
fn open_and_show(
    open: &OpenArgs,
    explain: Option<&ExplainArgs>,
    (tui, before): (Option<ColorChoice>, Option<&std::path::Path>),
    colours: bool,
) -> Result<(), Failure> {
    let flag = |f: fn(&ExplainArgs) -> bool| explain.is_some_and(f);
    // Ctrl-C, SIGTERM and SIGHUP end `--follow` quietly, also while it waits for the report.
    let stop = match flag(|a| a.follow) {
        true => Some(stop_on_signals()?),
        false => None,
    };
    let Some(mut report) = open_report(open, flag(|a| a.follow), stop.as_deref())? else { return Ok(()) };
    for warning in &report.warnings {
        eprintln!("warning: {warning}: {}", report.source.display_path());
    }
    if let Some(path) = &open.log {
        // An unreadable log is a usage error, as for `explain --log`.
        let log = read_log(path).map_err(|message| Failure { message, code: 2 })?;
        report.join_log(Arc::new(log));
    }
    let options = ExplainOptions { operation: open.operation, hex: open.hex, color: colours };
    if let Some(stop) = &stop {
        return follow(&mut report, &options, stop);
    }
    let perf = perf_source(open)?;
    if let Some(color) = tui {
        return run_tui(report, perf, open, (color, before));
    }
    // What the report could not give, said with its path.
    let fail = |e: ReportError| Failure { message: format!("{e}: {}", report.source.display_path()), code: 1 };
    let linked = open_perf(perf)?.map(|perf| LinkedReports::new(&report, perf)).transpose().map_err(fail)?;
    let mut explanation = collect(&report, linked.as_ref(), &options).map_err(|id| Failure {
        message: format!("no operation {id} in this report: {}", report.source.display_path()),
        code: 1,
    })?;
    explanation.add_headroom(&report, &options).map_err(fail)?;
    // The operations' entries are built while the run is read on the worker pool (else as
    // they are written).
    let mut ahead = None;
    if flag(|a| a.peak) {
        let mut first = || ahead = Some(explanation.entries_ahead(&report, &options));
        explanation.peaks = Some(read_peaks_beside(&report, &mut first).map_err(fail)?);
    }
    if flag(|a| a.late) {
        let mut first = || ahead = ahead.take().or_else(|| Some(explanation.entries_ahead(&report, &options)));
        explanation.late = Some(read_late_beside(&report, &mut first).map_err(fail)?);
    }
    if let Some(built) = ahead {
        explanation.keep_entries(built);
    }
    // Not locked: a failure's memory is written on another thread while its fixes replay.
    let mut stdout = BufWriter::new(std::io::stdout());
    let written = if flag(|a| a.target.json) {
        // Written as it is built, one operation at a time.
        write_json(&report, &explanation, &options, &mut stdout)
    } else {
        stdout.write_all(render_text(&report, &explanation, &options).as_bytes())
    };
    // A closed pipe (e.g. `| head`) is not an error worth a message.
    let _ = written.and_then(|()| stdout.flush());
    // A section the database could not give was said in its place; the run fails after it.
    let unread = explanation.read_errors();
    let path = crate::analysis::sanitize::sanitize_line(&report.source.display_path());
    for line in &unread[..unread.len().saturating_sub(1)] {
        eprintln!("error: {line}: {path}");
    }
    match unread.last() {
        Some(line) => Err(Failure { message: format!("{line}: {path}"), code: 1 }),
        None => Ok(()),
    }
}

/// A flag that Ctrl-C, SIGTERM and SIGHUP set (`--follow` ends quietly on them).
fn stop_on_signals() -> Result<Arc<AtomicBool>, Failure> {
    let stop = Arc::new(AtomicBool::new(false));
    #[cfg(unix)]
    for signal in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM, signal_hook::consts::SIGHUP] {
        signal_hook::flag::register(signal, stop.clone())
            .map_err(|e| Failure { message: format!("cannot wait for Ctrl-C ({e})"), code: 1 })?;
    }
    Ok(stop)
}

/// `explain --follow`: Ctrl-C, SIGTERM, SIGHUP (`stop`) and a closed pipe all end it quietly with 0.
fn follow(report: &mut MemoryReport, options: &ExplainOptions, stop: &AtomicBool) -> Result<(), Failure> {
    let interval = std::time::Duration::from_millis(500);
    match crate::explain::follow(report, options, &mut std::io::stdout().lock(), stop, interval) {
        Ok(()) | Err(FollowEnd::Output(_)) => Ok(()),
        Err(FollowEnd::Report(e @ crate::report::ReportError::Open { .. })) => {
            Err(Failure { message: e.to_string(), code: 1 })
        }
        Err(FollowEnd::Report(e)) => {
            Err(Failure { message: format!("{e}: {}", report.source.display_path()), code: 1 })
        }
    }
}

/// The terminal UI; everything that can fail without a terminal is checked before touching it.
fn run_tui(
    report: MemoryReport,
    perf: Option<PerfSource>,
    open: &OpenArgs,
    (color, before): (ColorChoice, Option<&std::path::Path>),
) -> Result<(), Failure> {
    if let Some(id) = open.operation
        && report.operation_index(id).is_none()
    {
        let path = report.source.display_path();
        return Err(Failure { message: format!("no operation {id} in this report: {path}"), code: 1 });
    }
    let theme = Theme::new(color.plain(std::env::var_os("NO_COLOR").as_deref()));
    color_eyre::install().map_err(|e| Failure { message: e.to_string(), code: 1 })?;
    let before = before.map(|path| open_before(path, open.rank)).transpose()?;
    let mut app = crate::tui::app_for(&report, open.hex, open.operation);
    let mut session = crate::tui::Session::new(report);
    if let Some(before) = before {
        session.compare_with(before, &mut app);
    }
    crate::tui::run(&mut session, app, theme, perf).map_err(|e| Failure { message: format!("terminal: {e}"), code: 1 })
}
