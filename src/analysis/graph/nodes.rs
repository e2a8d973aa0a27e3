//! Captured-graph nodes, normalised from the JSON of every era (docs/rules/reference.md §3.1, docs/rules/formats.md §3).

use super::core_ranges::{CoreRange, core_range_set_text, parse_core_ranges};
use super::json::{Loose, RawNode, RawParams, RawScopeNode, read_nodes, read_scope_nodes};
use crate::analysis::messages::failure::BufferType;
use crate::analysis::sanitize::sanitize_line;
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
    fn from_name(name: &str) -> Self {
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

/// One normalised node of a captured graph.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct GraphNode {
    /// The node's `id`, else its `counter`, else its position.
    pub(crate) id: u64,
    /// The node type.
    pub(crate) node_type: Option<NodeType>,
    /// The `node_type` text as written (sanitised), for unknown types only; empty for the others.
    pub(crate) type_name: String,
    /// `params.name` of a function start or end; empty when absent.
    pub(crate) name: String,
    /// `stacking_level`, read from the node's top level.
    pub(crate) stacking_level: Option<i64>,
    /// A `function_end` whose `params.aborted` is exactly `true` or `"true"`.
    pub(crate) aborted: bool,
    /// `params.abort_reason` when it is a string that is not blank.
    pub(crate) abort_reason: Option<String>,
    /// `params.size`.
    pub(crate) size: Option<u64>,
    /// `params.address`.
    pub(crate) address: Option<u64>,
    /// The buffer type: integer `params.buffer_type`, else the `params.type` string.
    pub(crate) buffer_type: Option<BufferType>,
    /// True when `buffer_type` came from the integer `params.buffer_type`; the `type` string
    /// says only `DRAM` or `L1` (`L1_SMALL` prints as `L1`), so it is not exact.
    pub(crate) buffer_type_code: bool,
    /// `params.max_size_per_bank` (newest captures).
    pub(crate) max_size_per_bank: Option<u64>,
    /// `params.num_cores` (0 = interleaved).
    pub(crate) num_cores: Option<u64>,
    /// `params.page_size` of a buffer allocation (newest captures).
    pub(crate) page_size: Option<u64>,
    /// `params.globally_allocated` of a circular buffer is `"1"`, `1` or `true` (backed by a tensor).
    pub(crate) globally_allocated: bool,
    /// `params.layout`.
    pub(crate) layout: Option<String>,
    /// `params.core_range_set`.
    pub(crate) core_range_set: Option<String>,
    /// `params.device_id`.
    pub(crate) device_id: Option<u64>,
    /// `params.tensor_id` of a tensor node.
    pub(crate) tensor_id: Option<u64>,
    /// `params.shape` of a tensor node.
    pub(crate) shape: Option<String>,
    /// `params.memory_config` of a tensor node (a sharded one names its shard grid).
    pub(crate) memory_config: Option<String>,
    /// `input_tensors`: counters of the tensor nodes given to a function start.
    pub(crate) input_tensors: Vec<u64>,
    /// `connections`: counters of later or related nodes.
    pub(crate) connections: Vec<u64>,
}

impl GraphNode {
    /// True for this node type.
    pub(crate) fn is(&self, node_type: NodeType) -> bool {
        self.node_type == Some(node_type)
    }

