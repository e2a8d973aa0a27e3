//! A text many answers share (a layout, a device operation, a dtype named by 150 000 live
//! buffers of one failure), one pointer wide: cloning it counts a reference, and an `Option` of
//! it is 8 bytes where an `Option<String>` is 24 and an `Option<Arc<str>>` 16.

use serde::{Serialize, Serializer};
use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

/// A shared, immutable text; it reads as a `str`.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct SharedText(Arc<String>);

impl Deref for SharedText {
    type Target = str;

    fn deref(&self) -> &str {
        &self.0
    }
}

impl From<&str> for SharedText {
    fn from(text: &str) -> Self {
        Self(Arc::new(text.to_string()))
    }
}

impl From<String> for SharedText {
    fn from(text: String) -> Self {
        Self(Arc::new(text))
    }
}

impl fmt::Display for SharedText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&**self, f)
    }
}

impl fmt::Debug for SharedText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

impl Serialize for SharedText {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn it_reads_compares_and_prints_as_its_text() {
        let text = SharedText::from("INTERLEAVED");
        assert_eq!(std::mem::size_of::<Option<SharedText>>(), 8);
        assert_eq!((&*text, text.clone()), ("INTERLEAVED", SharedText::from("INTERLEAVED".to_string())));
        assert_eq!((format!("{text}"), format!("{text:?}")), ("INTERLEAVED".into(), "\"INTERLEAVED\"".into()));
        assert_eq!(serde_json::to_string(&Some(text)).unwrap(), "\"INTERLEAVED\"");
        assert_eq!(Some(SharedText::from("L1")).as_deref(), Some("L1"));
    }
}
