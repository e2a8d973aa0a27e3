//! `ttnn-tui explain --follow` on a report a writer process extends: it prints what is there,
//! then each failure as it is written, and ends quietly with 0 on SIGTERM, Ctrl-C (SIGINT) or
//! a closed pipe.

use crate::cli;
use crate::live;
use crate::support;

use live::{Lines, Writer, initial, names, wait, without_writer_files};
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use support::TempDir;
use support::live_writer::OOM_L1;
use support::{ErrorRow, Op, ReportBuilder, Schema};
use ttnn_tui::analysis::beside::NO_STACK_TRACES;

/// The block `explain` prints for the failure a writer's `fail <id> ttnn.conv2d` writes, with
/// its memory section: the snapshot after the unwinding holds one L1 buffer of 4 KiB × (1 + id
/// mod 3) per bank, and the report has no devices row.
fn conv_block(id: u64) -> String {
    let held = 4 * (1 + id % 3);
    format!(
        "Operation {id} ttnn.conv2d: Out of memory\n  Requested 3.13 MiB L1 across 4 banks (800 KiB per bank, bank size 1.32 MiB); free 374 KiB, largest free block 293 KiB\n  Not enough free space. Short by 426 KiB per bank: needs 800 KiB, 374 KiB free. An interleaved L1 buffer can use only the part of that free space inside the interleaved region, so it may be short by more.\n  Failed in Conv2dDeviceOperation\n  At the failure (after-failure snapshot + unwinding): 1 live L1 buffer on device 0 holds {held} KiB per bank\n  The L1 region of device 0 is unknown (no devices row with its addresses): no free blocks, no check.\n  Largest holders: buffer at 1400000 {held} KiB (no tensor recorded)\n  No advice on what to free: the region is unknown.\n"
    )
}

/// The initial report with a failure already written at operation 2 (no graph).
fn report_with_a_failure(dir: &Path) -> std::path::PathBuf {
    initial()
        .operation(Op::new(4, "ttnn.conv2d"))
        .error(ErrorRow::new(4, "ttnn.conv2d", "RuntimeError", OOM_L1))
        .write_to(dir)
}

fn follow(dir: &Path) -> Child {
    Command::new(env!("CARGO_BIN_EXE_ttnn-tui"))
        .args(["explain", "--follow"])
        .arg(dir)
        .env_remove("NO_COLOR")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts")
}

fn signal(child: &Child, name: &str) {
    let status = Command::new("kill").args(["-s", name, &child.id().to_string()]).status().expect("kill runs");
    assert!(status.success());
}

fn stderr_of(child: &mut Child) -> String {
    let mut text = String::new();
    std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut text).unwrap();
    text
}

/// What the follower prints first is what `explain` prints, without its count line (which the
/// run would soon make stale); then the block of each failure the writer commits after it
/// started; a signal ends it with 0 and nothing on stderr.
fn follow_a_writer(journal_mode: &str, stop_signal: &str) {
    let dir = TempDir::new(&format!("follow-{journal_mode}"));
    let db = report_with_a_failure(dir.path());
    let names_before = names(dir.path());
    let mut writer = Writer::start(&db, journal_mode);
    let explained = cli::run(&["explain", dir.path().to_str().unwrap()], None);
    let explained = String::from_utf8(explained.stdout).unwrap();
    let explained = explained.strip_prefix("1 operation with an error\n").expect("the count line").to_string();
    assert_eq!(
        explained,
        format!("{NO_STACK_TRACES}\n")
            + "Operation 4 ttnn.conv2d: Out of memory\n  Requested 3.13 MiB L1 across 4 banks (800 KiB per bank, bank size 1.32 MiB); free 374 KiB, largest free block 293 KiB\n  Not enough free space. Short by 426 KiB per bank: needs 800 KiB, 374 KiB free. An interleaved L1 buffer can use only the part of that free space inside the interleaved region, so it may be short by more.\n"
    );

    let mut child = follow(dir.path());
    let lines = Lines::read(child.stdout.take().unwrap());
    let first: Vec<String> = explained.lines().map(|_| lines.next("the report's failure")).collect();
    assert_eq!(first.join("\n") + "\n", explained);

    writer.send("op 5 ttnn.add");
    writer.send("fail 6 ttnn.conv2d");
    let block: Vec<String> = conv_block(6).lines().map(|_| lines.next("the new failure")).collect();
    assert_eq!(block.join("\n") + "\n", conv_block(6));
    writer.send("fail 7 ttnn.conv2d");
    let block: Vec<String> = conv_block(7).lines().map(|_| lines.next("the next failure")).collect();
    assert_eq!(block.join("\n") + "\n", conv_block(7));

    signal(&child, stop_signal);
    let status = wait(&mut child);
    assert_eq!(status.code(), Some(0), "{status}");
    assert_eq!(stderr_of(&mut child), "");
    writer.quit();
    assert_eq!(without_writer_files(&names(dir.path())), names_before, "nothing of ours is left");
}

