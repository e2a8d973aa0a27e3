//! Lazy loading, outside `update`: stack traces of the visible rows (batched), arguments of the
//! selected operation, and its device-operations tree when the tab first shows it. Kept after.

use super::perf::TreeAnnotations;
use super::{App, DeviceTree, Tab};
use crate::analysis::format::{format_address, size};
use crate::analysis::graph::NodeType;
use crate::analysis::scopes::Outcome;
use crate::analysis::tree::{BufferRow, TreeEntry, device_ops_tree, entry_at, first_failed_path};
use crate::report::MemoryReport;
use crate::ui::theme::Theme;
use ratatui::text::{Line, Span};
use tui_tree_widget::{TreeItem, TreeState};

/// Something to read from the report before the next draw.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Load {
    /// Stack traces of these operations (visible rows and the selected one), in one query.
    StackTraces(Vec<usize>),
    /// Arguments of the selected operation.
    Arguments(usize),
    /// The captured graph of the selected operation, for the Device ops tab.
    Graph(usize),
}

impl App {
    /// What the next draw needs that is not loaded yet.
    pub fn pending_loads(&self) -> Vec<Load> {
        let mut loads = Vec::new();
        // The rows the last draw showed (none before the first draw).
        let end = (self.list.offset + self.list.height).min(self.list.shown.len());
        let mut traces: Vec<usize> = self.list.shown[self.list.offset.min(end)..end]
            .iter()
            .copied()
            .filter(|i| !self.stack_traces.contains_key(i))
            .collect();
        let selected = self.selected_operation();
        if let Some(i) = selected
            && !self.stack_traces.contains_key(&i)
            && !traces.contains(&i)
        {
            traces.push(i);
        }
        if !traces.is_empty() && self.load_error.is_none() {
            loads.push(Load::StackTraces(traces));
        }
        if let Some(i) = selected {
            if self.tab == Tab::Operations && !self.arguments.contains_key(&i) {
                loads.push(Load::Arguments(i));
            }
            if self.tab == Tab::DeviceOps && !self.trees.contains_key(&i) {
                loads.push(Load::Graph(i));
            }
        }
        loads
    }

    /// Reads what `pending_loads` asks for; returns whether anything was read. Also rebuilds
    /// tree items after the hex setting changed.
    pub fn load(&mut self, report: &MemoryReport) -> bool {
        let loads = self.pending_loads();
        for load in &loads {
            match load {
                Load::StackTraces(indexes) => match report.stack_traces(indexes) {
                    Ok(traces) => self.stack_traces.extend(traces),
                    Err(e) => self.load_error = Some(e.to_string()),
                },
                Load::Arguments(i) => {
                    self.arguments.insert(*i, report.arguments(*i).map_err(|e| e.to_string()));
                }
                Load::Graph(i) => {
                    let has_error = self.operations[*i].error.is_some();
                    let graph = report.graph(*i);
                    let annotations = match (&graph, &self.perf) {
                        (Ok(nodes), Some(perf)) => perf.tree_annotations(self.operations[*i].id, nodes),
                        _ => TreeAnnotations::new(),
                    };
                    let entries = graph.map(|nodes| device_ops_tree(&nodes, has_error)).map_err(|e| e.to_string());
                    let tree = new_tree(entries, annotations, self.hex, &self.theme);
                    self.trees.insert(*i, tree);
                }
            }
        }
        let (hex, theme) = (self.hex, self.theme);
        for tree in self.trees.values_mut().filter(|t| t.hex != hex) {
            if let Ok(entries) = &tree.entries {
                tree.items = tree_items(entries, &tree.annotations, hex, &theme);
            }
            tree.hex = hex;
        }
        !loads.is_empty()
    }
}

