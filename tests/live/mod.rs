//! Driving a writer process for tests of reports still being written: the test binary, run
//! again with `WRITER_DB` set, becomes the writer (`support::live_writer`). Test files that
//! include this module also declare `#[test] fn live_writer() { live::writer_entry() }`.
// Each test file uses a part of it.
#![allow(dead_code)]

use crate::support::live_writer::serve;
use crate::support::{Op, ReportBuilder, Schema, TempDir};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

/// The database a writer process writes (its presence makes the test binary a writer).
const WRITER_DB: &str = "TTNN_TUI_TEST_WRITER_DB";
/// The journal mode the writer process sets.
const WRITER_JOURNAL: &str = "TTNN_TUI_TEST_WRITER_JOURNAL";
/// How long anything a test waits for may take.
pub const PATIENCE: Duration = Duration::from_secs(30);

/// The writer process's work when `WRITER_DB` is set; otherwise a check of the writer itself:
/// what it acknowledges is what it committed, in the journal mode asked for.
pub fn writer_entry() {
    if let Some(db) = std::env::var_os(WRITER_DB) {
        let mode = std::env::var(WRITER_JOURNAL).expect("a journal mode");
        let mut out = std::io::stdout().lock();
        // The harness has written `test live_writer ... ` without ending the line.
        writeln!(out).expect("stdout");
        serve(Path::new(&db), &mode, std::io::stdin().lock(), out);
        return;
    }
    let dir = TempDir::new("writer-check");
    let db = initial().write_to(dir.path());
    let mut out = Vec::new();
    let commands = "op 4 ttnn.add\nfail 5 ttnn.conv2d\nerror 4 ttnn.add\nquit\n";
    serve(&db, "WAL", commands.as_bytes(), &mut out);
    let acks = "ready wal\nack op 4 ttnn.add\nack fail 5 ttnn.conv2d\nack error 4 ttnn.add\n";
    assert_eq!(String::from_utf8(out).unwrap(), acks);
    let conn = rusqlite::Connection::open(&db).unwrap();
    let count = |sql: &str| conn.query_row(sql, [], |r| r.get::<_, i64>(0)).unwrap();
    assert_eq!(count("SELECT count(*) FROM operations"), 5);
    assert_eq!(count("SELECT count(*) FROM errors WHERE operation_id IN (4, 5)"), 2);
    assert_eq!(count("SELECT count(*) FROM captured_graph WHERE operation_id = 5"), 1);
    assert_eq!(count("SELECT count(*) FROM operations WHERE operation_id = 5 AND duration IS NULL"), 1);
    let mode: String = conn.query_row("PRAGMA journal_mode", [], |r| r.get(0)).unwrap();
    assert_eq!(mode, "wal");
}

/// A report of three completed operations, as a run leaves it after its first operations.
pub fn initial() -> ReportBuilder {
    ReportBuilder::new(Schema::V2)
        .report_name("live")
        .operation(Op::new(1, "ttnn.to_device").duration(0.001))
        .operation(Op::new(2, "ttnn.add").duration(0.001))
        .operation(Op::new(3, "ttnn.matmul").duration(0.001))
}

/// Lines a child writes on a pipe, read on a thread.
pub struct Lines(Receiver<String>);

impl Lines {
    /// Reads `from` on a thread until it closes.
    pub fn read(from: impl std::io::Read + Send + 'static) -> Self {
        let (send, receive) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(from).lines() {
                let Ok(line) = line else { break };
                if send.send(line).is_err() {
                    break;
                }
            }
        });
        Lines(receive)
    }

    /// The next line that `wanted` accepts, skipping others; panics after `PATIENCE`.
    pub fn next_matching(&self, what: &str, wanted: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + PATIENCE;
        loop {
            match self.0.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
                Ok(line) if wanted(&line) => return line,
                Ok(_) => {}
                Err(RecvTimeoutError::Timeout) => panic!("no {what} within {PATIENCE:?}"),
                Err(RecvTimeoutError::Disconnected) => panic!("the output closed before {what}"),
            }
        }
    }

    /// The next line, whatever it is.
    pub fn next(&self, what: &str) -> String {
        self.next_matching(what, |_| true)
    }
}

/// A writer process: the test binary serving commands on a report database.
pub struct Writer {
    child: Child,
    stdin: ChildStdin,
    lines: Lines,
}

impl Writer {
    /// Starts a writer on `db` in `journal_mode` (`DELETE` or `WAL`) and waits until its
    /// connection is open.
    pub fn start(db: &Path, journal_mode: &str) -> Self {
        let mut child = Command::new(std::env::current_exe().unwrap())
            .args(["--exact", "live_writer", "--nocapture", "--test-threads=1"])
            .env(WRITER_DB, db)
            .env(WRITER_JOURNAL, journal_mode)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("the writer process starts");
        let stdin = child.stdin.take().unwrap();
        let lines = Lines::read(child.stdout.take().unwrap());
        let ready = format!("ready {}", journal_mode.to_lowercase());
        lines.next_matching("the writer's ready line", |l| l == ready);
        Writer { child, stdin, lines }
    }

    /// Sends a command and waits until it is committed.
    pub fn send(&mut self, command: &str) {
        writeln!(self.stdin, "{command}").expect("the writer reads commands");
        let ack = format!("ack {command}");
        self.lines.next_matching("the writer's acknowledgement", |l| l == ack);
    }

    /// Closes the writer's connection and waits for the process to end.
    pub fn quit(mut self) {
        writeln!(self.stdin, "quit").expect("the writer reads commands");
        let status = wait(&mut self.child);
        assert!(status.success(), "the writer process failed: {status}");
    }
}

impl Drop for Writer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Waits for a child to end; kills it and panics after `PATIENCE`.
pub fn wait(child: &mut Child) -> ExitStatus {
    let deadline = Instant::now() + PATIENCE;
    loop {
        if let Some(status) = child.try_wait().expect("the child can be waited for") {
            return status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("the process did not end within {PATIENCE:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The names of the files in a folder, sorted.
pub fn names(dir: &Path) -> Vec<String> {
    let mut out: Vec<String> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    out.sort();
    out
}

/// The files of a folder with their bytes, but the `-shm` file: a WAL reader records in the
/// writer's shared-memory index which snapshot it reads.
pub fn contents(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out: Vec<(PathBuf, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| !p.to_string_lossy().ends_with("-shm"))
        .map(|p| (p.clone(), std::fs::read(&p).unwrap_or_default()))
        .collect();
    out.sort();
    out
}

/// The folder's files once the writer's own `-wal` and `-shm` are set aside: a WAL writer that
/// closes while a reader is connected leaves them for the next connection to clean up.
pub fn without_writer_files(names: &[String]) -> Vec<String> {
    names.iter().filter(|n| !n.ends_with("-wal") && !n.ends_with("-shm")).cloned().collect()
}
