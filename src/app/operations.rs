//! The Operations tab's state: the list (a filtered index over the operations in a windowed view),
//! the errors-only filter, the search, expanded items, the unattached-errors callout and the
//! detail pane's scroll.

use super::bindings::key_label;
use super::keys::Action;
use super::keys::Pane;
use super::loaded::Model;
use super::search_index::SearchIndex;
use super::tab::{Availability, Outcome};
use super::windowed_rows::{Scroll, WindowedRows};
use crate::analysis::model::ERRORS_NOT_RECORDED;
use std::collections::HashSet;

/// How many unattached errors the callout explains before `And {n − 5} more.` (docs/rules/reference.md §7.5).
pub(crate) const UNATTACHED_SHOWN: usize = 5;

/// The search: what was typed, whether typing goes on, and the matching rows.
#[derive(Debug, Clone, Default)]
pub(crate) struct Search {
    /// The text typed.
    pub(crate) query: String,
    /// Typing goes to the search.
    pub(crate) editing: bool,
    /// Positions in the list that match, ascending.
    pub(crate) matches: Vec<usize>,
}

/// The Operations tab.
#[derive(Debug, Clone)]
pub(crate) struct OperationsTab {
    /// Operation indexes listed, in order.
    pub(crate) shown: Vec<usize>,
    /// Selection and window over `shown`.
    pub(crate) rows: WindowedRows,
    /// Only operations with an error are listed.
    pub(crate) errors_only: bool,
    /// The search.
    pub(crate) search: Search,
    /// Expanded list items (operation indexes).
    pub(crate) expanded: HashSet<usize>,
    /// The unattached-errors callout shows only its title.
    pub(crate) unattached_folded: bool,
    /// Scroll of the unattached-errors callout.
    pub(crate) unattached_scroll: Scroll,
    /// Scroll of the detail pane.
    pub(crate) detail_scroll: Scroll,
    /// Lower-cased `"{id} {name}"` of every operation, built at the first search.
    search_index: Option<SearchIndex>,
    /// The user has moved the selection since the report was opened.
    pub(crate) moved: bool,
    /// The widest row label's parts, kept while the operations and the places read stay the
    /// same (the list's width on a wide terminal).
    pub(crate) widest: Option<ListWidth>,
}

/// The widest operation name, and the widest place read so far, of a report's list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ListWidth {
    /// How many operations and stack traces were measured.
    pub(crate) measured: (usize, usize),
    /// The widest name.
    pub(crate) name: usize,
    /// Whether an operation was not recorded (its label says so).
    pub(crate) unrecorded: bool,
    /// The widest ` ({file}:{line})` read.
    pub(crate) place: usize,
}

impl OperationsTab {
    /// The tab on `operation` (an index) when given, else on the first operation with an error,
    /// else the first. The unattached-errors callout starts folded when an operation has an error,
    /// so the list and the failure take the screen.
    pub fn new(model: &Model, operation: Option<usize>) -> Self {
        let len = model.operations.len();
        let mut tab = Self {
            shown: (0..len).collect(),
            rows: WindowedRows::new(len),
            errors_only: false,
            search: Search::default(),
            expanded: HashSet::new(),
            unattached_folded: !model.error_operations().is_empty(),
            unattached_scroll: Scroll::default(),
            detail_scroll: Scroll::default(),
            search_index: None,
            moved: false,
            widest: None,
        };
        if let Some(index) = operation.or_else(|| model.error_operations().first().copied()) {
            tab.rows.select_centered(index);
        }
        tab
    }

    /// The selected operation (index into the model's operations).
    pub(crate) fn selected_operation(&self) -> Option<usize> {
        self.rows.selected().and_then(|p| self.shown.get(p).copied())
    }

    /// Whether the typed keys go to the search.
    pub(crate) fn is_searching(&self) -> bool {
        self.search.editing
    }

    /// Whether an action can do something now.
    pub(crate) fn availability(&self, action: Action, model: &Model) -> Availability {
        let enabled = match action {
            Action::ToggleErrorsOnly => self.errors_only || !model.error_operations().is_empty(),
            Action::NextMatch | Action::PreviousMatch => !self.search.matches.is_empty(),
            Action::ToggleCallout | Action::ScrollCalloutDown | Action::ScrollCalloutUp => {
                return if model.unattached().is_empty() { Availability::Absent } else { Availability::Enabled };
            }
            // Only past the five the callout explains: `And {n − 5} more.` leads to the rest.
            Action::ShowUnattached => {
                return if model.unattached().len() > UNATTACHED_SHOWN {
                    Availability::Enabled
                } else {
                    Availability::Absent
                };
            }
            _ => true,
        };
        Availability::from(enabled)
    }

    /// Applies an action of the list or of the search input.
    pub(crate) fn update(&mut self, action: Action, model: &Model) -> Outcome {
        if self.search.editing {
            return self.update_search(action, model);
        }
        if self.rows.apply(action) {
            self.detail_scroll.reset();
            self.moved = true;
            return Outcome::None;
        }
        match action {
            Action::Toggle => {
                if let Some(i) = self.selected_operation()
                    && !self.expanded.remove(&i)
                {
                    self.expanded.insert(i);
                }
            }
            Action::ToggleErrorsOnly => return self.toggle_errors_only(model),
            Action::SearchStart => self.search = Search { editing: true, ..Search::default() },
            Action::NextMatch | Action::PreviousMatch => return self.next_match(action == Action::NextMatch),
            Action::Back => self.search = Search::default(),
            Action::ToggleCallout if !model.unattached().is_empty() => {
                self.unattached_folded = !self.unattached_folded;
            }
            Action::ScrollCalloutDown => self.unattached_scroll.by(1),
            Action::ScrollCalloutUp => self.unattached_scroll.by(-1),
            Action::ScrollDetailDown => self.detail_scroll.by(1),
            Action::ScrollDetailUp => self.detail_scroll.by(-1),
            _ => {}
        }
        Outcome::None
    }

