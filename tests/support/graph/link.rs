//! Tensor nodes connected from the buffer that holds them, as tt-metal's graph processor writes
//! `buffer` → tensor connections (`docs/rules/formats.md` §3.6).

use serde_json::Value;

use super::Graph;

impl Graph {
    /// A `tensor` node for `tensor_id`, connected from the newest `buffer` node.
    pub fn buffer_tensor(mut self, tensor_id: u64, shape: &str) -> Self {
        let params = Self::map(vec![("shape", Value::String(shape.into())), ("tensor_id", self.num(tensor_id))]);
        let level = self.inner_level();
        let c = self.push(Self::node("tensor", params), Some(level));
        if let Some(b) = self.nodes.iter().rposition(|n| n.node_type == "buffer") {
            self.nodes[b].connections.push(c);
        }
        self
    }
}
