//! The captured graphs (docs/rules/reference.md §1.5, §3): those of the operations with an error read at
//! open, any other read when its operation is shown, one query for many operations; and the
//! failed device operations of an operation with an error (§3.5).

use super::devices::Device;
use crate::analysis::graph::nodes::{GraphError, GraphNode, SharedGraph, parse_graph};
use crate::analysis::graph::scopes::failed_device_operations;
use crate::analysis::graph::stream::GraphStream;
use crate::analysis::graph::stream_split::node_start_after;
use crate::analysis::model::{ErrorRecord, Operation};
use crate::report::database::{int, lossy, text, uint};
use crate::report::error::ReportError;
use crate::report::store::Store;
use rusqlite::MAIN_DB;
use rusqlite::types::ValueRef;
use std::collections::HashMap;
use std::sync::atomic::AtomicBool;
use std::sync::atomic::Ordering::Relaxed;

/// The captured graphs of the operations with an error, by operation index: read at open (the
/// first screen names their failed device operations) and kept with the report.
pub(crate) type ErrorGraphs = HashMap<usize, Result<SharedGraph, ReportError>>;

/// An operation's captured graph, or why it cannot be read.
pub(crate) type GraphResult = Result<Vec<GraphNode>, GraphError>;

/// The captured graphs: a question asked of the report's store for its operations (and, for the
/// replay from nothing, its errors and devices); the graphs read at open are looked up first.
pub struct Graphs<'a> {
    pub(super) store: &'a Store,
    pub(super) operations: &'a [Operation],
    pub(super) errors: &'a [ErrorRecord],
    pub(super) devices: &'a [Device],
    pub(super) error_graphs: &'a ErrorGraphs,
}

impl<'a> Graphs<'a> {
    /// Reads the captured graphs of the operations that have an error, in one query.
    pub(super) fn read_with_errors(&self) -> rusqlite::Result<ErrorGraphs> {
        let wanted: Vec<usize> = (0..self.operations.len()).filter(|&i| self.operations[i].error.is_some()).collect();
        self.read(wanted)
    }

    /// Reads the captured graphs of some operations (by index), in one query.
    pub(super) fn read(&self, wanted: Vec<usize>) -> rusqlite::Result<ErrorGraphs> {
        if wanted.is_empty() {
            return Ok(HashMap::new());
        }
        let ids: Vec<u64> = wanted.iter().map(|&i| self.operations[i].id).collect();
        let rows = self.graph_rows(&ids)?;
        let mut out = HashMap::new();
        for i in wanted {
            let op = &self.operations[i];
            let graph = match pick_graph(rows.get(&op.id), op.rank) {
                Some(row) => self.parse_row(row)?.map_err(ReportError::from),
                None => Ok(Vec::new()),
            };
            out.insert(i, graph.map(SharedGraph::new));
        }
        Ok(out)
    }

    /// The captured-graph texts of some operations (by index), in that order, read in one query
    /// and left unparsed (a caller that stops at the first graph it wants parses no other); none
    /// for an operation without a graph.
    pub(super) fn texts_of(&self, wanted: &[usize]) -> rusqlite::Result<Vec<Option<String>>> {
        let ids: Vec<u64> = wanted.iter().map(|&i| self.operations[i].id).collect();
        let texts = self.graph_texts(&ids)?;
        Ok(wanted
            .iter()
            .map(|&i| {
                let op = &self.operations[i];
                pick_graph(texts.get(&op.id), op.rank).cloned()
            })
            .collect())
    }

    /// Raw `captured_graph` texts of some operation ids, with their ranks, in table order.
    fn graph_texts(&self, ids: &[u64]) -> rusqlite::Result<HashMap<u64, Vec<(u32, String)>>> {
        self.store.texts_by_operation("captured_graph", "captured_graph", ids)
    }

