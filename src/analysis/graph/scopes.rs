//! Function scopes of a captured graph: pairing, outcomes, failed and completed device operations
//! (docs/rules/reference.md §3.2–§3.6).

use super::nodes::{GraphNode, NodeType};

/// How a function scope ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// Closed by a matching end that is not aborted.
    Completed,
    /// Closed by an aborted end, or left open while the operation recorded an error.
    Failed,
    /// Left open, and the operation recorded no error: the capture simply ended.
    Unclosed,
}

/// One scope closing, in the order closes happen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Close {
    /// Position of the scope's `function_start`.
    pub(crate) start: usize,
    /// Position of the node before which the close happens; `None` at the end of the graph.
    pub(crate) before: Option<usize>,
    /// The scope's outcome.
    pub(crate) outcome: Outcome,
    /// Position of the end node that closed it, when one did.
    pub(crate) end: Option<usize>,
    /// The closing end's abort reason.
    pub(crate) abort_reason: Option<String>,
}

/// True when a name is a device operation: non-empty, and without `(torch)`, `::` or `ttnn.`.
pub(crate) fn is_device_operation(name: &str) -> bool {
    !name.is_empty() && !name.contains("(torch)") && !name.contains("::") && !name.contains("ttnn.")
}

/// Pairs each `function_end` with the newest open start of the same name (§3.3).
/// Returns, for every node position, the start position its end is paired with.
pub fn pair_scopes(nodes: &[GraphNode]) -> Vec<Option<usize>> {
    let mut paired = vec![None; nodes.len()];
    let mut open: Vec<usize> = Vec::new();
    for (i, node) in nodes.iter().enumerate() {
        if node.is(NodeType::FunctionStart) {
            open.push(i);
        } else if node.is(NodeType::FunctionEnd)
            && !node.name().is_empty()
            && let Some(k) = open.iter().rposition(|&s| nodes[s].name() == node.name())
        {
            paired[i] = Some(open.remove(k));
        }
    }
    paired
}

/// The outcome of every function scope, as closes in the order they happen (§3.4).
///
/// `has_recorded_error` decides what a scope left open becomes: failed when the operation
/// recorded an error, otherwise unclosed.
pub fn scope_closes(nodes: &[GraphNode], has_recorded_error: bool) -> Vec<Close> {
    let implicit = if has_recorded_error { Outcome::Failed } else { Outcome::Unclosed };
    let paired = pair_scopes(nodes);
    let mut walk = ScopeWalk { nodes, implicit, open: Vec::new(), closes: Vec::new() };
    for (i, node) in nodes.iter().enumerate() {
        if node.is(NodeType::FunctionStart) {
            walk.start(i);
        } else if node.is(NodeType::FunctionEnd)
            && let Some(start) = paired[i]
        {
            walk.end(i, start);
        }
    }
    while let Some(top) = walk.open.pop() {
        walk.close_implicitly(top, None);
    }
    walk.closes
}

/// The scopes open while a graph is walked in order, innermost last, and the closes so far.
struct ScopeWalk<'a> {
    nodes: &'a [GraphNode],
    /// What a scope closed without its own end becomes.
    implicit: Outcome,
    open: Vec<usize>,
    closes: Vec<Close>,
}

impl ScopeWalk<'_> {
    /// A `function_start` at `i`: open scopes at its stacking level or deeper close before it.
    fn start(&mut self, i: usize) {
        if let Some(level) = self.nodes[i].stacking_level() {
            while let Some(&top) = self.open.last() {
                match self.nodes[top].stacking_level() {
                    Some(top_level) if top_level >= level => {
                        self.open.pop();
                        self.close_implicitly(top, Some(i));
                    }
                    _ => break,
                }
            }
        }
        self.open.push(i);
    }

    /// A `function_end` at `i` paired with the start at `start`: if that scope is open, the
    /// scopes opened inside it close before it, then it closes, completed or failed.
    fn end(&mut self, i: usize, start: usize) {
        if !self.open.contains(&start) {
            return;
        }
        while let Some(top) = self.open.pop() {
            if top == start {
                let node = &self.nodes[i];
                let outcome = if node.aborted() { Outcome::Failed } else { Outcome::Completed };
                let abort_reason = node.abort_reason().map(str::to_owned);
                self.closes.push(Close { start, before: Some(i), outcome, end: Some(i), abort_reason });
                return;
            }
            self.close_implicitly(top, Some(i));
        }
    }

    /// Closes the scope starting at `start` without an end node, before node `before` (none: at
    /// the end of the graph).
    fn close_implicitly(&mut self, start: usize, before: Option<usize>) {
        self.closes.push(Close { start, before, outcome: self.implicit, end: None, abort_reason: None });
    }
}

/// The failed device operations of an operation, in captured order (§3.5).
pub fn failed_device_operations(nodes: &[GraphNode]) -> Vec<String> {
    let closes = scope_closes(nodes, true);
    let mut failed = vec![false; nodes.len()];
    for c in closes.iter().filter(|c| c.outcome == Outcome::Failed) {
        failed[c.start] = true;
    }
    nodes
        .iter()
        .enumerate()
        .filter(|(i, n)| failed[*i] && is_device_operation(n.name()))
        .map(|(_, n)| n.name().to_string())
        .collect()
}

/// A completed device operation, for linking: its name and its start node's id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompletedDeviceOperation {
    /// The device operation's name.
    pub name: String,
    /// The id of its `function_start` node.
    pub start_id: u64,
}

/// Completed device operations in start order and in end order (§3.6); aborted and unclosed
/// scopes are left out, so a failed device operation never takes a perf row.
pub fn completed_device_operations(
    nodes: &[GraphNode],
) -> (Vec<CompletedDeviceOperation>, Vec<CompletedDeviceOperation>) {
    let paired = pair_scopes(nodes);
    let mut completed_start = vec![false; nodes.len()];
    let mut ends = Vec::new();
    for (i, start) in paired.iter().enumerate() {
        if let Some(s) = *start
            && !nodes[i].aborted()
        {
            completed_start[s] = true;
            if is_device_operation(nodes[s].name()) {
                ends.push(CompletedDeviceOperation { name: nodes[s].name().to_string(), start_id: nodes[s].id() });
            }
        }
    }
    let starts = nodes
        .iter()
        .enumerate()
        .filter(|(i, n)| completed_start[*i] && is_device_operation(n.name()))
        .map(|(_, n)| CompletedDeviceOperation { name: n.name().to_string(), start_id: n.id() })
        .collect();
    (starts, ends)
}

/// Every device-operation name started in a graph, failed ones included (§3.7).
pub fn started_device_operations(nodes: &[GraphNode]) -> Vec<String> {
    nodes
        .iter()
        .filter(|n| n.is(NodeType::FunctionStart) && is_device_operation(n.name()))
        .map(|n| n.name().to_string())
        .collect()
}

/// The text that explains a scope's outcome (the web app's hover), or none for a completed scope.
pub(crate) fn outcome_text(outcome: Outcome, name: &str, abort_reason: Option<&str>) -> Option<String> {
    match outcome {
        Outcome::Completed => None,
        Outcome::Unclosed => Some("The capture ended before this scope closed".to_string()),
        Outcome::Failed => Some(match abort_reason {
            Some(reason) => reason.to_string(),
            None if is_device_operation(name) => "Launch failed before reaching the device".to_string(),
            None => "Did not complete: an error was raised inside it".to_string(),
        }),
    }
}
