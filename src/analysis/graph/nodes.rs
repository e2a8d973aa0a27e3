//! Captured-graph nodes, normalised from the JSON of every era (docs/rules/reference.md §3.1, docs/rules/formats.md §3).

use super::core_ranges::{CoreRange, core_range_set_text, parse_core_ranges};
#[cfg(test)]
pub(crate) use super::fields::NodeFields;
use super::json::{Loose, RawNode, RawParams, RawScopeNode, read_nodes, read_scope_nodes};
pub use super::node::GraphNode;
pub(crate) use super::normalise::{Keep, NodeReader};
use super::normalise::{normalise, normalise_scalars};
use super::scalars::NodeScalars;
use serde_json::{Map, Value};
use std::borrow::Cow;

/// The node types the rules and the tree look at; everything else is `Other`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NodeType {
    /// `capture_start`.
    CaptureStart,
    /// `capture_end`.
    CaptureEnd,
    /// `function_start`: opens a scope.
    FunctionStart,
    /// `function_end`: closes the newest open scope of the same name.
    FunctionEnd,
    /// `buffer_allocate`.
    BufferAllocate,
    /// `buffer_deallocate`.
    BufferDeallocate,
    /// `circular_buffer_allocate`.
    CircularBufferAllocate,
    /// `circular_buffer_deallocate_all`.
    CircularBufferDeallocateAll,
    /// `tensor`.
    Tensor,
    /// `buffer`.
    Buffer,
    /// `error` (some versions); ignored by every rule.
    Error,
    /// Any other node type; kept and ignored.
    Other,
}

impl NodeType {
    /// The type named `name`; `Other` for any other name.
    pub(super) fn from_name(name: &str) -> Self {
        match name {
            "capture_start" => Self::CaptureStart,
            "capture_end" => Self::CaptureEnd,
            "function_start" => Self::FunctionStart,
            "function_end" => Self::FunctionEnd,
            "buffer_allocate" => Self::BufferAllocate,
            "buffer_deallocate" => Self::BufferDeallocate,
            "circular_buffer_allocate" => Self::CircularBufferAllocate,
            "circular_buffer_deallocate_all" => Self::CircularBufferDeallocateAll,
            "tensor" => Self::Tensor,
            "buffer" => Self::Buffer,
            "error" => Self::Error,
            _ => Self::Other,
        }
    }
}

/// A captured graph shared by whoever reads it (a failure's graph may hold a million nodes: it
/// is read once, at open, and never copied for a question).
pub type SharedGraph = std::sync::Arc<Vec<GraphNode>>;

impl NodeType {
    /// Every node type, in declaration order (a node keeps its type as the index).
    pub(crate) const ALL: [NodeType; 12] = [
        Self::CaptureStart,
        Self::CaptureEnd,
        Self::FunctionStart,
        Self::FunctionEnd,
        Self::BufferAllocate,
        Self::BufferDeallocate,
        Self::CircularBufferAllocate,
        Self::CircularBufferDeallocateAll,
        Self::Tensor,
        Self::Buffer,
        Self::Error,
        Self::Other,
    ];
}

impl GraphNode {
    /// Its `core_range_set` as ranges of cores, whichever form the writer used; none without one.
    pub fn core_ranges(&self) -> Option<Vec<CoreRange>> {
        parse_core_ranges(self.core_range_set()?)
    }
}

/// Why a stored captured graph cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GraphError {
    /// Not JSON at all (e.g. cut off).
    #[error("invalid captured graph JSON: {0}")]
    InvalidJson(String),
    /// JSON, but not an array of nodes.
    #[error("captured graph is not a JSON array")]
    NotAnArray,
    /// An element of the array is not an object.
    #[error("captured graph node {0} is not a JSON object")]
    NodeNotAnObject(usize),
}

/// Parses a stored `captured_graph` text; empty or blank text is an empty graph.
/// Invalid JSON, or JSON that is not an array of objects, is an error with the reason.
pub fn parse_graph(text: &str) -> Result<Vec<GraphNode>, GraphError> {
    parse_keeping(text, Keep::All)
}

fn parse_keeping(text: &str, keep: Keep) -> Result<Vec<GraphNode>, GraphError> {
    if text.trim().is_empty() {
        return Ok(Vec::new());
    }
    let mut reader = NodeReader::keeping(keep);
    if let Some(nodes) = read_nodes(text) {
        return Ok(nodes.iter().enumerate().map(|(position, node)| normalise(position, node, &mut reader)).collect());
    }
    parse_generic(text, &mut reader)
}