    /// The `captured_graph` rows of some operation ids, with their ranks, in table order: each
    /// text, or for a text longer than [`LONG_GRAPH`] its rowid, so that it is parsed as it is
    /// read ([`Self::parse_row`]) and never held whole.
    fn graph_rows(&self, ids: &[u64]) -> rusqlite::Result<HashMap<u64, Vec<(u32, GraphRow)>>> {
        let mut out: HashMap<u64, Vec<(u32, GraphRow)>> = HashMap::new();
        if !self.store.schema.has_column("captured_graph", "captured_graph") {
            for (id, rows) in self.graph_texts(ids)? {
                out.insert(id, rows.into_iter().map(|(rank, text)| (rank, GraphRow::Text(text))).collect());
            }
            return Ok(out);
        }
        let columns = self.store.schema.select_list("captured_graph", &[("operation_id", "0"), ("rank", "0")]);
        // `typeof` and `octet_length` do not read a text's pages; a long text is not read here.
        // The length first, and in `CASE`, which stops at the first false term: most graphs are
        // short, and their type is then never asked.
        let long = format!(
            "CASE WHEN octet_length(captured_graph) > {LONG_GRAPH} AND typeof(captured_graph) = 'text' THEN 1 ELSE 0 END"
        );
        for condition in self.store.operation_rows("captured_graph", ids)? {
            let sql = format!(
                "SELECT {columns}, rowid, {long}, CASE WHEN {long} THEN NULL ELSE captured_graph END \
                 FROM captured_graph WHERE {condition} ORDER BY rowid"
            );
            let mut stmt = self.store.conn.prepare(&sql)?;
            let mut rows = stmt.query([])?;
            while let Some(r) = rows.next()? {
                let row = match int(r.get_ref(3)?) != 0 {
                    true => GraphRow::Long(int(r.get_ref(2)?)),
                    false => GraphRow::Text(text(r.get_ref(4)?)),
                };
                out.entry(uint(r.get_ref(0)?)).or_default().push((int(r.get_ref(1)?) as u32, row));
            }
        }
        Ok(out)
    }

    /// The nodes of a `captured_graph` row, or why its graph cannot be read; a long text is
    /// read from the table in pieces and parsed as they come (`GraphStream`), else, when that
    /// reader does not accept it, read whole and parsed as any other.
    fn parse_row(&self, row: &GraphRow) -> rusqlite::Result<GraphResult> {
        let rowid = match row {
            GraphRow::Text(text) => return Ok(parse_graph(text)),
            GraphRow::Long(rowid) => *rowid,
        };
        let blob = graph_blob(&self.store.conn, rowid)?;
        let mut stream = GraphStream::new();
        let mut from = 0;
        if let Some(split) = self.second_part(&blob)? {
            match self.read_in_two(rowid, &blob, split)? {
                Ok(nodes) => return Ok(Ok(nodes)),
                Err(first) => (stream, from) = (*first, split),
            }
        }
        read_pieces(&blob, from..blob.len(), &mut |piece| stream.feed(piece))?;
        if let Some(nodes) = stream.finish() {
            return Ok(Ok(nodes));
        }
        let sql = "SELECT captured_graph FROM captured_graph WHERE rowid = ?1";
        let whole = self.store.conn.query_row(sql, [rowid], |r| Ok(text(r.get_ref(0)?)))?;
        Ok(parse_graph(&whole))
    }

    /// Where a long text's second part starts when it is read in two at once
    /// (`stream_split.rs`): past [`SPLIT_FROM`] bytes, with a worker's connection to hand.
    fn second_part(&self, blob: &rusqlite::blob::Blob<'_>) -> rusqlite::Result<Option<usize>> {
        if blob.len() < SPLIT_FROM || self.store.threads < 2 || self.store.database.is_none() {
            return Ok(None);
        }
        let middle = blob.len() / 2;
        let mut window = vec![0; SPLIT_WINDOW.min(blob.len() - middle)];
        blob.read_at_exact(&mut window, middle)?;
        Ok(node_start_after(&window, 1).map(|start| middle + start))
    }

