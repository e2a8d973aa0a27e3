//! A captured-graph node with every field spelt out (docs/rules/reference.md §3.1): how tests and
//! the few rules that rewrite a node build one, and how a node is shown. [`GraphNode`] keeps the
//! same fields compactly; the two convert both ways without loss.

use super::node::{GraphNode, Numbers};
use super::node_texts::{TextCache, TextsRead};
use super::nodes::NodeType;
use crate::analysis::messages::failure::BufferType;
use std::borrow::Cow;
use std::fmt;

/// Every field of a node, each in its own place.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct NodeFields {
    /// The node's `id`, else its `counter`, else its position.
    pub(crate) id: u64,
    /// The node type.
    pub(crate) node_type: Option<NodeType>,
    /// The `node_type` text as written (sanitised), for unknown types only.
    pub(crate) type_name: String,
    /// `params.name` of a function start or end; empty when absent.
    pub(crate) name: String,
    /// `stacking_level`.
    pub(crate) stacking_level: Option<i64>,
    /// An aborted function end.
    pub(crate) aborted: bool,
    /// `params.abort_reason`, not blank.
    pub(crate) abort_reason: Option<String>,
    /// `params.size`.
    pub(crate) size: Option<u64>,
    /// `params.address`.
    pub(crate) address: Option<u64>,
    /// The buffer type.
    pub(crate) buffer_type: Option<BufferType>,
    /// The buffer type came from the integer `params.buffer_type`.
    pub(crate) buffer_type_code: bool,
    /// `params.max_size_per_bank`.
    pub(crate) max_size_per_bank: Option<u64>,
    /// `params.num_cores`.
    pub(crate) num_cores: Option<u64>,
    /// `params.page_size`.
    pub(crate) page_size: Option<u64>,
    /// A circular buffer backed by a tensor.
    pub(crate) globally_allocated: bool,
    /// `params.layout`.
    pub(crate) layout: Option<String>,
    /// `params.core_range_set`.
    pub(crate) core_range_set: Option<String>,
    /// `params.device_id`.
    pub(crate) device_id: Option<u64>,
    /// `params.tensor_id`.
    pub(crate) tensor_id: Option<u64>,
    /// `params.shape`.
    pub(crate) shape: Option<String>,
    /// `params.memory_config`.
    pub(crate) memory_config: Option<String>,
    /// `input_tensors`.
    pub(crate) input_tensors: Vec<u64>,
    /// `connections`.
    pub(crate) connections: Vec<u64>,
}

impl NodeFields {
    /// The node, its texts shared through `cache`.
    pub(crate) fn pack(self, cache: &mut TextCache) -> GraphNode {
        let numbers = Numbers {
            id: self.id,
            node_type: self.node_type,
            aborted: self.aborted,
            buffer_type: self.buffer_type,
            buffer_type_code: self.buffer_type_code,
            globally_allocated: self.globally_allocated,
            values: [
                self.address,
                self.size,
                self.max_size_per_bank,
                self.page_size,
                self.tensor_id,
                self.device_id,
                self.num_cores,
                self.stacking_level.map(|level| level as u64),
            ],
        };
        let texts = TextsRead {
            type_name: Cow::Borrowed(&self.type_name),
            name: Cow::Borrowed(&self.name),
            abort_reason: text(&self.abort_reason),
            layout: text(&self.layout),
            core_range_set: text(&self.core_range_set),
            shape: text(&self.shape),
            memory_config: text(&self.memory_config),
        };
        let code = self.node_type.map_or(0, |t| t as usize + 1);
        let texts = cache.share(code, texts);
        GraphNode::pack(&numbers, texts, self.input_tensors, &self.connections)
    }
}

/// A text as borrowed.
fn text(t: &Option<String>) -> Option<Cow<'_, str>> {
    t.as_deref().map(Cow::Borrowed)
}

impl From<NodeFields> for GraphNode {
    fn from(fields: NodeFields) -> Self {
        fields.pack(&mut TextCache::default())
    }
}

impl GraphNode {
    /// Every field, each in its own place.
    pub(crate) fn fields(&self) -> NodeFields {
        let texts = self.texts().cloned().unwrap_or_default();
        let owned = |t: Option<crate::analysis::shared_text::SharedText>| t.map(|t| t.to_string());
        NodeFields {
            id: self.id(),
            node_type: self.node_type(),
            type_name: owned(texts.type_name).unwrap_or_default(),
            name: owned(texts.name).unwrap_or_default(),
            stacking_level: self.stacking_level(),
            aborted: self.aborted(),
            abort_reason: owned(texts.abort_reason),
            size: self.size(),
            address: self.address(),
            buffer_type: self.buffer_type(),
            buffer_type_code: self.buffer_type_code(),
            max_size_per_bank: self.max_size_per_bank(),
            num_cores: self.num_cores(),
            page_size: self.page_size(),
            globally_allocated: self.globally_allocated(),
            layout: owned(texts.layout),
            core_range_set: owned(texts.core_range_set),
            device_id: self.device_id(),
            tensor_id: self.tensor_id(),
            shape: owned(texts.shape),
            memory_config: owned(texts.memory_config),
            input_tensors: self.input_tensors().to_vec(),
            connections: self.connections().collect(),
        }
    }

    /// Changes some fields (tests' builders).
    #[cfg(test)]
    pub(crate) fn edit(&mut self, change: impl FnOnce(&mut NodeFields)) {
        let mut fields = self.fields();
        change(&mut fields);
        *self = fields.into();
    }
}

impl fmt::Debug for GraphNode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.fields().fmt(f)
    }
}
