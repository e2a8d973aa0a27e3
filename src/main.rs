//! `ttnn-tui`: parse the command line, open the report, then print or draw.

use std::io::{BufWriter, IsTerminal, Write};
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use ttnn_tui::cli::{Cli, ColorChoice, Command, ExplainArgs, HeadroomArgs, OpenArgs, WhatifArgs};
use ttnn_tui::explain::{ExplainOptions, FollowEnd, collect, read_late, read_peaks, render_text, write_json};
use ttnn_tui::report::pending::unwritten_report;
use ttnn_tui::report::perf::linked::LinkedReports;
use ttnn_tui::report::perf::perf_report::{PerfReport, PerfSource, default_perf_report};
use ttnn_tui::report::{MemoryReport, ReportSource, locate_report, resolve_report};
use ttnn_tui::ui::Theme;

fn main() -> ExitCode {
    let cli = Cli::parse_args();
    if let Some(Command::Mcp) = cli.command {
        return mcp(&cli);
    }
    let no_color = std::env::var_os("NO_COLOR");
    let colours = cli.options().color.colours_print(no_color.as_deref(), std::io::stdout().is_terminal());
    let open = cli.open_args();
    if let Some(log) = cli.log()
        && !matches!(cli.command, Some(Command::Whatif(_)))
        && log_alone(&open, cli.command.is_some())
    {
        return explain_log(&log, cli.json(), cli.options().hex, colours);
    }
    // `diff`, and `--compare` printed rather than drawn.
    let compared = cli.compared();
    if let Some(runs) = compared.as_ref().filter(|_| cli.command.is_some() || !std::io::stdout().is_terminal()) {
        return diff(runs, &cli, colours);
    }
    let explain = match &cli.command {
        Some(Command::Whatif(args)) => return what_if(&cli.open_args(), args),
        Some(Command::Headroom(args)) => return headroom(&cli.open_args(), args),
        Some(Command::Diff(_)) => return diff(compared.as_ref().expect("diff names two runs"), &cli, colours),
        Some(Command::Explain(args)) => Some(args),
        Some(Command::Mcp) => return mcp(&cli),
        None => None,
    };
    let tui = cli.command.is_none() && std::io::stdout().is_terminal();
    let before = compared.as_ref().map(|(before, _)| before.as_path());
    match run(&open, explain, (tui.then_some(cli.options().color), before), colours) {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure { message, code }) => {
            eprintln!("error: {message}");
            ExitCode::from(code)
        }
    }
}

/// `mcp`: serves until the client closes stdin (0); 2 when a report option was given (the tools
/// take their report with each call), 1 when the server cannot start. Nothing but protocol is
/// written to stdout.
fn mcp(cli: &Cli) -> ExitCode {
    let open = cli.open_args();
    let any = open.report.is_some() || open.demo || open.log.is_some() || open.perf.is_some();
    if any || open.operation.is_some() || open.rank != 0 || open.hex || open.watch {
        eprintln!("error: `ttnn-tui mcp` takes no report or option: each tool call names its report");
        return ExitCode::from(2);
    }
    match ttnn_tui::mcp::serve_stdio() {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::from(1)
        }
    }
}

/// Whether `--log` is explained alone: `explain --log` without a REPORT; at the top level
/// (`ttnn-tui --log x.log`), only when no report is found either, else the newest report is
/// opened with the log beside it.
fn log_alone(open: &OpenArgs, explain: bool) -> bool {
    open.report.is_none() && !open.demo && (explain || resolve_report(None).is_err())
}

/// Reads and scans a log (`-`: standard input); the error says why it cannot be read.
fn read_log(path: &std::path::Path) -> Result<ttnn_tui::report::LogBeside, String> {
    let name = path.display().to_string();
    let findings = if name == "-" {
        ttnn_tui::explain::scan_log(std::io::stdin().lock())
    } else {
        std::fs::File::open(path).and_then(|file| ttnn_tui::explain::scan_log(std::io::BufReader::new(file)))
    };
    findings
        .map(|findings| ttnn_tui::report::LogBeside { path: name.clone(), findings })
        .map_err(|e| format!("cannot read the log ({e}): {}", ttnn_tui::analysis::sanitize::sanitize_line(&name)))
}

