//! The Memory tab's fixes (docs/rules/memory.md §9.2): for a failure, each advice line replayed with what
//! tt-metal would do, the one shown on the map (`f` / `F`, `Esc` back to the failure as
//! recorded), and the fixes the user types (`w`), each replayed by the loop and added to the list.

use super::keys::Action;
use super::loaded::Loaded;
use super::tab::Outcome;
use crate::analysis::memory::whatif::{AfterFix, Fix, Outcome as Replayed, ReplayedAdvice};
use std::collections::HashMap;

/// The fixes of the failures shown so far, the one on the map, and what the user is typing.
#[derive(Debug, Default)]
pub struct FixList {
    /// The replayed advice of each failure (by operation index), once read.
    by_operation: HashMap<usize, Loaded<Vec<ReplayedAdvice>>>,
    /// The fix shown on the map (an index into the operation's list); none: the failure as
    /// recorded.
    pub(crate) selected: Option<usize>,
    /// The operation the selection is over.
    selected_of: Option<usize>,
    /// The fixes being typed, when the prompt is open.
    pub(crate) prompt: Option<String>,
    /// Fixes typed and waiting for their replay: (operation, fixes).
    asked: Vec<(usize, Vec<Fix>)>,
}

impl FixList {
    /// The replayed advice of an operation's failure, once read.
    pub fn of(&self, operation: usize) -> Option<&Loaded<Vec<ReplayedAdvice>>> {
        self.by_operation.get(&operation)
    }

    /// The line tab 1's callout gives of an allocation failure's fixes (issue 30 §4.1): how many
    /// tab 4 replayed and with how many the request fits, or that tab 4 replays them.
    pub(crate) fn hint(&self, operation: usize) -> String {
        match self.of(operation) {
            None => "Fixes: tab 4 replays them (press 4)".to_string(),
            Some(Loaded::Unavailable(reason)) => format!("Fixes: tab 4 cannot replay them: {reason}"),
            Some(Loaded::Ready(list)) if list.is_empty() => "Fixes: none to replay (tab 4 says why)".to_string(),
            Some(Loaded::Ready(list)) => {
                let replayed = list.iter().filter(|r| r.answer.is_some()).count();
                let fits =
                    list.iter().filter(|r| r.answer.as_ref().is_some_and(|a| a.outcome == Replayed::Fits)).count();
                let with = match fits {
                    0 => "with none".to_string(),
                    n if n == replayed => format!("with {}", if n == 1 { "it" } else { "each" }),
                    n => format!("with {n} of them"),
                };
                format!("Fixes: {} on tab 4 (press 4), {replayed} replayed; the request fits {with}", list.len())
            }
        }
    }

    /// The fixes as the copy of tab 1's callout gives them: each replayed sentence, or a line
    /// saying they are not replayed yet.
    pub(crate) fn copied(&self, operation: usize, operation_id: u64, hex: bool) -> Vec<String> {
        match self.of(operation) {
            Some(Loaded::Ready(list)) if !list.is_empty() => std::iter::once("Fixes (replayed):".to_string())
                .chain(list.iter().map(|r| format!("· {}", r.sentence(operation_id, hex))))
                .collect(),
            _ => vec![self.hint(operation)],
        }
    }

    /// Whether the fixes of an operation's failure are still to be read.
    pub(crate) fn wanted(&self, operation: usize) -> bool {
        !self.by_operation.contains_key(&operation)
    }

    /// The fixes typed for an operation and waiting for their replay.
    pub(crate) fn asked(&self) -> &[(usize, Vec<Fix>)] {
        &self.asked
    }

    /// Keeps the replayed advice of an operation's failure.
    pub(crate) fn deliver(&mut self, operation: usize, fixes: Loaded<Vec<ReplayedAdvice>>) {
        self.by_operation.insert(operation, fixes);
    }

