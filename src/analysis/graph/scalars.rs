//! A node's scalars as the rules read them (docs/rules/formats.md §3), whichever reader gave
//! them: the typed reader's `Loose` values borrowed, or the hand reader's written straight in.
//! Small and copied freely: a long graph's nodes are normalised from these one by one.
//! The keys that name them are matched here for the hand reader, in the text as written.

use super::json::{Loose, Node, RawParams};

/// A scalar as written, borrowed: a string, a number, a boolean, or something else.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Scalar<'a> {
    /// A JSON string.
    Str(&'a str),
    /// A non-negative integer.
    U64(u64),
    /// A negative integer.
    I64(i64),
    /// A number with a fraction or an exponent.
    F64(f64),
    /// `true` or `false`.
    Bool(bool),
    /// `null` inside a list, an array or an object.
    Other,
}

impl<'a> Scalar<'a> {
    /// A number written as a JSON integer or a decimal string.
    pub(super) fn as_u64(self) -> Option<u64> {
        match self {
            Self::U64(n) => Some(n),
            Self::Str(s) => s.trim().parse().ok(),
            _ => None,
        }
    }

    /// A signed integer, or a decimal string.
    pub(super) fn as_i64(self) -> Option<i64> {
        match self {
            Self::U64(n) => i64::try_from(n).ok(),
            Self::I64(n) => Some(n),
            Self::Str(s) => s.trim().parse().ok(),
            _ => None,
        }
    }

    /// The text of a JSON string.
    pub(super) fn as_str(self) -> Option<&'a str> {
        match self {
            Self::Str(s) => Some(s),
            _ => None,
        }
    }
}

impl Loose<'_> {
    /// The scalar, borrowed.
    pub(super) fn scalar(&self) -> Scalar<'_> {
        match self {
            Loose::Str(s) => Scalar::Str(s),
            Loose::U64(n) => Scalar::U64(*n),
            Loose::I64(n) => Scalar::I64(*n),
            Loose::F64(n) => Scalar::F64(*n),
            Loose::Bool(b) => Scalar::Bool(*b),
            Loose::Other => Scalar::Other,
        }
    }
}

/// The `params` the rules read, by their place in [`NodeScalars::params`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Param {
    Name,
    Aborted,
    AbortReason,
    Size,
    Address,
    BufferType,
    /// `type`.
    TypeName,
    Layout,
    DeviceId,
    TensorId,
    Shape,
    MemoryConfig,
    MaxSizePerBank,
    NumCores,
    PageSize,
    GloballyAllocated,
}

/// A node's scalars; an absent key (or one whose value is `null`) is none.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct NodeScalars<'a> {
    pub(super) id: Option<Scalar<'a>>,
    pub(super) counter: Option<Scalar<'a>>,
    pub(super) node_type: Option<Scalar<'a>>,
    pub(super) stacking_level: Option<Scalar<'a>>,
    /// The params, by [`Param`].
    pub(super) params: [Option<Scalar<'a>>; 16],
    /// `params.core_range_set`'s text, in the string form.
    pub(super) core_range_set: Option<&'a str>,
}

impl<'a> NodeScalars<'a> {
    /// A param's scalar.
    pub(super) fn param(&self, param: Param) -> Option<Scalar<'a>> {
        self.params[param as usize]
    }

    /// The scalars of a node the typed reader read.
    pub(super) fn of<L>(node: &'a Node<'_, RawParams<'_>, L>) -> Self {
        let scalar = |value: &'a Option<Loose<'_>>| value.as_ref().map(Loose::scalar);
        let mut scalars = NodeScalars {
            id: scalar(&node.id),
            counter: scalar(&node.counter),
            node_type: scalar(&node.node_type),
            stacking_level: scalar(&node.stacking_level),
            ..NodeScalars::default()
        };
        if let Some(p) = &node.params {
            scalars.params = [
                &p.name,
                &p.aborted,
                &p.abort_reason,
                &p.size,
                &p.address,
                &p.buffer_type,
                &p.type_name,
                &p.layout,
                &p.device_id,
                &p.tensor_id,
                &p.shape,
                &p.memory_config,
                &p.max_size_per_bank,
                &p.num_cores,
                &p.page_size,
                &p.globally_allocated,
            ]
            .map(scalar);
            scalars.core_range_set = p.core_range_set.as_deref();
        }
        scalars
    }
}

/// `what` and the length of `quoted` when `rest` starts with that key, quotes included (a key
/// with an escape never does: the typed reader is left to read it).
#[inline(always)]
fn known<T>(rest: &[u8], quoted: &'static [u8], what: T) -> Option<(T, usize)> {
    rest.starts_with(quoted).then_some((what, quoted.len()))
}

/// The node key `rest` starts with, by its bit, and its length with quotes; none for another.
pub(super) fn node_key(rest: &[u8]) -> Option<(u32, usize)> {
    match rest.get(1)? {
        b'c' => known(rest, b"\"counter\"", 1).or_else(|| known(rest, b"\"connections\"", 5)),
        b'n' => known(rest, b"\"node_type\"", 2),
        b'p' => known(rest, b"\"params\"", 6),
        b's' => known(rest, b"\"stacking_level\"", 3),
        b'i' => known(rest, b"\"id\"", 0).or_else(|| known(rest, b"\"input_tensors\"", 4)),
        _ => None,
    }
}

/// The param key `rest` starts with and its length with quotes; none for another.
pub(super) fn param_key(rest: &[u8]) -> Option<(Param, usize)> {
    match rest.get(1)? {
        b'a' => known(rest, b"\"address\"", Param::Address)
            .or_else(|| known(rest, b"\"aborted\"", Param::Aborted))
            .or_else(|| known(rest, b"\"abort_reason\"", Param::AbortReason)),
        b'b' => known(rest, b"\"buffer_type\"", Param::BufferType),
        b'd' => known(rest, b"\"device_id\"", Param::DeviceId),
        b'g' => known(rest, b"\"globally_allocated\"", Param::GloballyAllocated),
        b'l' => known(rest, b"\"layout\"", Param::Layout),
        b'm' => known(rest, b"\"max_size_per_bank\"", Param::MaxSizePerBank)
            .or_else(|| known(rest, b"\"memory_config\"", Param::MemoryConfig)),
        b'n' => known(rest, b"\"name\"", Param::Name).or_else(|| known(rest, b"\"num_cores\"", Param::NumCores)),
        b'p' => known(rest, b"\"page_size\"", Param::PageSize),
        b's' => known(rest, b"\"size\"", Param::Size).or_else(|| known(rest, b"\"shape\"", Param::Shape)),
        b't' => known(rest, b"\"type\"", Param::TypeName).or_else(|| known(rest, b"\"tensor_id\"", Param::TensorId)),
        _ => None,
    }
}
