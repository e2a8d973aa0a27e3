//! Keys: the actions, and one binding table per pane holding the key codes *and* their labels. The
//! same tables map a key press to an action, give the status bar its hints and the `?` popup its
//! list, so the three never disagree.

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

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
}

/// A key: a code with or without Ctrl.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Key {
    code: KeyCode,
    ctrl: bool,
}

const fn key(code: KeyCode) -> Key {
    Key { code, ctrl: false }
}

const fn ch(c: char) -> Key {
    key(KeyCode::Char(c))
}

const fn ctrl(c: char) -> Key {
    Key { code: KeyCode::Char(c), ctrl: true }
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

const fn bind(keys: &'static [Key], label: &'static str, description: &'static str, action: Action) -> Binding {
    Binding { keys, label, description, action, paired: None, hint: true }
}

const fn pair(
    keys: &'static [Key],
    label: &'static str,
    description: &'static str,
    actions: (Action, Action),
) -> Binding {
    Binding { keys, label, description, action: actions.0, paired: Some(actions.1), hint: true }
}

const fn help_only(mut binding: Binding) -> Binding {
    binding.hint = false;
    binding
}

use Action::*;

/// Moving in a list, a table or a tree.
pub(crate) const MOVES: &[Binding] = &[
    pair(&[ch('j'), ch('k')], "j/k", "move", (Down, Up)),
    help_only(pair(&[key(KeyCode::Down), key(KeyCode::Up)], "↓/↑", "move", (Down, Up))),
    help_only(pair(&[ch('g'), ch('G')], "g/G", "first/last", (First, Last))),
    help_only(pair(&[key(KeyCode::Home), key(KeyCode::End)], "Home/End", "first/last", (First, Last))),
    help_only(pair(&[key(KeyCode::PageDown), key(KeyCode::PageUp)], "PgDn/PgUp", "page down/up", (PageDown, PageUp))),
    help_only(pair(&[ctrl('f'), ctrl('b')], "Ctrl-f/Ctrl-b", "page down/up", (PageDown, PageUp))),
    help_only(pair(&[ctrl('d'), ctrl('u')], "Ctrl-d/Ctrl-u", "half page down/up", (HalfPageDown, HalfPageUp))),
];

/// Keys every tab takes, after its own.
pub(crate) const GLOBAL: &[Binding] = &[
    help_only(bind(&[ch('x')], "x", "hex/decimal addresses", ToggleHex)),
    bind(&[key(KeyCode::Tab)], "Tab", "tab", NextTab),
    help_only(bind(&[key(KeyCode::BackTab)], "Shift-Tab", "previous tab", PreviousTab)),
    help_only(bind(&[ch('1'), ch('2'), ch('3'), ch('4'), ch('5')], "1-5", "go to tab", GoToTab(0))),
    bind(&[ch('?'), key(KeyCode::F(1))], "?", "help", Help),
    bind(&[ch('q'), ctrl('c')], "q", "quit", Quit),
];

/// The Operations tab's own keys.
pub(crate) const OPERATIONS: &[Binding] = &[
    bind(&[key(KeyCode::Enter), ch(' ')], "Enter", "expand", Toggle),
    bind(&[ch('e')], "e", "errors only", ToggleErrorsOnly),
    bind(&[ch('/')], "/", "search", SearchStart),
    pair(&[ch('n'), ch('N')], "n/N", "next/prev match", (NextMatch, PreviousMatch)),
    bind(&[ch('v')], "v", "view error", ViewError),
    bind(&[ch('y')], "y", "copy", Copy),
    help_only(bind(&[ch('u')], "u", "fold/unfold unattached errors", ToggleCallout)),
    help_only(pair(&[ch(']'), ch('[')], "]/[", "scroll unattached errors", (ScrollCalloutDown, ScrollCalloutUp))),
    help_only(pair(&[ch('J'), ch('K')], "J/K", "scroll details", (ScrollDetailDown, ScrollDetailUp))),
    help_only(bind(&[key(KeyCode::Esc)], "Esc", "clear the search", Back)),
];

/// The Device ops tab's own keys.
pub(crate) const DEVICE_OPS: &[Binding] = &[
    pair(&[ch('h'), ch('l')], "h/l", "close/open", (Close, Open)),
    help_only(pair(&[key(KeyCode::Left), key(KeyCode::Right)], "←/→", "close/open", (Close, Open))),
    help_only(bind(&[key(KeyCode::Enter), ch(' ')], "Enter", "toggle node", Toggle)),
    bind(&[ch('m')], "m", "memory", ShowMemory),
    bind(&[ch('v')], "v", "view error", ViewError),
    bind(&[ch('y')], "y", "copy", Copy),
];

/// The Memory tab's own keys.
pub(crate) const MEMORY: &[Binding] = &[
    bind(&[key(KeyCode::Enter)], "Enter", "open producer", Activate),
    bind(&[ch('s')], "s", "sort by address/size", ToggleSort),
    bind(&[ch('d')], "d", "device", NextDevice),
    bind(&[ch('t')], "t", "buffer type", NextBufferType),
    bind(&[ch('v')], "v", "view error", ViewError),
    bind(&[ch('y')], "y", "copy", Copy),
];

/// The Over time tab's keys (the cursor moves along the chart).
pub(crate) const OVER_TIME: &[Binding] = &[
    pair(&[ch('h'), ch('l')], "h/l", "previous/next operation", (Close, Open)),
    help_only(pair(&[key(KeyCode::Left), key(KeyCode::Right)], "←/→", "previous/next operation", (Close, Open))),
    help_only(pair(
        &[key(KeyCode::PageUp), key(KeyCode::PageDown)],
        "PgUp/PgDn",
        "a fiftieth of the run",
        (PageUp, PageDown),
    )),
    help_only(pair(&[ch('g'), ch('G')], "g/G", "first/last operation", (First, Last))),
    bind(&[key(KeyCode::Enter)], "Enter", "open operation", Activate),
    bind(&[ch('p')], "p", "peak", JumpToPeak),
    bind(&[ch('d')], "d", "device", NextDevice),
    bind(&[ch('t')], "t", "buffer type", NextBufferType),
];

/// The Performance tab's own keys.
pub(crate) const PERFORMANCE: &[Binding] = &[
    bind(&[key(KeyCode::Enter)], "Enter", "go to operation", Activate),
    pair(&[ch(']'), ch('[')], "]/[", "choose failure", (NextFailure, PreviousFailure)),
    bind(&[ch('u')], "u", "fold callout", ToggleCallout),
    bind(&[ch('f')], "f", "flagged only", ToggleFlaggedOnly),
    bind(&[ch('m')], "m", "merged/per device", TogglePerDevice),
    bind(&[ch('v')], "v", "view error", ViewError),
    bind(&[ch('y')], "y", "copy", Copy),
    help_only(bind(&[key(KeyCode::Esc)], "Esc", "back to the table", Back)),
];

/// The search input's keys (any other character is typed).
pub(crate) const SEARCH: &[Binding] = &[
    bind(&[key(KeyCode::Enter)], "Enter", "confirm", SearchConfirm),
    bind(&[key(KeyCode::Esc)], "Esc", "clear", Back),
    help_only(bind(&[key(KeyCode::Backspace)], "Backspace", "delete", SearchBackspace)),
    help_only(bind(&[ctrl('c')], "Ctrl-c", "quit", Quit)),
];

/// A popup's keys.
pub(crate) const POPUP: &[Binding] = &[
    pair(&[ch('j'), ch('k')], "j/k", "scroll", (Down, Up)),
    help_only(pair(&[key(KeyCode::Down), key(KeyCode::Up)], "↓/↑", "scroll", (Down, Up))),
    help_only(pair(&[key(KeyCode::PageDown), key(KeyCode::PageUp)], "PgDn/PgUp", "page down/up", (PageDown, PageUp))),
    help_only(pair(&[ch('g'), ch('G')], "g/G", "top/bottom", (First, Last))),
    bind(&[key(KeyCode::Esc)], "Esc", "close", Back),
    bind(&[ch('q'), ctrl('c')], "q", "quit", Quit),
];

/// The help popup's own key.
const HELP: &[Binding] = &[bind(&[ch('?'), key(KeyCode::F(1))], "?", "close", Back)];
/// The error popup's own key.
const ERROR_POPUP: &[Binding] = &[bind(&[ch('v')], "v", "close", Back)];

const OPERATIONS_PANE: &[&[Binding]] = &[MOVES, OPERATIONS, GLOBAL];
const DEVICE_OPS_PANE: &[&[Binding]] = &[MOVES, DEVICE_OPS, GLOBAL];
const PERFORMANCE_PANE: &[&[Binding]] = &[MOVES, PERFORMANCE, GLOBAL];
const MEMORY_PANE: &[&[Binding]] = &[MOVES, MEMORY, GLOBAL];
const OVER_TIME_PANE: &[&[Binding]] = &[OVER_TIME, GLOBAL];
const SEARCH_PANE: &[&[Binding]] = &[SEARCH];
const HELP_PANE: &[&[Binding]] = &[POPUP, HELP];
const ERROR_POPUP_PANE: &[&[Binding]] = &[POPUP, ERROR_POPUP];

/// The binding tables of a pane, in the order they are matched and listed.
pub(crate) fn tables(pane: Pane) -> &'static [&'static [Binding]] {
    match pane {
        Pane::Operations => OPERATIONS_PANE,
        Pane::DeviceOps => DEVICE_OPS_PANE,
        Pane::Performance => PERFORMANCE_PANE,
        Pane::Memory => MEMORY_PANE,
        Pane::OverTime => OVER_TIME_PANE,
        Pane::Search => SEARCH_PANE,
        Pane::Help => HELP_PANE,
        Pane::ErrorPopup => ERROR_POPUP_PANE,
    }
}

