//! The Memory tab's state: for the selected operation, the memory at its failure (when it failed
//! to allocate) or its own post-operation snapshot, read once and kept; the holders table's window
//! and order; the device and buffer type chosen with `d` / `t`; and the graph-only replay some
//! failures need, run once per report by the loop.

use super::keys::Action;
use super::loaded::{Loaded, Model};
use super::memory_fixes::FixList;
use super::tab::{Availability, Outcome};
use super::windowed_rows::{Scroll, WindowedRows};
use crate::analysis::memory::{LiveBuffer, MemoryAtFailure, OperationMemory};
use crate::analysis::messages::failure::BufferType;
use std::collections::HashMap;

/// A device and buffer type of a snapshot.
pub type Place = (u64, BufferType);

/// What the Memory tab shows for an operation.
#[derive(Debug, Clone, PartialEq)]
pub enum MemoryPicture {
    /// The memory at the operation's failure.
    Failure(Box<MemoryAtFailure>),
    /// The operation's own post-operation snapshot.
    Operation(Box<OperationMemory>),
    /// The failure's picture needs every earlier graph replayed first.
    NeedsReplay,
    /// Nothing to show, and why.
    Nothing(NoPicture),
}

/// Why an operation has no memory picture.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NoPicture {
    /// It failed to allocate, but the report records neither a `buffers` snapshot nor a
    /// captured graph to rebuild its memory from.
    FailedWithoutRecords,
    /// It failed before allocating (with this error type and first line of its message), and
    /// the report records no buffers after it.
    FailedBeforeAllocating {
        /// The error's type.
        error_type: String,
        /// The first line of its message.
        first_line: String,
    },
    /// It has no buffers recorded after it.
    NoBuffers,
    /// The report did not record it (docs/rules/reference.md §13.5), and the snapshot of the last recorded
    /// operation, its memory when it started, holds no buffer.
    NothingAtStart {
        /// The last recorded operation's id.
        last: u64,
    },
}

impl MemoryPicture {
    /// The live buffers shown, biggest first.
    pub fn live_buffers(&self) -> &[LiveBuffer] {
        match self {
            Self::Failure(m) => &m.live_buffers,
            Self::Operation(m) => &m.live_buffers,
            Self::NeedsReplay | Self::Nothing(_) => &[],
        }
    }
}

/// The live buffers of a picture in the holders table's order: biggest first (as the rules give
/// them), or by address.
pub(crate) fn ordered_holders(picture: &MemoryPicture, by_address: bool) -> Vec<&LiveBuffer> {
    let mut holders: Vec<&LiveBuffer> = picture.live_buffers().iter().collect();
    if by_address {
        holders.sort_by_key(|b| b.address);
    }
    holders
}

/// The Memory tab.
#[derive(Debug, Default)]
pub struct MemoryTab {
    /// Pictures read so far, by operation index and the place asked for (none: the default).
    pictures: HashMap<(usize, Option<Place>), Loaded<MemoryPicture>>,
    /// The place chosen with `d` / `t`, by operation index.
    places: HashMap<usize, Place>,
    /// The holders table's window.
    pub(crate) holders: WindowedRows,
    /// Holders sorted by address (`s`) rather than biggest first.
    pub(crate) by_address: bool,
    /// The picture the holders window is over.
    holders_of: Option<(usize, Option<Place>)>,
    /// The fixes of the failures shown, replayed.
    pub(crate) fixes: FixList,
    /// The advice text's scroll (`J`/`K`), over the picture the holders window is over.
    pub(crate) advice: AdviceScroll,
}

/// Where the advice text above the map stands: its scroll, and whether the next draw brings the
/// fix on the map into view (`f`/`F` chose one).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct AdviceScroll {
    /// The first line shown.
    pub(crate) scroll: Scroll,
    /// The fix chosen last is to be brought into view.
    pub(crate) reveal_fix: bool,
}

impl MemoryTab {
    /// The key of the picture shown for an operation.
    fn key(&self, operation: usize) -> (usize, Option<Place>) {
        (operation, self.places.get(&operation).copied())
    }