    /// Adds the replay of fixes the user typed to the operation's list, and shows it; the
    /// status bar's message when they could not be replayed (a fix that cannot act on the run).
    pub(crate) fn deliver_yours(
        &mut self,
        operation: usize,
        fixes: &[Fix],
        replayed: Loaded<ReplayedAdvice>,
    ) -> Option<String> {
        self.asked.retain(|(o, f)| !(*o == operation && f.as_slice() == fixes));
        let r = match replayed {
            Loaded::Ready(r) => r,
            Loaded::Unavailable(why) => return Some(format!("Not replayed: {why}")),
        };
        if let Some(Loaded::Ready(list)) = self.by_operation.get_mut(&operation) {
            list.push(r);
            self.selected = Some(list.len() - 1);
            self.selected_of = Some(operation);
        }
        None
    }

    /// The fix shown on the map for an operation, when one is chosen.
    pub fn shown(&self, operation: usize) -> Option<(usize, &ReplayedAdvice)> {
        let k = self.selected.filter(|_| self.selected_of == Some(operation))?;
        match self.of(operation)? {
            Loaded::Ready(list) => list.get(k).map(|r| (k, r)),
            Loaded::Unavailable(_) => None,
        }
    }

    /// The picture after the fix shown, when it has one.
    pub fn after(&self, operation: usize) -> Option<&AfterFix> {
        self.shown(operation)?.1.answer.as_ref()?.after.as_ref()
    }

    /// Whether the user is typing fixes.
    pub fn prompting(&self) -> bool {
        self.prompt.is_some()
    }

    /// How many fixes an operation has that can be shown on the map.
    fn count(&self, operation: usize) -> usize {
        match self.of(operation) {
            Some(Loaded::Ready(list)) => list.len(),
            _ => 0,
        }
    }

    /// Applies a fixes key for the operation shown; none when the key is not the list's.
    pub(crate) fn update(&mut self, action: Action, operation: usize) -> Option<Outcome> {
        if self.prompt.is_some() {
            return Some(self.type_key(action, operation));
        }
        let n = self.count(operation);
        if self.selected_of != Some(operation) {
            self.selected = None;
            self.selected_of = Some(operation);
        }
        let next = match action {
            Action::NextFix if n > 0 => self.selected.map_or(Some(0), |k| (k + 1 < n).then_some(k + 1)),
            Action::PreviousFix if n > 0 => self.selected.map_or(Some(n - 1), |k| k.checked_sub(1)),
            Action::NextFix | Action::PreviousFix => return Some(Outcome::Message("No fix to show".into())),
            Action::Back if self.selected.is_some() => None,
            Action::WhatIf => {
                self.prompt = Some(String::new());
                return Some(Outcome::None);
            }
            _ => return None,
        };
        self.selected = next;
        Some(Outcome::Message(match next {
            Some(k) => format!("Fix {} of {n} on the map", k + 1),
            None => "The failure as recorded".to_string(),
        }))
    }

    /// A key while typing: characters, backspace, Enter to replay, Esc to close.
    fn type_key(&mut self, action: Action, operation: usize) -> Outcome {
        let Some(text) = self.prompt.as_mut() else { return Outcome::None };
        match action {
            Action::SearchInput(c) if !c.is_control() => text.push(c),
            Action::SearchBackspace => {
                text.pop();
            }
            Action::Back => self.prompt = None,
            Action::SearchConfirm => {
                let parsed: Result<Vec<Fix>, _> =
                    text.split(',').map(str::trim).filter(|t| !t.is_empty()).map(Fix::parse).collect();
                return match parsed {
                    Ok(fixes) if fixes.is_empty() => Outcome::Message("Type a fix, e.g. free 8@10".into()),
                    Ok(fixes) => {
                        self.prompt = None;
                        let said: Vec<String> = fixes.iter().map(ToString::to_string).collect();
                        self.asked.push((operation, fixes));
                        Outcome::Message(format!("Replaying with {}…", said.join(", ")))
                    }
                    Err(e) => Outcome::Message(e.to_string()),
                };
            }
            _ => {}
        }
        Outcome::None
    }
}
