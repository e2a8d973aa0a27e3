//! Captured-graph nodes, normalised from the JSON of every era (behaviour.md §3.1, formats.md §3).

use super::failure::BufferType;
use super::graph_json::{Loose, RawNode, RawParams, RawScopeNode, read_nodes, read_scope_nodes};
use super::sanitize::sanitize_line;
use serde_json::{Map, Value};
use std::borrow::Cow;

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
    /// The `node_type` text as written (sanitised), for unknown types only; empty for the others.
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
        Some(nodes) => Ok(nodes.iter().enumerate().map(|(position, node)| scope_node(position, node)).collect()),
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

fn scope_node(position: usize, node: &RawScopeNode<'_>) -> GraphNode {
    let full = RawNode {
        id: node.id.clone(),
        counter: node.counter.clone(),
        node_type: node.node_type.clone(),
        params: node.params.as_ref().map(|p| RawParams {
            name: p.name.clone(),
            aborted: p.aborted.clone(),
            abort_reason: p.abort_reason.clone(),
            ..RawParams::default()
        }),
        stacking_level: node.stacking_level.clone(),
        input_tensors: None,
        connections: None,
    };
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
        core_range_set: get(p, "core_range_set"),
        device_id: get(p, "device_id"),
        tensor_id: get(p, "tensor_id"),
        shape: get(p, "shape"),
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

fn normalise(position: usize, node: &RawNode<'_>) -> GraphNode {
    let empty = RawParams::default();
    let params = node.params.as_ref().unwrap_or(&empty);
    let type_name = node.node_type.as_ref().and_then(Loose::as_str).unwrap_or("");
    let node_type = NodeType::from_name(type_name);
    let text = |value: &Option<Loose<'_>>| value.as_ref().and_then(Loose::as_str).map(sanitize_line);
    let number = |value: &Option<Loose<'_>>| value.as_ref().and_then(Loose::as_u64);
    let numbers = |list: &Option<Vec<Loose<'_>>>| list.iter().flatten().filter_map(Loose::as_u64).collect();
    let aborted = node_type == NodeType::FunctionEnd
        && match &params.aborted {
            Some(Loose::Bool(flag)) => *flag,
            Some(Loose::Str(flag)) => flag == "true",
            _ => false,
        };
    let buffer_type = number(&params.buffer_type)
        .and_then(|code| BufferType::from_code(code as i64))
        .or_else(|| params.type_name.as_ref().and_then(Loose::as_str).and_then(BufferType::from_token));
    GraphNode {
        id: number(&node.id).or_else(|| number(&node.counter)).unwrap_or(position as u64),
        node_type: Some(node_type),
        type_name: if node_type == NodeType::Other { sanitize_line(type_name) } else { String::new() },
        name: text(&params.name).unwrap_or_default(),
        stacking_level: node.stacking_level.as_ref().and_then(Loose::as_i64),
        aborted,
        abort_reason: params
            .abort_reason
            .as_ref()
            .and_then(Loose::as_str)
            .filter(|r| !r.trim().is_empty())
            .map(sanitize_line),
        size: number(&params.size),
        address: number(&params.address),
        buffer_type,
        layout: text(&params.layout),
        core_range_set: text(&params.core_range_set),
        device_id: number(&params.device_id),
        tensor_id: number(&params.tensor_id),
        shape: text(&params.shape),
        input_tensors: numbers(&node.input_tensors),
        connections: numbers(&node.connections),
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

    /// The fast reader and the generic one give the same nodes for every graph both accept.
    #[test]
    fn fast_and_generic_readers_agree() {
        let texts = [
            r#"[{"counter":0,"node_type":"capture_start","params":null,"connections":[1],"stacking_level":0}]"#,
            r#"[{"counter":"3","node_type":"function_start","params":{"inputs":"2","name":"Conv2d\u001b[1m"},"input_tensors":["4",5,-1,2.5,"x"],"connections":[],"stacking_level":"2"}]"#,
            r#"[{"id":9,"counter":1,"node_type":"function_end","params":{"name":"X","aborted":true,"abort_reason":"Out of Memory"},"stacking_level":-1}]"#,
            r#"[{"node_type":"function_end","params":{"name":"X","aborted":"true","abort_reason":"  "}}]"#,
            r#"[{"node_type":"buffer_allocate","params":{"address":18446744073709551615,"size":1.5e3,"buffer_type":3,"type":"DRAM","layout":"INTERLEAVED","device_id":"0"}}]"#,
            r#"[{"node_type":"circular_buffer_allocate","params":{"address":"101440","size":"32768","core_range_set":"{[0-0 - 10-9]}","globally_allocated":"1"},"extra":{"a":[1,{"b":2}]}}]"#,
            r#"[{"node_type":"tensor","params":{"tensor_id":13,"shape":"Shape([1, 1, 2048, 512])","device_tensors":"[{\"address\":1}]"}},{"node_type":7,"params":{}}]"#,
            r#"[{"node_type":"function_start","params":{"name":{"nested":true}},"stacking_level":null,"connections":null}]"#,
        ];
        for text in texts {
            let fast: Vec<GraphNode> = read_nodes(text)
                .unwrap_or_else(|| panic!("fast reader refused {text}"))
                .iter()
                .enumerate()
                .map(|(i, n)| normalise(i, n))
                .collect();
            assert_eq!(Ok(fast), parse_generic(text), "{text}");
        }
        // Refused by the fast reader, decided by the generic one.
        for text in [r#"[{"node_type":"function_start","params":"oops"}]"#, r#"[{"id":1,"id":2,"node_type":"x"}]"#] {
            assert!(read_nodes(text).is_none(), "{text}");
            assert!(parse_graph(text).is_ok(), "{text}");
        }
    }

    /// `parse_scopes` gives exactly the scope fields `parse_graph` gives, on both readers' paths.
    #[test]
    fn scope_parsing_keeps_the_scope_fields() {
        let texts = [
            r#"[{"counter":0,"node_type":"capture_start","params":null},{"counter":1,"node_type":"function_start","params":{"name":"ttnn.add","inputs":"2"},"stacking_level":1},{"id":7,"counter":2,"node_type":"function_end","params":{"name":"ttnn.add","aborted":"true","abort_reason":"Out of Memory"},"stacking_level":"1"},{"node_type":"buffer_allocate","params":{"size":"4"}}]"#,
            r#"[{"node_type":"function_start","params":"oops"},{"id":1,"id":2,"node_type":"function_end","params":{"name":"X","aborted":true}}]"#,
        ];
        for text in texts {
            let full: Vec<GraphNode> = parse_graph(text).unwrap().into_iter().map(scope_fields).collect();
            assert_eq!(parse_scopes(text).unwrap(), full, "{text}");
        }
        assert!(parse_scopes("[{").is_err());
    }

    #[test]
    fn invalid_graphs_are_errors_and_empty_text_is_no_nodes() {
        assert!(parse_graph("[{").unwrap_err().to_string().starts_with("invalid captured graph JSON"));
        assert_eq!(parse_graph("{}").unwrap_err().to_string(), "captured graph is not a JSON array");
        assert!(parse_graph("[1]").is_err());
        assert!(parse_graph("").unwrap().is_empty());
        assert!(parse_graph("  ").unwrap().is_empty());
    }
}