    /// Reads the long text at `rowid` in two parts at once: from `split` to the end on a worker
    /// with its own connection, the start here. The nodes when the parts join, else the stream
    /// that read the start, to read on (the worker's nodes dropped; a worker that could not read
    /// is one that did not join).
    fn read_in_two(
        &self,
        rowid: i64,
        blob: &rusqlite::blob::Blob<'_>,
        split: usize,
    ) -> rusqlite::Result<Result<Vec<GraphNode>, Box<GraphStream>>> {
        let connect = self.store.connector();
        let stop = AtomicBool::new(false);
        std::thread::scope(|scope| {
            let rest = scope.spawn(|| -> rusqlite::Result<Option<Vec<GraphNode>>> {
                let conn = connect()?;
                let blob = graph_blob(&conn, rowid)?;
                let mut rest = GraphStream::from_node();
                read_pieces(&blob, split..blob.len(), &mut |piece| !stop.load(Relaxed) && rest.feed(piece))?;
                Ok(rest.finish())
            });
            let mut first = GraphStream::new();
            let read = read_pieces(blob, 0..split, &mut |piece| first.feed(piece));
            if read.is_err() || !first.before_node() {
                stop.store(true, Relaxed);
            }
            let rest = rest.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            read?;
            Ok(match rest {
                Ok(Some(rest)) => first.join(rest),
                _ => Err(Box::new(first)),
            })
        })
    }

    /// The captured graph of an operation (by index): nodes, or why they are unavailable.
    pub fn graph(&self, index: usize) -> Result<Vec<GraphNode>, ReportError> {
        if let Some(graph) = self.error_graphs.get(&index) {
            return graph.as_ref().map(|g| g.to_vec()).map_err(Clone::clone);
        }
        let op = &self.operations[index];
        let read = ReportError::read("the captured graph");
        let rows = self.graph_rows(&[op.id]).map_err(&read)?;
        match pick_graph(rows.get(&op.id), op.rank) {
            Some(row) => Ok(self.parse_row(row).map_err(&read)??),
            None => Ok(Vec::new()),
        }
    }

    /// [`Self::graph`], shared with the report when it was read at open (not copied).
    pub fn graph_arc(&self, index: usize) -> Result<SharedGraph, ReportError> {
        match self.error_graphs.get(&index) {
            Some(graph) => graph.clone(),
            None => self.graph(index).map(SharedGraph::new),
        }
    }

    /// Whether the graph of an operation (by index) was read at open (a failed operation's).
    pub(super) fn read_at_open(&self, index: usize) -> bool {
        self.error_graphs.contains_key(&index)
    }

    /// [`Self::graph`], borrowed when it was read at open (a failure's graph may hold a million
    /// nodes: it is not copied for each question).
    pub fn graph_shared(&self, index: usize) -> Result<std::borrow::Cow<'a, [GraphNode]>, ReportError> {
        match self.error_graphs.get(&index) {
            Some(Ok(graph)) => Ok(std::borrow::Cow::Borrowed(graph.as_slice())),
            _ => self.graph(index).map(std::borrow::Cow::Owned),
        }
    }

    /// The failed device operations of an operation with an error (docs/rules/reference.md §3.5);
    /// empty when it has no graph, or why its graph is unavailable.
    pub fn failed_device_operations(&self, index: usize) -> Result<Vec<String>, ReportError> {
        match self.error_graphs.get(&index) {
            Some(Ok(nodes)) => Ok(failed_device_operations(nodes)),
            Some(Err(reason)) => Err(reason.clone()),
            None => self.graph(index).map(|nodes| failed_device_operations(&nodes)),
        }
    }

    /// Every operation's captured graph, in operation order, read in one pass over the table and
    /// parsed as it is read by `parse` (e.g. `parse_scopes`), keeping only what `summarise` makes
    /// of each graph, so the nodes of 100 k graphs are never held at once (linking keeps a few
    /// names per graph). For each operation the first row of its rank wins, else the first row for
    /// its id; an operation without a graph is summarised from no nodes.
    pub fn map<T>(
        &self,
        parse: fn(&str) -> GraphResult,
        mut summarise: impl FnMut(usize, GraphResult) -> T,
    ) -> Result<Vec<T>, ReportError> {
        // Per operation: what was made of the graph taken so far, and whether its row had the
        // operation's rank.
        let mut taken: Vec<Option<(bool, T)>> = std::iter::repeat_with(|| None).take(self.operations.len()).collect();
        self.for_each(|_, id, rank, text| {
            let first = self.operations.partition_point(|o| o.id < id);
            let same_id = self.operations[first..].iter().take_while(|o| o.id == id);
            for (offset, (op, slot)) in same_id.zip(&mut taken[first..]).enumerate() {
                let rank_matches = op.rank == rank;
                if matches!(slot, Some((true, _))) || (slot.is_some() && !rank_matches) {
                    continue;
                }
                *slot = Some((rank_matches, summarise(first + offset, parse(text))));
            }
            true
        })
        .map_err(ReportError::read("captured graphs"))?;
        Ok(taken
            .into_iter()
            .enumerate()
            .map(|(i, t)| match t {
                Some((_, summary)) => summary,
                None => summarise(i, Ok(Vec::new())),
            })
            .collect())
    }

    /// Streams every `captured_graph` row in rowid order, one at a time, as (rowid, operation
    /// id, rank, text); `visit` returns false to stop. Nothing is kept between rows.
    pub(super) fn for_each(&self, mut visit: impl FnMut(i64, u64, u32, &str) -> bool) -> rusqlite::Result<()> {
        if !self.store.schema.has_table("captured_graph") {
            return Ok(());
        }
        let columns = self
            .store
            .schema
            .select_list("captured_graph", &[("operation_id", "0"), ("captured_graph", "''"), ("rank", "0")]);
        let mut stmt =
            self.store.conn.prepare(&format!("SELECT rowid, {columns} FROM captured_graph ORDER BY rowid"))?;
        let mut rows = stmt.query([])?;
        while let Some(r) = rows.next()? {
            let (rowid, id, rank) = (int(r.get_ref(0)?), uint(r.get_ref(1)?), int(r.get_ref(3)?) as u32);
            let text: std::borrow::Cow<'_, str> = match r.get_ref(2)? {
                ValueRef::Text(bytes) => lossy(bytes),
                other => text(other).into(),
            };
            if !visit(rowid, id, rank, &text) {
                break;
            }
        }
        Ok(())
    }
}

