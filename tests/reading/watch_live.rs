//! Watching a report while a writer process extends it, in both journal modes TT-NN's writers
//! use: each poll reads only what is new, errors attach to operations read earlier, the result
//! equals a fresh open, and nothing is left in the report folder.

use crate::live;
use crate::support;

use live::{Writer, contents, initial, names, without_writer_files};
use std::sync::atomic::AtomicBool;
use support::TempDir;
use support::live_writer::FAILED_DEVICE_OPERATION;
use ttnn_tui::analysis::memory::usage::MemoryUsage;
use ttnn_tui::analysis::messages::failure::{BufferType, FailureKind};
use ttnn_tui::report::memory::watch::WatchUpdate;
use ttnn_tui::report::{MemoryReport, resolve_report};

fn new_operations(n: usize) -> Option<WatchUpdate> {
    Some(WatchUpdate { new_operations: n, ..WatchUpdate::default() })
}

fn watch_a_live_writer(journal_mode: &str) {
    let dir = TempDir::new(&format!("watch-{journal_mode}"));
    let db = initial().write_to(dir.path());
    let names_before = names(dir.path());
    let mut writer = Writer::start(&db, journal_mode);
    let source = resolve_report(Some(dir.path())).unwrap();
    let before_open = contents(dir.path());
    let mut report = MemoryReport::open_watched(&source, 0).unwrap();
    assert_eq!(contents(dir.path()), before_open, "opening wrote nothing");
    assert_eq!(report.operations.len(), 3);
    assert_eq!(report.poll_changes().unwrap(), None, "nothing was committed since the report was opened");

    writer.send("op 4 ttnn.add");
    assert_eq!(report.poll_changes().unwrap(), new_operations(1));
    assert_eq!(report.poll_changes().unwrap(), None, "nothing new since the last poll");
    writer.send("op 5 ttnn.matmul");
    writer.send("op 6 ttnn.add");
    assert_eq!(report.poll_changes().unwrap(), new_operations(2));
    assert_eq!(report.operations.iter().map(|o| o.id).collect::<Vec<_>>(), [1, 2, 3, 4, 5, 6]);
    assert_eq!(&*report.operations[4].name, "ttnn.matmul");

    // At the end, a failure: the operation, its aborted graph and its errors row.
    writer.send("fail 7 ttnn.conv2d");
    let update = report.poll_changes().unwrap();
    assert_eq!(update, Some(WatchUpdate { new_operations: 1, new_failures: vec![7], ..WatchUpdate::default() }));
    let failed = report.operation_index(7).unwrap();
    assert_eq!(
        report.error_of(failed).and_then(|e| e.failure.as_ref()).map(|f| f.kind),
        Some(FailureKind::BankOutOfMemory)
    );
    assert_eq!(report.graphs().failed_device_operations(failed).unwrap(), vec![FAILED_DEVICE_OPERATION.to_string()]);

    // An error for an operation read two polls ago attaches to it; one whose name matches no
    // operation stays unattached.
    writer.send("error 5 ttnn.matmul");
    let update = report.poll_changes().unwrap();
    assert_eq!(update, Some(WatchUpdate { new_failures: vec![5], ..WatchUpdate::default() }));
    writer.send("error 6 ttnn.softmax");
    let update = report.poll_changes().unwrap().unwrap();
    assert_eq!((update.new_operations, update.new_failures.len(), update.new_unattached.len()), (0, 0, 1));
    assert_eq!(report.errors[update.new_unattached[0]].operation_name, "ttnn.softmax");

    // The memory over the run read so far goes on with the snapshots written since (the
    // writer's: L1 4 096 × (1 + id mod 3) and DRAM 65 536 per bank after each operation).
    let mut usage = MemoryUsage::default();
    report.usage().read(&mut usage, &AtomicBool::new(false), &mut |_| {}).unwrap();
    let l1: Vec<(u64, u64)> = (4..=7).map(|id| (id, 4_096 * (1 + id % 3))).collect();
    assert_eq!(usage.sums.get(&(0, BufferType::L1)), Some(&l1));
    writer.send("op 8 ttnn.add");
    assert_eq!(report.poll_changes().unwrap(), new_operations(1));
    report.usage().read(&mut usage, &AtomicBool::new(false), &mut |_| {}).unwrap();
    let dram: Vec<(u64, u64)> = (4..=8).map(|id| (id, 65_536)).collect();
    assert_eq!(usage.sums.get(&(0, BufferType::Dram)), Some(&dram));
    assert_eq!(usage.rows, 10);

    // Polling ends where opening the report now starts.
    let fresh = MemoryReport::open(&source, 0).unwrap();
    assert_eq!(report.operations, fresh.operations);
    assert_eq!(report.errors, fresh.errors);
    drop(fresh);

    writer.quit();
    let before_close = contents(dir.path());
    drop(report);
    assert_eq!(contents(dir.path()), before_close, "closing wrote nothing");
    assert_eq!(without_writer_files(&names(dir.path())), names_before, "nothing of ours is left");
}

