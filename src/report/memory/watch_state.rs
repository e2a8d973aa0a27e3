//! What a watched report (`--watch`, `watch.rs`) has read so far, kept with the report's core:
//! its own file so that the core names it without importing the reading that fills it.

use crate::analysis::model::ErrorRecord;

/// What a watched report has read so far.
pub(crate) struct WatchState {
    /// `PRAGMA data_version` when last read; none after a new connection.
    pub(super) data_version: Option<i64>,
    /// The greatest rowid of `operations` read.
    pub(super) operations_rowid: i64,
    /// The greatest rowid of `errors` read.
    pub(super) errors_rowid: i64,
    /// Every error row of the rank (and of rank 0) read so far, in table order, unattached:
    /// attachment is redone over all of them, so a watched report ends as a fresh open would.
    pub(super) table_errors: Vec<ErrorRecord>,
    /// The connection is immutable: a WAL database whose writer was not connected at open.
    pub(super) immutable: bool,
    /// The database file's (device, inode) when it was opened; none for the demo or where the
    /// platform has none. ttnn's importer deletes and rewrites a report of an older schema.
    pub(super) file: Option<(u64, u64)>,
}

/// A file's (device, inode); none when it does not exist (or on platforms without inodes).
pub(super) fn file_identity(path: &std::path::Path) -> Option<(u64, u64)> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
    }
    #[cfg(not(unix))]
    {
        std::fs::metadata(path).ok().map(|_| (0, 0))
    }
}