    /// The picture of an operation, once read.
    pub(crate) fn picture(&self, operation: usize) -> Option<&Loaded<MemoryPicture>> {
        self.pictures.get(&self.key(operation))
    }

    /// What to read for an operation, when it is not read yet: the place asked for, and whether
    /// to ask for the failure's picture (an allocation failure, default place).
    pub(crate) fn wanted(&self, operation: usize, model: &Model) -> Option<(Option<Place>, bool)> {
        let key = self.key(operation);
        if self.pictures.contains_key(&key) {
            return None;
        }
        let failed = model.error_of(operation).is_some_and(|e| e.failure.is_some());
        Some((key.1, failed && key.1.is_none()))
    }

    /// Keeps a picture read by the loop (for a failure without a picture of its own, the loop
    /// reads the operation's snapshot instead).
    pub(crate) fn deliver(&mut self, operation: usize, place: Option<Place>, picture: Loaded<MemoryPicture>) {
        self.pictures.insert((operation, place), picture);
    }

    /// Whether a picture read waits for every graph replayed.
    pub(crate) fn needs_replay(&self) -> bool {
        self.pictures.values().any(|p| *p == Loaded::Ready(MemoryPicture::NeedsReplay))
    }

    /// The replay landed: pictures that waited for it are read again.
    pub(crate) fn replay_landed(&mut self) {
        self.pictures.retain(|_, p| *p != Loaded::Ready(MemoryPicture::NeedsReplay));
    }

