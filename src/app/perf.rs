//! The Performance tab's state: the rows of the active view (devices merged, or per device) with
//! their flags computed once per view, the flagged-only filter, the table's window, and the
//! allocation-failure callout whose listings lead to the Operations tab (docs/rules/reference.md §9–§11).
//! Keys act on what is visibly selected: the table's row, or — after `[`/`]` — the callout's
//! listing.

use super::keys::Action;
use super::tab::{Availability, Outcome};
use super::windowed_rows::WindowedRows;
use crate::analysis::graph::nodes::GraphNode;
use crate::analysis::messages::failure::AllocationFailure;
use crate::analysis::perf::callout::{FailedOperation, FailureListing, LISTED_FAILURES, failure_listings};
use crate::analysis::perf::dram_fallback::DramFallback;
use crate::analysis::perf::flags::{Flag, flags_for_rows};
use crate::analysis::perf::link::{Link, LinkMap, per_device_map};
use crate::analysis::perf::report_rows::PerfRow;
use std::collections::HashMap;

/// A view of the perf rows and the maxCores its flags use.
#[derive(Debug, Clone)]
pub struct PerfRows {
    /// The rows, in the view's order.
    pub(crate) rows: Vec<PerfRow>,
    /// maxCores for the `Few cores` and `Recompute` flags.
    pub max_cores: u64,
}

/// What the Performance tab shows, read and linked by the loop.
#[derive(Debug, Clone)]
pub struct PerfInput {
    /// The CSV's file name.
    pub file_name: String,
    /// Rows with devices merged: the link view.
    pub merged: PerfRows,
    /// Rows per device, when that view differs from the merged one.
    pub per_device: Option<PerfRows>,
    /// The alignment of completed device operations with the merged rows.
    pub link: Link,
    /// Why nothing linked, when nothing did (one line).
    pub unlinked_reason: Option<String>,
    /// The memory report's allocation failures, in operation id order.
    pub failed: Vec<FailedOperation>,
    /// Likely DRAM fallbacks by operation id.
    pub fallbacks: HashMap<u64, DramFallback>,
}

/// Which part of the tab the keys act on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Focus {
    /// The table's selected row.
    Table,
    /// The callout's selected listing.
    Callout,
}

/// The Performance tab over a linked (or unlinkable) performance report.
pub struct PerfTab {
    /// What was read.
    pub(crate) input: PerfInput,
    /// Rows per device instead of merged (`m`).
    pub per_device: bool,
    /// The active view's mapping (docs/rules/reference.md §9.8); empty when not linked.
    pub(crate) map: LinkMap,
    /// The flags of every row of the view.
    pub(crate) flags: Vec<Vec<Flag>>,
    /// Only flagged rows are shown (`f`).
    pub(crate) flagged_only: bool,
    /// Indexes (into the view's rows) of the rows shown.
    pub(crate) shown: Vec<usize>,
    /// The table's window over `shown`.
    pub(crate) table: WindowedRows,
    /// Every allocation failure with its row counts in this view (docs/rules/reference.md §10).
    pub(crate) listings: Vec<FailureListing>,
    /// The callout's items (the listed failures, then `And … more`), fitted when drawn.
    pub(crate) callout: WindowedRows,
    /// The callout shows only its title (`u`).
    pub(crate) callout_folded: bool,
    /// Where the keys go.
    pub(crate) focus: Focus,
    /// Allocation failures by operation id, for `Op failed`.
    failures: HashMap<u64, AllocationFailure>,
    /// Positions (in the view's rows) of the rows with a flag.
    flagged: Vec<usize>,
    /// Merged device time (µs) by row id, for the tree annotations.
    device_times: HashMap<u64, Option<f64>>,
}

/// A time in µs as the table shows it, empty when unknown.
pub fn micros(value: Option<f64>) -> String {
    value.map_or(String::new(), |v| format!("{v:.3} µs"))
}

impl PerfTab {
    /// The tab over what the loop read, devices merged.
    pub fn new(input: PerfInput) -> Self {
        let failures = input.failed.iter().map(|f| (f.id, f.failure.clone())).collect();
        let device_times = input.merged.rows.iter().map(|r| (r.id, r.device_time_us)).collect();
        let mut tab = Self {
            input,
            per_device: false,
            map: LinkMap::default(),
            flags: Vec::new(),
            flagged_only: false,
            shown: Vec::new(),
            table: WindowedRows::default(),
            listings: Vec::new(),
            callout: WindowedRows::default(),
            callout_folded: false,
            focus: Focus::Table,
            failures,
            flagged: Vec::new(),
            device_times,
        };
        tab.build_view();
        tab
    }

