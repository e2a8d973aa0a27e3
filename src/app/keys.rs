//! Keys: the actions, the one keymap function, and the key table that feeds both the status-bar
//! hints and the `?` help popup.

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

/// Something the user asked for; `App::update` applies it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// Move the selection up one row.
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
    /// Open the tree node (or go to its first child).
    Open,
    /// Expand or collapse the list item, or toggle the tree node.
    Toggle,
    /// Next tab.
    NextTab,
    /// Previous tab.
    PreviousTab,
    /// Go to tab 1, 2 or 3 (0-based).
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
    /// Collapse or expand the unattached-errors callout.
    ToggleUnattached,
    /// Scroll the unattached-errors callout down.
    ScrollUnattachedDown,
    /// Scroll the unattached-errors callout up.
    ScrollUnattachedUp,
    /// Scroll the detail pane down.
    ScrollDetailDown,
    /// Scroll the detail pane up.
    ScrollDetailUp,
    /// Open the help popup.
    Help,
    /// Close a popup, or clear the search.
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
    /// The search input.
    Search,
    /// The help popup.
    Help,
    /// The error popup.
    ErrorPopup,
}

/// One row of the key table.
#[derive(Debug, Clone, Copy)]
pub struct KeyBinding {
    /// The keys, as shown.
    pub keys: &'static str,
    /// What they do.
    pub description: &'static str,
    /// The action, used to tell whether the keys are enabled.
    pub action: Action,
    /// The panes where the keys apply.
    pub panes: &'static [Pane],
    /// Shown in the status bar (otherwise only in help).
    pub hint: bool,
}

const LISTS: &[Pane] = &[Pane::Operations, Pane::DeviceOps];
const OPS: &[Pane] = &[Pane::Operations];
const TREE: &[Pane] = &[Pane::DeviceOps];
const TABS: &[Pane] = &[Pane::Operations, Pane::DeviceOps, Pane::Performance];
const POPUPS: &[Pane] = &[Pane::Help, Pane::ErrorPopup];
const SEARCH: &[Pane] = &[Pane::Search];

const fn bind(keys: &'static str, description: &'static str, action: Action, panes: &'static [Pane]) -> KeyBinding {
    KeyBinding { keys, description, action, panes, hint: true }
}

const fn help_only(
    keys: &'static str,
    description: &'static str,
    action: Action,
    panes: &'static [Pane],
) -> KeyBinding {
    KeyBinding { keys, description, action, panes, hint: false }
}

/// Every key, in the order help lists them.
pub const KEY_TABLE: &[KeyBinding] = &[
    bind("j/k", "move", Action::Down, LISTS),
    help_only("↓/↑", "move", Action::Down, LISTS),
    help_only("g/G Home/End", "first/last", Action::First, LISTS),
    help_only("PgDn/PgUp Ctrl-f/Ctrl-b", "page down/up", Action::PageDown, LISTS),
    help_only("Ctrl-d/Ctrl-u", "half page down/up", Action::HalfPageDown, LISTS),
    bind("Enter", "expand", Action::Toggle, OPS),
    help_only("Space", "expand", Action::Toggle, OPS),
    bind("h/l", "close/open", Action::Open, TREE),
    help_only("←/→", "close/open", Action::Open, TREE),
    help_only("Enter/Space", "toggle node", Action::Toggle, TREE),
    bind("e", "errors only", Action::ToggleErrorsOnly, OPS),
    bind("/", "search", Action::SearchStart, OPS),
    bind("n/N", "next/prev match", Action::NextMatch, OPS),
    bind("v", "view error", Action::ViewError, LISTS),
    bind("y", "copy", Action::Copy, LISTS),
    help_only("x", "hex/decimal addresses", Action::ToggleHex, LISTS),
    help_only("u", "collapse/expand unattached errors", Action::ToggleUnattached, OPS),
    help_only("[/]", "scroll unattached errors", Action::ScrollUnattachedDown, OPS),
    help_only("J/K", "scroll details", Action::ScrollDetailDown, LISTS),
    bind("Tab", "tab", Action::NextTab, TABS),
    help_only("Shift-Tab 1-3", "previous tab, go to tab", Action::PreviousTab, TABS),
    bind("j/k", "scroll", Action::Down, POPUPS),
    bind("Esc", "close", Action::Back, POPUPS),
    bind("Enter", "confirm", Action::SearchConfirm, SEARCH),
    bind("Esc", "clear", Action::Back, SEARCH),
    bind("?", "help", Action::Help, TABS),
    help_only("F1", "help", Action::Help, TABS),
    bind("q", "quit", Action::Quit, TABS),
    help_only("Ctrl-c", "quit", Action::Quit, &[Pane::Operations, Pane::DeviceOps, Pane::Performance, Pane::Search]),
];

/// The pane names help groups the keys under.
pub fn pane_title(pane: Pane) -> &'static str {
    match pane {
        Pane::Operations => "Operations",
        Pane::DeviceOps => "Device ops",
        Pane::Performance => "Performance",
        Pane::Search => "Search",
        Pane::Help => "Help",
        Pane::ErrorPopup => "Error popup",
    }
}

