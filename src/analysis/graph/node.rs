//! One captured-graph node as kept (docs/rules/reference.md §3.1): 72 bytes whatever it carries. A
//! failure's graph may hold 900 000 nodes, so the numbers are kept without `Option`'s padding
//! (a mask says which are present), the small ones in 16 or 32 bits (a value that does not fit
//! is kept out of line), the texts in a set shared by every node with the same texts
//! ([`NodeTexts`]), and the one connection most nodes have inline. Every field is read through
//! a method: what a method gives is exactly the value the node was built with.

use super::node_texts::NodeTexts;
use super::nodes::NodeType;
use crate::analysis::messages::failure::BufferType;
use std::sync::Arc;

/// The numbers kept in fewer than 64 bits, each with its slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Small {
    /// `params.device_id`, in 16 bits.
    DeviceId,
    /// `params.num_cores`, in 16 bits.
    NumCores,
    /// `stacking_level` (signed), in 16 bits.
    StackingLevel,
    /// `params.page_size`, in 32 bits.
    PageSize,
    /// `params.max_size_per_bank`, in 32 bits.
    MaxSizePerBank,
    /// `params.tensor_id`, in 32 bits.
    TensorId,
}

impl Small {
    /// Every small number, in slot order.
    pub(crate) const ALL: [Small; 6] = [
        Small::DeviceId,
        Small::NumCores,
        Small::StackingLevel,
        Small::PageSize,
        Small::MaxSizePerBank,
        Small::TensorId,
    ];

    fn present_bit(self) -> u32 {
        1 << (8 + self as u32)
    }

    fn wide_bit(self) -> u32 {
        1 << (16 + self as u32)
    }

    /// The slot's bits for `value` (an `i64`'s bits for the stacking level), when it fits.
    fn narrow(self, value: u64) -> Option<u32> {
        match self {
            Small::StackingLevel => i16::try_from(value as i64).ok().map(|v| u32::from(v as u16)),
            Small::DeviceId | Small::NumCores => u16::try_from(value).ok().map(u32::from),
            Small::PageSize | Small::MaxSizePerBank | Small::TensorId => u32::try_from(value).ok(),
        }
    }

    /// The value of a slot's bits.
    fn widen(self, bits: u32) -> u64 {
        match self {
            Small::StackingLevel => i64::from(bits as u16 as i16) as u64,
            _ => u64::from(bits),
        }
    }
}

/// Bit of `bits`: `address` is present.
const ADDRESS: u32 = 1;
/// Bit: `size` is present.
const SIZE: u32 = 1 << 1;
/// Bit: the node has exactly one connection, in `link`.
const ONE_LINK: u32 = 1 << 2;
/// Bit: an aborted function end.
const ABORTED: u32 = 1 << 3;
/// Bit: the buffer type came from the integer `buffer_type`.
const TYPE_CODE: u32 = 1 << 4;
/// Bit: a circular buffer backed by a tensor.
const GLOBAL: u32 = 1 << 5;
/// Where the node type's code starts in `bits` (0: none, else 1 + its index).
const NODE_TYPE_SHIFT: u32 = 24;
/// Where the buffer type's code starts in `bits` (0: none, else 1 + its index).
const BUFFER_TYPE_SHIFT: u32 = 28;

/// What few nodes carry: connections other than one, the inputs of a function start, and the
/// small numbers too large for their slot.
#[derive(Debug, Clone, PartialEq, Default)]
struct Rare {
    connections: Vec<u64>,
    input_tensors: Vec<u64>,
    wide: Vec<(Small, u64)>,
}

/// One normalised node of a captured graph.
#[derive(Clone, PartialEq, Default)]
pub struct GraphNode {
    id: u64,
    address: u64,
    size: u64,
    /// The only connection, when there is exactly one.
    link: u64,
    texts: Option<Arc<NodeTexts>>,
    rare: Option<Box<Rare>>,
    /// The 32-bit slots: page size, max size per bank, tensor id.
    words: [u32; 3],
    /// The 16-bit slots: device id, number of cores, stacking level.
    halves: [u16; 3],
    /// Which numbers are present and the flags, node type and buffer type (the constants above).
    bits: u32,
}