    fn update_search(&mut self, action: Action, model: &Model) -> Outcome {
        match action {
            // A control character (e.g. pasted from an escape sequence) is not typed.
            Action::SearchInput(c) if c.is_control() => {}
            Action::SearchInput(c) => {
                self.search.query.push(c);
                self.refresh_matches(model, true);
            }
            Action::SearchBackspace => {
                self.search.query.pop();
                self.refresh_matches(model, true);
            }
            Action::SearchConfirm => self.search.editing = false,
            Action::Back => self.search = Search::default(),
            Action::Quit => return Outcome::Quit,
            _ => {}
        }
        Outcome::None
    }

    /// Recomputes the search matches over the listed rows; `jump` selects the first match at or
    /// after the selection.
    fn refresh_matches(&mut self, model: &Model, jump: bool) {
        let query = self.search.query.to_lowercase();
        let index = self
            .search_index
            .get_or_insert_with(|| SearchIndex::new(model.operations.iter().map(|o| (o.id, o.name.as_ref()))));
        self.search.matches = if query.is_empty() {
            Vec::new()
        } else if self.shown.len() < model.operations.len() {
            // Filtered: test the listed rows only.
            (0..self.shown.len()).filter(|&p| index.is_match(self.shown[p], &query)).collect()
        } else {
            // Every operation is listed, so positions are operation indexes.
            index.matches(&query)
        };
        let selected = self.rows.selected().unwrap_or(0);
        if jump
            && let Some(&first) = self.search.matches.iter().find(|&&p| p >= selected).or(self.search.matches.first())
        {
            self.rows.select(first);
        }
    }

    fn next_match(&mut self, forward: bool) -> Outcome {
        let matches = &self.search.matches;
        if matches.is_empty() {
            return Outcome::Message(if self.search.query.is_empty() {
                format!("No search: press {} to search operations", key_label(Pane::Operations, Action::SearchStart))
            } else {
                format!("No operation matches “{}”", self.search.query)
            });
        }
        let selected = self.rows.selected().unwrap_or(0);
        let target = if forward {
            matches.iter().find(|&&p| p > selected).unwrap_or(&matches[0])
        } else {
            matches.iter().rev().find(|&&p| p < selected).unwrap_or(&matches[matches.len() - 1])
        };
        self.rows.select(*target);
        self.detail_scroll.reset();
        Outcome::None
    }

    /// Lists only operations with an error, or all, keeping the selected operation when it stays.
    fn toggle_errors_only(&mut self, model: &Model) -> Outcome {
        if !self.errors_only && model.error_operations().is_empty() {
            return Outcome::Message(if model.errors_recorded {
                "No operation in the list has an error attached".to_string()
            } else {
                format!("Nothing to filter: {}", ERRORS_NOT_RECORDED.to_lowercase())
            });
        }
        let current = self.selected_operation();
        self.set_errors_only(!self.errors_only, model);
        if let Some(i) = current {
            let last = self.shown.len().saturating_sub(1);
            self.rows.select(self.shown.binary_search(&i).unwrap_or_else(|p| p.min(last)));
        }
        Outcome::Message(
            if self.errors_only { "Showing only operations with an error" } else { "Showing all operations" }
                .to_string(),
        )
    }

    fn set_errors_only(&mut self, on: bool, model: &Model) {
        self.errors_only = on;
        self.shown = if on { model.error_operations().to_vec() } else { (0..model.operations.len()).collect() };
        self.rows = WindowedRows::new(self.shown.len());
        self.refresh_matches(model, false);
    }

    /// The model changed (a watched report grew): the list follows it, keeping the selected
    /// operation (by id when indexes were reordered) and the scroll where they were.
    pub(crate) fn model_changed(&mut self, model: &Model, selected_id: Option<u64>, reordered: bool) {
        self.shown =
            if self.errors_only { model.error_operations().to_vec() } else { (0..model.operations.len()).collect() };
        self.search_index = None;
        self.rows.set_len(self.shown.len());
        if reordered {
            self.expanded.clear();
        }
        // Keep the same operation selected: a late error or a reorder may move it in the list.
        let position =
            selected_id.and_then(|id| model.operation_index(id)).and_then(|i| self.shown.binary_search(&i).ok());
        if let Some(position) = position
            && Some(position) != self.rows.selected()
        {
            self.rows.select(position);
        }
        self.refresh_matches(model, false);
    }

    /// Selects an operation (by index) in the middle of the list, listing every operation again
    /// when the filter hides it.
    pub(crate) fn show_operation(&mut self, index: usize, model: &Model) {
        if self.shown.binary_search(&index).is_err() {
            self.set_errors_only(false, model);
        }
        if let Ok(position) = self.shown.binary_search(&index) {
            self.rows.select_centered(position);
            self.detail_scroll.reset();
        }
    }
}
