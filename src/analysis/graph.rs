//! Captured-graph nodes, normalised from the JSON of every era (behaviour.md §3.1, formats.md §3).

use super::failure::BufferType;
use super::sanitize::sanitize_line;
use serde_json::{Map, Value};

/// The node types the rules and the tree look at; everything else is `Other`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NodeType {
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

/// One normalised node of a captured graph.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct GraphNode {
    /// The node's `id`, else its `counter`, else its position.
    pub id: u64,
    /// The node type.
    pub node_type: Option<NodeType>,
    /// The `node_type` text as written (sanitised), for unknown types.
    pub type_name: String,
    /// `params.name` of a function start or end; empty when absent.
    pub name: String,
    /// `stacking_level`, read from the node's top level.
    pub stacking_level: Option<i64>,
    /// A `function_end` whose `params.aborted` is exactly `true` or `"true"`.
    pub aborted: bool,
    /// `params.abort_reason` when it is a string that is not blank.
    pub abort_reason: Option<String>,
    /// `params.size`.
    pub size: Option<u64>,
    /// `params.address`.
    pub address: Option<u64>,
    /// The buffer type: integer `params.buffer_type`, else the `params.type` string.
    pub buffer_type: Option<BufferType>,
    /// `params.layout`.
    pub layout: Option<String>,
    /// `params.core_range_set`.
    pub core_range_set: Option<String>,
    /// `params.device_id`.
    pub device_id: Option<u64>,
    /// `params.tensor_id` of a tensor node.
    pub tensor_id: Option<u64>,
    /// `params.shape` of a tensor node.
    pub shape: Option<String>,
    /// `input_tensors`: counters of the tensor nodes given to a function start.
    pub input_tensors: Vec<u64>,
    /// `connections`: counters of later or related nodes.
    pub connections: Vec<u64>,
}

impl GraphNode {
    /// True for this node type.
    pub fn is(&self, node_type: NodeType) -> bool {
        self.node_type == Some(node_type)
    }
}

/// Parses a stored `captured_graph` text; empty or blank text is an empty graph.
/// Invalid JSON, or JSON that is not an array of objects, is an error with the reason.
pub fn parse_graph(text: &str) -> Result<Vec<GraphNode>, String> {
    if text.trim().is_empty() {
        return Ok(Vec::new());
    }
    let value: Value = serde_json::from_str(text).map_err(|e| format!("invalid captured graph JSON: {e}"))?;
    let Value::Array(items) = value else {
        return Err("captured graph is not a JSON array".to_string());
    };
    items
        .iter()
        .enumerate()
        .map(|(position, item)| match item {
            Value::Object(node) => Ok(normalise(position, node)),
            _ => Err(format!("captured graph node {position} is not a JSON object")),
        })
        .collect()
}

fn normalise(position: usize, node: &Map<String, Value>) -> GraphNode {
    let empty = Map::new();
    let params = node.get("params").and_then(Value::as_object).unwrap_or(&empty);
    let type_name = node.get("node_type").and_then(Value::as_str).unwrap_or("");
    let node_type = NodeType::from_name(type_name);
    let text = |key: &str| params.get(key).and_then(Value::as_str).map(sanitize_line);
    let aborted = node_type == NodeType::FunctionEnd
        && match params.get("aborted") {
            Some(Value::Bool(flag)) => *flag,
            Some(Value::String(flag)) => flag == "true",
            _ => false,
        };
    let buffer_type = number(params.get("buffer_type"))
        .and_then(|code| BufferType::from_code(code as i64))
        .or_else(|| params.get("type").and_then(Value::as_str).and_then(BufferType::from_token));
    GraphNode {
        id: number(node.get("id")).or_else(|| number(node.get("counter"))).unwrap_or(position as u64),
        node_type: Some(node_type),
        type_name: sanitize_line(type_name),
        name: text("name").unwrap_or_default(),
        stacking_level: node.get("stacking_level").and_then(|v| v.as_i64().or_else(|| v.as_str()?.trim().parse().ok())),
        aborted,
        abort_reason: params
            .get("abort_reason")
            .and_then(Value::as_str)
            .filter(|r| !r.trim().is_empty())
            .map(sanitize_line),
        size: number(params.get("size")),
        address: number(params.get("address")),
        buffer_type,
        layout: text("layout"),
        core_range_set: text("core_range_set"),
        device_id: number(params.get("device_id")),
        tensor_id: number(params.get("tensor_id")),
        shape: text("shape"),
        input_tensors: numbers(node.get("input_tensors")),
        connections: numbers(node.get("connections")),
    }
}

