//! The terminal UI's state and `update(Action)`: no I/O here. What must be read from the report
//! is asked for by `pending_loads` and read by `load`, which the loop calls before drawing.

pub mod content;
pub mod keys;
pub mod load;
mod navigate;
mod search_index;

pub use keys::{Action, KEY_TABLE, KeyBinding, Pane, keymap};

use crate::analysis::tree::TreeEntry;
use crate::report::{ErrorRecord, MemoryReport, Operation};
use crate::ui::theme::Theme;
use std::collections::{HashMap, HashSet};
use tui_tree_widget::{TreeItem, TreeState};

/// The three tabs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tab {
    /// `1 Operations`.
    Operations,
    /// `2 Device ops`.
    DeviceOps,
    /// `3 Performance`.
    Performance,
}

/// The tabs in order.
pub const TABS: [Tab; 3] = [Tab::Operations, Tab::DeviceOps, Tab::Performance];

/// A popup over the tabs, with its scroll position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Popup {
    /// Every key.
    Help { scroll: u16 },
    /// Raw message and stack trace of an operation's error (by operation index).
    Error { operation: usize, scroll: u16 },
}

/// The operations list: a filtered index over the operations, with selection and scroll offset.
#[derive(Debug, Clone, Default)]
pub struct ListView {
    /// Operation indexes shown, in order.
    pub shown: Vec<usize>,
    /// Position of the selected row in `shown`.
    pub selected: usize,
    /// Position of the first visible row in `shown`.
    pub offset: usize,
    /// Rows that fit, from the last draw.
    pub height: usize,
    /// Columns of the rows, from the last draw (expanded items wrap to it).
    pub width: usize,
}

/// The search: what was typed, whether typing goes on, and the matching rows.
#[derive(Debug, Clone, Default)]
pub struct Search {
    /// The text typed.
    pub query: String,
    /// Typing goes to the search.
    pub editing: bool,
    /// Positions in the list's `shown` that match.
    pub matches: Vec<usize>,
}

/// The device-operations tree of one operation, built once and kept.
pub struct DeviceTree {
    /// The tree, or why the graph cannot be shown.
    pub entries: Result<Vec<TreeEntry>, String>,
    /// The widget items, built from `entries`.
    pub items: Vec<TreeItem<'static, usize>>,
    /// Open nodes and selection.
    pub state: TreeState<usize>,
    /// The hex setting the items were built with.
    pub hex: bool,
    /// Rows that fit, from the last draw.
    pub height: usize,
}

/// Everything the UI shows, and where the user is.
pub struct App {
    /// The report's display name.
    pub name: String,
    /// Operations of the report, sorted by id.
    pub operations: Vec<Operation>,
    /// Error rows of the report.
    pub errors: Vec<ErrorRecord>,
    /// Indexes (into `errors`) of the unattached errors.
    pub unattached: Vec<usize>,
    /// Failed device operations of the operations with an error (behaviour.md §3.5).
    pub failed_in: HashMap<usize, Vec<String>>,
    /// Styles.
    pub theme: Theme,
    /// Hexadecimal addresses.
    pub hex: bool,
    /// The active tab.
    pub tab: Tab,
    /// The open popup.
    pub popup: Option<Popup>,
    /// The operations list.
    pub list: ListView,
    /// Only operations with an error are listed.
    pub errors_only: bool,
    /// The search.
    pub search: Search,
    /// Expanded list items (operation indexes).
    pub expanded: HashSet<usize>,
    /// The unattached-errors callout is collapsed to its title.
    pub unattached_collapsed: bool,
    /// Scroll of the unattached-errors callout, in lines.
    pub unattached_scroll: u16,
    /// Scroll of the detail pane, in lines.
    pub detail_scroll: u16,
    /// Stack traces loaded so far (operation index → text, empty when none).
    pub stack_traces: HashMap<usize, String>,
    /// Arguments loaded so far.
    pub arguments: HashMap<usize, Result<Vec<(String, String)>, String>>,
    /// Device-operation trees built so far.
    pub trees: HashMap<usize, DeviceTree>,
    /// A one-off message for the status bar.
    pub message: Option<String>,
    /// Text the loop should copy through OSC 52.
    pub clipboard: Option<String>,
    /// The user asked to quit.
    pub quit: bool,
    /// A performance report was opened and linked (its table is not drawn yet).
    pub perf_linked: bool,
    /// Centre the selected row once the list's height is known (`--operation`).
    pub center_selection: bool,
    /// Why stack traces could not be read, when they could not.
    pub load_error: Option<String>,
    /// Lower-cased `"{id} {name}"` of every operation, built at the first search.
    search_index: Option<search_index::SearchIndex>,
    /// Indexes of the operations with an error.
    error_operations: Vec<usize>,
}