/// Every field of a node, as [`GraphNode::pack`] takes them.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct Numbers {
    pub(crate) id: u64,
    pub(crate) node_type: Option<NodeType>,
    pub(crate) aborted: bool,
    pub(crate) size: Option<u64>,
    pub(crate) address: Option<u64>,
    pub(crate) buffer_type: Option<BufferType>,
    pub(crate) buffer_type_code: bool,
    pub(crate) globally_allocated: bool,
    /// The small numbers, by [`Small`] slot order (the stacking level as an `i64`'s bits).
    pub(crate) small: [Option<u64>; 6],
}

impl GraphNode {
    /// A node of these numbers, texts and lists.
    pub(crate) fn pack(
        numbers: &Numbers,
        texts: Option<Arc<NodeTexts>>,
        input_tensors: Vec<u64>,
        connections: &[u64],
    ) -> Self {
        let flag = |on: bool, bit: u32| if on { bit } else { 0 };
        let mut node = GraphNode {
            id: numbers.id,
            address: numbers.address.unwrap_or(0),
            size: numbers.size.unwrap_or(0),
            texts,
            bits: flag(numbers.address.is_some(), ADDRESS)
                | flag(numbers.size.is_some(), SIZE)
                | flag(numbers.aborted, ABORTED)
                | flag(numbers.buffer_type_code, TYPE_CODE)
                | flag(numbers.globally_allocated, GLOBAL),
            ..GraphNode::default()
        };
        node.set_node_type(numbers.node_type);
        node.set_buffer_type(numbers.buffer_type);
        let mut rare = Rare { input_tensors, ..Rare::default() };
        match connections {
            [] => {}
            [only] => {
                node.link = *only;
                node.bits |= ONE_LINK;
            }
            many => rare.connections = many.to_vec(),
        }
        for (slot, value) in Small::ALL.into_iter().zip(numbers.small) {
            node.set_small(slot, value, &mut rare);
        }
        if rare != Rare::default() {
            node.rare = Some(Box::new(rare));
        }
        node
    }

    fn set_small(&mut self, slot: Small, value: Option<u64>, rare: &mut Rare) {
        self.bits &= !(slot.present_bit() | slot.wide_bit());
        rare.wide.retain(|(s, _)| *s != slot);
        let index = slot as usize;
        let bits = match value {
            None => 0,
            Some(value) => {
                self.bits |= slot.present_bit();
                slot.narrow(value).unwrap_or_else(|| {
                    self.bits |= slot.wide_bit();
                    rare.wide.push((slot, value));
                    0
                })
            }
        };
        match index {
            0..3 => self.halves[index] = bits as u16,
            _ => self.words[index - 3] = bits,
        }
    }

    fn small(&self, slot: Small) -> Option<u64> {
        if self.bits & slot.present_bit() == 0 {
            return None;
        }
        if self.bits & slot.wide_bit() != 0 {
            return self.rare.as_ref()?.wide.iter().find(|(s, _)| *s == slot).map(|(_, v)| *v);
        }
        let index = slot as usize;
        Some(slot.widen(if index < 3 { u32::from(self.halves[index]) } else { self.words[index - 3] }))
    }

    fn has(&self, bit: u32) -> bool {
        self.bits & bit != 0
    }

    /// The node's `id`, else its `counter`, else its position.
    pub(crate) fn id(&self) -> u64 {
        self.id
    }

    /// The node type.
    pub(crate) fn node_type(&self) -> Option<NodeType> {
        match (self.bits >> NODE_TYPE_SHIFT) & 0xf {
            0 => None,
            code => NodeType::ALL.get(code as usize - 1).copied(),
        }
    }

    /// True for this node type.
    pub(crate) fn is(&self, node_type: NodeType) -> bool {
        (self.bits >> NODE_TYPE_SHIFT) & 0xf == node_type as u32 + 1
    }

