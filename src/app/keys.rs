//! Keys: the actions, and one binding table per pane holding the key codes *and* their labels. The
//! same tables map a key press to an action, give the status bar its hints and the `?` popup its
//! list, so the three never disagree.

use ratatui::crossterm::event::KeyCode;

/// Something the user asked for; `App::update` applies it to the focused pane.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// Move the selection up one row (or scroll a text up).
    Up,
    /// Move the selection down one row.
    Down,
    /// One page up.
    PageUp,
    /// One page down.
    PageDown,
    /// Half a page up.
    HalfPageUp,
    /// Half a page down.
    HalfPageDown,
    /// First row.
    First,
    /// Last row.
    Last,
    /// Close the tree node (or go to its parent).
    Close,
    /// Open the tree node.
    Open,
    /// The previous operation on the chart.
    PreviousPoint,
    /// The next operation on the chart.
    NextPoint,
    /// Expand or collapse the list item, or toggle the tree node.
    Toggle,
    /// Act on the selected row: open its operation on the Operations tab.
    Activate,
    /// Next tab.
    NextTab,
    /// Previous tab.
    PreviousTab,
    /// Go to a tab (0-based).
    GoToTab(usize),
    /// Start typing a search.
    SearchStart,
    /// A character typed into the search.
    SearchInput(char),
    /// Delete the last character of the search.
    SearchBackspace,
    /// Keep the search and go back to the list.
    SearchConfirm,
    /// Next search match.
    NextMatch,
    /// Previous search match.
    PreviousMatch,
    /// Show only operations with an error, or all.
    ToggleErrorsOnly,
    /// Raw message and stack trace of the selected operation's error.
    ViewError,
    /// Decimal or hexadecimal addresses.
    ToggleHex,
    /// Copy the selected callout through OSC 52.
    Copy,
    /// Fold or unfold the callout above the list or table.
    ToggleCallout,
    /// Scroll the unattached-errors callout down.
    ScrollCalloutDown,
    /// Scroll the unattached-errors callout up.
    ScrollCalloutUp,
    /// Open every unattached error, past the five the callout explains (docs/rules/reference.md §13.4).
    ShowUnattached,
    /// Scroll the detail pane down.
    ScrollDetailDown,
    /// Scroll the detail pane up.
    ScrollDetailUp,
    /// Merged or per-device rows (Performance tab).
    TogglePerDevice,
    /// Only flagged rows, or all (Performance tab).
    ToggleFlaggedOnly,
    /// Select the next allocation failure of the callout (Performance tab).
    NextFailure,
    /// Select the previous allocation failure of the callout (Performance tab).
    PreviousFailure,
    /// Select the next tensor held past its last use (Over time tab).
    NextLateTensor,
    /// Select the previous tensor held past its last use (Over time tab).
    PreviousLateTensor,
    /// Holders by address, or biggest first (Memory tab).
    ToggleSort,
    /// The snapshot of the next device (Memory tab).
    NextDevice,
    /// The next buffer type of the snapshot (Memory tab).
    NextBufferType,
    /// Show the selected operation's memory (tab 4).
    ShowMemory,
    /// Put the cursor on the peak (Over time tab).
    JumpToPeak,
    /// Show or hide L1 per core at the cursor's operation's true peak (Over time tab).
    ToggleCoreGrid,
    /// Show the next fix on the map (Memory tab).
    NextFix,
    /// Show the previous fix on the map (Memory tab).
    PreviousFix,
    /// Type fixes to replay (Memory tab).
    WhatIf,
    /// Open the help popup.
    Help,
    /// Close a popup, leave the callout, or clear the search.
    Back,
    /// Quit.
    Quit,
}

/// Where the keyboard goes: a tab, a popup, or the search input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pane {
    /// The operations list.
    Operations,
    /// The device-operations tree.
    DeviceOps,
    /// The performance tab.
    Performance,
    /// The memory tab.
    Memory,
    /// The memory-over-the-run tab.
    OverTime,
    /// The search input.
    Search,
    /// The help popup.
    Help,
    /// The error popup.
    ErrorPopup,
    /// The popup listing every unattached error.
    UnattachedPopup,
}

