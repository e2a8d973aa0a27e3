//! The whole state of the terminal UI (`App`): the loaded model, one state per tab, the popup
//! and the settings; which pane the keyboard goes to, whether a key can act, and `update`.

use super::bindings;
use super::compare::Comparison;
use super::device_ops::{DeviceOpsTab, DeviceTree};
use super::jobs::Jobs;
use super::keys::{Action, Pane};
use super::loaded::{Loaded, Model};
use super::memory::{MemoryPicture, MemoryTab};
use super::operations::OperationsTab;
use super::over_time::OverTimeTab;
use super::perf::{PerfState, PerfTab};
use super::tab::{Availability, Outcome, Popup, TABS, Tab};
use super::windowed_rows::Scroll;

/// The whole state of the terminal UI.
pub struct App {
    /// The memory report as shown.
    pub(crate) model: Model,
    /// Hexadecimal addresses.
    pub(crate) hex: bool,
    /// The active tab.
    pub(crate) tab: Tab,
    /// The open popup.
    pub(crate) popup: Option<Popup>,
    /// Tab 1.
    pub(crate) operations: OperationsTab,
    /// Tab 2.
    pub(crate) device_ops: DeviceOpsTab,
    /// Tab 3.
    pub(crate) perf: PerfState,
    /// Tab 4.
    pub(crate) memory: MemoryTab,
    /// Tab 5.
    pub(crate) over_time: OverTimeTab,
    /// The earlier run the shown one is compared with (`--compare`).
    pub(crate) compare: Option<Comparison>,
    /// The background passes the tabs wait on.
    pub(crate) jobs: Jobs,
    /// A one-off message for the status bar.
    pub(crate) message: Option<String>,
    /// A watched report: how many operations it has, and how many the last change added.
    pub(crate) live: Option<(usize, usize)>,
    /// Text the loop should copy through OSC 52.
    pub(crate) clipboard: Option<String>,
    /// Keys that arrived while the terminal was too small to show what they did.
    pub(crate) ignored_keys: usize,
    /// The user asked to quit.
    pub(crate) quit: bool,
}

impl App {
    /// The state over a model, on the Operations tab: on operation `operation` (an id the model
    /// has) when given, else on the first operation with an error.
    pub fn new(model: Model, hex: bool, operation: Option<u64>) -> Self {
        let operations = OperationsTab::new(&model, operation.and_then(|id| model.operation_index(id)));
        Self {
            model,
            hex,
            tab: Tab::Operations,
            popup: None,
            operations,
            device_ops: DeviceOpsTab::default(),
            perf: PerfState::None,
            memory: MemoryTab::default(),
            over_time: OverTimeTab::default(),
            compare: None,
            jobs: Jobs::default(),
            message: None,
            live: None,
            clipboard: None,
            ignored_keys: 0,
            quit: false,
        }
    }

    /// The pane the keyboard goes to.
    pub fn pane(&self) -> Pane {
        match self.popup {
            Some(Popup::Help(_)) => Pane::Help,
            Some(Popup::Error(..)) => Pane::ErrorPopup,
            Some(Popup::Unattached(_)) => Pane::UnattachedPopup,
            None => self.tab_pane(),
        }
    }

    /// The active tab.
    pub fn tab(&self) -> Tab {
        self.tab
    }

    /// Whether addresses are shown in hexadecimal.
    pub fn hex(&self) -> bool {
        self.hex
    }

    /// The Performance tab, once its report is linked.
    pub fn perf(&self) -> Option<&PerfTab> {
        match &self.perf {
            PerfState::Ready(tab) => Some(tab),
            _ => None,
        }
    }

    /// The device-operations tree of an operation (by index), once built.
    pub fn tree(&self, operation: usize) -> Option<&DeviceTree> {
        self.device_ops.trees.get(&operation)
    }

    /// How many device-operations trees are built and kept.
    pub fn tree_count(&self) -> usize {
        self.device_ops.trees.len()
    }

    /// The model.
    pub fn model(&self) -> &Model {
        &self.model
    }