    /// `params.size`.
    pub(crate) fn size(&self) -> Option<u64> {
        self.has(SIZE).then_some(self.size)
    }

    /// `params.address`.
    pub(crate) fn address(&self) -> Option<u64> {
        self.has(ADDRESS).then_some(self.address)
    }

    /// The buffer type: integer `params.buffer_type`, else the `params.type` string.
    pub(crate) fn buffer_type(&self) -> Option<BufferType> {
        match (self.bits >> BUFFER_TYPE_SHIFT) & 0xf {
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
        self.small(Small::DeviceId)
    }

    /// `params.num_cores` (0 = interleaved).
    pub(crate) fn num_cores(&self) -> Option<u64> {
        self.small(Small::NumCores)
    }

    /// `stacking_level`, read from the node's top level.
    pub(crate) fn stacking_level(&self) -> Option<i64> {
        self.small(Small::StackingLevel).map(|bits| bits as i64)
    }

    /// `params.page_size` of a buffer allocation (newest captures).
    pub(crate) fn page_size(&self) -> Option<u64> {
        self.small(Small::PageSize)
    }

    /// `params.max_size_per_bank` (newest captures).
    pub(crate) fn max_size_per_bank(&self) -> Option<u64> {
        self.small(Small::MaxSizePerBank)
    }

    /// `params.tensor_id` of a tensor node.
    pub(crate) fn tensor_id(&self) -> Option<u64> {
        self.small(Small::TensorId)
    }

    /// `connections`: counters of later or related nodes.
    pub(crate) fn connections(&self) -> &[u64] {
        match (&self.rare, self.has(ONE_LINK)) {
            (_, true) => std::slice::from_ref(&self.link),
            (Some(rare), false) => &rare.connections,
            (None, false) => &[],
        }
    }

    /// `input_tensors`: counters of the tensor nodes given to a function start.
    pub(crate) fn input_tensors(&self) -> &[u64] {
        self.rare.as_ref().map_or(&[], |rare| &rare.input_tensors)
    }

    /// The node's texts, when it has any.
    pub(crate) fn texts(&self) -> Option<&NodeTexts> {
        self.texts.as_deref()
    }

    /// The `node_type` text as written (sanitised), for unknown types only; empty otherwise.
    #[cfg(test)]
    pub(crate) fn type_name(&self) -> &str {
        self.texts().map_or("", |t| &t.type_name)
    }

    /// `params.name` of a function start or end; empty when absent.
    pub(crate) fn name(&self) -> &str {
        self.texts().map_or("", |t| &t.name)
    }

    /// `params.abort_reason` when it is a string that is not blank.
    pub(crate) fn abort_reason(&self) -> Option<&str> {
        self.texts()?.abort_reason.as_deref()
    }

    /// `params.layout`.
    pub(crate) fn layout(&self) -> Option<&str> {
        self.texts()?.layout.as_deref()
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

    /// Names another device (the mesh-id rule, docs/rules/memory.md §2).
    pub(crate) fn set_device_id(&mut self, device: Option<u64>) {
        let mut rare = self.rare.take().map(|r| *r).unwrap_or_default();
        self.set_small(Small::DeviceId, device, &mut rare);
        self.rare = (rare != Rare::default()).then(|| Box::new(rare));
    }

    /// Takes another buffer type (an allocation retyped L1_SMALL, docs/rules/memory.md §2);
    /// where it came from is kept.
    pub(crate) fn set_buffer_type(&mut self, buffer_type: Option<BufferType>) {
        let code = buffer_type.map_or(0, |t| t as u32 + 1);
        self.bits = (self.bits & !(0xf << BUFFER_TYPE_SHIFT)) | (code << BUFFER_TYPE_SHIFT);
    }

    fn set_node_type(&mut self, node_type: Option<NodeType>) {
        let code = node_type.map_or(0, |t| t as u32 + 1);
        self.bits = (self.bits & !(0xf << NODE_TYPE_SHIFT)) | (code << NODE_TYPE_SHIFT);
    }
}

#[cfg(test)]
#[path = "node_tests.rs"]
mod tests;
