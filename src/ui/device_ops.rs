//! The Device ops tab: the selected operation's captured graph as a collapsible tree, with the
//! selected entry's outcome (the web app's hover) in the footer.

use crate::app::App;
use crate::app::load::selected_entry_text;
use crate::ui::theme::SELECTION_SYMBOL;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Wrap};
use tui_tree_widget::Tree;

/// Draws the tab.
pub fn draw(frame: &mut Frame, app: &mut App, area: Rect) {
    let theme = app.theme;
    let hex = app.hex;
    let Some(i) = app.selected_operation() else {
        frame.render_widget(Paragraph::new(Line::styled("No operation selected", theme.dim)), area);
        return;
    };
    let op = &app.operations[i];
    let heading = Line::from(vec![
        Span::styled("Device operations of ", theme.dim),
        Span::styled(format!("{} {}", op.id, op.name), theme.bold),
    ]);
    let message = |text: String| Paragraph::new(text).wrap(Wrap { trim: false }).style(theme.dim);
    let [head, body, footer] =
        Layout::vertical([Constraint::Length(1), Constraint::Fill(1), Constraint::Length(3)]).areas(area);
    frame.render_widget(Paragraph::new(heading), head);
    let id = op.id;
    let Some(tree) = app.trees.get_mut(&i) else {
        frame.render_widget(message("Loading the captured graph…".into()), body);
        return;
    };
    match &tree.entries {
        Err(reason) => {
            let text = format!("The captured graph of operation {id} cannot be shown: {reason}");
            frame.render_widget(message(text), body);
            return;
        }
        Ok(entries) if entries.is_empty() => {
            frame.render_widget(message(format!("Operation {id} has no captured graph")), body);
            return;
        }
        Ok(_) => {}
    }
    let block = Block::new().borders(Borders::ALL).title(Span::styled(" Device ops ", theme.bold));
    tree.height = block.inner(body).height as usize;
    if let Ok(widget) = Tree::new(&tree.items) {
        let widget = widget
            .block(block)
            .highlight_style(theme.selected)
            .highlight_symbol(SELECTION_SYMBOL)
            .node_closed_symbol("▸ ")
            .node_open_symbol("▾ ")
            .node_no_children_symbol("  ");
        frame.render_stateful_widget(widget, body, &mut tree.state);
    }
    let text = selected_entry_text(tree, hex).unwrap_or_default();
    let footer_block = Block::new().borders(Borders::TOP).border_style(theme.dim);
    frame.render_widget(Paragraph::new(text).wrap(Wrap { trim: false }).block(footer_block), footer);
}