/// `explain --log`: 0 when a failure was explained, 1 when the log holds none, 2 when it cannot
/// be read (as for a usage error: nothing was explained).
fn explain_log(path: &std::path::Path, json: bool, hex: bool, color: bool) -> ExitCode {
    let (name, findings) = match read_log(path) {
        Ok(log) => (log.path, log.findings),
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let text = if json {
        ttnn_tui::explain::render_log_json(&findings, &name, hex)
    } else {
        ttnn_tui::explain::render_log_text(&findings, hex, color)
    };
    let mut stdout = std::io::stdout().lock();
    let _ = stdout.write_all(text.as_bytes()).and_then(|()| stdout.flush());
    if findings.failures.is_empty() { ExitCode::from(1) } else { ExitCode::SUCCESS }
}

/// `whatif`: 0 when the replay answered (whatever it says), 1 when the report or the operation
/// cannot be read, 2 for usage errors (clap's, before this).
fn what_if(open: &OpenArgs, args: &WhatifArgs) -> ExitCode {
    let answered = (|| {
        let Some(mut report) = open_report(open, false, None)? else { return Ok(String::new()) };
        if let Some(path) = &open.log {
            // A release that records no message (0.67–0.78): the log's failure is replayed.
            let log = read_log(path).map_err(|message| Failure { message, code: 2 })?;
            report.join_log(Arc::new(log));
        }
        let fixes = args.fixes().map_err(|e| Failure { message: e.to_string(), code: 2 })?;
        let answer = ttnn_tui::answer::what_if(&report, open.operation, &fixes, args.from_start, open.hex)
            .map_err(|r| Failure { message: r.message, code: r.code })?;
        Ok(if args.json {
            ttnn_tui::explain::render_whatif_json(&answer)
        } else {
            ttnn_tui::explain::render_whatif_text(&answer)
        })
    })();
    match answered {
        Ok(text) => {
            let mut stdout = std::io::stdout().lock();
            let _ = stdout.write_all(text.as_bytes()).and_then(|()| stdout.flush());
            ExitCode::SUCCESS
        }
        Err(Failure { message, code }) => {
            eprintln!("error: {message}");
            ExitCode::from(code)
        }
    }
}

/// `headroom`: 0 when every headroom is at least its `--min`, 1 when one is below, 2 when the
/// report cannot be read.
fn headroom(open: &OpenArgs, args: &HeadroomArgs) -> ExitCode {
    let answered = (|| {
        let opened = open_report(open, false, None).map_err(|f| Failure { code: 2, ..f })?;
        let Some(report) = opened else { return Ok((String::new(), false)) };
        let minimums = args.minimums().map_err(|e| Failure { message: e.to_string(), code: 2 })?;
        let fail = |e: ttnn_tui::report::ReportError| Failure {
            message: format!("{e}: {}", report.source.display_path()),
            code: 2,
        };
        let answer = ttnn_tui::answer::read_headroom(&report).map_err(fail)?;
        let below = answer.below(&minimums).next().is_some();
        let text = if args.json {
            serde_json::to_string_pretty(&answer).unwrap_or_default() + "\n"
        } else {
            ttnn_tui::explain::render_headroom_text(&answer, &minimums)
        };
        Ok((text, below))
    })();
    match answered {
        Ok((text, below)) => {
            let mut stdout = std::io::stdout().lock();
            let _ = stdout.write_all(text.as_bytes()).and_then(|()| stdout.flush());
            if below { ExitCode::from(1) } else { ExitCode::SUCCESS }
        }
        Err(Failure { message, code }) => {
            eprintln!("error: {message}");
            ExitCode::from(code)
        }
    }
}

/// `diff` (and `--compare` when not drawn): 0 when both reports open (whatever changed), 2 when
/// one cannot be read.
fn diff((before, after): &(std::path::PathBuf, std::path::PathBuf), cli: &Cli, colours: bool) -> ExitCode {
    let options = ExplainOptions { operation: None, hex: cli.options().hex, color: colours };
    match ttnn_tui::explain::diff_reports((before, after), cli.options().rank, cli.json(), &options) {
        Ok((notes, text)) => {
            for note in notes {
                eprintln!("{note}");
            }
            let mut stdout = std::io::stdout().lock();
            let _ = stdout.write_all(text.as_bytes()).and_then(|()| stdout.flush());
            ExitCode::SUCCESS
        }
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::from(2)
        }
    }
}

