//! Whole-table passes on every core: a table's rowid range cut into chunks, each chunk read by
//! one worker of a pool (one read-only connection each) and handed to the caller in rowid order,
//! so a pass that folds rows in order gets the same result at any number of threads.
//!
//! The workers take chunks in turn (worker `w` reads chunks `w`, `w + threads`, …) and each keeps
//! at most [`AHEAD`] decoded chunks waiting, so memory stays a few chunks per worker whatever the
//! table's size. At one thread the chunks are read on the calling thread, on its connection.

use rusqlite::{Connection, Row, Rows, params_from_iter};
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, sync_channel};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Decoded chunks a worker may hold before the caller has taken them.
const AHEAD: usize = 2;

/// The CPU time of every pool worker that ended and was not yet taken (see [`take_worker_cpu`]).
static WORKER_CPU: Mutex<Vec<Duration>> = Mutex::new(Vec::new());

/// The CPU time (user + system) of the calling thread so far, from `/proc/thread-self/stat`
/// (clock ticks of 10 ms); zero where it cannot be read.
pub fn thread_cpu_time() -> Duration {
    let stat = std::fs::read_to_string("/proc/thread-self/stat").unwrap_or_default();
    // The fields after the command name (which may hold spaces) follow its closing ')'.
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let mut fields = rest.split_whitespace().skip(11);
    let mut ticks = || fields.next().and_then(|f| f.parse::<u64>().ok()).unwrap_or(0);
    let (user, system) = (ticks(), ticks());
    Duration::from_millis((user + system).saturating_mul(10))
}

/// The CPU time of each pool worker that ended since the last call, in the order they ended:
/// what the benchmarks print to bound the pool's speedup by its busiest thread.
pub fn take_worker_cpu() -> Vec<Duration> {
    WORKER_CPU.lock().map(|mut all| std::mem::take(&mut *all)).unwrap_or_default()
}

/// Records its worker's CPU time when the worker ends, however it ends.
struct CpuRecord;

impl Drop for CpuRecord {
    fn drop(&mut self) {
        let cpu = thread_cpu_time();
        if let Ok(mut all) = WORKER_CPU.lock() {
            all.push(cpu);
        }
    }
}

/// Opens another read-only connection to the same database, for a worker.
pub(crate) type Connect<'a> = &'a (dyn Fn() -> rusqlite::Result<Connection> + Sync);

/// The threads a whole-table pass uses by default: the machine's cores.
pub fn default_threads() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from)
}

/// One pass over a table's rowids: the statement, its fixed parameters and the range.
pub(crate) struct RowidPass<'a> {
    /// A `SELECT` whose parameters are `binds` followed by a chunk's first rowid and its end
    /// (excluded): `… WHERE rowid >= ?{n+1} AND rowid < ?{n+2}`, `n` the number of `binds`.
    pub(crate) sql: &'a str,
    /// The parameters before the chunk's bounds (e.g. the rank).
    pub(crate) binds: &'a [i64],
    /// The first and last rowid to read (both included).
    pub(crate) range: (i64, i64),
    /// Rowids per chunk.
    pub(crate) chunk: i64,
}

impl RowidPass<'_> {
    /// The chunks' bounds `[start, end)`, in rowid order.
    fn chunks(&self) -> Vec<(i64, i64)> {
        let (first, last) = self.range;
        let end = last.saturating_add(1);
        let mut out = Vec::new();
        let mut start = first;
        while start < end {
            let next = start.saturating_add(self.chunk.max(1)).min(end);
            out.push((start, next));
            start = next;
        }
        out
    }

    /// One chunk's rows, folded by `fold` (e.g. decoded into a `Vec`, or summed).
    fn fold<C>(&self, conn: &Connection, (start, end): (i64, i64), fold: &ChunkFold<'_, C>) -> rusqlite::Result<C> {
        let mut stmt = conn.prepare_cached(self.sql)?;
        let values = self.binds.iter().copied().chain([start, end]);
        let mut rows = stmt.query(params_from_iter(values))?;
        fold(&mut rows)
    }
}

/// What a worker makes of one chunk's rows, reading them to the end.
pub(crate) type ChunkFold<'a, C> = dyn Fn(&mut Rows<'_>) -> rusqlite::Result<C> + Sync + 'a;

