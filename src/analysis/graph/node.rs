//! One captured-graph node as kept (docs/rules/reference.md §3.1): 40 bytes whatever it carries. A
//! failure's graph may hold 900 000 nodes, so each number has a home of 32 bits or less (a mask
//! says which are present; a value that does not fit, or whose home another field took, is
//! kept out of line), the texts are a set shared by every node with the same texts
//! ([`NodeTexts`]), and the one connection most nodes have is kept inline; what few nodes carry
//! ([`Rare`]) goes with the node's own copy of its texts. Every field is read through a method:
//! what a method gives is exactly the value the node was built with.

use super::node_texts::{NodeTexts, Rare};
use super::nodes::NodeType;
use crate::analysis::messages::failure::BufferType;
use crate::analysis::shared_text::SharedText;
use std::sync::Arc;

/// The numbers a node may carry besides its id, by their place in [`Numbers::values`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Field {
    /// `params.address`.
    Address,
    /// `params.size`.
    Size,
    /// `params.max_size_per_bank`.
    MaxSizePerBank,
    /// `params.page_size`.
    PageSize,
    /// `params.tensor_id` (at home where a tensor node has no page size).
    TensorId,
    /// `params.device_id`.
    DeviceId,
    /// `params.num_cores`.
    NumCores,
    /// `stacking_level`, an `i64`'s bits.
    StackingLevel,
}

impl Field {
    /// Every field, in the order they claim their homes.
    pub(crate) const ALL: [Field; 8] = [
        Field::Address,
        Field::Size,
        Field::MaxSizePerBank,
        Field::PageSize,
        Field::TensorId,
        Field::DeviceId,
        Field::NumCores,
        Field::StackingLevel,
    ];

    fn present_bit(self) -> u32 {
        1 << (8 + self as u32)
    }

    /// Where the field is kept, when it fits.
    fn home(self) -> Home {
        match self {
            Field::Address => Home::Word(1),
            Field::Size => Home::Word(2),
            Field::MaxSizePerBank => Home::Word(4),
            Field::PageSize | Field::TensorId => Home::Word(5),
            Field::DeviceId => Home::Half(0),
            Field::NumCores => Home::Half(1),
            Field::StackingLevel => Home::Level,
        }
    }
}

/// Where a number is kept in the node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Home {
    Word(usize),
    Half(usize),
    /// Seven bits of `bits`, signed.
    Level,
}

/// `words[0]`: the id; `words[3]`: the one connection.
const ID: usize = 0;
const LINK: usize = 3;
/// Bits of `bits`: the node has exactly one connection, at home in `words[LINK]`.
const ONE_LINK: u32 = 1;
/// An aborted function end.
const ABORTED: u32 = 1 << 1;
/// The buffer type came from the integer `buffer_type`.
const TYPE_CODE: u32 = 1 << 2;
/// A circular buffer backed by a tensor.
const GLOBAL: u32 = 1 << 3;
/// Some number (the id included) is kept out of line, in `rare.wide`.
const ANY_WIDE: u32 = 1 << 4;
/// Bits 8 to 15 say which fields are present; the stacking level's seven bits start at 17.
const LEVEL_SHIFT: u32 = 17;
/// The buffer type's code (0: none, else 1 + its index) starts here, on 3 bits.
const BUFFER_TYPE_SHIFT: u32 = 25;
/// The node type's code (0: none, else 1 + its index) starts here, on 4 bits.
const NODE_TYPE_SHIFT: u32 = 28;

/// The code of a number kept out of line in [`Rare::wide`]: 0 for the id, else 1 + the field's
/// place.
fn code(field: Option<Field>) -> u8 {
    field.map_or(0, |f| f as u8 + 1)
}

/// One normalised node of a captured graph.
#[derive(Clone, PartialEq, Default)]
pub struct GraphNode {
    /// The texts, shared; a node with rare fields has its own copy, carrying them.
    texts: Option<Arc<NodeTexts>>,
    /// The 32-bit homes: id, address, size, the one connection, max size per bank, page size
    /// (or a tensor node's tensor id).
    words: [u32; 6],
    /// The 16-bit homes: device id, number of cores.
    halves: [u16; 2],
    /// The flags, which fields are present, the stacking level, buffer type and node type.
    bits: u32,
}