#[test]
fn watch_a_writer_using_a_rollback_journal() {
    watch_a_live_writer("DELETE");
}

#[test]
fn watch_a_writer_using_wal() {
    watch_a_live_writer("WAL");
}

/// A WAL report whose writer is not connected is opened immutable (a read-only connection would
/// create `-wal` and `-shm` files); once the writer connects, its files appear and the watch
/// follows it.
#[test]
fn a_wal_report_opened_before_its_writer_connects() {
    let dir = TempDir::new("watch-wal-later");
    let db = initial().write_to(dir.path());
    Writer::start(&db, "WAL").quit();
    let names_before = names(dir.path());
    assert_eq!(names_before, ["config.json", "db.sqlite"], "the writer cleaned up after itself");
    let source = resolve_report(Some(dir.path())).unwrap();
    let mut report = MemoryReport::open_watched(&source, 0).unwrap();
    assert_eq!(report.poll_changes().unwrap(), None);
    assert_eq!(names(dir.path()), names_before, "watching created nothing");

    let mut writer = Writer::start(&db, "WAL");
    writer.send("op 4 ttnn.add");
    writer.send("fail 5 ttnn.conv2d");
    let update = report.poll_changes().unwrap();
    assert_eq!(update, Some(WatchUpdate { new_operations: 2, new_failures: vec![5], ..WatchUpdate::default() }));
    writer.quit();
    drop(report);
    assert_eq!(without_writer_files(&names(dir.path())), names_before);
}

#[test]
fn a_report_opened_without_watching_is_never_polled() {
    let dir = TempDir::new("watch-off");
    let db = initial().write_to(dir.path());
    let mut writer = Writer::start(&db, "DELETE");
    let mut report = MemoryReport::open(&resolve_report(Some(dir.path())).unwrap(), 0).unwrap();
    writer.send("op 4 ttnn.add");
    assert!(!report.is_watched());
    assert_eq!(report.poll_changes().unwrap(), None);
    assert_eq!(report.operations.len(), 3);
    writer.quit();
}

/// Issue 27 §3: ttnn's importer deletes a `db.sqlite` of an older schema and writes it again.
/// While the file is gone the watch waits; once a new file is there (here the real ttnn 0.81.1
/// report of `fixtures/real/a_l1_add_oom`), the report is opened again: every operation is new,
/// its failure is reported, and the report is what opening it now gives.
#[test]
fn a_report_deleted_and_written_again_is_opened_again() {
    let dir = TempDir::new("watch-replaced");
    let db = initial().write_to(dir.path());
    let source = resolve_report(Some(dir.path())).unwrap();
    let mut report = MemoryReport::open_watched(&source, 0).unwrap();
    assert_eq!(report.operations.len(), 3);
    std::fs::remove_file(&db).unwrap();
    assert_eq!(report.poll_changes().unwrap(), None, "the file is gone: wait for it");
    assert_eq!(report.operations.len(), 3, "what was read stays");
    let real = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/real/a_l1_add_oom/db.sqlite");
    std::fs::copy(&real, &db).unwrap();
    let update = report.poll_changes().unwrap().expect("the new file is read");
    let fresh = MemoryReport::open(&source, 0).unwrap();
    assert_eq!(
        update,
        WatchUpdate {
            new_operations: fresh.operations.len(),
            new_failures: vec![11],
            new_unattached: Vec::new(),
            reordered: true,
            replaced: true,
        }
    );
    assert_eq!((report.operations.clone(), report.errors.clone()), (fresh.operations.clone(), fresh.errors.clone()));
    assert_eq!(report.poll_changes().unwrap(), None, "nothing new since");
    drop(fresh);
    drop(report);
    assert_eq!(names(dir.path()), ["config.json", "db.sqlite"], "watching created nothing");
}
