//! The captured graphs: nodes normalised from every era's JSON, function scopes and their
//! outcomes, and the device-operations tree; with the reference's scope vectors.

pub mod core_ranges;
mod fields;
mod json;
mod node;
mod node_texts;
pub mod nodes;
mod normalise;
mod scalars;
mod scan;
pub mod scopes;
pub(crate) mod stream;
pub(crate) mod stream_split;
pub mod tree;

#[cfg(test)]
mod scope_vectors;