/// Parses only what scope rules read — id, type, name, stacking level, abort — leaving every
/// other field of [`GraphNode`] empty (`type_name` included). Linking parses every graph of a
/// report this way; the scope fields are exactly those [`parse_graph`] gives.
pub fn parse_scopes(text: &str) -> Result<Vec<GraphNode>, GraphError> {
    if text.trim().is_empty() {
        return Ok(Vec::new());
    }
    let mut reader = NodeReader::keeping(Keep::Scopes);
    match read_scope_nodes(text) {
        Some(nodes) => {
            Ok(nodes.into_iter().enumerate().map(|(position, node)| scope_node(position, node, &mut reader)).collect())
        }
        None => parse_keeping(text, Keep::Scopes),
    }
}

/// A node's scope fields only.
#[cfg(test)]
fn scope_fields(node: GraphNode) -> GraphNode {
    let f = node.fields();
    let scope = NodeFields {
        id: f.id,
        node_type: f.node_type,
        name: f.name,
        stacking_level: f.stacking_level,
        aborted: f.aborted,
        abort_reason: f.abort_reason,
        ..NodeFields::default()
    };
    scope.into()
}

/// Parses a graph keeping only what the memory replay reads — id, type, buffer params,
/// connections — so that the graph-only pass holds little of each graph; the buffer fields are
/// exactly those [`parse_graph`] gives.
pub(crate) fn parse_buffers(text: &str) -> Result<Vec<GraphNode>, GraphError> {
    parse_keeping(text, Keep::Buffers)
}

fn scope_node(position: usize, node: RawScopeNode<'_>, reader: &mut NodeReader) -> GraphNode {
    reader.inputs.clear();
    reader.links.clear();
    normalise_scalars(position, &NodeScalars::of(&node), reader)
}

/// The generic reader: decides whatever the fast one does not accept exactly.
fn parse_generic(text: &str, reader: &mut NodeReader) -> Result<Vec<GraphNode>, GraphError> {
    let value: Value = serde_json::from_str(text).map_err(|e| GraphError::InvalidJson(e.to_string()))?;
    let Value::Array(items) = value else {
        return Err(GraphError::NotAnArray);
    };
    items
        .iter()
        .enumerate()
        .map(|(position, item)| match item {
            Value::Object(node) => Ok(normalise(position, &raw_node(node), reader)),
            _ => Err(GraphError::NodeNotAnObject(position)),
        })
        .collect()
}

/// The fields of a generic JSON node, as the fast reader gives them.
fn raw_node(node: &Map<String, Value>) -> RawNode<'_> {
    let list = |key: &str| match node.get(key) {
        Some(Value::Array(items)) => Some(items.iter().map(loose).collect()),
        _ => None,
    };
    let params = node.get("params").and_then(Value::as_object).map(|p| RawParams {
        name: get(p, "name"),
        aborted: get(p, "aborted"),
        abort_reason: get(p, "abort_reason"),
        size: get(p, "size"),
        address: get(p, "address"),
        buffer_type: get(p, "buffer_type"),
        type_name: get(p, "type"),
        layout: get(p, "layout"),
        core_range_set: p.get("core_range_set").and_then(core_range_set_text),
        device_id: get(p, "device_id"),
        tensor_id: get(p, "tensor_id"),
        shape: get(p, "shape"),
        memory_config: get(p, "memory_config"),
        max_size_per_bank: get(p, "max_size_per_bank"),
        num_cores: get(p, "num_cores"),
        page_size: get(p, "page_size"),
        globally_allocated: get(p, "globally_allocated"),
    });
    RawNode {
        id: get(node, "id"),
        counter: get(node, "counter"),
        node_type: get(node, "node_type"),
        params,
        stacking_level: get(node, "stacking_level"),
        input_tensors: list("input_tensors"),
        connections: list("connections"),
    }
}

fn get<'v>(map: &'v Map<String, Value>, key: &str) -> Option<Loose<'v>> {
    map.get(key).map(loose)
}

fn loose(value: &Value) -> Loose<'_> {
    match value {
        Value::String(s) => Loose::Str(Cow::Borrowed(s)),
        Value::Bool(b) => Loose::Bool(*b),
        Value::Number(n) => match (n.as_u64(), n.as_i64()) {
            (Some(u), _) => Loose::U64(u),
            (None, Some(i)) => Loose::I64(i),
            _ => Loose::F64(n.as_f64().unwrap_or(f64::NAN)),
        },
        _ => Loose::Other,
    }
}

#[cfg(test)]
#[path = "nodes_tests.rs"]
mod tests;