/// A chunk fold shared by a pool's workers.
pub(crate) type SharedFold<'a, C> = Arc<dyn Fn(&mut Rows<'_>) -> rusqlite::Result<C> + Send + Sync + 'a>;

/// Decodes every row of a chunk.
fn decoded<T>(
    rows: &mut Rows<'_>,
    decode: &(dyn Fn(&Row<'_>) -> rusqlite::Result<T> + Sync),
) -> rusqlite::Result<Vec<T>> {
    let mut out = Vec::new();
    while let Some(r) = rows.next()? {
        out.push(decode(r)?);
    }
    Ok(out)
}

/// Reads every chunk of `pass`, folds each one's rows with `fold` and gives the result, with the
/// chunk's end rowid (excluded), to `consume`, in rowid order; `consume` stops the pass by
/// breaking. With `threads > 1` and `connect`, the chunks are read and folded on `threads`
/// workers, each on a connection of its own; otherwise on `conn`. Returns whether every chunk
/// was consumed.
pub(crate) fn fold_in_rowid_order<C: Send>(
    conn: &Connection,
    connect: Option<Connect<'_>>,
    threads: usize,
    pass: &RowidPass<'_>,
    fold: &ChunkFold<'_, C>,
    consume: &mut dyn FnMut(i64, C) -> ControlFlow<()>,
) -> rusqlite::Result<bool> {
    let Some(connect) = connect.filter(|_| threads > 1) else {
        for bounds in pass.chunks() {
            if consume(bounds.1, pass.fold(conn, bounds, fold)?).is_break() {
                return Ok(false);
            }
        }
        return Ok(true);
    };
    std::thread::scope(|scope| {
        let fold: SharedFold<'_, C> = Arc::new(move |rows: &mut Rows<'_>| fold(rows));
        for chunk in FoldedChunks::start_folding(scope, connect, threads, pass, fold) {
            let (end, folded) = chunk?;
            if consume(end, folded).is_break() {
                return Ok(false);
            }
        }
        Ok(true)
    })
}

/// The chunks of a pass read by a pool of workers, each folded there, in rowid order, as an
/// iterator of `(end rowid, folded chunk)`: for passes that read two tables side by side.
/// Dropped, it stops the workers (they finish the chunk they read).
pub(crate) struct FoldedChunks<C> {
    receivers: Vec<Receiver<rusqlite::Result<C>>>,
    ends: Vec<i64>,
    next: usize,
    stop: Arc<AtomicBool>,
}

/// The chunks of a pass as their decoded rows.
pub(crate) type OrderedChunks<T> = FoldedChunks<Vec<T>>;

impl<T: Send> FoldedChunks<Vec<T>> {
    /// Starts `threads` workers (at least one) in `scope`, each on a connection from `connect`,
    /// each decoding its chunks' rows with `decode`.
    pub(crate) fn start<'scope, 'env>(
        scope: &'scope std::thread::Scope<'scope, 'env>,
        connect: Connect<'env>,
        threads: usize,
        pass: &'env RowidPass<'env>,
        decode: &'env (dyn Fn(&Row<'_>) -> rusqlite::Result<T> + Sync),
    ) -> Self
    where
        T: 'scope,
    {
        let fold = move |rows: &mut Rows<'_>| decoded(rows, decode);
        Self::start_folding(scope, connect, threads, pass, Arc::new(fold))
    }
}

impl<C: Send> FoldedChunks<C> {
    /// Starts `threads` workers (at least one) in `scope`, each on a connection from `connect`,
    /// each folding its chunks with `fold`.
    pub(crate) fn start_folding<'scope, 'env>(
        scope: &'scope std::thread::Scope<'scope, 'env>,
        connect: Connect<'env>,
        threads: usize,
        pass: &'env RowidPass<'env>,
        fold: SharedFold<'scope, C>,
    ) -> Self
    where
        C: 'scope,
    {
        let chunks = pass.chunks();
        let threads = threads.clamp(1, chunks.len().max(1));
        let stop = Arc::new(AtomicBool::new(false));
        let ends = chunks.iter().map(|c| c.1).collect();
        let chunks = Arc::new(chunks);
        let receivers = (0..threads)
            .map(|w| {
                let (sender, receiver) = sync_channel(AHEAD);
                let (chunks, stop, fold) = (chunks.clone(), stop.clone(), fold.clone());
                scope.spawn(move || {
                    let _record = CpuRecord;
                    let conn = match connect() {
                        Ok(conn) => conn,
                        Err(e) => return drop(sender.send(Err(e))),
                    };
                    for &bounds in chunks.iter().skip(w).step_by(threads) {
                        if stop.load(Ordering::Relaxed) {
                            return;
                        }
                        let rows = pass.fold(&conn, bounds, &*fold);
                        let failed = rows.is_err();
                        if sender.send(rows).is_err() || failed {
                            return;
                        }
                    }
                });
                receiver
            })
            .collect();
        Self { receivers, ends, next: 0, stop }
    }
}

