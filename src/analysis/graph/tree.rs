//! The device-operations tree of an operation's captured graph (docs/rules/reference.md §3.8): scope blocks
//! holding their child scopes and buffer rows in capture order, each scope with its outcome.

use super::nodes::{GraphNode, NodeType};
use super::scopes::{Close, Outcome, outcome_text, scope_closes};
use crate::analysis::messages::failure::BufferType;
use std::collections::HashMap;

/// The warning a completed no-op `tensor::reshape` carries.
pub(crate) const NO_OP_RESHAPE: &str = "Operation appears to be a no-op and may be removable";

/// One entry of the tree: a scope or a buffer row.
#[derive(Debug, Clone, PartialEq)]
pub enum TreeEntry {
    /// A function scope (start … end) and what happened inside it.
    Scope(ScopeBlock),
    /// A buffer or circular-buffer event.
    Buffer(BufferRow),
}

/// A function scope: its start node, outcome and children in capture order.
#[derive(Debug, Clone, PartialEq)]
pub struct ScopeBlock {
    /// Position of the `function_start` node in the graph.
    pub(crate) start: usize,
    /// The scope's name.
    pub(crate) name: String,
    /// Completed, failed or unclosed (docs/rules/reference.md §3.4).
    pub(crate) outcome: Outcome,
    /// The error marker: the scope failed, or a scope inside it did.
    pub(crate) marked: bool,
    /// The hover text of the outcome: the abort reason or a fallback; none when completed.
    pub(crate) outcome_text: Option<String>,
    /// `Operation appears to be a no-op and may be removable`, for a no-op reshape.
    pub(crate) warning: Option<&'static str>,
    /// Child scopes and buffer rows, in capture order.
    pub children: Vec<TreeEntry>,
}

/// A `buffer_allocate`, `buffer_deallocate`, `circular_buffer_allocate` or
/// `circular_buffer_deallocate_all` row.
#[derive(Debug, Clone, PartialEq)]
pub struct BufferRow {
    /// Position of the node in the graph.
    pub(crate) node: usize,
    /// Which of the four node types.
    pub(crate) kind: NodeType,
    /// Size in bytes, when recorded.
    pub(crate) size: Option<u64>,
    /// Address, when recorded.
    pub(crate) address: Option<u64>,
    /// Buffer type, when recorded.
    pub(crate) buffer_type: Option<BufferType>,
    /// Core range set of a circular buffer, when recorded.
    pub(crate) core_range: Option<String>,
    /// How many devices allocated the same circular buffer (collapsed into this row).
    pub(crate) devices: usize,
}

impl ScopeBlock {
    /// Whether this scope or a scope inside it failed.
    fn contains_failure(&self) -> bool {
        self.outcome == Outcome::Failed || self.marked
    }
}

/// Builds the tree of docs/rules/reference.md §3.8; `has_recorded_error` is whether the operation has an
/// attached error (it decides whether scopes left open failed or are unclosed).
pub fn device_ops_tree(nodes: &[GraphNode], has_recorded_error: bool) -> Vec<TreeEntry> {
    let closes = scope_closes(nodes, has_recorded_error);
    let order = circular_buffer_prepass(nodes, &closes);
    let mut closes_before: HashMap<usize, Vec<&Close>> = HashMap::new();
    let mut closes_at_end = Vec::new();
    for close in &closes {
        match close.before {
            Some(i) => closes_before.entry(i).or_default().push(close),
            None => closes_at_end.push(close),
        }
    }
    let mut tree = TreeBuilder { nodes, top: Vec::new(), open: Vec::new() };
    for &i in &order {
        let node = &nodes[i];
        if node.is(NodeType::FunctionStart) || node.is(NodeType::FunctionEnd) {
            for close in closes_before.remove(&i).unwrap_or_default() {
                tree.close(close);
            }
        }
        if node.is(NodeType::FunctionStart) {
            tree.open.push((i, Vec::new()));
        } else {
            tree.push_buffer(i);
        }
    }
    for close in closes_at_end {
        tree.close(close);
    }
    tree.top
}

