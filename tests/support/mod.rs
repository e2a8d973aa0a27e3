//! Test support: builds TT-NN memory reports and captured graphs the way TT-NN writes them.
//!
//! Used by the test files (`mod support;`) and by `examples/gen_report.rs`
//! (`#[path = "../tests/support/mod.rs"] mod support;`). It only writes SQLite files with
//! rusqlite; it does not depend on the `ttnn_tui` library.
//!
//! ```ignore
//! use support::*;
//! let graph = Graph::new()
//!     .capture_start()
//!     .start("ttnn.conv2d")
//!     .start("Conv2dDeviceOperation")
//!     .buffer_allocate(1_048_576, 1_310_720, BufferType::L1, Layout::HeightSharded)
//!     .aborted_end("Conv2dDeviceOperation", Some("Out of Memory"))
//!     .aborted_end("ttnn.conv2d", Some("Out of Memory"))
//!     .capture_end();
//! let db = ReportBuilder::new(Schema::V2)
//!     .report_name("oom")
//!     .device(Device::wormhole(0))
//!     .operation(Op::new(1, "ttnn.conv2d").duration(0.0123).graph(graph)
//!         .buffers(vec![BufferRow::dram(1_024, 65_536)]))
//!     .error(ErrorRow::new(1, "ttnn.conv2d", "RuntimeError", "TT_FATAL @ ..."))
//!     .write_to(&dir); // dir/db.sqlite, dir/config.json
//! ```
#![allow(dead_code)]

pub mod demo;
pub mod demo_perf;
pub mod demo_perf_config;
pub mod fixture;
pub mod graph;
pub mod live_writer;
pub mod logs;
pub mod perf;
pub mod rows;
pub mod schema;
pub mod sim;

// Not every test uses every item.
#[allow(unused_imports)]
pub use {
    fixture::ReportBuilder,
    graph::{Alloc, Graph, NodeKey, Style},
    rows::{BufferRow, Device, ErrorRow, Op, SourceFile, TensorRow},
    schema::{BufferType, LOOKUP_INDEXES, Layout, Schema},
};

use std::path::{Path, PathBuf};

/// The files of a folder with their bytes, sorted by name: compared before and after a report
/// is opened, to check that nothing was written or created.
pub fn folder_bytes(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .expect("read the report folder")
        .map(|e| e.expect("a folder entry").path())
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read(&p).unwrap_or_default()))
        .collect();
    files.sort();
    files
}

/// Damages the root pages of `table` (and its indexes) in the database file, as a bad sector or
/// a cut copy leaves them: everything else of the report still reads, that table does not.
#[allow(dead_code)]
pub fn damage_table(db: &Path, table: &str) {
    let conn = rusqlite::Connection::open(db).unwrap();
    let page_size: u64 = conn.query_row("PRAGMA page_size", [], |r| r.get(0)).unwrap();
    let mut pages: Vec<u64> = conn
        .prepare("SELECT rootpage FROM sqlite_master WHERE tbl_name = ?1 AND rootpage > 0")
        .unwrap()
        .query_map([table], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    drop(conn);
    assert!(!pages.is_empty(), "no table {table}");
    pages.sort_unstable();
    let mut bytes = std::fs::read(db).unwrap();
    for page in pages {
        let start = ((page - 1) * page_size) as usize;
        bytes[start..start + 16].fill(0xff);
    }
    std::fs::write(db, bytes).unwrap();
}

/// A value read from a report folder (an opened report); dropping it checks that nothing in the
/// folder was written or created meanwhile.
pub struct ReadOnly<T> {
    value: T,
    dir: PathBuf,
    before: Vec<(String, Vec<u8>)>,
    /// A temporary folder to remove only after the check.
    owned: Option<TempDir>,
}

impl<T> ReadOnly<T> {
    /// Records the folder's bytes, then reads the value from it.
    pub fn read<E>(dir: &Path, read: impl FnOnce() -> Result<T, E>) -> Result<Self, E> {
        let before = folder_bytes(dir);
        Ok(ReadOnly { value: read()?, dir: dir.to_path_buf(), before, owned: None })
    }

    /// Keeps a temporary folder until the value is dropped and checked.
    pub fn owning(mut self, dir: TempDir) -> Self {
        self.owned = Some(dir);
        self
    }
}

impl<T> std::ops::Deref for ReadOnly<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.value
    }
}

/// What is read may change in memory (a log joined to a report); the folder may not.
impl<T> std::ops::DerefMut for ReadOnly<T> {
    fn deref_mut(&mut self) -> &mut T {
        &mut self.value
    }
}

impl<T> Drop for ReadOnly<T> {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            assert_eq!(folder_bytes(&self.dir), self.before, "the report folder changed: {}", self.dir.display());
        }
        drop(self.owned.take());
    }
}

/// A fresh, empty directory under the system temp dir, unique to this process and `tag`.
/// Remove it with [`TempDir`]'s drop.
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(tag: &str) -> Self {
        use std::sync::atomic::{AtomicUsize, Ordering};
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("ttnn-tui-{tag}-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("create temp dir");
        TempDir(dir)
    }

    pub fn path(&self) -> &std::path::Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
