//! The Device ops tab: the selected operation's captured graph as a collapsible tree (its items
//! built once per address base and width, and kept with the tree), with the selected entry's
//! outcome (the web app's hover) or its whole line in the footer.

use super::theme::{SELECTION_SYMBOL, Theme};
use super::view::View;
use super::wrap::{truncate, truncate_line, wrap_lines};
use crate::analysis::format::{format_address, size};
use crate::analysis::graph::nodes::NodeType;
use crate::analysis::graph::scopes::Outcome;
use crate::analysis::graph::tree::{BufferRow, TreeEntry};
use crate::app::{DeviceOpsTab, DeviceTree, Loaded, TreeAnnotations, TreeItems};
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};
use tui_tree_widget::{Tree, TreeItem};
use unicode_width::UnicodeWidthStr;

/// Draws the tab for the selected operation.
pub(crate) fn draw(frame: &mut Frame, area: Rect, view: &View, operation: Option<usize>, tab: &mut DeviceOpsTab) {
    let theme = view.theme;
    let Some(i) = operation else {
        frame.render_widget(Paragraph::new(Line::styled("No operation selected", theme.dim)), area);
        return;
    };
    let op = &view.model.operations[i];
    let heading = Line::from(vec![
        Span::styled("Device operations of ", theme.dim),
        Span::styled(truncate(&format!("{} {}", op.id, op.name), area.width.saturating_sub(21) as usize), theme.bold),
    ]);
    let [head, body, footer] =
        Layout::vertical([Constraint::Length(1), Constraint::Fill(1), Constraint::Length(3)]).areas(area);
    frame.render_widget(Paragraph::new(heading), head);
    let tree = tab.trees.get_mut(&i);
    if let Some(text) = tree_message(tree.as_deref(), op.id) {
        let message = Paragraph::new(wrap_lines([Line::from(text)], area.width as usize)).style(theme.dim);
        frame.render_widget(message, body);
        return;
    }
    let Some(tree) = tree else { return };
    draw_tree(frame, body, view, tree);
    let text = selected_entry_text(tree, view.hex).unwrap_or_default();
    let footer_block = Block::new().borders(Borders::TOP).border_style(theme.dim);
    let lines = wrap_lines([Line::from(text)], footer.width as usize);
    frame.render_widget(Paragraph::new(lines).block(footer_block), footer);
}

/// What the body says in place of operation `id`'s tree: loading, why its graph cannot be shown,
/// or that it has none; nothing when there is a tree to draw.
fn tree_message(tree: Option<&DeviceTree>, id: u64) -> Option<String> {
    let Some(tree) = tree else { return Some("Loading the captured graph…".to_string()) };
    match &tree.entries {
        Loaded::Unavailable(reason) => Some(format!("The captured graph of operation {id} cannot be shown: {reason}")),
        Loaded::Ready(entries) if entries.is_empty() => Some(format!("Operation {id} has no captured graph")),
        Loaded::Ready(_) => None,
    }
}

/// Draws the tree in its box, building its items again when the address base or width changed.
fn draw_tree(frame: &mut Frame, area: Rect, view: &View, tree: &mut DeviceTree) {
    let theme = view.theme;
    let block = Block::new().borders(Borders::ALL).title(Span::styled(" Device ops ", theme.bold));
    let width = block.inner(area).width;
    if let Loaded::Ready(entries) = &tree.entries
        && tree.items.as_ref().is_none_or(|items| items.hex != view.hex || items.width != width)
    {
        // The highlight symbol and the node symbol come before a top-level name.
        let room = (width as usize).saturating_sub(SELECTION_SYMBOL.width() + 2);
        let items = tree_items(entries, &tree.annotations, view.hex, theme, room);
        tree.items = Some(TreeItems { hex: view.hex, width, items });
    }
    tree.height = block.inner(area).height as usize;
    let items = tree.items.as_ref().map(|t| t.items.as_slice()).unwrap_or_default();
    if let Ok(widget) = Tree::new(items) {
        let widget = widget
            .block(block)
            .highlight_style(theme.selected)
            .highlight_symbol(SELECTION_SYMBOL)
            .node_closed_symbol("▸ ")
            .node_open_symbol("▾ ")
            .node_no_children_symbol("  ");
        frame.render_stateful_widget(widget, area, &mut tree.state);
    }
}

/// The widget items of a tree; identifiers are child indexes, so paths match `entry_at`. A scope
/// with an annotation (its perf row) shows it after its name. Each line is cut with `…` to `room`
/// columns at the top level, two fewer per level down (the widget's indent); the footer shows the
/// selected entry whole.
pub(crate) fn tree_items(
    entries: &[TreeEntry],
    annotations: &TreeAnnotations,
    hex: bool,
    theme: &Theme,
    room: usize,
) -> Vec<TreeItem<'static, usize>> {
    entries
        .iter()
        .enumerate()
        .map(|(k, entry)| match entry {
            TreeEntry::Buffer(row) => TreeItem::new_leaf(k, truncate_line(Line::from(buffer_text(row, hex)), room)),
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
                let children = tree_items(&scope.children, annotations, hex, theme, room.saturating_sub(2));
                let line = truncate_line(Line::from(spans), room);
                // Identifiers are distinct child indexes, so this cannot fail.
                TreeItem::new(k, line, children).unwrap_or_else(|_| TreeItem::new_leaf(k, "?"))
            }
        })
        .collect()
}

/// A buffer row as text: node type, size, buffer type, address, cores, devices.
pub(crate) fn buffer_text(row: &BufferRow, hex: bool) -> String {
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

/// The footer line of the selected tree entry: the scope's outcome (the web app's hover) or the
/// buffer row in full.
pub fn selected_entry_text(tree: &DeviceTree, hex: bool) -> Option<String> {
    Some(match tree.selected_entry()? {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_body_says_why_there_is_no_tree() {
        let tree = |graph| DeviceTree::new(graph, false, TreeAnnotations::default());
        assert_eq!(tree_message(None, 7).as_deref(), Some("Loading the captured graph…"));
        let unavailable = tree(Loaded::Unavailable("no such table: captured_graph".to_string()));
        assert_eq!(
            tree_message(Some(&unavailable), 7).as_deref(),
            Some("The captured graph of operation 7 cannot be shown: no such table: captured_graph")
        );
        let empty = tree(Loaded::Ready(Vec::new()));
        assert_eq!(tree_message(Some(&empty), 7).as_deref(), Some("Operation 7 has no captured graph"));
    }
}