/// Every pane, in the order help lists them.
pub const PANES: [Pane; 9] = [
    Pane::Operations,
    Pane::DeviceOps,
    Pane::Performance,
    Pane::Memory,
    Pane::OverTime,
    Pane::Search,
    Pane::Help,
    Pane::ErrorPopup,
    Pane::UnattachedPopup,
];

/// A key: a code with or without Ctrl.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Key {
    pub(crate) code: KeyCode,
    pub(crate) ctrl: bool,
}

/// One row of a binding table: the keys, their label, what they do.
#[derive(Debug, Clone, Copy)]
pub struct Binding {
    /// The keys that trigger the action.
    pub(crate) keys: &'static [Key],
    /// The keys as shown, e.g. `j/k`.
    pub label: &'static str,
    /// What they do.
    pub description: &'static str,
    /// The action the first key triggers.
    pub action: Action,
    /// The action the second key triggers, for pairs such as `j/k` (none: every key does `action`).
    pub paired: Option<Action>,
    /// Shown in the status bar (otherwise only in help).
    pub hint: bool,
}

impl Binding {
    /// The action of the key at `position` in `keys`.
    pub(crate) fn action_of(&self, position: usize) -> Action {
        match (self.action, self.paired) {
            (Action::GoToTab(_), _) => Action::GoToTab(position),
            (_, Some(second)) if position % 2 == 1 => second,
            (first, _) => first,
        }
    }

    /// The actions this binding can trigger (one, or both of a pair).
    pub(crate) fn actions(&self) -> impl Iterator<Item = Action> {
        std::iter::once(self.action).chain(self.paired)
    }
}

#[cfg(test)]
mod tests {
    use super::Action::*;
    use super::*;
    use crate::app::bindings::{bindings, keymap};
    use ratatui::crossterm::event::KeyEventState;
    use ratatui::crossterm::event::{KeyEvent, KeyEventKind, KeyModifiers};

    fn event(code: KeyCode, modifiers: KeyModifiers, kind: KeyEventKind) -> KeyEvent {
        KeyEvent { code, modifiers, kind, state: KeyEventState::NONE }
    }

    fn press(code: KeyCode, pane: Pane) -> Option<Action> {
        keymap(event(code, KeyModifiers::NONE, KeyEventKind::Press), pane)
    }

    #[test]
    fn only_presses_count() {
        let release = event(KeyCode::Char('j'), KeyModifiers::NONE, KeyEventKind::Release);
        let repeat = event(KeyCode::Char('j'), KeyModifiers::NONE, KeyEventKind::Repeat);
        assert_eq!(keymap(release, Pane::Operations), None);
        assert_eq!(keymap(repeat, Pane::Operations), None);
        assert_eq!(press(KeyCode::Char('j'), Pane::Operations), Some(Down));
        assert_eq!(press(KeyCode::Char('k'), Pane::Operations), Some(Up));
    }

    #[test]
    fn back_tab_whatever_its_modifiers_and_tabs_by_number() {
        for m in [KeyModifiers::NONE, KeyModifiers::SHIFT, KeyModifiers::SHIFT | KeyModifiers::ALT] {
            assert_eq!(keymap(event(KeyCode::BackTab, m, KeyEventKind::Press), Pane::DeviceOps), Some(PreviousTab));
        }
        assert_eq!(press(KeyCode::Char('3'), Pane::Operations), Some(GoToTab(2)));
        assert_eq!(press(KeyCode::Char('1'), Pane::Performance), Some(GoToTab(0)));
    }

    #[test]
    fn upper_case_question_mark_and_ctrl_keys() {
        let shifted = |c| event(KeyCode::Char(c), KeyModifiers::SHIFT, KeyEventKind::Press);
        assert_eq!(keymap(shifted('G'), Pane::Operations), Some(Last));
        assert_eq!(keymap(shifted('N'), Pane::Operations), Some(PreviousMatch));
        assert_eq!(keymap(shifted('?'), Pane::Operations), Some(Help));
        assert_eq!(press(KeyCode::F(1), Pane::Operations), Some(Help));
        let ctrl_d = event(KeyCode::Char('d'), KeyModifiers::CONTROL, KeyEventKind::Press);
        assert_eq!(keymap(ctrl_d, Pane::Operations), Some(HalfPageDown));
        // A Ctrl key that is not bound does nothing, even when the plain key is bound.
        let ctrl_e = event(KeyCode::Char('e'), KeyModifiers::CONTROL, KeyEventKind::Press);
        assert_eq!(keymap(ctrl_e, Pane::Operations), None);
    }