    /// Whether the reports are linked (the callout and `Op failed` need it).
    pub fn is_linked(&self) -> bool {
        self.input.link.is_linked()
    }

    /// The rows of the active view.
    pub fn rows(&self) -> &[PerfRow] {
        match (&self.input.per_device, self.per_device) {
            (Some(view), true) => &view.rows,
            _ => &self.input.merged.rows,
        }
    }

    /// How many failures the callout lists (at most five; none when not linked).
    pub fn listed(&self) -> usize {
        if self.is_linked() { self.listings.len().min(LISTED_FAILURES) } else { 0 }
    }

    /// The rows shown, in order (the flagged-only filter applied).
    pub fn shown_rows(&self) -> impl Iterator<Item = &PerfRow> {
        self.shown.iter().map(|&r| &self.rows()[r])
    }

    /// The flags of every row of the view.
    pub fn flags(&self) -> &[Vec<Flag>] {
        &self.flags
    }

    /// Whether the rows are per device.
    pub fn is_per_device(&self) -> bool {
        self.per_device
    }

    /// Whether the callout is there (linked, with allocation failures).
    pub(crate) fn has_callout(&self) -> bool {
        self.listed() > 0
    }

    /// The selected row (index into the view's rows).
    pub fn selected_row(&self) -> Option<usize> {
        self.table.selected().and_then(|p| self.shown.get(p).copied())
    }

    /// The operation a row of the view is linked to.
    pub(crate) fn operation_of(&self, row: usize) -> Option<u64> {
        self.map.operation_of(self.rows()[row].id)
    }

    /// The selected callout item: a listing (index into `listings`), or `None` on `And … more`.
    pub fn selected_listing(&self) -> Option<usize> {
        self.callout.selected().filter(|&k| k < self.listed())
    }

    /// The operation (id) the keys act on: the selected listing's, or the selected row's.
    pub(crate) fn focused_operation(&self) -> Option<u64> {
        match self.focus {
            Focus::Callout => self.selected_listing().map(|k| self.listings[k].operation.id),
            Focus::Table => self.selected_row().and_then(|r| self.operation_of(r)),
        }
    }

    /// Rebuilds the mapping, flags and listings of the active view, keeping the selected row.
    fn build_view(&mut self) {
        let current = self.selected_row().map(|r| self.rows()[r].id);
        let link = &self.input.link;
        let view = match (&self.input.per_device, self.per_device) {
            (Some(view), true) => view,
            _ => &self.input.merged,
        };
        self.map = match (link.is_linked(), self.per_device) {
            (false, _) => LinkMap::default(),
            (true, false) => link.map.clone(),
            (true, true) => per_device_map(&link.map, &view.rows),
        };
        self.flags = flags_for_rows(&view.rows, &self.map, &self.failures, &self.input.fallbacks, view.max_cores);
        self.flagged = (0..view.rows.len()).filter(|&r| !self.flags[r].is_empty()).collect();
        self.listings = failure_listings(&self.input.failed, &link.map, &self.map);
        let more = usize::from(self.is_linked() && self.listings.len() > LISTED_FAILURES);
        let selected = self.callout.selected();
        self.callout = WindowedRows::new(self.listed() + more);
        self.callout.select(selected.unwrap_or(0));
        if self.flagged.is_empty() {
            self.flagged_only = false;
        }
        self.refilter(current, None);
    }

    /// Recomputes the shown rows, selecting the row with id `current`, else the first shown row
    /// at or after row index `near`, else the first.
    fn refilter(&mut self, current: Option<u64>, near: Option<usize>) {
        self.shown = if self.flagged_only { self.flagged.clone() } else { (0..self.rows().len()).collect() };
        let rows = self.rows();
        let position = current
            .and_then(|id| self.shown.iter().position(|&r| rows[r].id == id))
            .or_else(|| near.map(|n| self.shown.partition_point(|&r| r < n)))
            .unwrap_or(0);
        let height = self.table.height();
        self.table = WindowedRows::new(self.shown.len());
        self.table.fit(height, |_| 1);
        self.table.select(position);
    }

    /// Whether an action can do something now.
    pub(crate) fn availability(&self, action: Action, operation_has_error: impl Fn(u64) -> bool) -> Availability {
        let callout = if self.has_callout() { Availability::Enabled } else { Availability::Absent };
        match action {
            Action::NextFailure | Action::PreviousFailure | Action::ToggleCallout => callout,
            Action::TogglePerDevice if self.input.per_device.is_none() => Availability::Disabled,
            Action::ToggleFlaggedOnly => Availability::from(self.flagged_only || !self.flagged.is_empty()),
            Action::Activate => Availability::from(match self.focus {
                Focus::Callout => self.callout.selected().is_some(),
                Focus::Table => self.focused_operation().is_some(),
            }),
            Action::ViewError | Action::Copy => {
                Availability::from(self.focused_operation().is_some_and(operation_has_error))
            }
            _ => Availability::Enabled,
        }
    }