/// A `captured_graph` text longer than this (in bytes) is parsed as it is read from the table.
const LONG_GRAPH: usize = 1 << 20;
/// How much of a long text is read at a time: a node cut by a piece's end is read again with
/// the next piece, so that one of a few MB (a device operation's connections to every node)
/// is read again once or twice, not once per MB.
const PIECE: usize = 4 << 20;

/// A long text at least this long (in bytes) is read in two parts at once, on two cores.
const SPLIT_FROM: usize = 16 << 20;
/// The bytes from a long text's middle in which its second part's start is looked for.
const SPLIT_WINDOW: usize = 1 << 20;

/// The long text of the `captured_graph` row `rowid`, opened read-only to be read in pieces.
fn graph_blob(conn: &rusqlite::Connection, rowid: i64) -> rusqlite::Result<rusqlite::blob::Blob<'_>> {
    conn.blob_open(MAIN_DB, "captured_graph", "captured_graph", rowid, true)
}

/// Reads the bytes `range` of a long text a piece of at most [`PIECE`] bytes at a time, giving
/// each to `feed` until it says no more.
fn read_pieces(
    blob: &rusqlite::blob::Blob<'_>,
    range: std::ops::Range<usize>,
    feed: &mut dyn FnMut(&[u8]) -> bool,
) -> rusqlite::Result<()> {
    let mut piece = vec![0; PIECE.min(range.len())];
    let mut at = range.start;
    while at < range.end {
        let length = piece.len().min(range.end - at);
        blob.read_at_exact(&mut piece[..length], at)?;
        if !feed(&piece[..length]) {
            break;
        }
        at += length;
    }
    Ok(())
}

/// A `captured_graph` row as first read: its text, or the rowid of a long text.
enum GraphRow {
    /// The text (lossily decoded, as every text of the report).
    Text(String),
    /// The rowid of a text longer than [`LONG_GRAPH`].
    Long(i64),
}

/// The graph of an operation: the first row of its rank, otherwise the first row for the id.
fn pick_graph<T>(rows: Option<&Vec<(u32, T)>>, rank: u32) -> Option<&T> {
    let rows = rows?;
    rows.iter().find(|(r, _)| *r == rank).or_else(|| rows.first()).map(|(_, t)| t)
}
