//! `ttnn-tui`: parse the command line, open the report, then print or draw.

use std::io::{IsTerminal, Write};
use std::process::ExitCode;
use ttnn_tui::app::App;
use ttnn_tui::cli::{Cli, ColorChoice, OpenArgs};
use ttnn_tui::explain::{ExplainOptions, collect, render_json, render_text};
use ttnn_tui::report::linked::LinkedReports;
use ttnn_tui::report::perf::{PerfReport, default_perf_report};
use ttnn_tui::report::{MemoryReport, ReportSource, resolve_report};
use ttnn_tui::ui::theme::Theme;

fn main() -> ExitCode {
    let cli = Cli::parse_args();
    let tui = cli.command.is_none() && std::io::stdout().is_terminal();
    match run(&cli.open_args(), cli.json(), tui.then_some(cli.options.color)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure { message, code }) => {
            eprintln!("error: {message}");
            ExitCode::from(code)
        }
    }
}

/// A failure to report on stderr, with the exit code.
struct Failure {
    message: String,
    code: u8,
}

/// Prints the explanation, or draws the terminal UI when `tui` gives the colour choice.
fn run(open: &OpenArgs, json: bool, tui: Option<ColorChoice>) -> Result<(), Failure> {
    let report = open_report(open)?;
    for warning in &report.warnings {
        eprintln!("warning: {warning}: {}", report.source.display_path());
    }
    let linked = open_perf(open, &report)?;
    if let Some(color) = tui {
        return run_tui(&report, linked, open, color);
    }
    let options = ExplainOptions { operation: open.operation, hex: open.hex };
    let explanation = collect(&report, linked.as_ref(), &options).map_err(|id| Failure {
        message: format!("no operation {id} in this report: {}", report.source.display_path()),
        code: 1,
    })?;
    let text =
        if json { render_json(&report, &explanation, &options) } else { render_text(&report, &explanation, &options) };
    let mut stdout = std::io::stdout().lock();
    // A closed pipe (e.g. `| head`) is not an error worth a message.
    let _ = stdout.write_all(text.as_bytes()).and_then(|()| stdout.flush());
    Ok(())
}

fn open_report(open: &OpenArgs) -> Result<MemoryReport, Failure> {
    let fail = |e: ttnn_tui::report::ReportError| Failure { message: e.to_string(), code: 1 };
    let source = if open.demo { ReportSource::Demo } else { resolve_report(open.report.as_deref()).map_err(fail)? };
    MemoryReport::open(&source, open.rank).map_err(fail)
}

/// The terminal UI; everything that can fail without a terminal is checked before touching it.
fn run_tui(
    report: &MemoryReport,
    linked: Option<LinkedReports>,
    open: &OpenArgs,
    color: ColorChoice,
) -> Result<(), Failure> {
    if let Some(id) = open.operation
        && report.operation_index(id).is_none()
    {
        let path = report.source.display_path();
        return Err(Failure { message: format!("no operation {id} in this report: {path}"), code: 1 });
    }
    let theme = Theme::choose(color, std::env::var_os("NO_COLOR").as_deref());
    color_eyre::install().map_err(|e| Failure { message: e.to_string(), code: 1 })?;
    let mut app = App::new(report, theme, open.hex, open.operation);
    app.set_perf(linked);
    ttnn_tui::tui::run(report, app).map_err(|e| Failure { message: format!("terminal: {e}"), code: 1 })
}

/// Opens the performance report: `--perf`, else the embedded demo one with `--demo`, else (no
/// REPORT given) the newest one under the profiler's default root, which linking then accepts or
/// not. A named report that cannot be read is an error; one found by looking around is skipped
/// with a warning.
fn open_perf(open: &OpenArgs, report: &MemoryReport) -> Result<Option<LinkedReports>, Failure> {
    let fail = |message: String| Failure { message, code: 1 };
    let perf = match (&open.perf, open.report.is_none() && !open.demo) {
        (Some(path), _) => PerfReport::open(path).map_err(|e| fail(e.to_string()))?,
        (None, _) if open.demo => PerfReport::demo().map_err(|e| fail(e.to_string()))?,
        (None, true) => match default_perf_report().map(|path| PerfReport::open(&path)) {
            Some(Ok(perf)) => perf,
            Some(Err(e)) => {
                eprintln!("warning: skipping the newest performance report: {e}");
                return Ok(None);
            }
            None => return Ok(None),
        },
        (None, false) => return Ok(None),
    };
    if perf.ragged_rows > 0 {
        let (n, path) =
            (perf.ragged_rows, ttnn_tui::analysis::sanitize::sanitize_line(&perf.path.display().to_string()));
        let rows = if n == 1 { "row has" } else { "rows have" };
        eprintln!("warning: {n} {rows} missing or extra cells, read as far as they go: {path}");
    }
    LinkedReports::new(report, perf).map(Some).map_err(|e| fail(format!("{e}: {}", report.source.display_path())))
}