/// Every field of a node but its lists and texts, as [`GraphNode::pack`] takes them.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct Numbers {
    pub(crate) id: u64,
    pub(crate) node_type: Option<NodeType>,
    pub(crate) aborted: bool,
    pub(crate) buffer_type: Option<BufferType>,
    pub(crate) buffer_type_code: bool,
    pub(crate) globally_allocated: bool,
    /// The numbers, by [`Field`].
    pub(crate) values: [Option<u64>; 8],
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
            texts,
            bits: flag(numbers.aborted, ABORTED)
                | flag(numbers.buffer_type_code, TYPE_CODE)
                | flag(numbers.globally_allocated, GLOBAL)
                | numbers.node_type.map_or(0, |t| t as u32 + 1) << NODE_TYPE_SHIFT,
            ..GraphNode::default()
        };
        node.set_buffer_type(numbers.buffer_type);
        let mut rare = Rare { input_tensors, ..Rare::default() };
        match u32::try_from(numbers.id) {
            Ok(id) => node.words[ID] = id,
            Err(_) => rare.wide.push((code(None), numbers.id)),
        }
        match connections {
            [] => {}
            [only] if u32::try_from(*only).is_ok() => {
                node.words[LINK] = *only as u32;
                node.bits |= ONE_LINK;
            }
            many => rare.connections = many.to_vec(),
        }
        for (&field, &value) in Field::ALL.iter().zip(&numbers.values) {
            let Some(value) = value else { continue };
            node.bits |= field.present_bit();
            if !node.keep_at_home(field, value) {
                rare.wide.push((code(Some(field)), value));
            }
        }
        // Most nodes have nothing rare (and a set of texts from a cache never has).
        if rare != Rare::default() || node.rare().is_some() {
            node.set_rare(rare);
        }
        node
    }

    /// Keeps `value` at the field's home when it fits and no other field took it.
    fn keep_at_home(&mut self, field: Field, value: u64) -> bool {
        match field.home() {
            Home::Word(5) if field == Field::TensorId && self.has(Field::PageSize.present_bit()) => false,
            Home::Word(w) => u32::try_from(value).map(|v| self.words[w] = v).is_ok(),
            Home::Half(h) => u16::try_from(value).map(|v| self.halves[h] = v).is_ok(),
            Home::Level => match i8::try_from(value as i64).ok().filter(|&l| (-64..64).contains(&l)) {
                Some(level) => {
                    self.bits |= (u32::from(level as u8) & 0x7f) << LEVEL_SHIFT;
                    true
                }
                None => false,
            },
        }
    }

    fn set_rare(&mut self, mut rare: Rare) {
        // In one order whatever set them, so that equal nodes compare equal.
        rare.wide.sort_unstable_by_key(|(f, _)| *f);
        self.bits = (self.bits & !ANY_WIDE) | if rare.wide.is_empty() { 0 } else { ANY_WIDE };
        let rare = (rare != Rare::default()).then(|| Box::new(rare));
        if self.rare().is_none() && rare.is_none() {
            return;
        }
        let texts = Arc::make_mut(self.texts.get_or_insert_with(Arc::default));
        texts.rare = rare;
        // Without texts or rare fields, a node has no set (one value, one form).
        if *texts == NodeTexts::default() {
            self.texts = None;
        }
    }

    fn rare(&self) -> Option<&Rare> {
        self.texts.as_ref()?.rare.as_deref()
    }

    /// A field's value kept out of line.
    fn wide(&self, field: Option<Field>) -> Option<u64> {
        let rare = self.rare().filter(|_| self.has(ANY_WIDE))?;
        rare.wide.iter().find(|(f, _)| *f == code(field)).map(|(_, v)| *v)
    }

    fn number(&self, field: Field) -> Option<u64> {
        if !self.has(field.present_bit()) {
            return None;
        }
        if let Some(value) = self.wide(Some(field)) {
            return Some(value);
        }
        Some(match field.home() {
            Home::Word(w) => u64::from(self.words[w]),
            Home::Half(h) => u64::from(self.halves[h]),
            Home::Level => {
                let seven = ((self.bits >> LEVEL_SHIFT) & 0x7f) as u8;
                i64::from(((seven << 1) as i8) >> 1) as u64
            }
        })
    }

    fn has(&self, bit: u32) -> bool {
        self.bits & bit != 0
    }

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

    /// Names another device (the mesh-id rule, docs/rules/memory.md §2).
    pub(crate) fn set_device_id(&mut self, device: Option<u64>) {
        let mut rare = self.rare().cloned().unwrap_or_default();
        rare.wide.retain(|(f, _)| *f != code(Some(Field::DeviceId)));
        self.halves[0] = 0;
        self.bits &= !Field::DeviceId.present_bit();
        if let Some(device) = device {
            self.bits |= Field::DeviceId.present_bit();
            if !self.keep_at_home(Field::DeviceId, device) {
                rare.wide.push((code(Some(Field::DeviceId)), device));
            }
        }
        self.set_rare(rare);
    }

    /// Takes another buffer type (an allocation retyped L1_SMALL, docs/rules/memory.md §2);
    /// where it came from is kept.
    pub(crate) fn set_buffer_type(&mut self, buffer_type: Option<BufferType>) {
        let code = buffer_type.map_or(0, |t| t as u32 + 1);
        self.bits = (self.bits & !(0x7 << BUFFER_TYPE_SHIFT)) | (code << BUFFER_TYPE_SHIFT);
    }
}

#[cfg(test)]
#[path = "node_tests.rs"]
mod tests;