    /// Applies an action on the tab.
    pub(crate) fn update(&mut self, action: Action) -> Outcome {
        if self.table.apply(action) {
            self.focus = Focus::Table;
            return Outcome::None;
        }
        match action {
            Action::ToggleFlaggedOnly => Outcome::Message(self.toggle_flagged_only().to_string()),
            Action::TogglePerDevice => Outcome::Message(self.toggle_per_device().to_string()),
            Action::NextFailure | Action::PreviousFailure | Action::ToggleCallout if !self.has_callout() => {
                Outcome::Message("No allocation failure is listed above the table".to_string())
            }
            Action::NextFailure | Action::PreviousFailure => {
                if self.focus == Focus::Callout && !self.callout_folded {
                    let len = self.callout.len();
                    let k = self.callout.selected().unwrap_or(0);
                    self.callout.select(if action == Action::NextFailure {
                        (k + 1) % len
                    } else {
                        (k + len - 1) % len
                    });
                }
                self.callout_folded = false;
                self.focus = Focus::Callout;
                Outcome::None
            }
            Action::ToggleCallout => {
                self.callout_folded = !self.callout_folded;
                self.focus = Focus::Table;
                Outcome::None
            }
            Action::Back => {
                self.focus = Focus::Table;
                Outcome::None
            }
            Action::Activate => self.activate(),
            _ => Outcome::None,
        }
    }

    /// Enter: the operation of the selected listing or row; `And … more` lists the failures on the
    /// Operations tab.
    fn activate(&self) -> Outcome {
        match (self.focus, self.callout.selected()) {
            (Focus::Callout, Some(k)) if k >= self.listed() => {
                Outcome::ShowErrors(self.listings.get(self.listed()).map(|l| l.operation.id))
            }
            (Focus::Callout, Some(k)) => Outcome::ShowOperation(self.listings[k].operation.id),
            _ => match self.selected_row() {
                Some(r) => match self.operation_of(r) {
                    Some(id) => Outcome::ShowOperation(id),
                    None => Outcome::Message(format!("ID {} is not linked to an operation", self.rows()[r].id)),
                },
                None => Outcome::None,
            },
        }
    }

    /// Shows only flagged rows, or all; the message for the status bar.
    fn toggle_flagged_only(&mut self) -> &'static str {
        if !self.flagged_only && self.flagged.is_empty() {
            return "No row in this view has a flag";
        }
        let current = self.selected_row();
        self.flagged_only = !self.flagged_only;
        self.refilter(current.map(|r| self.rows()[r].id), current);
        if self.flagged_only { "Showing only flagged rows" } else { "Showing all rows" }
    }

    /// Switches between merged and per-device rows; the message for the status bar.
    fn toggle_per_device(&mut self) -> &'static str {
        if self.input.per_device.is_none() {
            return "No per-device view: this performance report has one device";
        }
        self.per_device = !self.per_device;
        self.build_view();
        if self.per_device { "Rows per device" } else { "Devices merged" }
    }

    /// The tree annotations of an operation's captured graph: on each completed device operation
    /// linked to a row, that row's id and device time. Failed device operations never have one.
    pub(crate) fn tree_annotations(&self, operation_id: u64, nodes: &[GraphNode]) -> HashMap<usize, String> {
        let pairs = self.input.link.pairs.iter().filter(|p| p.operation_id == operation_id);
        let rows: HashMap<u64, u64> = pairs.map(|p| (p.start_id, p.row_id)).collect();
        if rows.is_empty() {
            return HashMap::new();
        }
        let annotation = |row: u64| match self.device_times.get(&row).copied().flatten() {
            Some(time) => format!("perf row {row} · {}", micros(Some(time))),
            None => format!("perf row {row}"),
        };
        nodes.iter().enumerate().filter_map(|(k, node)| Some((k, annotation(*rows.get(&node.id())?)))).collect()
    }
}

/// The Performance tab's report: none, being linked on a worker thread, or linked.
pub(crate) enum PerfState {
    /// No performance report was opened.
    None,
    /// Reading and linking `file_name` on a worker thread.
    Linking(String),
    /// Read and linked (or found not to link).
    Ready(Box<PerfTab>),
    /// The memory report could not be read again to link: why.
    Failed(String),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_in_microseconds() {
        assert_eq!(micros(Some(46.21)), "46.210 µs");
        assert_eq!(micros(None), "");
    }
}