/// A tree opened on the path to the first failed device operation (else the first entry).
fn new_tree(
    entries: Result<Vec<TreeEntry>, String>,
    annotations: TreeAnnotations,
    hex: bool,
    theme: &Theme,
) -> DeviceTree {
    let mut state = TreeState::default();
    let items = match &entries {
        Ok(entries) => {
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
            tree_items(entries, &annotations, hex, theme)
        }
        Err(_) => Vec::new(),
    };
    DeviceTree { entries, items, state, hex, height: 0, annotations }
}

/// The widget items of a tree; identifiers are child indexes, so paths match `entry_at`. A scope
/// with an annotation (its perf row) shows it after its name.
pub fn tree_items(
    entries: &[TreeEntry],
    annotations: &TreeAnnotations,
    hex: bool,
    theme: &Theme,
) -> Vec<TreeItem<'static, usize>> {
    entries
        .iter()
        .enumerate()
        .map(|(k, entry)| match entry {
            TreeEntry::Buffer(row) => TreeItem::new_leaf(k, Line::from(buffer_text(row, hex))),
            TreeEntry::Scope(scope) => {
                let mut spans = Vec::new();
                if scope.marked {
                    spans.push(Span::styled("✖ ", theme.danger));
                }
                let name_style = if scope.marked { theme.danger.patch(theme.bold) } else { theme.text };
                spans.push(Span::styled(scope.name.clone(), name_style));
                match scope.outcome {
                    Outcome::Unclosed => spans.push(Span::styled(" (unclosed)", theme.dim)),
                    Outcome::Failed => spans.push(Span::styled(" (failed)", theme.danger)),
                    Outcome::Completed => {}
                }
                if scope.warning.is_some() {
                    spans.push(Span::styled(" ⚠ no-op", theme.warning));
                }
                if let Some(annotation) = annotations.get(&scope.start) {
                    spans.push(Span::styled(format!("  {annotation}"), theme.dim));
                }
                let children = tree_items(&scope.children, annotations, hex, theme);
                // Identifiers are distinct child indexes, so this cannot fail.
                TreeItem::new(k, Line::from(spans), children).unwrap_or_else(|_| TreeItem::new_leaf(k, "?"))
            }
        })
        .collect()
}

/// A buffer row as text: node type, size, buffer type, address, cores, devices.
pub fn buffer_text(row: &BufferRow, hex: bool) -> String {
    let kind = match row.kind {
        NodeType::BufferAllocate => "buffer_allocate",
        NodeType::BufferDeallocate => "buffer_deallocate",
        NodeType::CircularBufferAllocate => "circular_buffer_allocate",
        NodeType::CircularBufferDeallocateAll => return "circular_buffer_deallocate_all".to_string(),
        _ => "buffer",
    };
    let mut text = kind.to_string();
    if let Some(s) = row.size {
        text.push_str(&format!("  {}", size(s)));
    }
    if let Some(t) = row.buffer_type {
        text.push_str(&format!("  {}", t.label()));
    }
    if row.address.is_some() {
        text.push_str(&format!("  at {}", format_address(row.address, hex)));
    }
    if let Some(cores) = &row.core_range {
        text.push_str(&format!("  on {cores}"));
    }
    if row.devices > 1 {
        text.push_str(&format!("  ×{} devices", row.devices));
    }
    text
}

/// The footer line of the selected tree entry: the scope's outcome (the terminal's hover) or the
/// buffer row in full.
pub fn selected_entry_text(tree: &DeviceTree, hex: bool) -> Option<String> {
    let entries = tree.entries.as_ref().ok()?;
    Some(match entry_at(entries, tree.state.selected())? {
        TreeEntry::Buffer(row) => buffer_text(row, hex),
        TreeEntry::Scope(scope) => {
            let mut outcome = scope.outcome_text.clone().unwrap_or_else(|| "Completed".to_string());
            if let Some(annotation) = tree.annotations.get(&scope.start) {
                outcome.push_str(&format!(" ({annotation})"));
            }
            match scope.warning {
                Some(w) => format!("{}: {outcome}. {w}", scope.name),
                None => format!("{}: {outcome}", scope.name),
            }
        }
    })
}