impl App {
    /// The state for a report, opened on the Operations tab; `operation` selects that id.
    pub fn new(report: &MemoryReport, theme: Theme, hex: bool, operation: Option<u64>) -> Self {
        let error_operations: Vec<usize> =
            (0..report.operations.len()).filter(|&i| report.operations[i].error.is_some()).collect();
        let failed_in =
            error_operations.iter().map(|&i| (i, report.failed_device_operations(i).unwrap_or_default())).collect();
        let mut app = Self {
            name: report.name.clone(),
            operations: report.operations.clone(),
            errors: report.errors.clone(),
            unattached: (0..report.errors.len()).filter(|&e| !report.errors[e].attached).collect(),
            failed_in,
            theme,
            hex,
            tab: Tab::Operations,
            popup: None,
            list: ListView { shown: (0..report.operations.len()).collect(), ..ListView::default() },
            errors_only: false,
            search: Search::default(),
            expanded: HashSet::new(),
            unattached_collapsed: false,
            unattached_scroll: 0,
            detail_scroll: 0,
            stack_traces: HashMap::new(),
            arguments: HashMap::new(),
            trees: HashMap::new(),
            message: None,
            clipboard: None,
            quit: false,
            center_selection: false,
            perf_linked: false,
            load_error: None,
            search_index: None,
            error_operations,
        };
        if let Some(index) = operation.and_then(|id| report.operation_index(id)) {
            app.list.selected = index;
            app.list.offset = index;
            app.center_selection = true;
        }
        app
    }

    /// The pane the keyboard goes to.
    pub fn pane(&self) -> Pane {
        match (self.popup, self.search.editing, self.tab) {
            (Some(Popup::Help { .. }), _, _) => Pane::Help,
            (Some(Popup::Error { .. }), _, _) => Pane::ErrorPopup,
            (None, true, _) => Pane::Search,
            (None, false, Tab::Operations) => Pane::Operations,
            (None, false, Tab::DeviceOps) => Pane::DeviceOps,
            (None, false, Tab::Performance) => Pane::Performance,
        }
    }

    /// The selected operation (index into `operations`), when the list is not empty.
    pub fn selected_operation(&self) -> Option<usize> {
        self.list.shown.get(self.list.selected).copied()
    }

    /// The error attached to an operation.
    pub fn error_of(&self, operation: usize) -> Option<&ErrorRecord> {
        self.operations[operation].error.map(|e| &self.errors[e])
    }

    /// Whether any operation of the report has an error attached.
    pub fn has_errors(&self) -> bool {
        !self.error_operations.is_empty()
    }

    /// Whether an action can do something now (disabled keys are dimmed in the hints).
    pub fn enabled(&self, action: Action) -> bool {
        match action {
            Action::ToggleErrorsOnly => self.errors_only || self.has_errors(),
            Action::ViewError | Action::Copy => self.selected_operation().is_some_and(|i| self.error_of(i).is_some()),
            Action::NextMatch | Action::PreviousMatch => !self.search.matches.is_empty(),
            Action::ToggleUnattached | Action::ScrollUnattachedDown | Action::ScrollUnattachedUp => {
                !self.unattached.is_empty()
            }
            _ => true,
        }
    }

    /// The result counter of behaviour.md §7.4.
    pub fn counter(&self) -> String {
        if self.errors_only {
            format!("Showing {} of {} operations", self.list.shown.len(), self.operations.len())
        } else {
            format!("Showing {} operations", self.list.shown.len())
        }
    }

    /// Applies an action. No I/O: what it needs from the report is loaded afterwards.
    pub fn update(&mut self, action: Action) {
        if !matches!(action, Action::Copy) {
            self.message = None;
        }
        match self.pane() {
            Pane::Help | Pane::ErrorPopup => return self.update_popup(action),
            Pane::Search => return self.update_search(action),
            _ => {}
        }
        match action {
            Action::Quit => self.quit = true,
            Action::Help => self.popup = Some(Popup::Help { scroll: 0 }),
            Action::NextTab => self.go_to_tab((self.tab_index() + 1) % TABS.len()),
            Action::PreviousTab => self.go_to_tab((self.tab_index() + TABS.len() - 1) % TABS.len()),
            Action::GoToTab(n) => self.go_to_tab(n),
            Action::ToggleHex => {
                self.hex = !self.hex;
                self.message = Some(format!("Addresses in {}", if self.hex { "hexadecimal" } else { "decimal" }));
            }
            Action::Copy => self.copy(),
            Action::ViewError => match self.selected_operation() {
                Some(i) if self.error_of(i).is_some() => self.popup = Some(Popup::Error { operation: i, scroll: 0 }),
                Some(i) => self.message = Some(format!("Operation {} has no error", self.operations[i].id)),
                None => {}
            },
            Action::Back => {
                if !self.search.query.is_empty() {
                    self.search = Search::default();
                }
            }
            Action::ScrollDetailDown => self.detail_scroll = self.detail_scroll.saturating_add(1),
            Action::ScrollDetailUp => self.detail_scroll = self.detail_scroll.saturating_sub(1),
            _ => match self.tab {
                Tab::Operations => self.update_operations(action),
                Tab::DeviceOps => self.update_tree(action),
                Tab::Performance => {}
            },
        }
    }

