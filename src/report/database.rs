//! Read-only SQLite access: opening a report database without ever writing to it, and reading
//! tables whose columns vary by era (docs/rules/reference.md §1.3).

use super::error::ReportError;
use crate::analysis::messages::failure::BufferType;
use crate::analysis::sanitize::sanitize_line;
use rusqlite::types::ValueRef;
use rusqlite::{Connection, OpenFlags, OptionalExtension};
use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::time::Duration;

/// The SQLite file header.
const SQLITE_MAGIC: &[u8; 16] = b"SQLite format 3\0";

/// Opens a report database read-only, and says whether it was opened immutable: a WAL database
/// whose writer is not connected (no `-wal` file) is read as a fixed file, which never shows
/// later changes (a watched report reopens it once the writer's files appear).
pub(crate) fn open_database(path: &Path) -> Result<(Connection, bool), ReportError> {
    let fail = |what: String| ReportError::new(what, path);
    let header = read_header(path).map_err(|e| fail(format!("cannot read the database ({e})")))?;
    if header.is_empty() {
        return Err(
            fail("empty file, not a TT-NN memory report".into()).hint("point at a report folder or its db.sqlite")
        );
    }
    if header.len() < 100 || &header[..16] != SQLITE_MAGIC {
        if looks_like_text(&header) {
            return Err(fail("this is not a TT-NN memory report; to explain a log, use --log".into()));
        }
        return Err(fail("not an SQLite database".into()).hint("point at a TT-NN report folder or its db.sqlite"));
    }
    // Bytes 18 and 19 are 2 in WAL mode. A read-only connection would create -wal and -shm files
    // next to the database unless it is opened immutable; that is safe only when no -wal exists.
    let wal_mode = header[18] == 2 || header[19] == 2;
    let wal_file_exists = sibling(path, "-wal").exists();
    let mut uri = format!("file:{}?mode=ro", uri_path(path));
    let immutable = wal_mode && !wal_file_exists;
    if immutable {
        uri.push_str("&immutable=1");
    }
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_URI | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = Connection::open_with_flags(&uri, flags).map_err(|e| open_error(e, path, wal_mode))?;
    conn.busy_timeout(Duration::from_millis(250)).map_err(|e| open_error(e, path, wal_mode))?;
    // Touch the schema now so a damaged or locked file fails here, with its name.
    conn.query_row("SELECT count(*) FROM sqlite_master", [], |r| r.get::<_, i64>(0))
        .map_err(|e| open_error(e, path, wal_mode))?;
    Ok((conn, immutable))
}

/// True when both files a connected WAL writer keeps beside the database exist: a read-only
/// connection opened now uses them and creates nothing.
pub(crate) fn wal_writer_files_exist(path: &Path) -> bool {
    sibling(path, "-wal").exists() && sibling(path, "-shm").exists()
}

/// Text (a log, a pasted message): UTF-8, perhaps cut inside its last character, without control
/// bytes other than tabs, line endings and escape sequences' ESC.
fn looks_like_text(header: &[u8]) -> bool {
    let utf8 = match std::str::from_utf8(header) {
        Ok(_) => true,
        Err(e) => e.error_len().is_none(),
    };
    utf8 && header.iter().all(|&b| b >= 0x20 || matches!(b, b'\t' | b'\n' | b'\r' | 0x1b))
}

fn read_header(path: &Path) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let mut header = Vec::with_capacity(100);
    std::fs::File::open(path)?.take(100).read_to_end(&mut header)?;
    Ok(header)
}

fn sibling(path: &Path, suffix: &str) -> std::path::PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(suffix);
    name.into()
}

