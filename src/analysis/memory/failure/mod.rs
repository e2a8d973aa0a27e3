//! The memory at the moment of a failure, and after any operation (docs/rules/memory.md, beyond the
//! reference): which buffers were live, who held them, the map of the region and its check
//! against the allocator's own figures, what would make the request fit, and the circular
//! buffers in the way. Pure: the report layer gathers `FailureInputs` / `OperationInputs`.

pub(super) mod at_failure;
mod cb;
pub(super) mod fit;
pub(crate) mod holders;
mod live;
pub(super) mod map;
pub(super) mod operation;
pub(super) mod picture;
pub(super) mod sentences;

#[cfg(test)]
mod tests;