/// The bindings of a pane, flattened.
pub(crate) fn bindings(pane: Pane) -> impl Iterator<Item = &'static Binding> {
    tables(pane).iter().flat_map(|t| t.iter())
}

/// The pane titles help groups the keys under.
pub(crate) fn pane_title(pane: Pane) -> &'static str {
    match pane {
        Pane::Operations => "Operations",
        Pane::DeviceOps => "Device ops",
        Pane::Performance => "Performance",
        Pane::Memory => "Memory",
        Pane::OverTime => "Over time",
        Pane::Search => "Search",
        Pane::Help => "Help",
        Pane::ErrorPopup => "Error popup",
    }
}

impl Binding {
    /// The action of the key at `position` in `keys`.
    fn action_of(&self, position: usize) -> Action {
        match (self.action, self.paired) {
            (GoToTab(_), _) => GoToTab(position),
            (_, Some(second)) if position % 2 == 1 => second,
            (first, _) => first,
        }
    }

    /// The actions this binding can trigger (one, or both of a pair).
    pub(crate) fn actions(&self) -> impl Iterator<Item = Action> {
        std::iter::once(self.action).chain(self.paired)
    }
}

/// Maps a key press to an action of the focused pane; `None` for releases, repeats and unbound
/// keys. In the search, a character that is not bound is typed.
pub fn keymap(event: KeyEvent, pane: Pane) -> Option<Action> {
    if event.kind != KeyEventKind::Press {
        return None;
    }
    let is_ctrl = event.modifiers.contains(KeyModifiers::CONTROL);
    // Shift-Tab arrives as BackTab with or without SHIFT; upper-case letters and `?` carry SHIFT
    // or not depending on the terminal: match the code, and Ctrl only where bound.
    let found = bindings(pane).find_map(|b| {
        let position = b.keys.iter().position(|k| k.code == event.code && k.ctrl == is_ctrl)?;
        Some(b.action_of(position))
    });
    match (found, pane, event.code) {
        (Some(action), _, _) => Some(action),
        (None, Pane::Search, KeyCode::Char(c)) if !is_ctrl => Some(SearchInput(c)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::crossterm::event::KeyEventState;

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
        assert_eq!(press(KeyCode::Char('f'), Pane::Operations), None);
        assert_eq!(press(KeyCode::Char('m'), Pane::Performance), Some(TogglePerDevice));
        assert_eq!(press(KeyCode::Char('v'), Pane::ErrorPopup), Some(Back));
        assert_eq!(press(KeyCode::Char('?'), Pane::Help), Some(Back));
    }

    #[test]
    fn no_key_is_bound_twice_in_a_pane_and_every_pane_has_hints() {
        for pane in [
            Pane::Operations,
            Pane::DeviceOps,
            Pane::Performance,
            Pane::Memory,
            Pane::OverTime,
            Pane::Search,
            Pane::Help,
            Pane::ErrorPopup,
        ] {
            let keys: Vec<Key> = bindings(pane).flat_map(|b| b.keys.iter().copied()).collect();
            for (k, key) in keys.iter().enumerate() {
                assert!(!keys[k + 1..].contains(key), "{pane:?}: {key:?} bound twice");
            }
            assert!(bindings(pane).any(|b| b.hint), "{pane:?}");
        }
    }
}