    /// The operation selected on the Operations tab (index into the model's operations).
    pub fn selected_operation(&self) -> Option<usize> {
        self.operations.selected_operation()
    }

    /// The status-bar message, when there is one.
    pub fn message(&self) -> Option<&str> {
        self.message.as_deref()
    }

    /// Text to copy through OSC 52, taken once by the loop.
    pub fn take_clipboard(&mut self) -> Option<String> {
        self.clipboard.take()
    }

    /// Whether the user asked to quit.
    pub fn should_quit(&self) -> bool {
        self.quit
    }

    /// The memory picture of the operation selected on the Operations tab, once read.
    pub fn memory_picture(&self) -> Option<&Loaded<MemoryPicture>> {
        self.memory.picture(self.selected_operation()?)
    }

    /// The operation the keys of the active tab act on (index): the Performance tab's selected
    /// listing or row, else the operation selected on the Operations tab.
    pub(crate) fn focused_operation(&self) -> Option<usize> {
        match (&self.perf, self.tab) {
            (PerfState::Ready(perf), Tab::Performance) => {
                perf.focused_operation().and_then(|id| self.model.operation_index(id))
            }
            (_, Tab::Performance) => None,
            _ => self.selected_operation(),
        }
    }

    /// The pane of the active tab (the search input while typing), whatever popup is open.
    pub fn tab_pane(&self) -> Pane {
        let typing = self.tab == Tab::Memory && self.memory.fixes.prompting();
        match (self.operations.is_searching() || typing, self.tab) {
            (true, _) => Pane::Search,
            (false, Tab::Operations) => Pane::Operations,
            (false, Tab::DeviceOps) => Pane::DeviceOps,
            (false, Tab::Performance) => Pane::Performance,
            (false, Tab::Memory) => Pane::Memory,
            (false, Tab::OverTime) => Pane::OverTime,
        }
    }

    /// Whether a key's action can do something in the focused pane now.
    pub fn availability(&self, action: Action) -> Availability {
        self.availability_in(self.pane(), action)
    }

    /// Whether a key's action can do something in `pane` now.
    pub fn availability_in(&self, pane: Pane, action: Action) -> Availability {
        let has_error = |i: usize| self.model.error_of(i).is_some();
        match action {
            Action::Copy if self.tab == Tab::OverTime => {
                return Availability::from(self.over_time.selected_late().is_some());
            }
            Action::ViewError | Action::Copy if self.tab != Tab::Performance => {
                return Availability::from(self.focused_operation().is_some_and(has_error));
            }
            _ => {}
        }
        match (pane, &self.perf) {
            (Pane::Operations, _) => self.operations.availability(action, &self.model),
            (Pane::Memory, _) => self.memory.availability(action, self.selected_operation()),
            (Pane::OverTime, _) => self.over_time.availability(action),
            (Pane::Performance, PerfState::Ready(perf)) => {
                perf.availability(action, |id| self.model.operation_index(id).is_some_and(has_error))
            }
            (Pane::Performance, _) if bindings::GLOBAL.iter().all(|b| b.actions().all(|a| a != action)) => {
                Availability::Absent
            }
            _ => Availability::Enabled,
        }
    }

