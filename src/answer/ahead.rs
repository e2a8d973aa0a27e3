//! Entries built on two threads (docs/performance.md): with two cores or more, once the entries
//! have taken a while and two failures or more remain, every second entry of the rest is built on
//! a worker thread reading a second connection to the report ([`MemoryReport::second`]), its
//! memory found and its fixes replayed there, while this thread builds and writes the others.
//! The entries are given in order, each the same as [`Entries::operation`] builds it.

use super::entry::{Entries, Found, OperationAnswer, Picture};
use super::memory::WrittenMemory;
use super::select::ExplainedError;
use crate::analysis::memory::whatif::ReplayedAdvice;
use crate::report::{MemoryReport, ReportError};
use std::sync::mpsc::{Receiver, sync_channel};
use std::thread::{Scope, ScopedJoinHandle};
use std::time::{Duration, Instant};

/// A failure's fixes, replayed (or why they could not be).
type Fixes = Result<Vec<ReplayedAdvice>, ReportError>;

/// How long the entries still to build must be expected to take (at the pace of those built since
/// the first, which alone reads what every later one shares) for a worker to take every second
/// one: below it a second connection, its thread and its own caches cost more than they save
/// (the 20 failures of a 10 M-row report take about 3.5 ms each after the first, and a worker
/// bought no time there).
pub const ENTRIES_BESIDE_FROM: Duration = Duration::from_millis(100);

/// Builds the entries of `errors` in order and gives each to `write` as it is ready: the whole
/// entry, or a failure's memory whose fixes are to replay or already replayed ([`Finishing`]).
/// With two threads or more, once the entries left are expected to take `from` (zero: at once)
/// and two failures or more remain, a worker builds every second entry of the rest. `write`
/// gives the entry back once written; the first error it returns stops the building. Says how
/// many entries the worker built.
pub fn each_entry<E>(
    report: &MemoryReport,
    hex: bool,
    errors: &[ExplainedError<'_>],
    from: Duration,
    write: &mut dyn FnMut(Ready<'_, '_>) -> Result<OperationAnswer, E>,
) -> Result<usize, E> {
    let mut entries = Entries::new(report, hex);
    let mut first_built: Option<Instant> = None;
    let mut failures_left = errors.iter().filter(|e| e.failure.is_some()).count();
    std::thread::scope(|s| {
        let (mut worker, mut asked, mut beside) = (None, false, 0);
        for (k, e) in errors.iter().enumerate() {
            if !asked
                && failures_left >= 2
                && report.threads() >= 2
                && worth_a_worker(from, first_built.map(|t| t.elapsed()), k, errors.len())
            {
                // The worker takes the entries after this one at odd distances from it.
                asked = true;
                worker = report.second().map(|second| (k, start_worker(s, second, hex, &errors[k + 1..])));
            }
            failures_left -= usize::from(e.failure.is_some());
            match &mut worker {
                Some((start, (received, thread))) if (k - *start) % 2 == 1 => {
                    let Ok(next) = received.recv() else {
                        // The worker sends each of its entries unless it panicked: raise its panic here.
                        let ended = thread.take().and_then(|t| t.join().err());
                        std::panic::resume_unwind(ended.unwrap_or_else(|| Box::new("the entries' worker ended early")))
                    };
                    write_built(&entries, next, write)?;
                    beside += 1;
                }
                _ => {
                    build_here(report, &mut entries, e, write)?;
                }
            }
            first_built = first_built.or_else(|| Some(Instant::now()));
        }
        Ok(beside)
    })
}

/// Whether the entries from the `k`th of `n` are expected to take `from`, at the pace of those
/// built in the time since the first was built (`since_first`).
fn worth_a_worker(from: Duration, since_first: Option<Duration>, k: usize, n: usize) -> bool {
    let count = |c: usize| u32::try_from(c).unwrap_or(u32::MAX);
    match since_first {
        _ if from.is_zero() => true,
        Some(since) if k >= 2 => since / count(k - 1) * count(n - k) >= from,
        _ => false,
    }
}

/// The worker's channel and thread.
type Worker<'s> = (Receiver<Built>, Option<ScopedJoinHandle<'s, ()>>);

/// Starts a worker building every second entry of `rest`, from its first, on `second`; one
/// entry ahead at most (it holds its next while this thread writes).
fn start_worker<'s>(
    s: &'s Scope<'s, '_>,
    second: MemoryReport,
    hex: bool,
    rest: &'s [ExplainedError<'_>],
) -> Worker<'s> {
    let (built, received) = sync_channel::<Built>(0);
    let thread = s.spawn(move || {
        let mut beside = Entries::new(&second, hex);
        for e in rest.iter().step_by(2) {
            if built.send(second.in_one_read(|| Built::new(&mut beside, e))).is_err() {
                return;
            }
        }
    });
    (received, Some(thread))
}

