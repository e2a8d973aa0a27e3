//! A packed node's fields read back (`node.rs`): each number from its home or from out of line,
//! the flags and codes from `bits`, the lists and texts from the node's set of texts; what a
//! method gives is exactly the value the node was built with.

use crate::analysis::graph::node::{
    ABORTED, BUFFER_TYPE_SHIFT, Field, GLOBAL, GraphNode, ID, LINK, NODE_TYPE_SHIFT, ONE_LINK, TYPE_CODE,
};
use crate::analysis::graph::node_texts::NodeTexts;
use crate::analysis::graph::nodes::NodeType;
use crate::analysis::messages::failure::BufferType;
use crate::analysis::shared_text::SharedText;

impl GraphNode {
    /// The node's `id`, else its `counter`, else its position.
    pub(crate) fn id(&self) -> u64 {
        self.wide(None).unwrap_or(u64::from(self.words[ID]))
    }

    /// The node type.
    pub(crate) fn node_type(&self) -> Option<NodeType> {
        match self.bits >> NODE_TYPE_SHIFT {
            0 => None,
            code => NodeType::ALL.get(code as usize - 1).copied(),
        }
    }

    /// True for this node type.
    pub(crate) fn is(&self, node_type: NodeType) -> bool {
        self.bits >> NODE_TYPE_SHIFT == node_type as u32 + 1
    }

    /// `params.size`.
    pub(crate) fn size(&self) -> Option<u64> {
        self.number(Field::Size)
    }

    /// `params.address`.
    pub(crate) fn address(&self) -> Option<u64> {
        self.number(Field::Address)
    }

    /// The buffer type: integer `params.buffer_type`, else the `params.type` string.
    pub(crate) fn buffer_type(&self) -> Option<BufferType> {
        match (self.bits >> BUFFER_TYPE_SHIFT) & 0x7 {
            0 => None,
            code => BufferType::from_code(i64::from(code) - 1),
        }
    }

    /// True when the buffer type came from the integer `params.buffer_type`; the `type` string
    /// says only `DRAM` or `L1` (`L1_SMALL` prints as `L1`), so it is not exact.
    pub(crate) fn buffer_type_code(&self) -> bool {
        self.has(TYPE_CODE)
    }

    /// A `function_end` whose `params.aborted` is exactly `true` or `"true"`.
    pub(crate) fn aborted(&self) -> bool {
        self.has(ABORTED)
    }

    /// `params.globally_allocated` of a circular buffer is `"1"`, `1` or `true`.
    pub(crate) fn globally_allocated(&self) -> bool {
        self.has(GLOBAL)
    }

    /// `params.device_id`.
    pub(crate) fn device_id(&self) -> Option<u64> {
        self.number(Field::DeviceId)
    }

    /// `params.num_cores` (0 = interleaved).
    pub(crate) fn num_cores(&self) -> Option<u64> {
        self.number(Field::NumCores)
    }

    /// `stacking_level`, read from the node's top level.
    pub(crate) fn stacking_level(&self) -> Option<i64> {
        self.number(Field::StackingLevel).map(|bits| bits as i64)
    }

    /// `params.page_size` of a buffer allocation (newest captures).
    pub(crate) fn page_size(&self) -> Option<u64> {
        self.number(Field::PageSize)
    }

    /// `params.max_size_per_bank` (newest captures).
    pub(crate) fn max_size_per_bank(&self) -> Option<u64> {
        self.number(Field::MaxSizePerBank)
    }

    /// `params.tensor_id` of a tensor node.
    pub(crate) fn tensor_id(&self) -> Option<u64> {
        self.number(Field::TensorId)
    }

    /// `connections`: counters of later or related nodes, in order.
    pub(crate) fn connections(&self) -> impl Iterator<Item = u64> + Clone + '_ {
        let one = self.has(ONE_LINK).then_some(u64::from(self.words[LINK]));
        let many = self.rare().map_or(&[][..], |rare| &rare.connections[..]);
        one.into_iter().chain(many.iter().copied())
    }

    /// `input_tensors`: counters of the tensor nodes given to a function start.
    pub(crate) fn input_tensors(&self) -> &[u64] {
        self.rare().map_or(&[], |rare| &rare.input_tensors)
    }

    /// The node's texts, when it has any.
    pub(crate) fn texts(&self) -> Option<&NodeTexts> {
        self.texts.as_deref()
    }

    /// The `node_type` text as written (sanitised), for unknown types only; empty otherwise.
    #[cfg(test)]
    pub(crate) fn type_name(&self) -> &str {
        self.texts().and_then(|t| t.type_name.as_deref()).unwrap_or("")
    }

    /// `params.name` of a function start or end; empty when absent.
    pub(crate) fn name(&self) -> &str {
        self.texts().and_then(|t| t.name.as_deref()).unwrap_or("")
    }

    /// [`Self::name`], shared.
    pub(crate) fn name_shared(&self) -> SharedText {
        self.texts().and_then(|t| t.name.clone()).unwrap_or_default()
    }

    /// `params.abort_reason` when it is a string that is not blank.
    pub(crate) fn abort_reason(&self) -> Option<&str> {
        self.texts()?.abort_reason.as_deref()
    }

    /// `params.layout`.
    pub(crate) fn layout(&self) -> Option<&str> {
        self.texts()?.layout.as_deref()
    }

    /// [`Self::layout`], shared.
    pub(crate) fn layout_shared(&self) -> Option<SharedText> {
        self.texts()?.layout.clone()
    }

    /// `params.core_range_set`.
    pub(crate) fn core_range_set(&self) -> Option<&str> {
        self.texts()?.core_range_set.as_deref()
    }

    /// `params.shape` of a tensor node.
    pub(crate) fn shape(&self) -> Option<&str> {
        self.texts()?.shape.as_deref()
    }

    /// `params.memory_config` of a tensor node (a sharded one names its shard grid).
    pub(crate) fn memory_config(&self) -> Option<&str> {
        self.texts()?.memory_config.as_deref()
    }
}
