//! The tensors a picture of memory looks at, placed where their producers' captured graphs put
//! them (docs/rules/memory.md §4; the rule is `analysis::memory::output_places`): read only for the
//! producers the tables leave in doubt (two outputs at one place, an output with no place).

use super::questions::Pictures;
use crate::analysis::memory::failure::holders::producer;
use crate::analysis::memory::{MemoryNote, TensorFacts, output_places, producers_to_tie, tie_outputs};
use crate::analysis::model::operation_index;
use std::collections::BTreeSet;

/// How many producers' graphs one read takes.
const TIE_BATCH: usize = 64;

impl<'r> Pictures<'r> {
    /// Places `tensors` by the graphs of the producers the tables leave in doubt, up to
    /// operation `n` (by index); the notes say where the graph and the tables disagree. A graph
    /// that cannot be read leaves the tables' places.
    pub(super) fn tie_to_graphs(&self, tensors: &mut [TensorFacts], n: usize) -> rusqlite::Result<Vec<MemoryNote>> {
        let mut notes = Vec::new();
        let n_id = self.report.operations.get(n).map_or(u64::MAX, |o| o.id);
        let producers: Vec<(u64, usize)> = producers_to_tie(tensors)
            .into_iter()
            .filter(|&p| p <= n_id)
            .filter_map(|p| Some((p, operation_index(&self.report.operations, p)?)))
            .collect();
        // Their graphs a batch per read (each read of one graph may scan the whole table), so
        // that a run with thousands of producers in doubt never holds all their graphs at once;
        // a graph read at open (a failure's, which may hold a million nodes) is borrowed.
        let graphs = self.report.graphs();
        for batch in producers.chunks(TIE_BATCH) {
            let unread = batch.iter().map(|&(_, i)| i).filter(|&i| !graphs.read_at_open(i)).collect();
            let mut read = graphs.read(unread)?;
            for &(producer, index) in batch {
                let graph = match read.remove(&index) {
                    Some(Ok(graph)) => std::borrow::Cow::Owned(std::sync::Arc::unwrap_or_clone(graph)),
                    Some(Err(_)) => continue,
                    None => match graphs.graph_shared(index) {
                        Ok(graph) => graph,
                        Err(_) => continue,
                    },
                };
                let outputs = self.linked_tensor_ids("output_tensors", "output_index", &[index])?;
                let outputs = outputs.get(&index).map(Vec::as_slice).unwrap_or_default();
                if let Some(ties) = output_places(&graph, outputs, tensors) {
                    notes.extend(tie_outputs(tensors, producer, &ties));
                }
            }
        }
        Ok(notes)
    }

    /// The tensors `ids` as [`Self::tie_to_graphs`] places them up to operation `n` (by index):
    /// read with the other outputs of their producers, so that two outputs recorded at one
    /// place are seen.
    pub(super) fn tied_facts(&self, n: usize, ids: &[u64]) -> rusqlite::Result<Vec<TensorFacts>> {
        let mut facts = self.report.tensors().facts(n, &[], ids)?;
        let producers: BTreeSet<usize> = facts
            .iter()
            .filter_map(|t| producer(&t.uses))
            .filter_map(|u| operation_index(&self.report.operations, u.operation_id))
            .collect();
        let producers: Vec<usize> = producers.into_iter().collect();
        let mut all: BTreeSet<u64> = ids.iter().copied().collect();
        let before = all.len();
        all.extend(self.linked_tensor_ids("output_tensors", "output_index", &producers)?.into_values().flatten());
        if all.len() > before {
            facts = self.report.tensors().facts(n, &[], &all.into_iter().collect::<Vec<_>>())?;
        }
        self.tie_to_graphs(&mut facts, n)?;
        Ok(facts)
    }
}