    /// The holders of an operation's picture in the table's order.
    pub(crate) fn ordered_holders<'a>(&self, picture: &'a MemoryPicture) -> Vec<&'a LiveBuffer> {
        ordered_holders(picture, self.by_address)
    }

    /// The picture of an operation and the holders window over it, borrowed together for
    /// drawing (the window is fitted to the table as it is drawn).
    pub(crate) fn drawn(
        &mut self,
        operation: usize,
    ) -> (Option<&Loaded<MemoryPicture>>, &mut WindowedRows, &FixList, &mut AdviceScroll) {
        let key = self.key(operation);
        (self.pictures.get(&key), &mut self.holders, &self.fixes, &mut self.advice)
    }

    /// The selected holder of an operation's picture.
    pub(crate) fn selected_holder<'a>(&self, picture: &'a MemoryPicture) -> Option<&'a LiveBuffer> {
        self.holders.selected().and_then(|k| self.ordered_holders(picture).get(k).copied())
    }

    /// Keeps the holders window over the picture of `operation`, resetting it when the picture
    /// changed.
    pub(crate) fn follow(&mut self, operation: usize) {
        let key = Some(self.key(operation));
        let len = key.and_then(|k| self.pictures.get(&k)).map_or(0, |p| match p {
            Loaded::Ready(picture) => picture.live_buffers().len(),
            Loaded::Unavailable(_) => 0,
        });
        if key != self.holders_of || len != self.holders.len() {
            if key != self.holders_of {
                self.advice = AdviceScroll::default();
            }
            self.holders_of = key;
            self.holders = WindowedRows::new(len);
        }
    }

    /// Scrolls the advice text by `lines`; the fix on the map no longer pulls it back.
    fn scroll_advice(&mut self, lines: isize) -> Outcome {
        self.advice.reveal_fix = false;
        self.advice.scroll.by(lines);
        Outcome::None
    }

    /// The places an operation's snapshot holds (the failure's is fixed).
    fn places_of(&self, operation: usize) -> Option<(&[Place], Place)> {
        match self.picture(operation)? {
            Loaded::Ready(MemoryPicture::Operation(m)) => Some((&m.places, (m.device_id, m.buffer_type))),
            _ => None,
        }
    }

    /// The next place whose device (`d`) or buffer type (`t`) differs from the shown one.
    fn next_place(&self, operation: usize, device: bool) -> Option<Place> {
        let (places, (d, t)) = self.places_of(operation)?;
        let candidates: Vec<Place> = if device {
            let mut devices: Vec<u64> = places.iter().map(|p| p.0).collect();
            devices.dedup();
            let next = devices.iter().position(|&x| x == d).map(|k| devices[(k + 1) % devices.len()])?;
            // Keep the buffer type on the next device when it has one.
            places.iter().filter(|p| p.0 == next).copied().collect::<Vec<_>>()
        } else {
            let types: Vec<Place> = places.iter().filter(|p| p.0 == d).copied().collect();
            let k = types.iter().position(|p| p.1 == t)?;
            vec![types[(k + 1) % types.len()]]
        };
        let choice = candidates.iter().find(|p| p.1 == t).or(candidates.first()).copied()?;
        (choice != (d, t)).then_some(choice)
    }

    /// Whether an action can do something now.
    pub(crate) fn availability(&self, action: Action, operation: Option<usize>) -> Availability {
        let picture = operation.and_then(|i| match self.picture(i) {
            Some(Loaded::Ready(p)) => Some(p),
            _ => None,
        });
        let enabled = match action {
            Action::Activate => {
                picture.and_then(|p| self.selected_holder(p)).is_some_and(|b| b.producer_operation_id.is_some())
            }
            Action::NextDevice => operation.is_some_and(|i| self.next_place(i, true).is_some()),
            Action::NextBufferType => operation.is_some_and(|i| self.next_place(i, false).is_some()),
            Action::ToggleSort => picture.is_some_and(|p| p.live_buffers().len() > 1),
            Action::NextFix | Action::PreviousFix | Action::WhatIf => {
                operation.is_some_and(|i| matches!(self.fixes.of(i), Some(Loaded::Ready(list)) if !list.is_empty()))
            }
            _ => true,
        };
        Availability::from(enabled)
    }

    /// Applies an action on the tab, for the selected operation.
    pub(crate) fn update(&mut self, action: Action, operation: Option<usize>) -> Outcome {
        match action {
            Action::ScrollDetailDown => return self.scroll_advice(1),
            Action::ScrollDetailUp => return self.scroll_advice(-1),
            Action::NextFix | Action::PreviousFix | Action::Back => self.advice.reveal_fix = true,
            _ => {}
        }
        if let Some(i) = operation
            && matches!(self.picture(i), Some(Loaded::Ready(MemoryPicture::Failure(_))))
            && let Some(outcome) = self.fixes.update(action, i)
        {
            return outcome;
        }
        if self.holders.apply(action) {
            return Outcome::None;
        }
        let Some(i) = operation else { return Outcome::None };
        match action {
            Action::ToggleSort => {
                self.by_address = !self.by_address;
                self.holders.select(0);
                let order = if self.by_address { "by address" } else { "biggest first" };
                Outcome::Message(format!("Holders {order}"))
            }
            Action::NextDevice | Action::NextBufferType => {
                let device = action == Action::NextDevice;
                match self.next_place(i, device) {
                    Some(place) => {
                        self.places.insert(i, place);
                        Outcome::Message(format!("Device {} · {}", place.0, place.1.label()))
                    }
                    None if matches!(self.picture(i), Some(Loaded::Ready(MemoryPicture::Failure(_)))) => {
                        Outcome::Message("The failure's device and buffer type are those it failed on".to_string())
                    }
                    None => Outcome::Message(format!(
                        "This snapshot has only one {}",
                        if device { "device" } else { "buffer type on this device" }
                    )),
                }
            }
            Action::Activate => {
                let picture = match self.picture(i) {
                    Some(Loaded::Ready(p)) => p,
                    _ => return Outcome::None,
                };
                match self.selected_holder(picture) {
                    Some(b) => match (b.producer_operation_id, b.tensor_id) {
                        (Some(id), _) => Outcome::ShowOperation(id),
                        (None, Some(t)) => {
                            Outcome::Message(format!("Tensor {t} was not produced by a recorded operation"))
                        }
                        (None, None) => Outcome::Message("No tensor is recorded at this address".to_string()),
                    },
                    None => Outcome::None,
                }
            }
            _ => Outcome::None,
        }
    }
}