    /// Applies an action to the focused pane. No I/O: what it needs is read afterwards.
    pub fn update(&mut self, action: Action) {
        self.ignored_keys = 0;
        if action != Action::Copy {
            self.message = None;
        }
        if self.popup.is_some() {
            self.update_popup(action);
            return;
        }
        let outcome = match action {
            Action::Quit => Outcome::Quit,
            Action::Help => {
                self.popup = Some(Popup::Help(Scroll::default()));
                Outcome::None
            }
            Action::NextTab => self.go_to_tab((self.tab_index() + 1) % TABS.len()),
            Action::PreviousTab => self.go_to_tab((self.tab_index() + TABS.len() - 1) % TABS.len()),
            Action::GoToTab(n) => self.go_to_tab(n),
            Action::ToggleHex => {
                self.hex = !self.hex;
                Outcome::Message(format!("Addresses in {}", if self.hex { "hexadecimal" } else { "decimal" }))
            }
            Action::ViewError => self.view_error(),
            Action::Copy if self.tab == Tab::OverTime => match self.over_time.late_suggestion() {
                Some(text) => {
                    self.clipboard = Some(format!("{text}\n"));
                    Outcome::Message("Copied the suggestion (OSC 52)".to_string())
                }
                None => Outcome::Message(format!(
                    "Choose a tensor held past its last use first ({})",
                    bindings::key_label(Pane::OverTime, Action::NextLateTensor)
                )),
            },
            Action::Copy => self.copy(),
            Action::ShowUnattached if self.tab == Tab::Operations => self.show_unattached(),
            _ if self.operations.is_searching() => self.operations.update(action, &self.model),
            _ => self.update_tab(action),
        };
        self.apply(outcome);
        self.follow_selection();
    }

    /// The Memory tab's holders window stays over the picture of the selected operation, reset
    /// when that picture changes (another operation or place, a picture read or dropped). Called
    /// after everything that can change them; only while the tab is shown, as the window is then
    /// drawn.
    pub(super) fn follow_selection(&mut self) {
        if self.tab == Tab::Memory
            && let Some(operation) = self.selected_operation()
        {
            self.memory.follow(operation);
        }
    }

    /// Applies an action no global key took to the current tab's own state.
    fn update_tab(&mut self, action: Action) -> Outcome {
        match (self.tab, &mut self.perf) {
            (Tab::Operations, _) => self.operations.update(action, &self.model),
            (Tab::DeviceOps, _) if action == Action::ShowMemory => self.show_tab(Tab::Memory),
            (Tab::DeviceOps, _) => self.device_ops.update(action, self.operations.selected_operation()),
            (Tab::Memory, _) => self.memory.update(action, self.operations.selected_operation()),
            (Tab::OverTime, _) => {
                let pass = self.over_time.pass(&self.jobs).clone();
                self.over_time.update(action, &pass)
            }
            (Tab::Performance, PerfState::Ready(perf)) => perf.update(action),
            (Tab::Performance, PerfState::Linking(_)) => Outcome::Message("Linking the reports…".to_string()),
            (Tab::Performance, PerfState::None | PerfState::Failed(_)) => Outcome::None,
        }
    }

    fn apply(&mut self, outcome: Outcome) {
        match outcome {
            Outcome::None => {}
            Outcome::Message(text) => self.message = Some(text),
            Outcome::Quit => self.quit = true,
            Outcome::ShowOperation(id) => match self.model.operation_index(id) {
                Some(index) => {
                    self.operations.show_operation(index, &self.model);
                    self.tab = Tab::Operations;
                    self.message = Some(format!("Operation {id} {}", self.model.operations[index].name));
                }
                None => self.message = Some(format!("Operation {id} is not in the operations list")),
            },
            Outcome::ShowErrors(id) => {
                if !self.operations.errors_only {
                    self.operations.update(Action::ToggleErrorsOnly, &self.model);
                }
                if let Some(index) = id.and_then(|id| self.model.operation_index(id)) {
                    self.operations.show_operation(index, &self.model);
                }
                self.tab = Tab::Operations;
                self.message = Some("Showing only operations with an error".to_string());
            }
        }
    }

    fn tab_index(&self) -> usize {
        TABS.iter().position(|t| *t == self.tab).unwrap_or(0)
    }

    fn go_to_tab(&mut self, n: usize) -> Outcome {
        match TABS.get(n) {
            Some(&tab) => self.show_tab(tab),
            None => Outcome::None,
        }
    }

    /// Shows a tab. The Over time tab's cursor follows the selected operation until the user
    /// moves it there.
    fn show_tab(&mut self, tab: Tab) -> Outcome {
        self.tab = tab;
        if tab == Tab::OverTime {
            let selected = self.selected_operation().map(|i| self.model.operations[i].id);
            self.over_time.follow(selected);
        }
        Outcome::None
    }
}
