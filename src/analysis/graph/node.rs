//! One captured-graph node as kept (docs/rules/reference.md §3.1): 40 bytes whatever it carries. A
//! failure's graph may hold 900 000 nodes, so each number has a home of 32 bits or less (a mask
//! says which are present; a value that does not fit, or whose home another field took, is
//! kept out of line), the texts are a set shared by every node with the same texts
//! ([`NodeTexts`]), and the one connection most nodes have is kept inline; what few nodes carry
//! ([`Rare`]) goes with the node's own copy of its texts. Every field is read through a method
//! (`node_read.rs`): what a method gives is exactly the value the node was built with.

use super::node_texts::{NodeTexts, Rare};
use super::nodes::NodeType;
use crate::analysis::messages::failure::BufferType;
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

// The readers: a child module, so that the packed layout stays private to the two files.
#[path = "node_read.rs"]
mod read;

#[cfg(test)]
#[path = "node_tests.rs"]
mod tests;