#[test]
fn follow_a_writer_using_a_rollback_journal_until_sigterm() {
    follow_a_writer("DELETE", "TERM");
}

#[test]
fn follow_a_writer_using_wal_until_ctrl_c() {
    follow_a_writer("WAL", "INT");
}

/// `explain --follow | head -n 3`: once the reader is gone, the next failure's block cannot be
/// written, and the follower ends with 0, quietly.
#[test]
fn a_closed_pipe_ends_following_quietly() {
    let dir = TempDir::new("follow-pipe");
    let db = report_with_a_failure(dir.path());
    let mut writer = Writer::start(&db, "DELETE");
    let mut child = follow(dir.path());
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    stdout.read_line(&mut first).unwrap();
    assert_eq!(first, format!("{NO_STACK_TRACES}\n"));
    drop(stdout);
    writer.send("fail 5 ttnn.conv2d");
    let status = wait(&mut child);
    assert_eq!(status.code(), Some(0), "{status}");
    assert_eq!(stderr_of(&mut child), "");
    writer.quit();
}

/// A report older than the `errors` table: no failure will ever be printed, and the follower
/// says why rather than stay silent.
#[test]
fn following_a_report_that_does_not_record_errors_says_so() {
    let dir = TempDir::new("follow-legacy");
    ReportBuilder::new(Schema::Legacy).operation(Op::new(1, "ttnn.add").duration(0.001)).write_to(dir.path());
    let mut child = follow(dir.path());
    let lines = Lines::read(child.stdout.take().unwrap());
    assert_eq!(
        lines.next("the first line"),
        "This report version does not record errors (1 operation); a failed operation shows only as an operation without a duration."
    );
    signal(&child, "TERM");
    assert_eq!(wait(&mut child).code(), Some(0));
}

#[test]
fn follow_conflicts_with_json() {
    let o = cli::run(&["explain", "--follow", "--json", "--demo"], None);
    assert_eq!(o.status.code(), Some(2));
    let stderr = String::from_utf8(o.stderr).unwrap();
    assert!(stderr.starts_with("error: the argument '--follow' cannot be used with '--json'"), "{stderr}");
}

/// An error row committed before its operation's row is printed as not placed on an operation;
/// when the operation arrives, its block follows once, after a line saying it is that error.
#[test]
fn an_error_written_before_its_operation_is_printed_then_placed() {
    let dir = TempDir::new("follow-early-error");
    let db = report_with_a_failure(dir.path());
    let mut writer = Writer::start(&db, "DELETE");
    let mut child = follow(dir.path());
    let lines = Lines::read(child.stdout.take().unwrap());
    assert_eq!(lines.next("the note on stack traces"), NO_STACK_TRACES);
    assert_eq!(lines.next("the report's failure"), "Operation 4 ttnn.conv2d: Out of memory");
    writer.send("error 8 ttnn.add");
    let heading = lines.next_matching("the unattached error", |l| l.starts_with("Unattached error"));
    assert_eq!(heading, "Unattached error (operation 8 ttnn.add, RuntimeError)");
    writer.send("op 8 ttnn.add");
    writer.send("fail 9 ttnn.conv2d");
    let mut after = Vec::new();
    loop {
        let line = lines.next("the placed error and the next failure");
        let done = line == "Operation 9 ttnn.conv2d: Out of memory";
        after.push(line);
        if done {
            break;
        }
    }
    assert_eq!(
        after,
        [
            "  Shape mismatch: (1, 32) and (1, 64)",
            "The unattached error above (operation 8 ttnn.add) now has its operation:",
            "Operation 8 ttnn.add: RuntimeError",
            "  Shape mismatch: (1, 32) and (1, 64)",
            "Operation 9 ttnn.conv2d: Out of memory",
        ]
    );
    signal(&child, "TERM");
    assert_eq!(wait(&mut child).code(), Some(0));
    writer.quit();
}

