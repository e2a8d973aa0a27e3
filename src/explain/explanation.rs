//! What `explain` prints: the options, the errors collected in print order with the late list
//! and peaks asked for, and what the report could not give, kept for stderr.

use crate::answer::{
    ENTRIES_BESIDE_FROM, Entries, ExplainedError, HeadroomAnswer, LateAnswer, OperationAnswer, PeaksAnswer, Ready,
    Selection, TruePeaks, Unavailable, each_entry, headroom_of, true_peaks_of,
};
use crate::report::perf::linked::LinkedReports;
use crate::report::{MemoryReport, ReportError};
use std::cell::RefCell;
use std::time::Duration;

/// What to print.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ExplainOptions {
    /// Only this operation's block.
    pub operation: Option<u64>,
    /// Hexadecimal addresses.
    pub hex: bool,
    /// Colours in the text (`--color`; never in JSON).
    pub color: bool,
}

/// The errors of a report, in print order, and what else was asked for.
pub struct Explanation<'a> {
    /// The errors to explain.
    pub(crate) selection: Selection<'a>,
    /// Each device's peak use per buffer type (`--peak`), with the region sizes; none without.
    pub peaks: Option<PeaksAnswer>,
    /// The tensors held past their last use (`--late`); none without.
    pub late: Option<LateAnswer>,
    /// For a run without errors: its headroom, its true peaks and tightest operations
    /// ([`Explanation::add_headroom`]).
    pub passing: Option<(HeadroomAnswer, TruePeaks)>,
    /// The sections written so far that the report could not give, with their operation's id
    /// and name (said in place; [`Explanation::read_errors`] gives the ones that fail the run).
    unavailable: RefCell<Vec<(Option<u64>, String, Unavailable)>>,
    /// The operations' entries built ahead of writing, in order ([`Explanation::keep_entries`]);
    /// the writers take them instead of building each as they write it.
    ahead: RefCell<std::vec::IntoIter<OperationAnswer>>,
    /// How long the entries left must be expected to take for a worker to build every second one
    /// ([`crate::answer::each_entry`]).
    beside_from: Duration,
    /// How many entries the worker built as they were written.
    built_beside: std::cell::Cell<usize>,
}

/// Collects what to print; `Err` names an `--operation` id the report does not have. The memory
/// sections are not among it: each is built as its block is written (`answer::Entries`).
pub fn collect<'a>(
    report: &'a MemoryReport,
    linked: Option<&'a LinkedReports>,
    options: &ExplainOptions,
) -> Result<Explanation<'a>, u64> {
    let selection = Selection::collect(report, linked, options.operation)?;
    Ok(Explanation {
        selection,
        peaks: None,
        late: None,
        passing: None,
        unavailable: RefCell::new(Vec::new()),
        ahead: RefCell::new(Vec::new().into_iter()),
        beside_from: ENTRIES_BESIDE_FROM,
        built_beside: std::cell::Cell::new(0),
    })
}

impl Explanation<'_> {
    /// On a run that recorded no error (the whole report explained): reads its events once for
    /// its headroom, its true peaks and its tightest operations (docs/true-peak.md), the answers
    /// `headroom` and `--peak` give.
    pub fn add_headroom(&mut self, report: &MemoryReport, options: &ExplainOptions) -> Result<(), ReportError> {
        let quiet = self.selection.operations().len() == 0 && self.selection.unattached().len() == 0;
        if options.operation.is_some() || !report.records_errors() || !quiet {
            return Ok(());
        }
        let facts = report.passes().run_facts()?;
        self.passing = Some((headroom_of(report, &facts), true_peaks_of(report, &facts)));
        Ok(())
    }

    /// Every operation's entry built now, in print order: what the report's thread does while a
    /// whole-run pass reads on the worker pool (`read_peaks_beside`).
    pub fn entries_ahead(&self, report: &MemoryReport, options: &ExplainOptions) -> Vec<OperationAnswer> {
        let mut entries = Entries::new(report, options.hex);
        self.selection.operations.iter().map(|e| entries.operation(e)).collect()
    }

    /// Keeps entries built by [`Explanation::entries_ahead`] for the writers.
    pub fn keep_entries(&mut self, built: Vec<OperationAnswer>) {
        self.ahead = RefCell::new(built.into_iter());
    }

    /// Builds every second entry on a worker once the entries left are expected to take `from`
    /// (zero: from the first; [`ENTRIES_BESIDE_FROM`] by default): tests and benchmarks set it.
    pub fn build_beside_from(&mut self, from: Duration) {
        self.beside_from = from;
    }

    /// How many entries a worker built while they were written ([`Explanation::build_beside_from`]).
    pub fn built_beside(&self) -> usize {
        self.built_beside.get()
    }

    /// Gives each operation's entry to `write`, in order: those built ahead
    /// ([`Explanation::keep_entries`]) whole, else as `answer::each_entry` builds them. Keeps
    /// what each written entry could not give, and how many a worker built.
    pub(crate) fn each_entry<E>(
        &self,
        report: &MemoryReport,
        hex: bool,
        write: &mut dyn FnMut(Ready<'_, '_>) -> Result<OperationAnswer, E>,
    ) -> Result<(), E> {
        let mut written = |ready: Ready<'_, '_>| {
            let entry = write(ready)?;
            self.note_unavailable(&entry);
            Ok(entry)
        };
        let operations = &self.selection.operations;
        if self.ahead.borrow().len() > 0 {
            let mut entries = Entries::new(report, hex);
            return operations
                .iter()
                .try_for_each(|e| written(Ready::Whole(Box::new(self.entry(&mut entries, e)))).map(drop));
        }
        let beside = each_entry(report, hex, operations, self.beside_from, &mut written)?;
        self.built_beside.set(self.built_beside.get() + beside);
        Ok(())
    }

    /// The entry of `e`: the next one built ahead, else built now by `entries`.
    fn entry(&self, entries: &mut Entries<'_>, e: &ExplainedError<'_>) -> OperationAnswer {
        let ahead = self.ahead.borrow_mut().next();
        ahead.unwrap_or_else(|| entries.operation(e))
    }

    /// Keeps what an entry could not give, once it is written.
    fn note_unavailable(&self, entry: &crate::answer::OperationAnswer) {
        let (id, name) = (entry.error.operation_id, &entry.error.operation_name);
        self.unavailable.borrow_mut().extend(entry.unavailable.iter().map(|u| (id, name.clone(), u.clone())));
    }

    /// After writing: each section the database could not give, as one line for stderr
    /// (`operation 12 ttnn.conv2d: Memory at the failure unavailable: cannot read buffers (…)`).
    /// An invalid captured graph is not among them: its entry says so, and the rest is a
    /// partial answer.
    pub fn read_errors(&self) -> Vec<String> {
        let said = self.unavailable.borrow();
        let operation = |id: &Option<u64>, name: &str| match id {
            Some(id) => format!("operation {id} {name}"),
            None => format!("operation {name}"),
        };
        said.iter()
            .filter(|(_, _, u)| u.is_read_error())
            .map(|(id, name, u)| format!("{}: {}", operation(id, name), u.line()))
            .collect()
    }
}