/// The tree while it is built: the top level, and the scopes still open (start, children),
/// innermost last.
struct TreeBuilder<'a> {
    nodes: &'a [GraphNode],
    top: Vec<TreeEntry>,
    open: Vec<(usize, Vec<TreeEntry>)>,
}

impl TreeBuilder<'_> {
    /// Ends the scope `close` closes, into the scope holding it or the top level.
    fn close(&mut self, close: &Close) {
        // Closes come innermost first, so the scope closed is the innermost open container.
        let Some(position) = self.open.iter().rposition(|(start, _)| *start == close.start) else { return };
        let (start, children) = self.open.remove(position);
        let block = scope_block(self.nodes, start, close, children);
        self.container().push(TreeEntry::Scope(block));
    }

    /// The innermost open scope's children, else the top level.
    fn container(&mut self) -> &mut Vec<TreeEntry> {
        match self.open.last_mut() {
            Some((_, children)) => children,
            None => &mut self.top,
        }
    }

    /// Adds node `i`'s buffer row, if it is one; a circular buffer allocated by several devices
    /// in a row is one row counting them.
    fn push_buffer(&mut self, i: usize) {
        let nodes = self.nodes;
        let node = &nodes[i];
        let container = self.container();
        match node.node_type() {
            Some(NodeType::CircularBufferAllocate) => {
                let row = buffer_row(i, node);
                if let Some(TreeEntry::Buffer(last)) = container.last_mut()
                    && same_circular_buffer(last, &row, nodes)
                {
                    last.devices += 1;
                } else {
                    container.push(TreeEntry::Buffer(row));
                }
            }
            Some(NodeType::BufferAllocate | NodeType::BufferDeallocate | NodeType::CircularBufferDeallocateAll) => {
                container.push(TreeEntry::Buffer(buffer_row(i, node)))
            }
            _ => {}
        }
    }
}

/// The path (child indexes from the top) to the first failed device-operation scope, else to
/// the first failed scope, in capture order.
pub fn first_failed_path(entries: &[TreeEntry]) -> Option<Vec<usize>> {
    fn walk(entries: &[TreeEntry], path: &mut Vec<usize>, device_only: bool) -> bool {
        for (k, entry) in entries.iter().enumerate() {
            let TreeEntry::Scope(scope) = entry else { continue };
            path.push(k);
            let hit =
                scope.outcome == Outcome::Failed && (!device_only || super::scopes::is_device_operation(&scope.name));
            if hit || walk(&scope.children, path, device_only) {
                return true;
            }
            path.pop();
        }
        false
    }
    let mut path = Vec::new();
    if walk(entries, &mut path, true) {
        return Some(path);
    }
    path.clear();
    walk(entries, &mut path, false).then_some(path)
}

/// The entry at a path of child indexes.
pub fn entry_at<'a>(entries: &'a [TreeEntry], path: &[usize]) -> Option<&'a TreeEntry> {
    let (&first, rest) = path.split_first()?;
    let entry = entries.get(first)?;
    match (rest.is_empty(), entry) {
        (true, _) => Some(entry),
        (false, TreeEntry::Scope(scope)) => entry_at(&scope.children, rest),
        (false, TreeEntry::Buffer(_)) => None,
    }
}

fn scope_block(nodes: &[GraphNode], start: usize, close: &Close, children: Vec<TreeEntry>) -> ScopeBlock {
    let name = nodes[start].name().to_string();
    let marked = children.iter().any(|c| matches!(c, TreeEntry::Scope(s) if s.contains_failure()));
    let warning =
        (close.outcome == Outcome::Completed && is_no_op_reshape(nodes, start, close.end)).then_some(NO_OP_RESHAPE);
    ScopeBlock {
        start,
        outcome_text: outcome_text(close.outcome, &name, close.abort_reason.as_deref()),
        name,
        outcome: close.outcome,
        marked: marked || close.outcome == Outcome::Failed,
        warning,
        children,
    }
}

