//! Builds captured-graph JSON (`captured_graph.captured_graph`, `docs/rules/formats.md` §3) as tt-metal's
//! graph processor writes it, in three eras:
//!
//! * [`Graph::strings`] — 2024: every param value a string, no `stacking_level`, no
//!   `input_tensors`, `params: {}` on capture nodes;
//! * [`Graph::strings_with_levels`] — 2025: still strings, plus `stacking_level` and
//!   `input_tensors`, and more buffer params (`device_id`, `page_size`, `num_cores`);
//! * [`Graph::new`] — newest: whitelisted params as JSON integers (`size`, `address`,
//!   `tensor_id`, `device_id`, `buffer_type`, `page_size`, `num_cores`, `max_size_per_bank`),
//!   `stacking_level` on each node, `params: null` on capture nodes.
//!
//! `counter` is the node's position in the array. Levels follow `docs/rules/formats.md` §3.5: a
//! function_start gets the depth before its push (capture_start counting as 1), its end copies
//! it, nested nodes take the level of the enclosing function, capture nodes 0.
//! Params are written with sorted keys, as tt-metal's `std::map` does.

use std::collections::{BTreeMap, HashMap};

use serde_json::Value;

use super::schema::BufferType;

mod alloc;
mod buffers;
mod link;
pub use alloc::Alloc;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    Strings2024,
    Strings2025,
    Integers,
}

/// Which key identifies a node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeKey {
    /// `counter` only (tt-metal).
    Counter,
    /// `counter`, plus `id` equal to it at the end (graph_report).
    CounterAndId,
    /// `id` only.
    Id,
}

#[derive(Clone, Debug)]
enum Params {
    Null,
    Map(BTreeMap<String, Value>),
}

#[derive(Clone, Debug)]
struct Node {
    node_type: String,
    params: Params,
    arguments: Option<Vec<String>>,
    input_tensors: Option<Vec<usize>>,
    connections: Vec<usize>,
    stacking_level: Option<u32>,
    /// A node written verbatim (`Graph::raw`).
    raw: Option<Value>,
}

#[derive(Clone, Debug)]
struct Open {
    name: String,
    counter: usize,
    level: u32,
}

/// Captured-graph builder; see the module documentation.
#[derive(Clone, Debug)]
pub struct Graph {
    style: Style,
    key: NodeKey,
    nodes: Vec<Node>,
    open: Vec<Open>,
    capture_start: Option<usize>,
    /// Buffer nodes by (device, address, type), for deallocations.
    buffers: HashMap<(u64, u64, BufferType), usize>,
}

impl Default for Graph {
    fn default() -> Self {
        Self::new()
    }
}

impl Graph {
    /// The newest era: integer params, stacking levels, `params: null` on capture nodes.
    pub fn new() -> Self {
        Self::with_style(Style::Integers)
    }
    /// The 2024 era: string params, no stacking levels.
    pub fn strings() -> Self {
        Self::with_style(Style::Strings2024)
    }
    /// The 2025 era: string params with stacking levels and `input_tensors`.
    pub fn strings_with_levels() -> Self {
        Self::with_style(Style::Strings2025)
    }
    pub fn with_style(style: Style) -> Self {
        Graph {
            style,
            key: NodeKey::Counter,
            nodes: Vec::new(),
            open: Vec::new(),
            capture_start: None,
            buffers: HashMap::new(),
        }
    }
    pub fn node_key(mut self, key: NodeKey) -> Self {
        self.key = key;
        self
    }
    pub fn style(&self) -> Style {
        self.style
    }
    pub fn len(&self) -> usize {
        self.nodes.len()
    }
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    fn levels(&self) -> bool {
        self.style != Style::Strings2024
    }

    /// A numeric param: a JSON integer in the newest era, a decimal string before.
    fn num(&self, v: u64) -> Value {
        match self.style {
            Style::Integers => Value::from(v),
            _ => Value::String(v.to_string()),
        }
    }

    /// Level of nodes nested in the innermost open function.
    fn inner_level(&self) -> u32 {
        self.open.last().map_or(0, |o| o.level)
    }

    fn push(&mut self, mut node: Node, level: Option<u32>) -> usize {
        let counter = self.nodes.len();
        if node.stacking_level.is_none() && self.levels() {
            node.stacking_level = level;
        }
        self.nodes.push(node);
        counter
    }