/// Started before the run has written its report: `--follow` says it waits, and once the run
/// has created `db.sqlite` (empty at first) and written it, prints its failures as usual.
#[test]
fn following_a_report_folder_before_its_database_is_written_waits_for_it() {
    let dir = TempDir::new("follow-wait");
    let report = dir.path().join("run");
    std::fs::create_dir_all(&report).unwrap();
    let mut child = follow(&report);
    let errors = Lines::read(child.stderr.take().unwrap());
    let waiting = format!("waiting for the run to write a report in {} (Ctrl-C to stop)…", report.display());
    assert_eq!(errors.next("the waiting line"), waiting);
    // The run creates the database, empty, then writes it (whole, here, by a rename).
    std::fs::write(report.join("db.sqlite"), b"").unwrap();
    std::thread::sleep(std::time::Duration::from_millis(700));
    let staged = TempDir::new("follow-wait-staged");
    std::fs::rename(report_with_a_failure(staged.path()), report.join("db.sqlite")).unwrap();
    let lines = Lines::read(child.stdout.take().unwrap());
    assert!(lines.next("the note").starts_with("This report records no stack traces"));
    assert_eq!(lines.next("the report's failure"), "Operation 4 ttnn.conv2d: Out of memory");
    signal(&child, "TERM");
    assert_eq!(wait(&mut child).code(), Some(0));
}

/// Interrupted while it waits, `--follow` ends quietly with 0, as it does while following.
#[test]
fn an_interrupted_wait_ends_quietly() {
    let dir = TempDir::new("follow-wait-int");
    let mut child = follow(dir.path());
    let errors = Lines::read(child.stderr.take().unwrap());
    assert!(errors.next("the waiting line").starts_with("waiting for the run to write a report in "));
    signal(&child, "INT");
    assert_eq!(wait(&mut child).code(), Some(0));
}

/// A failure prints the same block, memory section and all, whether it was in the report when
/// `--follow` started or arrived while it followed; and the same as `explain`.
#[test]
fn a_failure_reads_the_same_whether_it_was_there_or_arrives_while_following() {
    let dir = TempDir::new("follow-same");
    let db = initial().write_to(dir.path());
    let mut writer = Writer::start(&db, "DELETE");
    let mut live = follow(dir.path());
    let arriving = Lines::read(live.stdout.take().unwrap());
    writer.send("op 4 ttnn.add");
    writer.send("fail 5 ttnn.conv2d");
    let explained = String::from_utf8(cli::run(&["explain", dir.path().to_str().unwrap()], None).stdout).unwrap();
    let block = explained.strip_prefix("1 operation with an error\n").expect("the count line").to_string();
    assert_eq!(block, conv_block(5));
    let read =
        |lines: &Lines, what: &str| block.lines().map(|_| lines.next(what)).collect::<Vec<_>>().join("\n") + "\n";
    assert_eq!(read(&arriving, "the block of the failure that arrived"), block);
    let mut late = follow(dir.path());
    let there = Lines::read(late.stdout.take().unwrap());
    assert_eq!(read(&there, "the block of the failure already there"), block);
    for child in [&mut live, &mut late] {
        signal(child, "TERM");
        assert_eq!(wait(child).code(), Some(0));
    }
    writer.quit();
}