impl<C> Iterator for FoldedChunks<C> {
    type Item = rusqlite::Result<(i64, C)>;

    fn next(&mut self) -> Option<Self::Item> {
        let end = *self.ends.get(self.next)?;
        let k = self.next;
        self.next += 1;
        Some(match self.receivers[k % self.receivers.len()].recv() {
            Ok(rows) => rows.map(|rows| (end, rows)),
            // A worker gone without its chunk (it panicked): the pass cannot go on.
            Err(_) => {
                self.next = self.ends.len();
                Err(rusqlite::Error::InvalidQuery)
            }
        })
    }
}

impl<C> Drop for FoldedChunks<C> {
    fn drop(&mut self) {
        // Workers still reading see the flag, or fail to send once the receivers are dropped.
        self.stop.store(true, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A database of `rows` rows of `v = 3 × (rowid − 1)`, in a folder removed on drop.
    struct Table(std::path::PathBuf);

    impl Drop for Table {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(self.0.parent().unwrap());
        }
    }

    fn table(rows: i64, name: &str) -> Table {
        let dir = std::env::temp_dir().join(format!("rowid-ranges-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("t.sqlite");
        let _ = std::fs::remove_file(&path);
        let conn = Connection::open(&path).unwrap();
        conn.execute_batch("CREATE TABLE t (v INTEGER); BEGIN").unwrap();
        for v in 0..rows {
            conn.execute("INSERT INTO t (v) VALUES (?1)", [v * 3]).unwrap();
        }
        conn.execute_batch("COMMIT").unwrap();
        Table(path)
    }

    fn pass_values(path: &std::path::Path, threads: usize, chunk: i64, stop_after: Option<usize>) -> (Vec<i64>, bool) {
        let conn = Connection::open(path).unwrap();
        let connect = || Connection::open(path);
        let sql = "SELECT v FROM t WHERE v >= ?1 AND rowid >= ?2 AND rowid < ?3";
        let pass = RowidPass { sql, binds: &[0], range: (1, 1000), chunk };
        let mut out = Vec::new();
        let mut taken = 0;
        let whole = fold_in_rowid_order(
            &conn,
            Some(&connect),
            threads,
            &pass,
            &|rows| decoded(rows, &|r| r.get(0)),
            &mut |_, rows: Vec<i64>| {
                out.extend(rows);
                taken += 1;
                if stop_after == Some(taken) { ControlFlow::Break(()) } else { ControlFlow::Continue(()) }
            },
        )
        .unwrap();
        (out, whole)
    }

    #[test]
    fn every_thread_count_gives_the_rows_in_rowid_order() {
        let t = table(1000, "order");
        let path = &t.0;
        let expected: Vec<i64> = (0..1000).map(|v| v * 3).collect();
        for threads in [1, 2, 3, 8] {
            for chunk in [1, 7, 64, 5000] {
                assert_eq!(pass_values(path, threads, chunk, None), (expected.clone(), true), "{threads} {chunk}");
            }
        }
    }

    #[test]
    fn a_pass_stopped_by_its_consumer_gives_the_chunks_before() {
        let t = table(1000, "stop");
        let path = &t.0;
        for threads in [1, 2, 3] {
            let (rows, whole) = pass_values(path, threads, 100, Some(3));
            assert!(!whole);
            assert_eq!(rows, (0..300).map(|v| v * 3).collect::<Vec<i64>>(), "{threads}");
        }
    }
}
