//! A report its run has not written yet (`--watch` or `explain --follow` started before the
//! model): what there is to wait for. TT-NN creates the report folder, then `db.sqlite` (empty
//! until its first table is committed), then its tables.

use super::database::open_database;
use super::locate::{DATABASE, DEFAULT_REPORT_ROOT, newest_report_folder};
use std::path::Path;

/// What a watched `REPORT` argument (none: TT-NN's default root) waits for, as the line that
/// says so: an existing folder holding neither `db.sqlite` nor a report folder, or a database
/// that is empty or has no `operations` table yet. None when there is nothing to wait for: the
/// path is missing, or the report opens or fails for another reason.
pub fn unwritten_report(argument: Option<&Path>) -> Option<String> {
    let path = argument.unwrap_or(Path::new(DEFAULT_REPORT_ROOT));
    let shown = |p: &Path| crate::analysis::sanitize::sanitize_line(&p.display().to_string());
    let waiting = |what: String| Some(format!("waiting for the run to write {what} (Ctrl-C to stop)…"));
    let database = if path.is_dir() {
        match newest_report_folder(path) {
            _ if path.join(DATABASE).exists() => path.join(DATABASE),
            Some(folder) => folder.join(DATABASE),
            None => return waiting(format!("a report in {}", shown(path))),
        }
    } else {
        path.to_path_buf()
    };
    match std::fs::metadata(&database) {
        Ok(m) if m.len() == 0 || !has_operations(&database) => waiting(shown(&database)),
        _ => None,
    }
}

/// Whether a database already has its `operations` table; true when it cannot be read at all (then
/// opening it says why, and there is nothing to wait for).
fn has_operations(database: &Path) -> bool {
    let Ok((conn, _)) = open_database(database) else { return true };
    let found =
        conn.query_row("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'operations'", [], |r| {
            r.get::<_, i64>(0)
        });
    found.map_or(true, |n| n > 0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn temp(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("ttnn-tui-pending-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn an_empty_folder_an_empty_database_and_one_without_operations_are_waited_for() {
        let dir = temp("waits");
        let said = |p: &Path| format!("waiting for the run to write {} (Ctrl-C to stop)…", p.display());
        assert_eq!(
            unwritten_report(Some(&dir)),
            Some(format!("waiting for the run to write a report in {} (Ctrl-C to stop)…", dir.display()))
        );
        let db = dir.join(DATABASE);
        std::fs::write(&db, b"").unwrap();
        assert_eq!(unwritten_report(Some(&dir)), Some(said(&db)));
        assert_eq!(unwritten_report(Some(&db)), Some(said(&db)));
        std::fs::remove_file(&db).unwrap();
        let conn = rusqlite::Connection::open(&db).unwrap();
        conn.execute_batch("CREATE TABLE devices (device_id int)").unwrap();
        assert_eq!(unwritten_report(Some(&dir)), Some(said(&db)));
        conn.execute_batch("CREATE TABLE operations (operation_id int, name text, duration float)").unwrap();
        assert_eq!(unwritten_report(Some(&dir)), None, "written: nothing to wait for");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_missing_path_or_a_file_that_is_no_database_is_not_waited_for() {
        let dir = temp("never");
        assert_eq!(unwritten_report(Some(&dir.join("nowhere"))), None);
        assert_eq!(unwritten_report(Some(&dir.join("nowhere/db.sqlite"))), None);
        std::fs::write(dir.join("run.log"), "Traceback (most recent call last):\n").unwrap();
        assert_eq!(unwritten_report(Some(&dir.join("run.log"))), None);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