/// A numeric value written as a JSON integer or as a decimal string.
fn number(value: Option<&Value>) -> Option<u64> {
    match value? {
        Value::Number(n) => n.as_u64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

fn numbers(value: Option<&Value>) -> Vec<u64> {
    match value {
        Some(Value::Array(items)) => items.iter().filter_map(|v| number(Some(v))).collect(),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integer_and_string_params_read_alike() {
        let newest = r#"[{"counter":8,"node_type":"buffer_allocate","params":{"address":0,"buffer_type":1,"device_id":1,"layout":"INTERLEAVED","max_size_per_bank":20480,"num_cores":0,"page_size":2048,"size":2097152,"type":"L1"},"connections":[7],"stacking_level":3}]"#;
        let oldest = r#"[{"counter":11,"node_type":"buffer_allocate","params":{"address":"1953396066","layout":"INTERLEAVED","size":"24576","type":"L1"},"connections":[10]}]"#;
        let a = &parse_graph(newest).unwrap()[0];
        assert_eq!(
            (a.id, a.size, a.address, a.buffer_type, a.stacking_level),
            (8, Some(2097152), Some(0), Some(BufferType::L1), Some(3))
        );
        let b = &parse_graph(oldest).unwrap()[0];
        assert_eq!(
            (b.id, b.size, b.address, b.buffer_type, b.stacking_level),
            (11, Some(24576), Some(1953396066), Some(BufferType::L1), None)
        );
        assert_eq!(b.connections, vec![10]);
    }

    #[test]
    fn id_wins_over_counter() {
        let g = parse_graph(r#"[{"id":5,"counter":2,"node_type":"capture_start","params":null},{"node_type":"capture_end","params":{}}]"#).unwrap();
        assert_eq!((g[0].id, g[1].id), (5, 1));
    }

    #[test]
    fn aborted_only_for_true_or_the_string_true() {
        let end = |aborted: &str| {
            let text = format!(r#"[{{"node_type":"function_end","params":{{"name":"X","aborted":{aborted}}}}}]"#);
            parse_graph(&text).unwrap()[0].aborted
        };
        assert!(end("true"));
        assert!(end("\"true\""));
        assert!(!end("\"True\""));
        assert!(!end("\"false\""));
        assert!(!end("1"));
        assert!(!end("false"));
    }

    #[test]
    fn abort_reason_when_not_blank() {
        let reason = |r: &str| {
            let text = format!(
                r#"[{{"node_type":"function_end","params":{{"name":"X","aborted":"true","abort_reason":{r}}}}}]"#
            );
            parse_graph(&text).unwrap()[0].abort_reason.clone()
        };
        assert_eq!(reason("\"Out of Memory\"").as_deref(), Some("Out of Memory"));
        assert_eq!(reason("\"  \""), None);
        assert_eq!(reason("7"), None);
    }

    #[test]
    fn unknown_and_nameless_nodes_are_kept() {
        let g = parse_graph(
            r#"[{"node_type":"dataflow_buffer_allocate","params":{"size":"4"}},{"node_type":"function_start"}]"#,
        )
        .unwrap();
        assert_eq!(g[0].node_type, Some(NodeType::Other));
        assert_eq!(g[0].type_name, "dataflow_buffer_allocate");
        assert_eq!(g[1].name, "");
    }

    #[test]
    fn invalid_graphs_are_errors_and_empty_text_is_no_nodes() {
        assert!(parse_graph("[{").unwrap_err().starts_with("invalid captured graph JSON"));
        assert_eq!(parse_graph("{}").unwrap_err(), "captured graph is not a JSON array");
        assert!(parse_graph("[1]").is_err());
        assert!(parse_graph("").unwrap().is_empty());
        assert!(parse_graph("  ").unwrap().is_empty());
    }
}