/// Percent-encodes a path for an SQLite `file:` URI.
fn uri_path(path: &Path) -> String {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut out = String::new();
    for b in absolute.to_string_lossy().bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => out.push(b as char),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// Turns an SQLite error into a one-line error naming the file.
pub(crate) fn open_error(e: rusqlite::Error, path: &Path, wal_mode: bool) -> ReportError {
    use rusqlite::ErrorCode::*;
    let code = e.sqlite_error_code();
    match code {
        Some(DatabaseBusy | DatabaseLocked) => ReportError::new("the database is locked by another process", path)
            .hint("wait for the run that writes it to finish, or open a copy"),
        Some(NotADatabase) => ReportError::new("not an SQLite database, or a damaged one", path),
        Some(DatabaseCorrupt) => ReportError::new("the database is damaged (truncated or corrupt)", path),
        Some(CannotOpen) if wal_mode => ReportError::new(
            "the database is in WAL mode with changes not yet checkpointed, and cannot be read without writing next to it",
            path,
        )
        .hint("copy the report folder somewhere writable and open the copy"),
        Some(CannotOpen | PermissionDenied) => ReportError::new("cannot open the database (permission denied?)", path),
        _ => ReportError::new(format!("cannot read the database ({e})"), path),
    }
}

/// The columns of every table, by table name; a missing table is absent.
#[derive(Debug, Clone, Default)]
pub(crate) struct Schema {
    tables: HashMap<String, HashSet<String>>,
}

impl Schema {
    /// Reads the tables and their columns, in one statement.
    pub(crate) fn read(conn: &Connection) -> rusqlite::Result<Self> {
        let mut tables: HashMap<String, HashSet<String>> = HashMap::new();
        let mut stmt = conn.prepare(
            "SELECT m.name, p.name FROM sqlite_master AS m LEFT JOIN pragma_table_info(m.name) AS p WHERE m.type = 'table'",
        )?;
        let mut rows = stmt.query([])?;
        while let Some(r) = rows.next()? {
            let columns = tables.entry(r.get(0)?).or_default();
            if let Some(column) = r.get::<_, Option<String>>(1)? {
                columns.insert(column);
            }
        }
        Ok(Self { tables })
    }

    /// True when the table exists.
    pub(crate) fn has_table(&self, table: &str) -> bool {
        self.tables.contains_key(table)
    }

    /// True when the table exists and has the column.
    pub(crate) fn has_column(&self, table: &str, column: &str) -> bool {
        self.tables.get(table).is_some_and(|c| c.contains(column))
    }

    /// A select list for `columns` of `table`, each missing column replaced by its default literal.
    pub(crate) fn select_list(&self, table: &str, columns: &[(&str, &str)]) -> String {
        columns
            .iter()
            .map(|(column, default)| if self.has_column(table, column) { quote(column) } else { default.to_string() })
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// A `WHERE` fragment selecting one rank, or `1` when the table has no rank column.
    pub(crate) fn rank_filter(&self, table: &str) -> &'static str {
        if self.has_column(table, "rank") { "rank = ?1" } else { "(1 OR ?1)" }
    }
}

/// Quotes an SQL identifier.
pub(crate) fn quote(identifier: &str) -> String {
    format!("\"{}\"", identifier.replace('"', "\"\""))
}

/// Reads an integer cell whatever its storage class; text is parsed, anything else is 0.
pub(crate) fn int(value: ValueRef<'_>) -> i64 {
    match value {
        ValueRef::Integer(i) => i,
        ValueRef::Real(f) => f as i64,
        ValueRef::Text(t) => std::str::from_utf8(t).ok().and_then(|s| s.trim().parse().ok()).unwrap_or(0),
        _ => 0,
    }
}

/// A cell as a signed integer, or none when NULL or not a number.
pub(crate) fn signed(value: ValueRef<'_>) -> Option<i64> {
    match value {
        ValueRef::Integer(i) => Some(i),
        ValueRef::Real(f) if f.is_finite() => Some(f as i64),
        ValueRef::Text(t) => std::str::from_utf8(t).ok()?.trim().parse().ok(),
        _ => None,
    }
}

/// Reads an unsigned id or size cell; negative values read as 0.
pub(crate) fn uint(value: ValueRef<'_>) -> u64 {
    u64::try_from(int(value)).unwrap_or(0)
}

/// Reads an id cell that may be NULL: none when it is, else as [`uint`] reads it.
pub(crate) fn opt_uint(value: ValueRef<'_>) -> Option<u64> {
    (value != ValueRef::Null).then(|| uint(value))
}

/// Reads a float cell; none when NULL or not numeric.
pub(crate) fn float(value: ValueRef<'_>) -> Option<f64> {
    match value {
        ValueRef::Integer(i) => Some(i as f64),
        ValueRef::Real(f) => Some(f),
        ValueRef::Text(t) => std::str::from_utf8(t).ok()?.trim().parse().ok(),
        _ => None,
    }
}

/// Bytes as text, an invalid sequence replaced; validated first, as `from_utf8` checks plain
/// ASCII a word at a time where the lossy reader steps byte by byte (a graph text is megabytes).
pub(crate) fn lossy(bytes: &[u8]) -> std::borrow::Cow<'_, str> {
    match std::str::from_utf8(bytes) {
        Ok(valid) => valid.into(),
        Err(_) => String::from_utf8_lossy(bytes),
    }
}

