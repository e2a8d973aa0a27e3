//! The tabs and the popup over them, and what passes between a tab's state and the whole state:
//! whether a key can do something there now (`Availability`) and what a tab's `update` asks of
//! the rest (`Outcome`).

use super::windowed_rows::Scroll;

/// The tabs, in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tab {
    /// `1 Operations`.
    Operations,
    /// `2 Device ops`.
    DeviceOps,
    /// `3 Performance`.
    Performance,
    /// `4 Memory`.
    Memory,
    /// `5 Over time`.
    OverTime,
}

/// The tabs in order.
pub const TABS: [Tab; 5] = [Tab::Operations, Tab::DeviceOps, Tab::Performance, Tab::Memory, Tab::OverTime];

/// A popup over the tabs, with its scroll position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Popup {
    /// Every key.
    Help(Scroll),
    /// Raw message and stack trace of an operation's error (by operation id: a watched report
    /// may reorder the operations under an open popup).
    Error(u64, Scroll),
    /// Every unattached error, explained (docs/rules/reference.md §7.5, §13.4).
    Unattached(Scroll),
}

/// Whether a key can do something: shown, shown dimmed, or not offered at all.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Availability {
    /// It does something now.
    Enabled,
    /// It exists here but does nothing now (dimmed, with a reason when pressed).
    Disabled,
    /// It makes no sense here (e.g. no performance report): not advertised.
    Absent,
}

impl From<bool> for Availability {
    fn from(enabled: bool) -> Self {
        if enabled { Self::Enabled } else { Self::Disabled }
    }
}

/// What a tab's `update` asks of the whole state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// Nothing more.
    None,
    /// A one-off message for the status bar.
    Message(String),
    /// Show this operation (by id) on the Operations tab.
    ShowOperation(u64),
    /// List only the operations with an error on the Operations tab, on this one (by id).
    ShowErrors(Option<u64>),
    /// Quit.
    Quit,
}
