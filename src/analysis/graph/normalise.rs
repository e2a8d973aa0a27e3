//! A node as the project reads it (docs/rules/reference.md §3.1, docs/rules/formats.md §3): the
//! scalars either reader gave typed, its texts sanitised and shared, the id falling back to the
//! counter and then to the position; only the fields the reader keeps.

use super::json::{Loose, RawNode};
use super::node::{GraphNode, Numbers};
use super::node_texts::{TextCache, TextsRead};
use super::nodes::NodeType;
use super::scalars::{NodeScalars, Param, Scalar};
use crate::analysis::messages::failure::BufferType;
use crate::analysis::sanitize::sanitize_line_borrowed;
use std::borrow::Cow;

/// The fields of a node a reader keeps; the others are left empty.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum Keep {
    /// Every field.
    #[default]
    All,
    /// What scope rules read: id, type, name, stacking level, abort.
    Scopes,
    /// What the memory replay reads: id, type, buffer params, connections.
    Buffers,
}

/// What reading one graph's nodes shares: the fields kept, the texts' sets, a list to gather a
/// node's connections in.
#[derive(Debug, Default)]
pub(crate) struct NodeReader {
    keep: Keep,
    texts: TextCache,
    /// The numbers of the node's `input_tensors`.
    pub(super) inputs: Vec<u64>,
    /// The numbers of the node's `connections`.
    pub(super) links: Vec<u64>,
}

impl NodeReader {
    /// A reader keeping `keep`.
    pub(crate) fn keeping(keep: Keep) -> Self {
        Self { keep, ..Self::default() }
    }
}

/// A node the typed reader read, normalised.
pub(super) fn normalise(position: usize, node: &RawNode<'_>, reader: &mut NodeReader) -> GraphNode {
    let numbers_of = |list: &Option<Vec<Loose<'_>>>, out: &mut Vec<u64>| {
        out.clear();
        out.extend(list.iter().flatten().filter_map(Loose::as_u64));
    };
    numbers_of(&node.input_tensors, &mut reader.inputs);
    numbers_of(&node.connections, &mut reader.links);
    normalise_scalars(position, &NodeScalars::of(node), reader)
}

/// A node normalised from its scalars, the numbers of its `input_tensors` and `connections`
/// (those of their items [`Scalar::as_u64`] reads) already gathered in `reader`'s lists.
pub(super) fn normalise_scalars(position: usize, node: &NodeScalars<'_>, reader: &mut NodeReader) -> GraphNode {
    let type_name = node.node_type.and_then(Scalar::as_str).unwrap_or("");
    let node_type = NodeType::from_name(type_name);
    let (scopes, buffers) = match reader.keep {
        Keep::All => (true, true),
        Keep::Scopes => (true, false),
        Keep::Buffers => (false, true),
    };
    let all = reader.keep == Keep::All;
    let number = |param: Param| node.param(param).and_then(Scalar::as_u64);
    let kept = |keep: bool, param: Param| number(param).filter(|_| keep);
    let text = |param: Param| node.param(param).and_then(Scalar::as_str).map(sanitize_line_borrowed);
    let (buffer_type, buffer_type_code) = if buffers { buffer_type(node) } else { (None, false) };
    let numbers = Numbers {
        id: node
            .id
            .and_then(Scalar::as_u64)
            .or_else(|| node.counter.and_then(Scalar::as_u64))
            .unwrap_or(position as u64),
        node_type: Some(node_type),
        aborted: scopes && node_type == NodeType::FunctionEnd && is_aborted(node),
        buffer_type,
        buffer_type_code,
        globally_allocated: all && is_globally_allocated(node),
        values: [
            kept(buffers, Param::Address),
            kept(buffers, Param::Size),
            kept(buffers, Param::MaxSizePerBank),
            kept(buffers, Param::PageSize),
            kept(all, Param::TensorId),
            kept(buffers, Param::DeviceId),
            kept(buffers, Param::NumCores),
            node.stacking_level.and_then(Scalar::as_i64).filter(|_| scopes).map(|level| level as u64),
        ],
    };
    let texts = TextsRead {
        type_name: match node_type == NodeType::Other && all {
            true => sanitize_line_borrowed(type_name),
            false => Cow::Borrowed(""),
        },
        name: text(Param::Name).filter(|_| scopes).unwrap_or_default(),
        abort_reason: node
            .param(Param::AbortReason)
            .and_then(Scalar::as_str)
            .filter(|r| scopes && !r.trim().is_empty())
            .map(sanitize_line_borrowed),
        layout: text(Param::Layout).filter(|_| buffers),
        core_range_set: node.core_range_set.filter(|_| all).map(sanitize_line_borrowed),
        shape: text(Param::Shape).filter(|_| all),
        memory_config: text(Param::MemoryConfig).filter(|_| all),
    };
    let texts = reader.texts.share(node_type as usize + 1, texts);
    let inputs = if all { reader.inputs.clone() } else { Vec::new() };
    let links: &[u64] = if buffers { &reader.links } else { &[] };
    GraphNode::pack(&numbers, texts, inputs, links)
}

/// Whether a node's `aborted` parameter is `true` or `"true"`.
fn is_aborted(node: &NodeScalars<'_>) -> bool {
    match node.param(Param::Aborted) {
        Some(Scalar::Bool(flag)) => flag,
        Some(Scalar::Str(flag)) => flag == "true",
        _ => false,
    }
}

/// The buffer type, from its numeric code (the second value says it was one), else from the
/// `type` token.
fn buffer_type(node: &NodeScalars<'_>) -> (Option<BufferType>, bool) {
    let coded = node
        .param(Param::BufferType)
        .and_then(Scalar::as_u64)
        .and_then(|code| BufferType::from_code(i64::try_from(code).ok()?));
    let token = || node.param(Param::TypeName).and_then(Scalar::as_str).and_then(BufferType::from_token);
    (coded.or_else(token), coded.is_some())
}

/// Whether a node's `globally_allocated` parameter is `true`, `1`, `"1"` or `"true"`.
fn is_globally_allocated(node: &NodeScalars<'_>) -> bool {
    match node.param(Param::GloballyAllocated) {
        Some(Scalar::Bool(flag)) => flag,
        Some(Scalar::U64(1)) => true,
        Some(Scalar::Str(flag)) => flag == "1" || flag == "true",
        _ => false,
    }
}
