//! One kind of background job for the loop: a thread that runs a piece of work with a cancel flag
//! and a progress callback, and sends its progress and result over a channel. Each send wakes the
//! loop (see [`super::events`]), so the loop never polls. A worker is cancelled when dropped, and
//! carries the generation of the report it was started for, so that a result computed for an
//! earlier state of a watched report can be told apart and dropped.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, Sender, TryRecvError, channel};
use std::time::{Duration, Instant};

/// The least time between two progress messages: the loop redraws at most this often for one job.
const PROGRESS_EVERY: Duration = Duration::from_millis(100);

/// Wakes the loop: called after every message a worker sends.
pub type Waker = Arc<dyn Fn() + Send + Sync>;

/// A waker that wakes nobody: for a worker whose owner waits on it directly (benchmarks, tests).
pub fn no_waker() -> Waker {
    Arc::new(|| {})
}

/// What a worker has to say: how far it is, or its result.
#[derive(Debug, PartialEq)]
pub enum Update<T> {
    /// `done` of `total` units (0 when unknown yet).
    Progress {
        /// Units done.
        done: u64,
        /// Units in all.
        total: u64,
    },
    /// The work ended with this result.
    Done(T),
    /// The thread ended without a result (it panicked).
    Lost,
}

/// A job running on its own thread.
pub struct Worker<T> {
    receiver: Receiver<Update<T>>,
    cancel: Arc<AtomicBool>,
    generation: u64,
    finished: bool,
}

/// Sends a worker's progress, at most every 100 ms and always when complete.
struct Progress<T> {
    sender: Sender<Update<T>>,
    waker: Waker,
    last: Option<Instant>,
}

impl<T> Progress<T> {
    fn send(&mut self, done: u64, total: u64) {
        let due = self.last.is_none_or(|t| t.elapsed() >= PROGRESS_EVERY);
        if due || (total > 0 && done >= total) {
            self.last = Some(Instant::now());
            if self.sender.send(Update::Progress { done, total }).is_ok() {
                (self.waker)();
            }
        }
    }
}

impl<T: Send + 'static> Worker<T> {
    /// Starts `work` on a new thread for the report's `generation`. The work gets the cancel flag
    /// (set when the worker is cancelled or dropped) and a progress callback (`done`, `total`);
    /// `waker` is called after every message sent.
    pub fn start(
        generation: u64,
        waker: Waker,
        work: impl FnOnce(&AtomicBool, &mut dyn FnMut(u64, u64)) -> T + Send + 'static,
    ) -> Self {
        let (sender, receiver) = channel();
        let cancel = Arc::new(AtomicBool::new(false));
        let flag = cancel.clone();
        std::thread::spawn(move || {
            // Sends `Lost` if the work panics, so the owner is never left waiting.
            let mut guard = LostGuard { sender: sender.clone(), waker: waker.clone(), armed: true };
            let mut progress = Progress { sender: sender.clone(), waker: waker.clone(), last: None };
            let result = work(&flag, &mut |done, total| progress.send(done, total));
            guard.armed = false;
            // The owner may have dropped the worker: then nobody listens.
            if sender.send(Update::Done(result)).is_ok() {
                waker();
            }
        });
        Self { receiver, cancel, generation, finished: false }
    }
}

impl<T> Worker<T> {
    /// The generation of the report the work was started for.
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// Asks the work to stop; its result (usually a "cancelled" one) still arrives.
    pub fn cancel(&self) {
        self.cancel.store(true, Ordering::Relaxed);
    }

    /// The next thing the worker said, without waiting; `None` when it said nothing new.
    pub fn try_update(&mut self) -> Option<Update<T>> {
        if self.finished {
            return None;
        }
        match self.receiver.try_recv() {
            Ok(update) => {
                self.finished = !matches!(update, Update::Progress { .. });
                Some(update)
            }
            Err(TryRecvError::Empty) => None,
            Err(TryRecvError::Disconnected) => {
                self.finished = true;
                Some(Update::Lost)
            }
        }
    }

    /// Waits for the result, passing over progress; `Lost` if the thread died without one.
    pub fn wait(mut self) -> Update<T> {
        loop {
            match self.receiver.recv() {
                Ok(Update::Progress { .. }) => {}
                Ok(update) => {
                    self.finished = true;
                    return update;
                }
                Err(_) => return Update::Lost,
            }
        }
    }
}

impl<T> Drop for Worker<T> {
    fn drop(&mut self) {
        self.cancel();
    }
}

/// Sends `Lost` when dropped armed: the work panicked before sending its result.
struct LostGuard<T> {
    sender: Sender<Update<T>>,
    waker: Waker,
    armed: bool,
}

impl<T> Drop for LostGuard<T> {
    fn drop(&mut self) {
        if self.armed && self.sender.send(Update::Lost).is_ok() {
            (self.waker)();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;

    #[test]
    fn sends_progress_then_the_result_and_wakes_the_owner_each_time() {
        let wakes = Arc::new(AtomicUsize::new(0));
        let counter = wakes.clone();
        let waker: Waker = Arc::new(move || {
            counter.fetch_add(1, Ordering::SeqCst);
        });
        let worker = Worker::start(7, waker, |_, progress| {
            progress(0, 2);
            progress(2, 2);
            42
        });
        assert_eq!(worker.generation(), 7);
        assert_eq!(worker.wait(), Update::Done(42));
        // Two progress messages (the first, and the last because it is complete) and the result;
        // the last wake comes just after the result is sent.
        let deadline = Instant::now() + Duration::from_secs(30);
        while wakes.load(Ordering::SeqCst) < 3 && Instant::now() < deadline {
            std::thread::yield_now();
        }
        std::thread::sleep(Duration::from_millis(20));
        assert_eq!(wakes.load(Ordering::SeqCst), 3);
    }

    #[test]
    fn dropping_a_worker_cancels_its_work() {
        let (seen_tx, seen_rx) = channel();
        let (started_tx, started_rx) = channel();
        let worker = Worker::start(0, no_waker(), move |cancel, _| {
            started_tx.send(()).unwrap();
            let deadline = Instant::now() + Duration::from_secs(30);
            while !cancel.load(Ordering::Relaxed) && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(1));
            }
            seen_tx.send(cancel.load(Ordering::Relaxed)).unwrap();
        });
        started_rx.recv().unwrap();
        drop(worker);
        assert_eq!(seen_rx.recv_timeout(Duration::from_secs(30)), Ok(true));
    }

    #[test]
    fn a_panicking_job_is_reported_lost_not_waited_for_forever() {
        let worker = Worker::<()>::start(0, no_waker(), |_, _| panic!("job panicked on purpose"));
        assert_eq!(worker.wait(), Update::Lost);
    }

    #[test]
    fn progress_is_rate_limited_but_completion_always_sent() {
        let mut worker = Worker::start(0, no_waker(), |_, progress| {
            for done in 0..=1000 {
                progress(done, 1000);
            }
        });
        let mut progress = Vec::new();
        loop {
            match worker.try_update() {
                Some(Update::Progress { done, .. }) => progress.push(done),
                Some(_) => break,
                None => std::thread::yield_now(),
            }
        }
        assert!(progress.len() < 100, "{} progress messages for a fast job", progress.len());
        assert_eq!(progress.first(), Some(&0));
        assert_eq!(progress.last(), Some(&1000));
    }
}
