//! Moving around the operations list (variable-height rows, only the visible ones measured) and
//! the device-operations tree.

use super::{Action, App, content};

impl App {
    /// Applies a list action on the Operations tab.
    pub(super) fn update_operations(&mut self, action: Action) {
        let page = self.list.height.max(1);
        let selected = self.list.selected;
        match action {
            Action::Down => self.select(selected + 1),
            Action::Up => self.select(selected.saturating_sub(1)),
            Action::PageDown => self.select(selected + page),
            Action::PageUp => self.select(selected.saturating_sub(page)),
            Action::HalfPageDown => self.select(selected + page.div_ceil(2)),
            Action::HalfPageUp => self.select(selected.saturating_sub(page.div_ceil(2))),
            Action::First => self.select(0),
            Action::Last => self.select(usize::MAX),
            Action::Toggle => {
                if let Some(i) = self.selected_operation()
                    && !self.expanded.remove(&i)
                {
                    self.expanded.insert(i);
                }
                self.scroll_into_view();
            }
            Action::ToggleErrorsOnly => self.toggle_errors_only(),
            Action::SearchStart => {
                self.search = super::Search { editing: true, ..super::Search::default() };
            }
            Action::NextMatch | Action::PreviousMatch => self.next_match(action == Action::NextMatch),
            Action::ToggleUnattached if !self.unattached.is_empty() => {
                self.unattached_collapsed = !self.unattached_collapsed;
            }
            Action::ScrollUnattachedDown => {
                let lines = content::unattached_lines(self).len() as u16;
                self.unattached_scroll = (self.unattached_scroll + 1).min(lines);
            }
            Action::ScrollUnattachedUp => self.unattached_scroll = self.unattached_scroll.saturating_sub(1),
            _ => {}
        }
    }

    /// Selects a row of the list (clamped) and scrolls it into view.
    pub fn select(&mut self, position: usize) {
        let len = self.list.shown.len();
        let position = position.min(len.saturating_sub(1));
        if position != self.list.selected {
            self.detail_scroll = 0;
        }
        self.list.selected = position;
        self.scroll_into_view();
    }

    /// Moves the offset so the selected row is fully visible, measuring only rows near it.
    pub fn scroll_into_view(&mut self) {
        let selected = self.list.selected;
        if selected < self.list.offset {
            self.list.offset = selected;
            return;
        }
        let height = self.list.height.max(1);
        // The smallest offset whose rows up to the selected one fit (at most `height` rows back).
        let mut first = selected;
        let mut used = self.row_height(selected);
        while first > 0 {
            let h = self.row_height(first - 1);
            if used + h > height {
                break;
            }
            used += h;
            first -= 1;
        }
        self.list.offset = self.list.offset.max(first);
    }

    /// Lines a row takes: one, plus its expansion.
    pub fn row_height(&self, position: usize) -> usize {
        match self.list.shown.get(position) {
            Some(i) if self.expanded.contains(i) => 1 + content::wrapped_expansion(self, *i, self.list.width).len(),
            _ => 1,
        }
    }

    fn next_match(&mut self, forward: bool) {
        let matches = &self.search.matches;
        if matches.is_empty() {
            self.message = Some(if self.search.query.is_empty() {
                "No search: press / to search operations".to_string()
            } else {
                format!("No operation matches “{}”", self.search.query)
            });
            return;
        }
        let selected = self.list.selected;
        let target = if forward {
            matches.iter().find(|&&p| p > selected).unwrap_or(&matches[0])
        } else {
            matches.iter().rev().find(|&&p| p < selected).unwrap_or(&matches[matches.len() - 1])
        };
        self.select(*target);
    }

    /// Applies a tree action on the Device ops tab (the selected operation's tree).
    pub(super) fn update_tree(&mut self, action: Action) {
        let Some(tree) = self.selected_operation().and_then(|i| self.trees.get_mut(&i)) else { return };
        let page = tree.height.max(1);
        let state = &mut tree.state;
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