/// Reads a text cell; numbers are written out, NULL and blobs read as empty.
pub(crate) fn text(value: ValueRef<'_>) -> String {
    match value {
        ValueRef::Text(t) => lossy(t).into_owned(),
        ValueRef::Integer(i) => i.to_string(),
        ValueRef::Real(f) => f.to_string(),
        _ => String::new(),
    }
}

/// A buffer type stored as an integer code `0..4` or as a name (`'L1'`); other values pass
/// through unchanged (docs/rules/reference.md §1.3.3).
pub(crate) fn buffer_type(value: ValueRef<'_>) -> Result<BufferType, String> {
    match value {
        ValueRef::Integer(code) => BufferType::from_code(code).ok_or_else(|| code.to_string()),
        ValueRef::Text(t) => {
            let name = lossy(t);
            BufferType::from_token(name.trim()).ok_or_else(|| sanitize_line(&name))
        }
        other => Err(text(other)),
    }
}

/// Where the rows of one operation lie in a table without an index on `operation_id`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RowSpan {
    /// The rows lie between these rowids (inclusive start, exclusive end).
    Rowids(i64, i64),
    /// The table has no row for the operation.
    Empty,
    /// The table is not in operation order (or could not be probed): scan it.
    Unknown,
}

/// Finds the rows of the operations with ids in `ids` in `table` without scanning it.
///
/// Every TT-NN writer inserts per-operation rows (`captured_graph`, `stack_traces`, `buffers`,
/// …) in operation order, so `operation_id` does not decrease with rowid. A binary search over
/// rowid then finds an operation's rows in O(log n) seeks instead of a scan of a table that can
/// hold gigabytes. An index on `operation_id`, when the report has one, is used instead; any
/// disorder met while probing gives `Unknown`, and the caller scans.
pub(crate) fn operation_row_span(
    conn: &Connection,
    table: &str,
    ids: std::ops::RangeInclusive<u64>,
) -> rusqlite::Result<RowSpan> {
    let Some(rowids) = rowid_range(conn, table)? else { return Ok(RowSpan::Empty) };
    let Some(mut probes) = Probes::new(conn, table, rowids)? else { return Ok(RowSpan::Unknown) };
    let start = probes.lower_bound(*ids.start())?;
    let end = probes.lower_bound(ids.end().saturating_add(1))?;
    if !probes.in_order() {
        return Ok(RowSpan::Unknown);
    }
    Ok(if start >= end { RowSpan::Empty } else { RowSpan::Rowids(start, end) })
}

/// The rows read while searching one table by rowid: each probe reads the first row at or after
/// a rowid, and every row read is kept to check at the end that the table was in order.
struct Probes<'conn> {
    statement: rusqlite::CachedStatement<'conn>,
    seen: Vec<(i64, u64)>,
    /// The first rowid and its operation id.
    first: (i64, u64),
    /// The last rowid and its operation id.
    last: (i64, u64),
}

