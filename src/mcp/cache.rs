//! The reports the server has opened, kept open across calls: a call on the same report costs a
//! look at whether it changed. A report still being written is followed as `--watch` follows it
//! (`MemoryReport::poll_changes`: the rows the writer added are read into it); a database
//! replaced on disk, or a log that changed, is opened again.

use crate::analysis::sanitize::sanitize_line;
use crate::answer::Refusal;
use crate::answer::scan_log;
use crate::report::{LogBeside, MemoryReport, ReportSource, locate_report};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::SystemTime;

/// How many reports are kept open (the least recently asked about is closed first).
const KEPT: usize = 4;

/// What tells a file apart from the one it replaced.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Identity {
    #[cfg(unix)]
    inode: (u64, u64),
    len: u64,
    modified: Option<SystemTime>,
}

impl Identity {
    fn of(path: &Path) -> Option<Self> {
        let m = std::fs::metadata(path).ok()?;
        #[cfg(unix)]
        let inode = {
            use std::os::unix::fs::MetadataExt;
            (m.dev(), m.ino())
        };
        Some(Self {
            #[cfg(unix)]
            inode,
            len: m.len(),
            modified: m.modified().ok(),
        })
    }

    /// The same file: for a database, the same inode (its length and time change as a writer
    /// commits, which `poll_changes` follows).
    fn same_file(&self, other: &Self) -> bool {
        #[cfg(unix)]
        return self.inode == other.inode;
        #[cfg(not(unix))]
        return self.len <= other.len;
    }
}

/// Which report, read how.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Key {
    database: PathBuf,
    rank: u32,
    log: Option<PathBuf>,
}

struct Open {
    key: Key,
    report: MemoryReport,
    database: Option<Identity>,
    log: Option<Identity>,
}

/// The open reports, most recently asked about last.
#[derive(Default)]
pub(crate) struct Reports {
    open: Vec<Open>,
}

impl Reports {
    /// The report at `path` (a report folder, its database, or a folder of reports: the newest),
    /// for `rank`, with the log at `log` beside it; opened now, or kept from an earlier call and
    /// brought up to date.
    pub(crate) fn get(&mut self, path: &str, rank: u32, log: Option<&str>) -> Result<&MemoryReport, Refusal> {
        let located = locate_report(Some(Path::new(path))).map_err(|e| Refusal::usage(e.to_string()))?;
        let database = match &located.source {
            ReportSource::File { database, .. } => std::fs::canonicalize(database).unwrap_or(database.clone()),
            ReportSource::Demo => return Err(Refusal::usage("the demo report is not served: give a report's path")),
        };
        let log_path = log.map(|l| std::fs::canonicalize(l).unwrap_or_else(|_| PathBuf::from(l)));
        let key = Key { database: database.clone(), rank, log: log_path.clone() };
        if let Some(i) = self.open.iter().position(|o| o.key == key) {
            let kept = self.open.remove(i);
            if let Some(fresh) = Self::refresh(kept, &database, log_path.as_deref()) {
                self.open.push(fresh);
                return Ok(&self.open.last().expect("just pushed").report);
            }
        }
        let mut report = MemoryReport::open_watched(&located.source, rank)
            .map_err(|e| Refusal { message: e.to_string(), code: 1 })?;
        if let Some(log) = log {
            report.join_log(Arc::new(read_log(log)?));
        }
        if self.open.len() >= KEPT {
            self.open.remove(0);
        }
        let (database, log) = (Identity::of(&database), log_path.as_deref().and_then(Identity::of));
        self.open.push(Open { key, report, database, log });
        Ok(&self.open.last().expect("just pushed").report)
    }

    /// A kept report brought up to date, or none when it must be opened again: its database
    /// was replaced, its log changed, or the changes could not be read.
    fn refresh(mut kept: Open, database: &Path, log: Option<&Path>) -> Option<Open> {
        let now = Identity::of(database);
        let replaced = match (&kept.database, &now) {
            (Some(before), Some(now)) => !before.same_file(now),
            _ => true,
        };
        if replaced || log.and_then(Identity::of) != kept.log {
            return None;
        }
        kept.report.poll_changes().ok()?;
        kept.database = now;
        Some(kept)
    }
}

/// Reads and scans a log; the error says why it cannot be read, as the CLI says it.
pub(crate) fn read_log(path: &str) -> Result<LogBeside, Refusal> {
    let findings = std::fs::File::open(path).and_then(|file| scan_log(std::io::BufReader::new(file)));
    findings
        .map(|findings| LogBeside { path: path.to_string(), findings })
        .map_err(|e| Refusal::usage(format!("cannot read the log ({e}): {}", sanitize_line(path))))
}
