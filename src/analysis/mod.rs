//! Pure rules: failure parsing, reasons, byte formatting, scope outcomes, error attachment.
//! No I/O and no UI here.

pub mod attach;
pub mod beside;
pub mod compare;
pub mod dram_fallback;
pub mod failure;
pub mod flags;
pub mod format;
pub mod graph;
mod graph_json;
pub mod late;
pub mod link;
pub mod link_reason;
pub mod log;
pub mod memory;
pub mod model;
pub mod perf_callout;
pub mod perf_rows;
pub mod raw_message;
pub mod reason;
pub mod sanitize;
pub mod scopes;
pub mod stack;
pub mod tree;
pub mod usage;
pub mod usage_series;

#[cfg(test)]
mod eras;
#[cfg(test)]
mod messages_r;
#[cfg(test)]
mod scope_vectors;
#[cfg(test)]
mod vectors;
#[cfg(test)]
mod vectors_r;
#[cfg(test)]
mod vectors_real;
