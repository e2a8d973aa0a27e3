//! Recognising allocation failures in a stored error text: the reference's four patterns
//! (docs/rules/reference.md §4) and, beyond the reference, older, unprefixed, wrapped and newer wordings
//! (§13), in the order of §13.1.

mod patterns;
mod recognised;
#[cfg(test)]
mod tests;

pub(crate) use recognised::Figures;
pub use recognised::{AllocationFailure, BufferType, FailureKind};

use patterns::{Found, collapse_whitespace};
use std::borrow::Cow;

/// Recognises an allocation failure anywhere in a stored error text; `None` when it is another error.
///
/// docs/rules/reference.md §13.1: the reference's four patterns on the text as stored (parity); else the
/// patterns beyond the reference on the text as stored; else both lists again on the text with
/// every whitespace run collapsed to one space. Within a list the first pattern that matches
/// decides; a figure of that match that does not fit in 64 bits makes the text unrecognised.
pub fn parse_allocation_failure(message: &str) -> Option<AllocationFailure> {
    let found = |found: Found, beyond_reference: bool| match found {
        Found::Nothing => None,
        Found::Failure(kind, figures) => {
            Some(Some(AllocationFailure { kind, figures: *figures, beyond_reference, sharded: false }))
        }
        Found::Unreadable => Some(None),
    };
    if let Some(result) = found(patterns::reference(message), false) {
        return result;
    }
    if let Some(result) = found(patterns::beyond(message, patterns::Text::Stored), true) {
        return result;
    }
    let Cow::Owned(collapsed) = collapse_whitespace(message) else { return None };
    if let Some(result) = found(patterns::reference(&collapsed), true) {
        return result;
    }
    found(patterns::beyond(&collapsed, patterns::Text::Collapsed), true).flatten()
}