    fn connect_to_parent(&mut self, counter: usize) {
        let parent = self.open.last().map(|o| o.counter).or(self.capture_start);
        if let Some(p) = parent {
            self.nodes[p].connections.push(counter);
        }
    }

    fn node(node_type: &str, params: Params) -> Node {
        Node {
            node_type: node_type.to_string(),
            params,
            arguments: None,
            input_tensors: None,
            connections: Vec::new(),
            stacking_level: None,
            raw: None,
        }
    }

    fn map(pairs: Vec<(&str, Value)>) -> Params {
        Params::Map(pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
    }

    fn capture_params(&self) -> Params {
        match self.style {
            Style::Integers => Params::Null,
            _ => Params::Map(BTreeMap::new()),
        }
    }

    pub fn capture_start(mut self) -> Self {
        let node = Self::node("capture_start", self.capture_params());
        let c = self.push(node, Some(0));
        self.capture_start = Some(c);
        self
    }

    pub fn capture_end(mut self) -> Self {
        let node = Self::node("capture_end", self.capture_params());
        self.push(node, Some(0));
        self
    }

    /// A `function_start` at the current depth.
    pub fn start(self, name: &str) -> Self {
        let level = self.open.len() as u32 + 1;
        self.start_full(name, level, &[])
    }

    /// A `function_start` with printed argument values.
    pub fn start_args(self, name: &str, arguments: &[&str]) -> Self {
        let level = self.open.len() as u32 + 1;
        self.start_full(name, level, arguments)
    }

    /// A `function_start` with an explicit stacking level (written even in the 2024 style).
    pub fn start_at(mut self, name: &str, level: u32) -> Self {
        self = self.start_full(name, level, &[]);
        let last = self.nodes.len() - 1;
        self.nodes[last].stacking_level = Some(level);
        self
    }

    fn start_full(mut self, name: &str, level: u32, arguments: &[&str]) -> Self {
        let mut node = Self::node(
            "function_start",
            Self::map(vec![("inputs", Value::String("0".into())), ("name", Value::String(name.into()))]),
        );
        node.arguments = Some(arguments.iter().map(|a| a.to_string()).collect());
        if self.levels() {
            node.input_tensors = Some(Vec::new());
        }
        let c = self.push(node, Some(level));
        self.connect_to_parent(c);
        self.open.push(Open { name: name.to_string(), counter: c, level });
        self
    }

    /// A `function_end` closing the newest open start named `name`, at its level.
    pub fn end(self, name: &str) -> Self {
        self.end_full(name, None, Vec::new())
    }

    /// A `function_end` with an explicit stacking level (written even in the 2024 style).
    pub fn end_at(mut self, name: &str, level: u32) -> Self {
        self = self.end_full(name, Some(level), Vec::new());
        let last = self.nodes.len() - 1;
        self.nodes[last].stacking_level = Some(level);
        self
    }

    /// An aborted `function_end`: `aborted: "true"` and, when given, `abort_reason`.
    pub fn aborted_end(self, name: &str, reason: Option<&str>) -> Self {
        self.aborted_end_with(name, Value::String("true".into()), reason)
    }

    /// An aborted-looking `function_end` with any `aborted` value: `true`, `"True"`, `"false"`…
    pub fn aborted_end_with(self, name: &str, aborted: Value, reason: Option<&str>) -> Self {
        let mut extra = vec![("aborted", aborted)];
        if let Some(r) = reason {
            extra.push(("abort_reason", Value::String(r.into())));
        }
        self.end_full(name, None, extra)
    }

    fn end_full(mut self, name: &str, level: Option<u32>, extra: Vec<(&str, Value)>) -> Self {
        let mut pairs = vec![("name", Value::String(name.into()))];
        pairs.extend(extra);
        let node = Self::node("function_end", Self::map(pairs));
        let matched = self.open.iter().rposition(|o| o.name == name);
        let level = level.unwrap_or_else(|| match matched {
            Some(i) => self.open[i].level,
            None => self.open.len() as u32 + 1,
        });
        let c = self.push(node, Some(level));
        if let Some(i) = matched {
            let start = self.open.remove(i).counter;
            self.nodes[start].connections.push(c);
        }
        self
    }

    /// Forgets the newest open scope named `name` without writing any node: the scope stays
    /// open in the JSON, and later nodes are nested as if it had ended (a failed scope that
    /// older tt-metal unwound without an end node). The next start at its level is a sibling.
    pub fn unwind(mut self, name: &str) -> Self {
        let i = self.open.iter().rposition(|o| o.name == name);
        self.open.remove(i.unwrap_or_else(|| panic!("unwind: no open scope {name}")));
        self
    }

    /// A `tensor` node. Tensors right after a `function_start` become its `input_tensors`.
    pub fn tensor(mut self, tensor_id: u64, shape: &str) -> Self {
        let params = Self::map(vec![("shape", Value::String(shape.into())), ("tensor_id", self.num(tensor_id))]);
        let level = self.inner_level();
        let c = self.push(Self::node("tensor", params), Some(level));
        // Inputs: the tensors directly following the innermost open start.
        if let Some(open) = self.open.last() {
            let start = open.counter;
            let only_tensors_since = self.nodes[start + 1..c].iter().all(|n| n.node_type == "tensor");
            if only_tensors_since {
                let inputs = (c - start).to_string();
                if let Params::Map(m) = &mut self.nodes[start].params {
                    m.insert("inputs".into(), Value::String(inputs));
                }
                if let Some(it) = &mut self.nodes[start].input_tensors {
                    it.push(c);
                }
            }
        }
        self
    }

    /// Any node, written verbatim (unknown node types, `error` nodes, a start without params).
    /// It does not take part in level or scope tracking.
    pub fn raw(mut self, node: Value) -> Self {
        let mut n = Self::node("", Params::Null);
        n.raw = Some(node);
        self.nodes.push(n);
        self
    }

    /// The JSON of node `counter`.
    pub fn node_json(&self, counter: usize) -> String {
        let node = &self.nodes[counter];
        if let Some(raw) = &node.raw {
            return raw.to_string();
        }
        let mut fields: Vec<(&str, String)> = Vec::new();
        match self.key {
            NodeKey::Counter | NodeKey::CounterAndId => fields.push(("counter", counter.to_string())),
            NodeKey::Id => fields.push(("id", counter.to_string())),
        }
        fields.push(("node_type", json_str(&node.node_type)));
        let params = match &node.params {
            Params::Null => "null".to_string(),
            Params::Map(m) => {
                let items: Vec<String> = m.iter().map(|(k, v)| format!("{}:{}", json_str(k), v)).collect();
                format!("{{{}}}", items.join(","))
            }
        };
        fields.push(("params", params));
        if let Some(args) = &node.arguments {
            let items: Vec<String> = args.iter().map(|a| json_str(a)).collect();
            fields.push(("arguments", format!("[{}]", items.join(","))));
        }
        if let Some(inputs) = &node.input_tensors {
            fields.push(("input_tensors", json_list(inputs)));
        }
        fields.push(("connections", json_list(&node.connections)));
        if let Some(level) = node.stacking_level {
            fields.push(("stacking_level", level.to_string()));
        }
        if self.key == NodeKey::CounterAndId {
            fields.push(("id", counter.to_string()));
        }
        let items: Vec<String> = fields.into_iter().map(|(k, v)| format!("{}:{}", json_str(k), v)).collect();
        format!("{{{}}}", items.join(","))
    }

    /// The graph of a `ttnn.conv2d` whose device operation failed "Out of Memory" before it
    /// allocated anything: the smallest failing graph the print-mode tests build on.
    pub fn failed_conv2d() -> Self {
        Graph::new()
            .capture_start()
            .start_at("ttnn.conv2d", 1)
            .start_at("Conv2dDeviceOperation", 2)
            .aborted_end("Conv2dDeviceOperation", Some("Out of Memory"))
            .aborted_end("ttnn.conv2d", Some("Out of Memory"))
            .capture_end()
    }

    /// The node array, compact, as stored in `captured_graph.captured_graph`.
    pub fn to_json(&self) -> String {
        let nodes: Vec<String> = (0..self.nodes.len()).map(|i| self.node_json(i)).collect();
        format!("[{}]", nodes.join(","))
    }
}

impl From<Graph> for String {
    fn from(g: Graph) -> String {
        g.to_json()
    }
}

impl From<&Graph> for String {
    fn from(g: &Graph) -> String {
        g.to_json()
    }
}

fn json_str(s: &str) -> String {
    Value::String(s.to_string()).to_string()
}

fn json_list(items: &[usize]) -> String {
    let items: Vec<String> = items.iter().map(|i| i.to_string()).collect();
    format!("[{}]", items.join(","))
}