/// A failure to report on stderr, with the exit code.
struct Failure {
    message: String,
    code: u8,
}

/// Prints the explanation (its text coloured when `colours`), or draws the terminal UI when `tui`
/// gives the colour choice (compared with `before` when given).
fn run(
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
        report.join_log(std::sync::Arc::new(log));
    }
    let options = ExplainOptions { operation: open.operation, hex: open.hex, color: colours };
    if let Some(stop) = &stop {
        return follow(&mut report, &options, stop);
    }
    let perf = perf_source(open)?;
    if let Some(color) = tui {
        return run_tui(report, perf, open, (color, before));
    }
    let linked = open_perf(perf)?
        .map(|perf| LinkedReports::new(&report, perf))
        .transpose()
        .map_err(|e| Failure { message: format!("{e}: {}", report.source.display_path()), code: 1 })?;
    let mut explanation = collect(&report, linked.as_ref(), &options).map_err(|id| Failure {
        message: format!("no operation {id} in this report: {}", report.source.display_path()),
        code: 1,
    })?;
    {
        let fail = |e| Failure { message: format!("{e}: {}", report.source.display_path()), code: 1 };
        explanation.add_headroom(&report, &options).map_err(fail)?;
    }
    if flag(|a| a.peak) {
        let fail = |e| Failure { message: format!("{e}: {}", report.source.display_path()), code: 1 };
        explanation.peaks = Some(read_peaks(&report).map_err(fail)?);
    }
    if flag(|a| a.late) {
        let fail = |e| Failure { message: format!("{e}: {}", report.source.display_path()), code: 1 };
        explanation.late = Some(read_late(&report).map_err(fail)?);
    }
    let mut stdout = BufWriter::new(std::io::stdout().lock());
    let written = if flag(|a| a.json) {
        // Written as it is built, one operation at a time.
        write_json(&report, &explanation, &options, &mut stdout)
    } else {
        stdout.write_all(render_text(&report, &explanation, &options).as_bytes())
    };
    // A closed pipe (e.g. `| head`) is not an error worth a message.
    let _ = written.and_then(|()| stdout.flush());
    // A section the database could not give was said in its place; the run fails after it.
    let unread = explanation.read_errors();
    let path = ttnn_tui::analysis::sanitize::sanitize_line(&report.source.display_path());
    for line in &unread[..unread.len().saturating_sub(1)] {
        eprintln!("error: {line}: {path}");
    }
    match unread.last() {
        Some(line) => Err(Failure { message: format!("{line}: {path}"), code: 1 }),
        None => Ok(()),
    }
}

