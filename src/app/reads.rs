//! What the state needs from the report: `pending_reads` says it, the loop reads it and hands the
//! results back with `deliver`. Nothing here touches the report. Replays and the memory at a
//! failure are no reads: a failure's picture, its fixes and the fixes typed are background
//! passes (`App::picture_wanted`, `App::fixes_wanted`).

use super::device_ops::DeviceTree;
use super::loaded::Loaded;
use super::memory::{MemoryPicture, Place};
use super::perf::PerfState;
use super::state::App;
use super::tab::Tab;
use crate::analysis::graph::nodes::GraphNode;
use std::collections::HashMap;

/// Something to read from the report before the next draw.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Read {
    /// Stack traces of these operations (the rows shown and the selected one), in one query.
    StackTraces(Vec<usize>),
    /// Arguments of the selected operation.
    Arguments(usize),
    /// The captured graph of the selected operation, for the Device ops tab.
    Graph(usize),
    /// The memory of an operation for the Memory tab: at its failure (`failure`), else its own
    /// snapshot at `place` (none: L1 of its lowest device, else the first).
    Memory {
        /// The operation (index).
        operation: usize,
        /// The device and buffer type asked for.
        place: Option<Place>,
        /// Ask for the failure's picture first.
        failure: bool,
    },
}

/// What the loop read.
#[derive(Debug, Clone, PartialEq)]
pub enum ReadResult {
    /// Stack traces by operation index (empty text when none is stored).
    StackTraces(Loaded<HashMap<usize, String>>),
    /// An operation's arguments.
    Arguments(usize, Loaded<Vec<(String, String)>>),
    /// An operation's captured graph.
    Graph(usize, Loaded<Vec<GraphNode>>),
    /// An operation's memory picture, for the place asked for.
    Memory(usize, Option<Place>, Loaded<MemoryPicture>),
}

impl App {
    /// What the next draw needs that is not read yet (from the rows the last draw showed).
    pub fn pending_reads(&self) -> Vec<Read> {
        let mut reads = Vec::new();
        let tab = &self.operations;
        let model = &self.model;
        let mut traces: Vec<usize> =
            tab.rows.visible().map(|p| tab.shown[p]).filter(|i| !model.stack_traces.contains_key(i)).collect();
        let selected = tab.selected_operation();
        if let Some(i) = selected
            && !model.stack_traces.contains_key(&i)
            && !traces.contains(&i)
        {
            traces.push(i);
        }
        if !traces.is_empty() && model.stack_trace_error.is_none() {
            reads.push(Read::StackTraces(traces));
        }
        if let Some(i) = selected {
            if self.tab == Tab::Operations && !model.arguments.contains_key(&i) {
                reads.push(Read::Arguments(i));
            }
            if self.tab == Tab::DeviceOps && !self.device_ops.has_tree(i) {
                reads.push(Read::Graph(i));
            }
            // The memory at a failure is no read: a background pass (`App::picture_wanted`).
            if self.tab == Tab::Memory
                && let Some((place, false)) = self.memory.wanted(i, model)
            {
                reads.push(Read::Memory { operation: i, place, failure: false });
            }
        }
        reads
    }

    /// Takes what the loop read.
    pub fn deliver(&mut self, result: ReadResult) {
        match result {
            ReadResult::StackTraces(Loaded::Ready(traces)) => self.model.stack_traces.extend(traces),
            ReadResult::StackTraces(Loaded::Unavailable(reason)) => self.model.stack_trace_error = Some(reason),
            ReadResult::Arguments(i, arguments) => {
                self.model.arguments.insert(i, arguments);
            }
            ReadResult::Graph(i, graph) => {
                let op = &self.model.operations[i];
                let annotations = match (&graph, &self.perf) {
                    (Loaded::Ready(nodes), PerfState::Ready(perf)) => perf.tree_annotations(op.id, nodes),
                    _ => HashMap::new(),
                };
                let tree = DeviceTree::new(graph, op.error.is_some(), annotations);
                self.device_ops.trees.insert(i, tree);
            }
            ReadResult::Memory(i, place, picture) => self.memory.deliver(i, place, picture),
        }
        self.follow_selection();
    }
}
