//! What a front end opens before it answers: the report (waited for when watched), its log and
//! its performance report; a failure says what could not be read, with the exit code.

use super::options::OpenArgs;
use crate::report::pending::unwritten_report;
use crate::report::perf::perf_report::{PerfReport, PerfSource, default_perf_report};
use crate::report::{MemoryReport, ReportSource, locate_report};
use std::io::Write;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};

/// A failure to report on stderr, with the exit code.
pub(crate) struct Failure {
    pub(crate) message: String,
    pub(crate) code: u8,
}

impl Failure {
    /// Says it on stderr (`error: …`) and gives its exit code.
    pub(crate) fn exit(self) -> ExitCode {
        eprintln!("error: {}", self.message);
        ExitCode::from(self.code)
    }
}

/// Writes an answer to stdout; a closed pipe (e.g. `| head`) is not an error worth a message.
pub(crate) fn print(text: &str) {
    let mut stdout = std::io::stdout().lock();
    let _ = stdout.write_all(text.as_bytes()).and_then(|()| stdout.flush());
}

/// Reads and scans a log (`-`: standard input); the error says why it cannot be read.
pub(crate) fn read_log(path: &std::path::Path) -> Result<crate::report::LogBeside, String> {
    let name = path.display().to_string();
    let findings = if name == "-" {
        crate::explain::scan_log(std::io::stdin().lock())
    } else {
        std::fs::File::open(path).and_then(|file| crate::explain::scan_log(std::io::BufReader::new(file)))
    };
    findings
        .map(|findings| crate::report::LogBeside { path: name.clone(), findings })
        .map_err(|e| format!("cannot read the log ({e}): {}", crate::analysis::sanitize::sanitize_line(&name)))
}

/// Opens the report: the demo, or the one REPORT names (saying which when it is the newest of a
/// folder's reports). Watched (`--watch`, `--follow`), a report the run has not written yet is
/// waited for, saying so; none when `stop` is set meanwhile.
pub(crate) fn open_report(
    open: &OpenArgs,
    follow: bool,
    stop: Option<&AtomicBool>,
) -> Result<Option<MemoryReport>, Failure> {
    let fail = |e: crate::report::ReportError| Failure { message: e.to_string(), code: 1 };
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

/// The earlier run of `--compare` (exit 2 when it cannot be read, as for `diff`).
pub(crate) fn open_before(path: &std::path::Path, rank: u32) -> Result<MemoryReport, Failure> {
    let (report, note) = crate::answer::open_side(path, crate::answer::Side::Before, rank)
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
pub(crate) fn perf_source(open: &OpenArgs) -> Result<Option<PerfSource>, Failure> {
    let fail = |e: crate::report::ReportError| Failure { message: e.to_string(), code: 1 };
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
pub(crate) fn open_perf(source: Option<PerfSource>) -> Result<Option<PerfReport>, Failure> {
    let Some(source) = source else { return Ok(None) };
    let perf = source.open().map_err(|e| Failure { message: e.to_string(), code: 1 })?;
    if perf.ragged_rows > 0 {
        let (n, path) = (perf.ragged_rows, crate::analysis::sanitize::sanitize_line(&perf.path.display().to_string()));
        let rows = if n == 1 { "row has" } else { "rows have" };
        eprintln!("warning: {n} {rows} missing or extra cells, read as far as they go: {path}");
    }
    Ok(Some(perf))
}