/// Gives an entry the worker built to `write`.
fn write_built<E>(
    entries: &Entries<'_>,
    built: Built,
    write: &mut dyn FnMut(Ready<'_, '_>) -> Result<OperationAnswer, E>,
) -> Result<OperationAnswer, E> {
    match built {
        Built::Whole(entry) => write(Ready::Whole(entry)),
        Built::Found(found, fixes) => write(Ready::Found(Finishing { found, fixes: Replayed(entries, fixes) })),
    }
}

/// Builds the entry of `e` here, in one read, and gives it to `write`.
fn build_here<E>(
    report: &MemoryReport,
    entries: &mut Entries<'_>,
    e: &ExplainedError<'_>,
    write: &mut dyn FnMut(Ready<'_, '_>) -> Result<OperationAnswer, E>,
) -> Result<OperationAnswer, E> {
    report.in_one_read(|| match entries.picture(e) {
        Picture::Whole(entry) => write(Ready::Whole(entry)),
        Picture::Found(found) => write(Ready::Found(Finishing { found, fixes: Here(entries) })),
    })
}

/// An entry built on the worker: whole, or a failure's memory with its fixes replayed.
enum Built {
    Whole(Box<OperationAnswer>),
    Found(Box<Found>, Fixes),
}

impl Built {
    /// The entry of `e` as far as `entries` builds it without laying its memory out.
    fn new(entries: &mut Entries<'_>, e: &ExplainedError<'_>) -> Self {
        match entries.picture(e) {
            Picture::Whole(entry) => Built::Whole(entry),
            Picture::Found(found) => {
                let fixes = entries.fixes_of(&found);
                Built::Found(found, fixes)
            }
        }
    }
}

/// An entry ready to be written.
pub enum Ready<'a, 'r> {
    /// The whole entry.
    Whole(Box<OperationAnswer>),
    /// A failure's memory found, its fixes to replay or replayed.
    Found(Finishing<'a, 'r>),
}

/// A failure's memory found, and where its fixes come from.
pub struct Finishing<'a, 'r> {
    found: Box<Found>,
    fixes: Source<'a, 'r>,
}

use Source::{Here, Replayed};

/// Where a failure's fixes come from.
enum Source<'a, 'r> {
    /// To replay on this thread by the entries' own sections.
    Here(&'a mut Entries<'r>),
    /// Replayed on the worker.
    Replayed(&'a Entries<'r>, Fixes),
}

impl Finishing<'_, '_> {
    /// The entry without its memory section.
    pub fn entry(&self) -> &OperationAnswer {
        self.found.entry()
    }

    /// How many buffers were live at the failure: what laying its memory out costs.
    pub fn live_buffers(&self) -> usize {
        self.found.live_buffers()
    }

    /// The whole entry: its fixes replayed, its memory's answer built.
    pub fn finish(self) -> OperationAnswer {
        match self.fixes {
            Here(entries) => entries.finish(self.found),
            Replayed(entries, fixes) => entries.finish_with(self.found, fixes),
        }
    }

    /// The entry without its memory's answer, which `beside` was given as it is written
    /// ([`MemoryAnswer::written`]), on another thread while the fixes replay when they are still
    /// to replay; and what `beside` gave.
    pub fn finish_beside<R: Send>(self, beside: impl FnOnce(&WrittenMemory<'_>) -> R + Send) -> (OperationAnswer, R) {
        match self.fixes {
            Here(entries) => entries.finish_beside(self.found, beside),
            Replayed(entries, fixes) => entries.finish_beside_with(self.found, fixes, beside),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_worker_when_the_entries_left_are_expected_to_take_long_enough() {
        let ms = Duration::from_millis;
        // 3.5 ms an entry after the first: 17 entries left take 59.5 ms, 77 take 269.5 ms.
        assert!(!worth_a_worker(ENTRIES_BESIDE_FROM, Some(ms(7)), 3, 20));
        assert!(worth_a_worker(ENTRIES_BESIDE_FROM, Some(ms(7)), 3, 80));
        // Not before two entries are built (the first reads what the others share), unless asked.
        assert!(!worth_a_worker(ENTRIES_BESIDE_FROM, None, 0, 80));
        assert!(!worth_a_worker(ENTRIES_BESIDE_FROM, Some(ms(500)), 1, 80));
        assert!(worth_a_worker(Duration::ZERO, None, 0, 2));
    }
}
