//! The loaded model the tabs share: the report's operations and errors, what is derived from them
//! once (unattached errors, failed device operations), and the per-operation details read so far.
//! The loop fills it; the tabs only read it.

use crate::analysis::messages::failure::FailureKind;
use crate::analysis::model::{ErrorRecord, Operation, operation_index};
use crate::analysis::stack::source_label;
use std::collections::HashMap;

/// Something read for the UI, or why it could not be read.
#[derive(Debug, Clone, PartialEq)]
pub enum Loaded<T> {
    /// Read.
    Ready(T),
    /// Could not be read; the reason, as shown.
    Unavailable(String),
}

/// The memory report as the UI shows it.
#[derive(Debug, Clone)]
pub struct Model {
    /// The report's display name.
    pub name: String,
    /// Operations, sorted by id.
    pub operations: Vec<Operation>,
    /// Error rows of the report.
    pub errors: Vec<ErrorRecord>,
    /// Indexes (into `errors`) of the unattached errors, in table order.
    pub(crate) unattached: Vec<usize>,
    /// Failed device operations (docs/rules/reference.md §3.5) of the operations with an error, or why
    /// their graph could not be read.
    pub(crate) failed_in: HashMap<usize, Result<Vec<String>, String>>,
    /// Indexes of the operations with an error.
    pub(crate) error_operations: Vec<usize>,
    /// Stack traces read so far (operation index → text, empty when none is stored).
    pub(crate) stack_traces: HashMap<usize, String>,
    /// Arguments read so far.
    pub(crate) arguments: HashMap<usize, Loaded<Vec<(String, String)>>>,
    /// Why stack traces cannot be read, once a read failed (no more are asked for).
    pub(crate) stack_trace_error: Option<String>,
    /// False for a report older than the `errors` table: no error is not the same as none.
    pub(crate) errors_recorded: bool,
    /// The path of the log given beside the report (`--log`), sanitised; none without.
    pub(crate) log_path: Option<String>,
    /// False when the report records no stack trace at all: no line of the model can be named.
    pub(crate) stack_traces_recorded: bool,
}

impl Model {
    /// The model of a report: its name, operations (sorted by id), error rows, and the failed
    /// device operations of each operation with an error (by operation index).
    pub fn new(
        name: String,
        operations: Vec<Operation>,
        errors: Vec<ErrorRecord>,
        failed_in: HashMap<usize, Result<Vec<String>, String>>,
    ) -> Self {
        let unattached = (0..errors.len()).filter(|&e| !errors[e].attached).collect();
        let error_operations = (0..operations.len()).filter(|&i| operations[i].error.is_some()).collect();
        Self {
            name,
            operations,
            errors,
            unattached,
            failed_in,
            error_operations,
            stack_traces: HashMap::new(),
            arguments: HashMap::new(),
            stack_trace_error: None,
            errors_recorded: true,
            log_path: None,
            stack_traces_recorded: true,
        }
    }

    /// The model of a report read with a log beside it (`--log`), and whether the report records
    /// any stack trace.
    pub fn with_log_and_traces(mut self, log_path: Option<String>, stack_traces_recorded: bool) -> Self {
        self.log_path = log_path;
        self.stack_traces_recorded = stack_traces_recorded;
        self
    }

    /// The model of a report version that does not record errors (no `errors` table), or does.
    pub fn with_errors_recorded(mut self, recorded: bool) -> Self {
        self.errors_recorded = recorded;
        self
    }

    /// Takes a watched report's new state: its operations, errors and the failed device
    /// operations of those with an error. Details read so far are kept, unless operations were
    /// reordered (their indexes changed).
    pub(crate) fn replace(
        &mut self,
        operations: Vec<Operation>,
        errors: Vec<ErrorRecord>,
        failed_in: HashMap<usize, Result<Vec<String>, String>>,
        reordered: bool,
    ) {
        // Error rows arriving prove the table is there now.
        let recorded = self.errors_recorded || !errors.is_empty();
        let mut fresh = Self::new(std::mem::take(&mut self.name), operations, errors, failed_in);
        fresh.errors_recorded = recorded;
        fresh.log_path = self.log_path.take();
        fresh.stack_traces_recorded = self.stack_traces_recorded;
        if !reordered {
            fresh.stack_traces = std::mem::take(&mut self.stack_traces);
            fresh.arguments = std::mem::take(&mut self.arguments);
        }
        *self = fresh;
    }

    /// Index of the operation with this id.
    pub fn operation_index(&self, id: u64) -> Option<usize> {
        operation_index(&self.operations, id)
    }

    /// The error attached to an operation.
    pub fn error_of(&self, operation: usize) -> Option<&ErrorRecord> {
        self.operations[operation].error.and_then(|e| self.errors.get(e))
    }

    /// The failed device operations of an operation (empty when none is known).
    pub(crate) fn failed_in(&self, operation: usize) -> &[String] {
        match self.failed_in.get(&operation) {
            Some(Ok(names)) => names,
            _ => &[],
        }
    }

    /// Why an operation's failed device operations are unknown: its graph could not be read.
    pub(crate) fn failed_in_unavailable(&self, operation: usize) -> Option<&str> {
        match self.failed_in.get(&operation) {
            Some(Err(reason)) => Some(reason),
            _ => None,
        }
    }

    /// Indexes of the operations with an error, in id order.
    pub(crate) fn error_operations(&self) -> &[usize] {
        &self.error_operations
    }

    /// Indexes (into `errors`) of the errors no operation picked.
    pub(crate) fn unattached(&self) -> &[usize] {
        &self.unattached
    }

    /// `{file}:{line}` of an operation, once its stack trace is read (docs/rules/reference.md §1.5).
    pub(crate) fn source_label(&self, operation: usize) -> Option<String> {
        self.stack_traces.get(&operation).and_then(|t| source_label(t))
    }

    /// The error marker of a list row: a glyph and a word that survive without colour.
    pub(crate) fn marker(&self, operation: usize) -> Option<&'static str> {
        let error = self.error_of(operation)?;
        Some(match error.failure.as_ref().map(|f| f.kind) {
            Some(FailureKind::BankOutOfMemory | FailureKind::BankOutOfMemoryWithDependencies) => "✖ OOM",
            Some(
                FailureKind::CircularBuffersBeyondL1
                | FailureKind::CircularBuffersClash
                | FailureKind::CircularBufferExceedsItsBuffer,
            ) => "✖ CB",
            None => "✖ error",
        })
    }
}