/// A completed `tensor::reshape` whose first input and first output tensors have equal shapes.
fn is_no_op_reshape(nodes: &[GraphNode], start: usize, end: Option<usize>) -> bool {
    if !nodes[start].name().eq_ignore_ascii_case("tensor::reshape") {
        return false;
    }
    let shape_of = |id: u64| nodes.iter().find(|n| n.id() == id && n.is(NodeType::Tensor)).and_then(|n| n.shape());
    let input = nodes[start].input_tensors().first().and_then(|&id| shape_of(id));
    let output = end.and_then(|e| nodes[e].connections().find_map(shape_of));
    matches!((input, output), (Some(a), Some(b)) if a == b)
}

fn buffer_row(node: usize, n: &GraphNode) -> BufferRow {
    BufferRow {
        node,
        kind: n.node_type().unwrap_or(NodeType::Other),
        size: n.size(),
        address: n.address(),
        buffer_type: n.buffer_type(),
        core_range: n.core_range_set().map(str::to_owned),
        devices: 1,
    }
}

/// The same circular buffer allocated on another device (repeated across devices).
fn same_circular_buffer(last: &BufferRow, row: &BufferRow, nodes: &[GraphNode]) -> bool {
    last.kind == NodeType::CircularBufferAllocate
        && (last.size, last.address, &last.core_range, last.buffer_type)
            == (row.size, row.address, &row.core_range, row.buffer_type)
        && nodes[last.node].device_id() != nodes[row.node].device_id()
}

/// The node order after the circular-buffer pre-pass: every `circular_buffer_deallocate_all`
/// removed, and the last one of each innermost scope re-inserted after every run of consecutive
/// `circular_buffer_allocate` nodes of that scope. Scopes are tracked afresh for this pass.
fn circular_buffer_prepass(nodes: &[GraphNode], closes: &[Close]) -> Vec<usize> {
    let scope_of = innermost_scopes(nodes, closes);
    let mut last_dealloc: HashMap<Option<usize>, usize> = HashMap::new();
    for (i, node) in nodes.iter().enumerate() {
        if node.is(NodeType::CircularBufferDeallocateAll) {
            last_dealloc.insert(scope_of[i], i);
        }
    }
    let kept: Vec<usize> = (0..nodes.len()).filter(|&i| !nodes[i].is(NodeType::CircularBufferDeallocateAll)).collect();
    let mut order = Vec::with_capacity(nodes.len());
    for (k, &i) in kept.iter().enumerate() {
        order.push(i);
        if !nodes[i].is(NodeType::CircularBufferAllocate) {
            continue;
        }
        let run_continues = kept
            .get(k + 1)
            .is_some_and(|&next| nodes[next].is(NodeType::CircularBufferAllocate) && scope_of[next] == scope_of[i]);
        if !run_continues && let Some(&dealloc) = last_dealloc.get(&scope_of[i]) {
            order.push(dealloc);
        }
    }
    order
}

/// The innermost open scope (its start position) at every node, with the closes of §3.4
/// applied before each node.
fn innermost_scopes(nodes: &[GraphNode], closes: &[Close]) -> Vec<Option<usize>> {
    let mut closes_before: HashMap<usize, Vec<usize>> = HashMap::new();
    for close in closes {
        if let Some(i) = close.before {
            closes_before.entry(i).or_default().push(close.start);
        }
    }
    let mut open: Vec<usize> = Vec::new();
    let mut scope_of = Vec::with_capacity(nodes.len());
    for (i, node) in nodes.iter().enumerate() {
        for start in closes_before.remove(&i).unwrap_or_default() {
            open.retain(|&s| s != start);
        }
        scope_of.push(open.last().copied());
        if node.is(NodeType::FunctionStart) {
            open.push(i);
        }
    }
    scope_of
}

#[cfg(test)]
#[path = "tree_tests.rs"]
mod tests;
