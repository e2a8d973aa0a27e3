//! `ttnn-tui`: parse the command line, open the report, then print or draw.

use std::io::{BufWriter, IsTerminal, Write};
use std::process::ExitCode;
use ttnn_tui::cli::{Cli, ColorChoice, Command, ExplainArgs, OpenArgs};
use ttnn_tui::explain::{ExplainOptions, FollowEnd, collect, read_late, read_peaks, render_text, write_json};
use ttnn_tui::report::linked::LinkedReports;
use ttnn_tui::report::perf::{PerfReport, PerfSource, default_perf_report};
use ttnn_tui::report::{MemoryReport, ReportSource, resolve_report};
use ttnn_tui::ui::Theme;

fn main() -> ExitCode {
    let cli = Cli::parse_args();
    let open = cli.open_args();
    if let Some(log) = cli.log()
        && log_alone(&open, cli.command.is_some())
    {
        return explain_log(log, cli.json(), cli.options.hex);
    }
    let explain = cli.command.as_ref().map(|Command::Explain(args)| args);
    let tui = cli.command.is_none() && std::io::stdout().is_terminal();
    match run(&open, explain, tui.then_some(cli.options.color)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure { message, code }) => {
            eprintln!("error: {message}");
            ExitCode::from(code)
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
fn explain_log(path: &std::path::Path, json: bool, hex: bool) -> ExitCode {
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
        ttnn_tui::explain::render_log_text(&findings, hex)
    };
    let mut stdout = std::io::stdout().lock();
    let _ = stdout.write_all(text.as_bytes()).and_then(|()| stdout.flush());
    if findings.failures.is_empty() { ExitCode::from(1) } else { ExitCode::SUCCESS }
}

/// A failure to report on stderr, with the exit code.
struct Failure {
    message: String,
    code: u8,
}

/// Prints the explanation, or draws the terminal UI when `tui` gives the colour choice.
fn run(open: &OpenArgs, explain: Option<&ExplainArgs>, tui: Option<ColorChoice>) -> Result<(), Failure> {
    let flag = |f: fn(&ExplainArgs) -> bool| explain.is_some_and(f);
    let mut report = open_report(open, flag(|a| a.follow))?;
    for warning in &report.warnings {
        eprintln!("warning: {warning}: {}", report.source.display_path());
    }
    if let Some(path) = &open.log {
        // An unreadable log is a usage error, as for `explain --log`.
        let log = read_log(path).map_err(|message| Failure { message, code: 2 })?;
        report.join_log(std::sync::Arc::new(log));
    }
    if flag(|a| a.follow) {
        return follow(&mut report, open.hex);
    }
    let perf = perf_source(open)?;
    if let Some(color) = tui {
        return run_tui(report, perf, open, color);
    }
    let linked = open_perf(perf)?
        .map(|perf| LinkedReports::new(&report, perf))
        .transpose()
        .map_err(|e| Failure { message: format!("{e}: {}", report.source.display_path()), code: 1 })?;
    let options = ExplainOptions { operation: open.operation, hex: open.hex };
    let mut explanation = collect(&report, linked.as_ref(), &options).map_err(|id| Failure {
        message: format!("no operation {id} in this report: {}", report.source.display_path()),
        code: 1,
    })?;
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
    Ok(())
}

fn open_report(open: &OpenArgs, follow: bool) -> Result<MemoryReport, Failure> {
    let fail = |e: ttnn_tui::report::ReportError| Failure { message: e.to_string(), code: 1 };
    let source = if open.demo { ReportSource::Demo } else { resolve_report(open.report.as_deref()).map_err(fail)? };
    if open.watch || follow {
        return MemoryReport::open_watched(&source, open.rank).map_err(fail);
    }
    MemoryReport::open(&source, open.rank).map_err(fail)
}

/// `explain --follow`: Ctrl-C, SIGTERM, SIGHUP and a closed pipe all end it quietly with 0.
fn follow(report: &mut MemoryReport, hex: bool) -> Result<(), Failure> {
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    #[cfg(unix)]
    for signal in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM, signal_hook::consts::SIGHUP] {
        signal_hook::flag::register(signal, stop.clone())
            .map_err(|e| Failure { message: format!("cannot wait for Ctrl-C ({e})"), code: 1 })?;
    }
    let interval = std::time::Duration::from_millis(500);
    match ttnn_tui::explain::follow(report, hex, &mut std::io::stdout().lock(), &stop, interval) {
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
fn run_tui(report: MemoryReport, perf: Option<PerfSource>, open: &OpenArgs, color: ColorChoice) -> Result<(), Failure> {
    if let Some(id) = open.operation
        && report.operation_index(id).is_none()
    {
        let path = report.source.display_path();
        return Err(Failure { message: format!("no operation {id} in this report: {path}"), code: 1 });
    }
    let theme = Theme::new(color.plain(std::env::var_os("NO_COLOR").as_deref()));
    color_eyre::install().map_err(|e| Failure { message: e.to_string(), code: 1 })?;
    let app = ttnn_tui::tui::app_for(&report, open.hex, open.operation);
    let mut session = ttnn_tui::tui::Session::new(report);
    ttnn_tui::tui::run(&mut session, app, theme, perf)
        .map_err(|e| Failure { message: format!("terminal: {e}"), code: 1 })
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
