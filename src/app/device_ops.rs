//! The Device ops tab's state: each operation's device-operations tree, built once from its
//! captured graph and kept, with what is open and selected.

use super::keys::Action;
use super::loaded::Loaded;
use super::tab::Outcome;
use crate::analysis::graph::nodes::GraphNode;
use crate::analysis::graph::tree::{TreeEntry, device_ops_tree, entry_at, first_failed_path};
use std::collections::HashMap;
use tui_tree_widget::{TreeItem, TreeState};

/// Annotations of a device-operations tree: scope start position → `perf row {id} · {time}`.
pub type TreeAnnotations = HashMap<usize, String>;

/// The widget items of a tree, built by the UI from its entries and kept until the address base
/// they were built with changes.
pub struct TreeItems {
    /// Addresses in hexadecimal.
    pub hex: bool,
    /// The width the lines were cut to.
    pub width: u16,
    /// The items.
    pub items: Vec<TreeItem<'static, usize>>,
}

/// The device-operations tree of one operation.
pub struct DeviceTree {
    /// The tree's entries, or why the graph cannot be shown.
    pub entries: Loaded<Vec<TreeEntry>>,
    /// The perf row of each linked device operation.
    pub annotations: TreeAnnotations,
    /// Open nodes, selection and scroll (fitted when the tree is rendered).
    pub state: TreeState<usize>,
    /// The widget items, built by the UI.
    pub items: Option<TreeItems>,
    /// Lines shown at the last render, for paging.
    pub height: usize,
}

impl DeviceTree {
    /// A tree opened on the path to the first failed device operation (else the first entry).
    pub fn new(graph: Loaded<Vec<GraphNode>>, has_error: bool, annotations: TreeAnnotations) -> Self {
        let mut state = TreeState::default();
        let entries = match graph {
            Loaded::Ready(nodes) => Loaded::Ready(device_ops_tree(&nodes, has_error)),
            Loaded::Unavailable(reason) => Loaded::Unavailable(reason),
        };
        if let Loaded::Ready(entries) = &entries {
            match first_failed_path(entries) {
                Some(path) => {
                    // Open the failed scope too, so what it allocated before failing shows.
                    for depth in 1..=path.len() {
                        state.open(path[..depth].to_vec());
                    }
                    state.select(path);
                }
                None if !entries.is_empty() => {
                    state.select(vec![0]);
                }
                None => {}
            }
        }
        Self { entries, annotations, state, items: None, height: 0 }
    }

    /// The selected entry.
    pub(crate) fn selected_entry(&self) -> Option<&TreeEntry> {
        match &self.entries {
            Loaded::Ready(entries) => entry_at(entries, self.state.selected()),
            Loaded::Unavailable(_) => None,
        }
    }

    fn update(&mut self, action: Action) {
        let page = self.height.max(1);
        let state = &mut self.state;
        match action {
            Action::Down => state.key_down(),
            Action::Up => state.key_up(),
            Action::Close => state.key_left(),
            Action::Open => state.key_right(),
            Action::Toggle => state.toggle_selected(),
            Action::First => state.select_first(),
            Action::Last => state.select_last(),
            Action::PageDown => state.select_relative(|c| c.map_or(0, |c| c.saturating_add(page))),
            Action::PageUp => state.select_relative(|c| c.map_or(0, |c| c.saturating_sub(page))),
            Action::HalfPageDown => state.select_relative(|c| c.map_or(0, |c| c.saturating_add(page / 2))),
            Action::HalfPageUp => state.select_relative(|c| c.map_or(0, |c| c.saturating_sub(page / 2))),
            _ => false,
        };
    }
}

/// The Device ops tab: the trees built so far, by operation index.
#[derive(Default)]
pub(crate) struct DeviceOpsTab {
    pub(crate) trees: HashMap<usize, DeviceTree>,
}

impl DeviceOpsTab {
    /// Applies an action to the tree of `operation`.
    pub(crate) fn update(&mut self, action: Action, operation: Option<usize>) -> Outcome {
        if let Some(tree) = operation.and_then(|i| self.trees.get_mut(&i)) {
            tree.update(action);
        }
        Outcome::None
    }

    /// Whether the tree of `operation` is built.
    pub(crate) fn has_tree(&self, operation: usize) -> bool {
        self.trees.contains_key(&operation)
    }

    /// Forgets every tree (their perf annotations changed); they are built again when shown.
    pub(crate) fn clear(&mut self) {
        self.trees.clear();
    }
}