impl<'conn> Probes<'conn> {
    /// Probes `table` between its first and last rowid; none when either end cannot be read.
    fn new(conn: &'conn Connection, table: &str, (first, last): (i64, i64)) -> rusqlite::Result<Option<Self>> {
        let t = quote(table);
        let statement = conn
            .prepare_cached(&format!("SELECT rowid, operation_id FROM {t} WHERE rowid >= ?1 ORDER BY rowid LIMIT 1"))?;
        let mut probes = Probes { statement, seen: Vec::new(), first: (first, 0), last: (last, 0) };
        let (Some(first_row), Some(last_row)) = (probes.at(first)?, probes.at(last)?) else { return Ok(None) };
        (probes.first.1, probes.last.1) = (first_row.1, last_row.1);
        Ok(Some(probes))
    }

    /// The rowid and operation id of the first row at or after `rowid`.
    fn at(&mut self, rowid: i64) -> rusqlite::Result<Option<(i64, u64)>> {
        let row = self.statement.query_row([rowid], |r| Ok((r.get(0)?, uint(r.get_ref(1)?)))).optional()?;
        self.seen.extend(row);
        Ok(row)
    }

    /// The smallest rowid whose operation id is at least `target` (or last + 1). Rowids usually
    /// follow operation ids closely, so steps interpolate between the ids known around the
    /// range, alternating with halving so the worst case stays logarithmic.
    fn lower_bound(&mut self, target: u64) -> rusqlite::Result<i64> {
        let ((first, first_id), (last, last_id)) = (self.first, self.last);
        if first_id >= target {
            return Ok(first);
        }
        if last_id < target {
            return Ok(last + 1);
        }
        // Invariant: the row before `lo` has an id below target (`below`), the row at `hi` one at
        // least target (`above`).
        let (mut lo, mut hi, mut below, mut above) = (first + 1, last, first_id, last_id);
        let mut interpolate = true;
        while lo < hi {
            let mid = if interpolate && above > below {
                let fraction = (target - below) as f64 / (above - below) as f64;
                (lo - 1 + ((hi - lo + 1) as f64 * fraction) as i64).clamp(lo, hi - 1)
            } else {
                lo + (hi - lo) / 2
            };
            interpolate = !interpolate;
            match self.at(mid)? {
                Some((rowid, id)) if id < target => (lo, below) = (rowid + 1, id),
                Some((_, id)) => (hi, above) = (mid, id),
                None => hi = mid,
            }
        }
        Ok(lo)
    }

    /// Whether every row read had an operation id no lower than the rows before it.
    fn in_order(&mut self) -> bool {
        self.seen.sort();
        !self.seen.windows(2).any(|w| w[0].1 > w[1].1)
    }
}

/// The first and last rowid of a table, found with two seeks; none when the table is empty.
pub(crate) fn rowid_range(conn: &Connection, table: &str) -> rusqlite::Result<Option<(i64, i64)>> {
    let t = quote(table);
    // Two subqueries: SQLite answers a lone min() or max() of rowid with one seek, but scans the
    // whole table for both in one select.
    let (first, last): (Option<i64>, Option<i64>) = conn
        .prepare_cached(&format!("SELECT (SELECT min(rowid) FROM {t}), (SELECT max(rowid) FROM {t})"))?
        .query_row([], |r| Ok((r.get(0)?, r.get(1)?)))?;
    Ok(first.zip(last))
}

/// The tables that have an index whose first column is `column`, so lookups by it are cheap.
pub(crate) fn tables_indexed_by(conn: &Connection, column: &str) -> rusqlite::Result<Vec<String>> {
    let mut stmt = conn.prepare(
        "SELECT m.tbl_name FROM sqlite_master AS m, pragma_index_info(m.name) AS p \
         WHERE m.type = 'index' AND p.seqno = 0 AND p.name = ?1",
    )?;
    stmt.query_map([column], |r| r.get(0))?.collect()
}