/// Opens the report: the demo, or the one REPORT names (saying which when it is the newest of a
/// folder's reports). Watched (`--watch`, `--follow`), a report the run has not written yet is
/// waited for, saying so; none when `stop` is set meanwhile.
fn open_report(open: &OpenArgs, follow: bool, stop: Option<&AtomicBool>) -> Result<Option<MemoryReport>, Failure> {
    let fail = |e: ttnn_tui::report::ReportError| Failure { message: e.to_string(), code: 1 };
    if open.demo {
        return MemoryReport::open(&ReportSource::Demo, open.rank).map(Some).map_err(fail);
    }
    let watched = open.watch || follow;
    let mut said_waiting = false;
    loop {
        let opened = locate_report(open.report.as_deref()).and_then(|found| {
            let report = match watched {
                true => MemoryReport::open_watched(&found.source, open.rank)?,
                false => MemoryReport::open(&found.source, open.rank)?,
            };
            Ok((report, found))
        });
        let error = match opened {
            Ok((mut report, found)) => {
                if let Some(note) = found.note() {
                    eprintln!("{note}");
                }
                if let Some(n) = open.threads {
                    report.set_threads(n as usize);
                }
                return Ok(Some(report));
            }
            Err(e) => e,
        };
        let Some(waiting) = watched.then(|| unwritten_report(open.report.as_deref())).flatten() else {
            return Err(fail(error));
        };
        if !std::mem::replace(&mut said_waiting, true) {
            eprintln!("{waiting}");
        }
        for _ in 0..10 {
            if stop.is_some_and(|s| s.load(Ordering::Relaxed)) {
                return Ok(None);
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
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
    match ttnn_tui::explain::follow(report, options, &mut std::io::stdout().lock(), stop, interval) {
        Ok(()) | Err(FollowEnd::Output(_)) => Ok(()),
        Err(FollowEnd::Report(e @ ttnn_tui::report::ReportError::Open { .. })) => {
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
    let mut app = ttnn_tui::tui::app_for(&report, open.hex, open.operation);
    let mut session = ttnn_tui::tui::Session::new(report);
    if let Some(before) = before {
        session.compare_with(before, &mut app);
    }
    ttnn_tui::tui::run(&mut session, app, theme, perf)
        .map_err(|e| Failure { message: format!("terminal: {e}"), code: 1 })
}

/// The earlier run of `--compare` (exit 2 when it cannot be read, as for `diff`).
fn open_before(path: &std::path::Path, rank: u32) -> Result<MemoryReport, Failure> {
    let (report, note) = ttnn_tui::answer::open_side(path, ttnn_tui::answer::Side::Before, rank)
        .map_err(|message| Failure { message, code: 2 })?;
    if let Some(note) = note {
        eprintln!("{note}");
    }
    Ok(report)
}

/// The performance report to open: `--perf`, else the embedded demo one with `--demo`, else (no
/// REPORT given) the newest one under the profiler's default root, which linking then accepts or
/// not. Only what can be checked without reading its rows is checked here: a named report that
/// fails is an error; one found by looking around is skipped with a warning.
fn perf_source(open: &OpenArgs) -> Result<Option<PerfSource>, Failure> {
    let fail = |e: ttnn_tui::report::ReportError| Failure { message: e.to_string(), code: 1 };
    Ok(match (&open.perf, open.report.is_none() && !open.demo) {
        (Some(path), _) => {
            PerfReport::check(path).map_err(fail)?;
            Some(PerfSource::Path(path.clone()))
        }
        (None, _) if open.demo => Some(PerfSource::Demo),
        (None, true) => match default_perf_report().map(|path| (PerfReport::check(&path), path)) {
            Some((Ok(_), path)) => Some(PerfSource::Path(path)),
            Some((Err(e), _)) => {
                eprintln!("warning: skipping the newest performance report: {e}");
                None
            }
            None => None,
        },
        (None, false) => None,
    })
}

/// Reads the performance report for `explain` (the terminal UI reads it on a worker thread).
fn open_perf(source: Option<PerfSource>) -> Result<Option<PerfReport>, Failure> {
    let Some(source) = source else { return Ok(None) };
    let perf = source.open().map_err(|e| Failure { message: e.to_string(), code: 1 })?;
    if perf.ragged_rows > 0 {
        let (n, path) =
            (perf.ragged_rows, ttnn_tui::analysis::sanitize::sanitize_line(&perf.path.display().to_string()));
        let rows = if n == 1 { "row has" } else { "rows have" };
        eprintln!("warning: {n} {rows} missing or extra cells, read as far as they go: {path}");
    }
    Ok(Some(perf))
}