    fn tab_index(&self) -> usize {
        TABS.iter().position(|t| *t == self.tab).unwrap_or(0)
    }

    fn go_to_tab(&mut self, n: usize) {
        if let Some(&tab) = TABS.get(n) {
            self.tab = tab;
        }
    }

    fn update_popup(&mut self, action: Action) {
        let Some(popup) = self.popup.as_mut() else { return };
        let is_help = matches!(popup, Popup::Help { .. });
        let scroll = match popup {
            Popup::Help { scroll } | Popup::Error { scroll, .. } => scroll,
        };
        match action {
            Action::Back => self.popup = None,
            Action::Help if is_help => self.popup = None,
            Action::ViewError if !is_help => self.popup = None,
            Action::Quit => self.quit = true,
            Action::Down => *scroll = scroll.saturating_add(1),
            Action::Up => *scroll = scroll.saturating_sub(1),
            Action::PageDown | Action::HalfPageDown => *scroll = scroll.saturating_add(10),
            Action::PageUp | Action::HalfPageUp => *scroll = scroll.saturating_sub(10),
            Action::First => *scroll = 0,
            _ => {}
        }
    }

    fn update_search(&mut self, action: Action) {
        match action {
            Action::SearchInput(c) => {
                self.search.query.push(c);
                self.refresh_matches(true);
            }
            Action::SearchBackspace => {
                self.search.query.pop();
                self.refresh_matches(true);
            }
            Action::SearchConfirm => self.search.editing = false,
            Action::Back => self.search = Search::default(),
            Action::Quit => self.quit = true,
            _ => {}
        }
    }

    /// Recomputes the search matches over the shown rows; `jump` selects the first match at or
    /// after the selection.
    fn refresh_matches(&mut self, jump: bool) {
        let query = self.search.query.to_lowercase();
        let operations = &self.operations;
        let index = self
            .search_index
            .get_or_insert_with(|| search_index::SearchIndex::new(operations.iter().map(|o| (o.id, o.name.as_str()))));
        self.search.matches = if query.is_empty() {
            Vec::new()
        } else if self.list.shown.len() < self.operations.len() {
            // Filtered: test the shown rows only.
            (0..self.list.shown.len()).filter(|&p| index.is_match(self.list.shown[p], &query)).collect()
        } else {
            // Every operation is shown, so positions are operation indexes.
            index.matches(&query)
        };
        if jump
            && let Some(&first) =
                self.search.matches.iter().find(|&&p| p >= self.list.selected).or(self.search.matches.first())
        {
            self.select(first);
        }
    }

    /// Shows only operations with an error, or all; keeps the selected operation when it stays.
    fn toggle_errors_only(&mut self) {
        if !self.enabled(Action::ToggleErrorsOnly) {
            self.message = Some("No operation in the list has an error attached".to_string());
            return;
        }
        let current = self.selected_operation();
        self.errors_only = !self.errors_only;
        self.list.shown =
            if self.errors_only { self.error_operations.clone() } else { (0..self.operations.len()).collect() };
        let last = self.list.shown.len().saturating_sub(1);
        let position = current.map(|i| self.list.shown.binary_search(&i).unwrap_or_else(|p| p.min(last)));
        self.list.offset = 0;
        self.list.selected = 0;
        self.select(position.unwrap_or(0));
        self.refresh_matches(false);
        self.message = Some(
            if self.errors_only { "Showing only operations with an error" } else { "Showing all operations" }
                .to_string(),
        );
    }

    fn copy(&mut self) {
        let Some(i) = self.selected_operation() else { return };
        match content::copy_text(self, i) {
            Some(text) => {
                self.clipboard = Some(text);
                self.message = Some(format!("Copied the callout of operation {} (OSC 52)", self.operations[i].id));
            }
            None => self.message = Some(format!("Nothing to copy: operation {} has no error", self.operations[i].id)),
        }
    }
}
