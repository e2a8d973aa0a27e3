//! A fast reader for captured-graph JSON: typed, borrowing, skipping what the rules never read.
//! Linking parses every graph of a report (100 k graphs, 300 MB of JSON), where building a
//! generic `serde_json::Value` per node costs 70 µs a graph. Anything this reader does not
//! accept exactly (a duplicate key, `params` that is not an object, …) is left to the generic
//! reader in `graph.rs`, which decides; the two agree on every graph both accept (tested).

use super::core_ranges::core_range_set_text;
use serde::Deserialize;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use std::borrow::Cow;
use std::fmt;

/// A scalar as written: a string, a number, a boolean, or something else (skipped).
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Loose<'a> {
    /// A JSON string.
    Str(Cow<'a, str>),
    /// A non-negative integer.
    U64(u64),
    /// A negative integer.
    I64(i64),
    /// A number with a fraction or an exponent.
    F64(f64),
    /// `true` or `false`.
    Bool(bool),
    /// `null`, an array or an object.
    Other,
}

impl Loose<'_> {
    /// A number written as a JSON integer or a decimal string (as `graph.rs` reads it).
    pub(super) fn as_u64(&self) -> Option<u64> {
        self.scalar().as_u64()
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Loose<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct LooseVisitor<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for LooseVisitor<'a> {
            type Value = Loose<'a>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(Loose::Str(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(Loose::Str(Cow::Owned(v.to_string())))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
                Ok(Loose::Str(Cow::Owned(v)))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
                Ok(Loose::U64(v))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
                Ok(if v >= 0 { Loose::U64(v as u64) } else { Loose::I64(v) })
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
                Ok(Loose::F64(v))
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<Self::Value, E> {
                Ok(Loose::Bool(v))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(Loose::Other)
            }
            fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(Loose::Other)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Loose::Other)
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Loose::Other)
            }
        }
        deserializer.deserialize_any(LooseVisitor(std::marker::PhantomData))
    }
}

/// The params a node's rules and rows read.
#[derive(Debug, Default, Deserialize)]
pub(super) struct RawParams<'a> {
    #[serde(borrow, default)]
    pub(crate) name: Option<Loose<'a>>,
    #[serde(borrow, default)]
    pub(crate) aborted: Option<Loose<'a>>,
    #[serde(borrow, default)]
    pub(crate) abort_reason: Option<Loose<'a>>,
    #[serde(borrow, default)]
    pub(crate) size: Option<Loose<'a>>,
    #[serde(borrow, default)]
    pub(crate) address: Option<Loose<'a>>,
    #[serde(borrow, default)]
    pub(crate) buffer_type: Option<Loose<'a>>,
    #[serde(borrow, default, rename = "type")]
    pub(crate) type_name: Option<Loose<'a>>,
    #[serde(borrow, default)]
    pub(crate) layout: Option<Loose<'a>>,
    /// The core range set's text: a string as written, the JSON form in the string form.
    #[serde(default, deserialize_with = "core_range_set")]
    pub(crate) core_range_set: Option<String>,
    #[serde(borrow, default)]
    pub(crate) device_id: Option<Loose<'a>>,
    #[serde(borrow, default)]
    pub(crate) tensor_id: Option<Loose<'a>>,
    #[serde(borrow, default)]
    pub(crate) shape: Option<Loose<'a>>,
    #[serde(borrow, default)]
    pub(crate) memory_config: Option<Loose<'a>>,
    #[serde(borrow, default)]
    pub(crate) max_size_per_bank: Option<Loose<'a>>,
    #[serde(borrow, default)]
    pub(crate) num_cores: Option<Loose<'a>>,
    #[serde(borrow, default)]
    pub(crate) page_size: Option<Loose<'a>>,
    #[serde(borrow, default)]
    pub(crate) globally_allocated: Option<Loose<'a>>,
}

/// One node's top-level fields the rules read: `P` is the params read, `L` what is kept of its
/// lists (`Vec<Loose>`, or `IgnoredAny` to skip them unread).
#[derive(Debug, Deserialize)]
#[serde(bound(deserialize = "'de: 'a, P: Deserialize<'de>, L: Deserialize<'de>"))]
pub(super) struct Node<'a, P, L> {
    #[serde(borrow, default)]
    pub(crate) id: Option<Loose<'a>>,
    #[serde(borrow, default)]
    pub(crate) counter: Option<Loose<'a>>,
    #[serde(borrow, default)]
    pub(crate) node_type: Option<Loose<'a>>,
    #[serde(default)]
    pub(crate) params: Option<P>,
    #[serde(borrow, default)]
    pub(crate) stacking_level: Option<Loose<'a>>,
    #[serde(default)]
    pub(crate) input_tensors: Option<L>,
    #[serde(default)]
    pub(crate) connections: Option<L>,
}

/// One node with everything the rules and rows read.
pub(super) type RawNode<'a> = Node<'a, RawParams<'a>, Vec<Loose<'a>>>;

/// The nodes of a graph text, or none when the fast reader does not accept it exactly.
pub(super) fn read_nodes(text: &str) -> Option<Vec<RawNode<'_>>> {
    serde_json::from_str(text).ok()
}

/// One node without its lists, which scope pairing and outcomes never read (linking parses every
/// graph of a report this way).
pub(super) type RawScopeNode<'a> = Node<'a, RawParams<'a>, IgnoredAny>;

/// The scope fields of a graph text's nodes, or none when the fast reader does not accept it.
pub(super) fn read_scope_nodes(text: &str) -> Option<Vec<RawScopeNode<'_>>> {
    serde_json::from_str(text).ok()
}

/// Reads a `core_range_set` of any form ([`core_range_set_text`]).
fn core_range_set<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<String>, D::Error> {
    let value = serde_json::Value::deserialize(deserializer)?;
    Ok(core_range_set_text(&value))
}
