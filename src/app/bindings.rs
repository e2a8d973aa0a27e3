//! The binding tables, one per pane: key codes and their labels together, so the matcher, the
//! status-bar hints and the `?` help read the same rows.

use super::keys::{Action, Binding, Key, Pane};
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

const fn key(code: KeyCode) -> Key {
    Key { code, ctrl: false }
}

const fn ch(c: char) -> Key {
    key(KeyCode::Char(c))
}

const fn ctrl(c: char) -> Key {
    Key { code: KeyCode::Char(c), ctrl: true }
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
    bind(&[ch('U')], "U", "unattached errors", ShowUnattached),
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
    pair(&[ch('f'), ch('F')], "f/F", "fix", (NextFix, PreviousFix)),
    bind(&[ch('w')], "w", "what if…", WhatIf),
    help_only(pair(&[ch('J'), ch('K')], "J/K", "scroll the advice", (ScrollDetailDown, ScrollDetailUp))),
    help_only(bind(&[key(KeyCode::Esc)], "Esc", "the failure as recorded", Back)),
    bind(&[ch('v')], "v", "view error", ViewError),
    bind(&[ch('y')], "y", "copy", Copy),
];

/// The Over time tab's keys (the cursor moves along the chart).
pub(crate) const OVER_TIME: &[Binding] = &[
    pair(&[ch('h'), ch('l')], "h/l", "previous/next operation", (PreviousPoint, NextPoint)),
    help_only(pair(
        &[key(KeyCode::Left), key(KeyCode::Right)],
        "←/→",
        "previous/next operation",
        (PreviousPoint, NextPoint),
    )),
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
    pair(&[ch(']'), ch('[')], "]/[", "late tensor", (NextLateTensor, PreviousLateTensor)),
    bind(&[ch('c')], "c", "L1 per core", ToggleCoreGrid),
    help_only(bind(&[ch('y')], "y", "copy the late tensor's suggestion", Copy)),
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
/// The unattached-errors popup's own key.
const UNATTACHED_POPUP: &[Binding] = &[bind(&[ch('U')], "U", "close", Back)];

const OPERATIONS_PANE: &[&[Binding]] = &[MOVES, OPERATIONS, GLOBAL];
const DEVICE_OPS_PANE: &[&[Binding]] = &[MOVES, DEVICE_OPS, GLOBAL];
const PERFORMANCE_PANE: &[&[Binding]] = &[MOVES, PERFORMANCE, GLOBAL];
const MEMORY_PANE: &[&[Binding]] = &[MOVES, MEMORY, GLOBAL];
const OVER_TIME_PANE: &[&[Binding]] = &[OVER_TIME, GLOBAL];
const SEARCH_PANE: &[&[Binding]] = &[SEARCH];
const HELP_PANE: &[&[Binding]] = &[POPUP, HELP];
const ERROR_POPUP_PANE: &[&[Binding]] = &[POPUP, ERROR_POPUP];
const UNATTACHED_POPUP_PANE: &[&[Binding]] = &[POPUP, UNATTACHED_POPUP];

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
        Pane::UnattachedPopup => UNATTACHED_POPUP_PANE,
    }
}

/// The bindings of a pane, flattened.
pub(crate) fn bindings(pane: Pane) -> impl Iterator<Item = &'static Binding> {
    tables(pane).iter().flat_map(|t| t.iter())
}

/// The label of the key bound to `action` in `pane` (`j/k`, `Esc`), for a hint drawn outside the
/// status bar, so it names the key the table binds; empty when the pane binds none.
pub(crate) fn key_label(pane: Pane, action: Action) -> &'static str {
    bindings(pane).find(|b| b.actions().any(|a| a == action)).map_or("", |b| b.label)
}

/// `{key} {description}` of `action` in `pane`, as the status bar writes a hint.
pub(crate) fn hint_text(pane: Pane, action: Action) -> String {
    bindings(pane)
        .find(|b| b.actions().any(|a| a == action))
        .map_or_else(String::new, |b| format!("{} {}", b.label, b.description))
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
        Pane::UnattachedPopup => "Unattached errors",
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
        (None, Pane::Search, KeyCode::Char(c)) if !is_ctrl => Some(Action::SearchInput(c)),
        _ => None,
    }
}
