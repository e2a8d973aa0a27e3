//! The texts of a captured-graph node (docs/rules/reference.md §3.1), shared: a graph of a million
//! nodes names a handful of layouts, shapes and functions, so each node points at one shared set
//! of its texts instead of owning strings. A graph is read with one [`TextCache`], which hands
//! every node with the same texts the same set.

use crate::analysis::shared_text::SharedText;
use std::borrow::Cow;
use std::collections::HashSet;
use std::sync::Arc;

/// Every text a node carries, sanitised, each shared (a live buffer names its layout and device
/// operation by these); a node with none of them has no set at all.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub(crate) struct NodeTexts {
    /// The `node_type` text of an unknown type; none for the known ones.
    pub(crate) type_name: Option<SharedText>,
    /// `params.name` of a function start or end; none when absent or empty.
    pub(crate) name: Option<SharedText>,
    /// `params.abort_reason` when it is a string that is not blank.
    pub(crate) abort_reason: Option<SharedText>,
    /// `params.layout`.
    pub(crate) layout: Option<SharedText>,
    /// `params.core_range_set`.
    pub(crate) core_range_set: Option<SharedText>,
    /// `params.shape` of a tensor node.
    pub(crate) shape: Option<SharedText>,
    /// `params.memory_config` of a tensor node.
    pub(crate) memory_config: Option<SharedText>,
    /// What few nodes carry (never in a set the cache shares).
    pub(crate) rare: Option<Box<Rare>>,
}

/// A node's texts as read, borrowed from the graph's text where they needed no sanitising.
#[derive(Debug, Default)]
pub(crate) struct TextsRead<'a> {
    /// [`NodeTexts::type_name`].
    pub(crate) type_name: Cow<'a, str>,
    /// [`NodeTexts::name`].
    pub(crate) name: Cow<'a, str>,
    /// [`NodeTexts::abort_reason`].
    pub(crate) abort_reason: Option<Cow<'a, str>>,
    /// [`NodeTexts::layout`].
    pub(crate) layout: Option<Cow<'a, str>>,
    /// [`NodeTexts::core_range_set`].
    pub(crate) core_range_set: Option<Cow<'a, str>>,
    /// [`NodeTexts::shape`].
    pub(crate) shape: Option<Cow<'a, str>>,
    /// [`NodeTexts::memory_config`].
    pub(crate) memory_config: Option<Cow<'a, str>>,
}

impl TextsRead<'_> {
    /// True when the node carries no text (it then has no set).
    fn is_empty(&self) -> bool {
        self.type_name.is_empty()
            && self.name.is_empty()
            && self.abort_reason.is_none()
            && self.layout.is_none()
            && self.core_range_set.is_none()
            && self.shape.is_none()
            && self.memory_config.is_none()
    }

    /// True when `set` holds exactly these texts. Most texts are absent or empty: their
    /// lengths tell (a comparison of bytes is a call, and a node has seven texts).
    fn same_as(&self, set: &NodeTexts) -> bool {
        let same = |a: &str, b: &str| a.len() == b.len() && (a.is_empty() || a == b);
        let same_text = |a: &Cow<'_, str>, b: &Option<SharedText>| same(a, b.as_deref().unwrap_or(""));
        let same_option = |a: &Option<Cow<'_, str>>, b: &Option<SharedText>| match (a, b) {
            (Some(a), Some(b)) => same(a, b),
            (a, b) => a.is_none() && b.is_none(),
        };
        same_text(&self.type_name, &set.type_name)
            && same_text(&self.name, &set.name)
            && same_option(&self.layout, &set.layout)
            && same_option(&self.shape, &set.shape)
            && same_option(&self.abort_reason, &set.abort_reason)
            && same_option(&self.core_range_set, &set.core_range_set)
            && same_option(&self.memory_config, &set.memory_config)
    }

    fn owned(self) -> NodeTexts {
        let shared = |t: Option<Cow<'_, str>>| t.map(|t| SharedText::from(t.as_ref()));
        let unless_empty = |t: Cow<'_, str>| (!t.is_empty()).then(|| SharedText::from(t.as_ref()));
        NodeTexts {
            type_name: unless_empty(self.type_name),
            name: unless_empty(self.name),
            abort_reason: shared(self.abort_reason),
            layout: shared(self.layout),
            core_range_set: shared(self.core_range_set),
            shape: shared(self.shape),
            memory_config: shared(self.memory_config),
            rare: None,
        }
    }
}

/// The text sets of one graph being read: each distinct set made once. The last set of each
/// node type is compared first (consecutive buffer nodes share their layout), then the sets
/// seen so far are looked up by hash: linear in the graph's size.
#[derive(Debug, Default)]
pub(crate) struct TextCache {
    /// The set the last node of each node type (by its code) took.
    last: [Option<Arc<NodeTexts>>; 16],
    seen: HashSet<Arc<NodeTexts>>,
}

impl TextCache {
    /// The shared set of these texts for a node of type `code`; none when there is no text.
    pub(crate) fn share(&mut self, code: usize, texts: TextsRead<'_>) -> Option<Arc<NodeTexts>> {
        if texts.is_empty() {
            return None;
        }
        let last = &mut self.last[code % 16];
        if let Some(set) = last.as_ref().filter(|set| texts.same_as(set)) {
            return Some(Arc::clone(set));
        }
        let texts = texts.owned();
        let set = match self.seen.get(&texts) {
            Some(set) => Arc::clone(set),
            None => {
                let set = Arc::new(texts);
                self.seen.insert(Arc::clone(&set));
                set
            }
        };
        *last = Some(Arc::clone(&set));
        Some(set)
    }
}

/// What few nodes carry (`GraphNode` reads it): connections other than one small one, the inputs
/// of a function start, and the numbers kept out of line, each by its code (0: the id, else 1 +
/// the field's place).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub(crate) struct Rare {
    pub(crate) connections: Vec<u64>,
    pub(crate) input_tensors: Vec<u64>,
    pub(crate) wide: Vec<(u8, u64)>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layout(text: &'static str) -> TextsRead<'static> {
        TextsRead { layout: Some(Cow::Borrowed(text)), ..TextsRead::default() }
    }

    #[test]
    fn the_same_texts_share_one_set_whatever_came_between() {
        let mut cache = TextCache::default();
        let a = cache.share(8, layout("INTERLEAVED")).unwrap();
        let b = cache.share(8, layout("HEIGHT_SHARDED")).unwrap();
        let c = cache.share(8, layout("INTERLEAVED")).unwrap();
        let d = cache.share(9, layout("INTERLEAVED")).unwrap();
        assert!(Arc::ptr_eq(&a, &c) && Arc::ptr_eq(&a, &d));
        assert!(!Arc::ptr_eq(&a, &b));
        assert_eq!(b.layout.as_deref(), Some("HEIGHT_SHARDED"));
        assert_eq!(cache.share(8, TextsRead::default()), None);
    }
}