    #[test]
    fn ctrl_c_always_quits_and_search_takes_letters() {
        let ctrl_c = event(KeyCode::Char('c'), KeyModifiers::CONTROL, KeyEventKind::Press);
        for pane in [Pane::Operations, Pane::Performance, Pane::Search, Pane::Help, Pane::ErrorPopup] {
            assert_eq!(keymap(ctrl_c, pane), Some(Quit), "{pane:?}");
        }
        assert_eq!(press(KeyCode::Char('q'), Pane::Search), Some(SearchInput('q')));
        assert_eq!(press(KeyCode::Char('/'), Pane::Search), Some(SearchInput('/')));
        assert_eq!(press(KeyCode::Esc, Pane::Search), Some(Back));
        assert_eq!(press(KeyCode::Backspace, Pane::Search), Some(SearchBackspace));
    }

    #[test]
    fn each_pane_has_its_own_meaning_for_shared_keys() {
        assert_eq!(press(KeyCode::Enter, Pane::Performance), Some(Activate));
        assert_eq!(press(KeyCode::Enter, Pane::Operations), Some(Toggle));
        assert_eq!(press(KeyCode::Enter, Pane::DeviceOps), Some(Toggle));
        assert_eq!(press(KeyCode::Char(']'), Pane::Performance), Some(NextFailure));
        assert_eq!(press(KeyCode::Char(']'), Pane::Operations), Some(ScrollCalloutDown));
        assert_eq!(press(KeyCode::Char('['), Pane::OverTime), Some(PreviousLateTensor));
        assert_eq!(press(KeyCode::Char('f'), Pane::Operations), None);
        assert_eq!(press(KeyCode::Char('m'), Pane::Performance), Some(TogglePerDevice));
        assert_eq!(press(KeyCode::Char('v'), Pane::ErrorPopup), Some(Back));
        assert_eq!(press(KeyCode::Char('?'), Pane::Help), Some(Back));
        assert_eq!(press(KeyCode::Char('U'), Pane::Operations), Some(ShowUnattached));
        assert_eq!(press(KeyCode::Char('U'), Pane::UnattachedPopup), Some(Back));
        assert_eq!(press(KeyCode::Esc, Pane::UnattachedPopup), Some(Back));
    }

    #[test]
    fn the_keys_named_outside_the_status_bar_come_from_the_tables() {
        use crate::app::bindings::{hint_text, key_label};
        let named = [
            (Pane::Help, Down, "j/k"),
            (Pane::ErrorPopup, Back, "Esc"),
            (Pane::UnattachedPopup, First, "g/G"),
            (Pane::Performance, ToggleCallout, "u"),
            (Pane::Performance, NextFailure, "]/["),
            (Pane::Performance, Activate, "Enter"),
            (Pane::Operations, ShowUnattached, "U"),
            (Pane::Operations, ToggleCallout, "u"),
            (Pane::Operations, ScrollCalloutDown, "]/["),
            (Pane::Operations, ViewError, "v"),
            (Pane::Operations, SearchStart, "/"),
            (Pane::OverTime, NextLateTensor, "]/["),
        ];
        for (pane, action, label) in named {
            assert_eq!(key_label(pane, action), label, "{pane:?} {action:?}");
        }
        assert_eq!(key_label(Pane::Memory, NextLateTensor), "");
        assert_eq!(hint_text(Pane::UnattachedPopup, First), "g/G top/bottom");
        assert_eq!(hint_text(Pane::Performance, Activate), "Enter go to operation");
    }

    #[test]
    fn no_key_is_bound_twice_in_a_pane_and_every_pane_has_hints() {
        for pane in PANES {
            let keys: Vec<Key> = bindings(pane).flat_map(|b| b.keys.iter().copied()).collect();
            for (k, key) in keys.iter().enumerate() {
                assert!(!keys[k + 1..].contains(key), "{pane:?}: {key:?} bound twice");
            }
            assert!(bindings(pane).any(|b| b.hint), "{pane:?}");
        }
    }
}