/// Maps a key to an action in the focused pane; `None` for releases, repeats and unbound keys.
pub fn keymap(key: KeyEvent, pane: Pane) -> Option<Action> {
    if key.kind != KeyEventKind::Press {
        return None;
    }
    let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
    if ctrl && key.code == KeyCode::Char('c') {
        return Some(Action::Quit);
    }
    if pane == Pane::Search {
        return match key.code {
            KeyCode::Enter => Some(Action::SearchConfirm),
            KeyCode::Esc => Some(Action::Back),
            KeyCode::Backspace => Some(Action::SearchBackspace),
            KeyCode::Char(c) if !ctrl => Some(Action::SearchInput(c)),
            _ => None,
        };
    }
    if ctrl {
        return match key.code {
            KeyCode::Char('f') => Some(Action::PageDown),
            KeyCode::Char('b') => Some(Action::PageUp),
            KeyCode::Char('d') => Some(Action::HalfPageDown),
            KeyCode::Char('u') => Some(Action::HalfPageUp),
            _ => None,
        };
    }
    let action = match key.code {
        KeyCode::Char('j') | KeyCode::Down => Action::Down,
        KeyCode::Char('k') | KeyCode::Up => Action::Up,
        KeyCode::Char('g') | KeyCode::Home => Action::First,
        KeyCode::Char('G') | KeyCode::End => Action::Last,
        KeyCode::PageDown => Action::PageDown,
        KeyCode::PageUp => Action::PageUp,
        KeyCode::Char('h') | KeyCode::Left => Action::Close,
        KeyCode::Char('l') | KeyCode::Right => Action::Open,
        KeyCode::Enter | KeyCode::Char(' ') => Action::Toggle,
        KeyCode::Tab => Action::NextTab,
        KeyCode::BackTab => Action::PreviousTab,
        KeyCode::Char(c @ '1'..='3') => Action::GoToTab(c as usize - '1' as usize),
        KeyCode::Char('/') => Action::SearchStart,
        KeyCode::Char('n') => Action::NextMatch,
        KeyCode::Char('N') => Action::PreviousMatch,
        KeyCode::Char('e') => Action::ToggleErrorsOnly,
        KeyCode::Char('v') => Action::ViewError,
        KeyCode::Char('x') => Action::ToggleHex,
        KeyCode::Char('y') => Action::Copy,
        KeyCode::Char('u') => Action::ToggleUnattached,
        KeyCode::Char(']') => Action::ScrollUnattachedDown,
        KeyCode::Char('[') => Action::ScrollUnattachedUp,
        KeyCode::Char('J') => Action::ScrollDetailDown,
        KeyCode::Char('K') => Action::ScrollDetailUp,
        KeyCode::Char('?') | KeyCode::F(1) => Action::Help,
        KeyCode::Esc => Action::Back,
        KeyCode::Char('q') => Action::Quit,
        _ => return None,
    };
    Some(action)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::crossterm::event::KeyEventState;

    fn key(code: KeyCode, modifiers: KeyModifiers, kind: KeyEventKind) -> KeyEvent {
        KeyEvent { code, modifiers, kind, state: KeyEventState::NONE }
    }

    fn press(code: KeyCode) -> KeyEvent {
        key(code, KeyModifiers::NONE, KeyEventKind::Press)
    }

    #[test]
    fn only_presses_count() {
        let release = key(KeyCode::Char('j'), KeyModifiers::NONE, KeyEventKind::Release);
        let repeat = key(KeyCode::Char('j'), KeyModifiers::NONE, KeyEventKind::Repeat);
        assert_eq!(keymap(release, Pane::Operations), None);
        assert_eq!(keymap(repeat, Pane::Operations), None);
        assert_eq!(keymap(press(KeyCode::Char('j')), Pane::Operations), Some(Action::Down));
    }

    #[test]
    fn back_tab_whatever_its_modifiers() {
        for m in [KeyModifiers::NONE, KeyModifiers::SHIFT, KeyModifiers::SHIFT | KeyModifiers::ALT] {
            assert_eq!(
                keymap(key(KeyCode::BackTab, m, KeyEventKind::Press), Pane::DeviceOps),
                Some(Action::PreviousTab)
            );
        }
    }

    #[test]
    fn upper_case_and_question_mark_match_the_char() {
        let shifted = |c| key(KeyCode::Char(c), KeyModifiers::SHIFT, KeyEventKind::Press);
        assert_eq!(keymap(shifted('G'), Pane::Operations), Some(Action::Last));
        assert_eq!(keymap(shifted('N'), Pane::Operations), Some(Action::PreviousMatch));
        assert_eq!(keymap(shifted('?'), Pane::Operations), Some(Action::Help));
        assert_eq!(keymap(press(KeyCode::F(1)), Pane::Operations), Some(Action::Help));
    }

    #[test]
    fn ctrl_c_always_quits_and_search_takes_letters() {
        let ctrl_c = key(KeyCode::Char('c'), KeyModifiers::CONTROL, KeyEventKind::Press);
        for pane in [Pane::Operations, Pane::Search, Pane::Help, Pane::ErrorPopup] {
            assert_eq!(keymap(ctrl_c, pane), Some(Action::Quit));
        }
        assert_eq!(keymap(press(KeyCode::Char('q')), Pane::Search), Some(Action::SearchInput('q')));
        assert_eq!(keymap(press(KeyCode::Esc), Pane::Search), Some(Action::Back));
        let ctrl_d = key(KeyCode::Char('d'), KeyModifiers::CONTROL, KeyEventKind::Press);
        assert_eq!(keymap(ctrl_d, Pane::Operations), Some(Action::HalfPageDown));
    }

    #[test]
    fn every_pane_has_hints_and_every_bound_action_is_in_the_table() {
        for pane in [Pane::Operations, Pane::DeviceOps, Pane::Performance, Pane::Search, Pane::Help, Pane::ErrorPopup] {
            assert!(KEY_TABLE.iter().any(|b| b.hint && b.panes.contains(&pane)), "{pane:?}");
        }
        let documented = |a: Action| KEY_TABLE.iter().any(|b| b.action == a);
        for a in [Action::ToggleErrorsOnly, Action::ViewError, Action::Copy, Action::Help, Action::Quit, Action::Open] {
            assert!(documented(a), "{a:?}");
        }
    }
}
