//! What the loop waits on: the terminal's events, read on a thread of their own, and the wake-ups
//! of workers, both on one channel. The loop blocks on it, so an idle UI uses no CPU — with or
//! without a job running — and wakes only for a key, a resize, a worker's message, or the next
//! poll of a watched report.

use super::worker::Waker;
use ratatui::crossterm::event::{self, Event};
use std::sync::Arc;
use std::sync::mpsc::{Receiver, Sender, channel};
use std::time::Duration;

/// Something that woke the loop.
#[derive(Debug)]
pub(crate) enum Wake {
    /// A terminal event.
    Terminal(Event),
    /// Reading the terminal failed: the loop ends with this error.
    TerminalFailed(std::io::Error),
    /// A worker sent something.
    Worker,
}

/// The loop's one source of events.
pub(crate) struct Events {
    sender: Sender<Wake>,
    receiver: Receiver<Wake>,
}

impl Events {
    /// Starts reading the terminal on a thread. The thread blocks in the terminal read until the
    /// next event; it ends with the process.
    pub(crate) fn start() -> Self {
        let (sender, receiver) = channel();
        let terminal = sender.clone();
        std::thread::spawn(move || {
            loop {
                let wake = match event::read() {
                    Ok(event) => Wake::Terminal(event),
                    Err(e) => Wake::TerminalFailed(e),
                };
                let failed = matches!(wake, Wake::TerminalFailed(_));
                if terminal.send(wake).is_err() || failed {
                    return;
                }
            }
        });
        Self { sender, receiver }
    }

    /// A waker for a worker: each call wakes the loop once.
    pub(crate) fn waker(&self) -> Waker {
        let sender = self.sender.clone();
        Arc::new(move || drop(sender.send(Wake::Worker)))
    }

    /// Waits for the next wake-up, at most `timeout` when given (then `None` if nothing came), and
    /// takes every other one already queued.
    pub(crate) fn wait(&self, timeout: Option<Duration>) -> Vec<Wake> {
        let first = match timeout {
            None => self.receiver.recv().ok(),
            Some(timeout) => self.receiver.recv_timeout(timeout).ok(),
        };
        let mut wakes: Vec<Wake> = first.into_iter().collect();
        if !wakes.is_empty() {
            wakes.extend(self.receiver.try_iter());
        }
        wakes
    }
}
