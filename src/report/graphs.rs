//! The captured graphs (behaviour.md §1.5, §3): those of the operations with an error read at
//! open, any other read when its operation is shown, one query for many operations; and the
//! failed device operations of an operation with an error (§3.5).

use super::ReportError;
use super::database::{int, text, uint};
use super::memory::MemoryReport;
use crate::analysis::graph::{GraphNode, parse_graph};
use crate::analysis::scopes::failed_device_operations;
use std::collections::HashMap;

impl MemoryReport {
    /// Reads the captured graphs of the operations that have an error, in one query.
    pub(super) fn read_error_graphs(&self) -> rusqlite::Result<HashMap<usize, Result<Vec<GraphNode>, ReportError>>> {
        let wanted: Vec<usize> = (0..self.operations.len()).filter(|&i| self.operations[i].error.is_some()).collect();
        self.read_graphs(wanted)
    }

    /// Reads the captured graphs of some operations (by index), in one query.
    pub(super) fn read_graphs(
        &self,
        wanted: Vec<usize>,
    ) -> rusqlite::Result<HashMap<usize, Result<Vec<GraphNode>, ReportError>>> {
        if wanted.is_empty() {
            return Ok(HashMap::new());
        }
        let ids: Vec<u64> = wanted.iter().map(|&i| self.operations[i].id).collect();
        let texts = self.graph_texts(&ids)?;
        Ok(wanted
            .into_iter()
            .map(|i| {
                let op = &self.operations[i];
                (i, pick_graph(texts.get(&op.id), op.rank).map_or(Ok(Vec::new()), |t| Ok(parse_graph(t)?)))
            })
            .collect())
    }

    /// Raw `captured_graph` texts of some operation ids, with their ranks, in table order.
    fn graph_texts(&self, ids: &[u64]) -> rusqlite::Result<HashMap<u64, Vec<(u32, String)>>> {
        let mut out: HashMap<u64, Vec<(u32, String)>> = HashMap::new();
        if !self.schema.has_table("captured_graph") {
            return Ok(out);
        }
        let columns = self
            .schema
            .select_list("captured_graph", &[("operation_id", "0"), ("captured_graph", "''"), ("rank", "0")]);
        for condition in self.operation_rows("captured_graph", ids)? {
            let sql = format!("SELECT {columns} FROM captured_graph WHERE {condition} ORDER BY rowid");
            let mut stmt = self.conn.prepare(&sql)?;
            let mut rows = stmt.query([])?;
            while let Some(r) = rows.next()? {
                let id = uint(r.get_ref(0)?);
                out.entry(id).or_default().push((int(r.get_ref(2)?) as u32, text(r.get_ref(1)?)));
            }
        }
        Ok(out)
    }

    /// The captured graph of an operation (by index): nodes, or why they are unavailable.
    pub fn graph(&self, index: usize) -> Result<Vec<GraphNode>, ReportError> {
        if let Some(graph) = self.error_graphs.get(&index) {
            return graph.clone();
        }
        let op = &self.operations[index];
        let texts = self.graph_texts(&[op.id]).map_err(ReportError::read("the captured graph"))?;
        pick_graph(texts.get(&op.id), op.rank).map_or(Ok(Vec::new()), |t| Ok(parse_graph(t)?))
    }

    /// The failed device operations of an operation with an error (behaviour.md §3.5);
    /// empty when it has no graph, or why its graph is unavailable.
    pub fn failed_device_operations(&self, index: usize) -> Result<Vec<String>, ReportError> {
        match self.error_graphs.get(&index) {
            Some(Ok(nodes)) => Ok(failed_device_operations(nodes)),
            Some(Err(reason)) => Err(reason.clone()),
            None => self.graph(index).map(|nodes| failed_device_operations(&nodes)),
        }
    }
}

/// The graph of an operation: the first row of its rank, otherwise the first row for the id.
fn pick_graph(rows: Option<&Vec<(u32, String)>>, rank: u32) -> Option<&str> {
    let rows = rows?;
    rows.iter().find(|(r, _)| *r == rank).or_else(|| rows.first()).map(|(_, t)| t.as_str())
}