    /// Its `core_range_set` as ranges of cores, whichever form the writer used; none without one.
    pub fn core_ranges(&self) -> Option<Vec<CoreRange>> {
        parse_core_ranges(self.core_range_set.as_deref()?)
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
    if text.trim().is_empty() {
        return Ok(Vec::new());
    }
    if let Some(nodes) = read_nodes(text) {
        return Ok(nodes.iter().enumerate().map(|(position, node)| normalise(position, node)).collect());
    }
    parse_generic(text)
}

/// Parses only what scope rules read — id, type, name, stacking level, abort — leaving every
/// other field of [`GraphNode`] empty (`type_name` included). Linking parses every graph of a
/// report this way; the scope fields are exactly those [`parse_graph`] gives.
pub fn parse_scopes(text: &str) -> Result<Vec<GraphNode>, GraphError> {
    if text.trim().is_empty() {
        return Ok(Vec::new());
    }
    match read_scope_nodes(text) {
        Some(nodes) => Ok(nodes.into_iter().enumerate().map(|(position, node)| scope_node(position, node)).collect()),
        None => parse_graph(text).map(|nodes| nodes.into_iter().map(scope_fields).collect()),
    }
}

/// A node's scope fields only.
fn scope_fields(node: GraphNode) -> GraphNode {
    GraphNode {
        id: node.id,
        node_type: node.node_type,
        name: node.name,
        stacking_level: node.stacking_level,
        aborted: node.aborted,
        abort_reason: node.abort_reason,
        ..GraphNode::default()
    }
}

/// Parses a graph keeping only what the memory replay reads — id, type, buffer params,
/// connections — so that the graph-only pass holds little of each graph; the buffer fields are
/// exactly those [`parse_graph`] gives.
pub(crate) fn parse_buffers(text: &str) -> Result<Vec<GraphNode>, GraphError> {
    if text.trim().is_empty() {
        return Ok(Vec::new());
    }
    parse_graph(text).map(|nodes| nodes.into_iter().map(buffer_fields).collect())
}

/// A node's buffer fields only.
fn buffer_fields(node: GraphNode) -> GraphNode {
    GraphNode {
        id: node.id,
        node_type: node.node_type,
        size: node.size,
        address: node.address,
        buffer_type: node.buffer_type,
        buffer_type_code: node.buffer_type_code,
        layout: node.layout,
        device_id: node.device_id,
        max_size_per_bank: node.max_size_per_bank,
        num_cores: node.num_cores,
        page_size: node.page_size,
        connections: node.connections,
        ..GraphNode::default()
    }
}

fn scope_node(position: usize, node: RawScopeNode<'_>) -> GraphNode {
    let RawScopeNode { id, counter, node_type, params, stacking_level, .. } = node;
    let full = RawNode { id, counter, node_type, params, stacking_level, input_tensors: None, connections: None };
    scope_fields(normalise(position, &full))
}

/// The generic reader: decides whatever the fast one does not accept exactly.
fn parse_generic(text: &str) -> Result<Vec<GraphNode>, GraphError> {
    let value: Value = serde_json::from_str(text).map_err(|e| GraphError::InvalidJson(e.to_string()))?;
    let Value::Array(items) = value else {
        return Err(GraphError::NotAnArray);
    };
    items
        .iter()
        .enumerate()
        .map(|(position, item)| match item {
            Value::Object(node) => Ok(normalise(position, &raw_node(node))),
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

/// A node as the project reads it, from either reader's fields: loose values typed, texts
/// sanitised, the id falling back to the counter and then to the position.
pub(super) fn normalise(position: usize, node: &RawNode<'_>) -> GraphNode {
    let empty = RawParams::default();
    let params = node.params.as_ref().unwrap_or(&empty);
    let type_name = node.node_type.as_ref().and_then(Loose::as_str).unwrap_or("");
    let node_type = NodeType::from_name(type_name);
    let text = |value: &Option<Loose<'_>>| value.as_ref().and_then(Loose::as_str).map(sanitize_line);
    let number = |value: &Option<Loose<'_>>| value.as_ref().and_then(Loose::as_u64);
    let numbers = |list: &Option<Vec<Loose<'_>>>| list.iter().flatten().filter_map(Loose::as_u64).collect();
    let (buffer_type, buffer_type_code) = buffer_type(params);
    GraphNode {
        id: number(&node.id).or_else(|| number(&node.counter)).unwrap_or(position as u64),
        node_type: Some(node_type),
        type_name: if node_type == NodeType::Other { sanitize_line(type_name) } else { String::new() },
        name: text(&params.name).unwrap_or_default(),
        stacking_level: node.stacking_level.as_ref().and_then(Loose::as_i64),
        aborted: node_type == NodeType::FunctionEnd && is_aborted(params),
        abort_reason: params
            .abort_reason
            .as_ref()
            .and_then(Loose::as_str)
            .filter(|r| !r.trim().is_empty())
            .map(sanitize_line),
        size: number(&params.size),
        address: number(&params.address),
        buffer_type,
        buffer_type_code,
        max_size_per_bank: number(&params.max_size_per_bank),
        num_cores: number(&params.num_cores),
        page_size: number(&params.page_size),
        globally_allocated: is_globally_allocated(params),
        layout: text(&params.layout),
        core_range_set: params.core_range_set.as_deref().map(sanitize_line),
        device_id: number(&params.device_id),
        tensor_id: number(&params.tensor_id),
        shape: text(&params.shape),
        memory_config: text(&params.memory_config),
        input_tensors: numbers(&node.input_tensors),
        connections: numbers(&node.connections),
    }
}

/// Whether a node's `aborted` parameter is `true` or `"true"`.
fn is_aborted(params: &RawParams<'_>) -> bool {
    match &params.aborted {
        Some(Loose::Bool(flag)) => *flag,
        Some(Loose::Str(flag)) => flag == "true",
        _ => false,
    }
}

/// The buffer type, from its numeric code (the second value says it was one), else from the
/// `type` token.
fn buffer_type(params: &RawParams<'_>) -> (Option<BufferType>, bool) {
    let coded = params
        .buffer_type
        .as_ref()
        .and_then(Loose::as_u64)
        .and_then(|code| BufferType::from_code(i64::try_from(code).ok()?));
    let token = || params.type_name.as_ref().and_then(Loose::as_str).and_then(BufferType::from_token);
    (coded.or_else(token), coded.is_some())
}

/// Whether a node's `globally_allocated` parameter is `true`, `1`, `"1"` or `"true"`.
fn is_globally_allocated(params: &RawParams<'_>) -> bool {
    match &params.globally_allocated {
        Some(Loose::Bool(flag)) => *flag,
        Some(Loose::U64(1)) => true,
        Some(Loose::Str(flag)) => flag == "1" || flag == "true",
        _ => false,
    }
}

#[cfg(test)]
#[path = "nodes_tests.rs"]
mod tests;
