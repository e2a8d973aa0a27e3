//! The Performance tab's state: the rows of the active view (devices merged, or per device), their
//! flags computed once per view, the flagged-only filter, the table's window, and the
//! allocation-failure callout whose listings lead to the Operations tab (behaviour.md §9–§11).

use super::{Action, App, Tab};
use crate::analysis::failure::AllocationFailure;
use crate::analysis::flags::{Flag, flags_for_rows};
use crate::analysis::graph::GraphNode;
use crate::analysis::link::{LinkMap, LinkState, per_device_map};
use crate::analysis::perf_callout::{FailureListing, LISTED_FAILURES, PerfCallout, failure_listings, perf_callout};
use crate::analysis::perf_rows::PerfRow;
use crate::report::linked::LinkedReports;
use ratatui::crossterm::event::KeyCode;
use std::collections::HashMap;

/// What the Performance tab says when no performance report was opened.
pub const NO_PERF_REPORT: &str = "No performance report loaded — pass --perf";

/// Annotations of a device-operations tree: scope start position → `perf row {id} · {time}`.
pub type TreeAnnotations = HashMap<usize, String>;

/// The table's window: shown row indexes (into the view's rows), selection and scroll offset.
#[derive(Debug, Clone, Default)]
pub struct TableView {
    /// Indexes of the rows shown, in order.
    pub shown: Vec<usize>,
    /// Position of the selected row in `shown`.
    pub selected: usize,
    /// Position of the first visible row in `shown`.
    pub offset: usize,
    /// Rows that fit, from the last draw.
    pub height: usize,
}

/// A performance report opened with the memory report, and where the user is in its table.
pub struct PerfTab {
    /// Both reports and their link.
    pub linked: LinkedReports,
    /// Rows per device instead of merged (`m`).
    pub per_device: bool,
    /// The rows of the active view.
    pub rows: Vec<PerfRow>,
    /// The active view's mapping (behaviour.md §9.8); empty when the reports are not linked.
    pub map: LinkMap,
    /// The flags of every row of the view, computed once per view.
    pub flags: Vec<Vec<Flag>>,
    /// Only flagged rows are shown (`f`).
    pub flagged_only: bool,
    /// The table's window.
    pub table: TableView,
    /// Every allocation failure with its row counts in this view (behaviour.md §10).
    pub listings: Vec<FailureListing>,
    /// The selected listing of the callout.
    pub listing: usize,
    /// Scroll of the callout in lines, kept by the draw so the selected listing shows.
    pub callout_scroll: usize,
    /// Allocation failures by operation id, for `Op failed`.
    failures: HashMap<u64, AllocationFailure>,
    /// Positions (in `rows`) of the rows with a flag.
    flagged: Vec<usize>,
    /// Merged device time (µs) by row id, for the tree annotations.
    device_times: HashMap<u64, Option<f64>>,
}

/// A time in µs as the table shows it, empty when unknown.
pub fn micros(value: Option<f64>) -> String {
    value.map_or(String::new(), |v| format!("{v:.3} µs"))
}

impl PerfTab {
    /// The tab over linked reports, devices merged.
    pub fn new(linked: LinkedReports) -> Self {
        let failures = linked.failed.iter().map(|f| (f.id, f.failure.clone())).collect();
        let device_times = linked.rows.iter().map(|r| (r.id, r.device_time_us)).collect();
        let mut tab = Self {
            linked,
            per_device: false,
            rows: Vec::new(),
            map: LinkMap::default(),
            flags: Vec::new(),
            flagged_only: false,
            table: TableView::default(),
            listings: Vec::new(),
            listing: 0,
            callout_scroll: 0,
            failures,
            flagged: Vec::new(),
            device_times,
        };
        tab.build_view();
        tab
    }

    /// `linked` or `unlinked`.
    pub fn state(&self) -> LinkState {
        self.linked.state()
    }

    /// Whether the reports are linked (the callout and `Op failed` need it).
    pub fn is_linked(&self) -> bool {
        self.linked.link.is_linked()
    }

    /// The callout above the table, when linked and the memory report has allocation failures.
    pub fn callout(&self, hex: bool) -> Option<PerfCallout> {
        perf_callout(&self.listings, self.is_linked(), hex)
    }

    /// How many listings the callout shows (at most five; none when not linked).
    pub fn listed(&self) -> usize {
        if self.is_linked() { self.listings.len().min(LISTED_FAILURES) } else { 0 }
    }

    /// Whether a per-device view differs from the merged one.
    pub fn has_per_device_view(&self) -> bool {
        self.linked.perf.has_per_device_view()
    }

    /// Whether any row of the view has a flag.
    pub fn has_flags(&self) -> bool {
        !self.flagged.is_empty()
    }

    /// The selected row (index into `rows`).
    pub fn selected_row(&self) -> Option<usize> {
        self.table.shown.get(self.table.selected).copied()
    }

    /// The operation a row of the view is linked to.
    pub fn operation_of(&self, row: usize) -> Option<u64> {
        self.map.operation_of(self.rows[row].id)
    }

    /// Rebuilds the rows, mapping, flags and listings of the active view, keeping the selected
    /// row when it is still shown.
    fn build_view(&mut self) {
        let current = self.selected_row().map(|r| self.rows[r].id);
        let link = &self.linked.link;
        self.rows = if self.per_device { self.linked.perf.rows(false) } else { self.linked.rows.clone() };
        self.map = match (link.is_linked(), self.per_device) {
            (false, _) => LinkMap::default(),
            (true, false) => link.map.clone(),
            (true, true) => per_device_map(&link.map, &self.rows),
        };
        let max_cores = self.linked.perf.max_cores(&self.rows);
        let fallbacks = &self.linked.fallbacks;
        self.flags = flags_for_rows(&self.rows, &self.map, &self.failures, fallbacks, max_cores);
        self.flagged = (0..self.rows.len()).filter(|&r| !self.flags[r].is_empty()).collect();
        self.listings = failure_listings(&self.linked.failed, &link.map, &self.map);
        self.listing = self.listing.min(self.listed().saturating_sub(1));
        if self.flagged.is_empty() {
            self.flagged_only = false;
        }
        self.refilter(current, None);
    }

    /// Recomputes the shown rows, selecting the row with id `current`, else the first shown row
    /// at or after row index `near` (the same view), else the first.
    fn refilter(&mut self, current: Option<u64>, near: Option<usize>) {
        self.table.shown = if self.flagged_only { self.flagged.clone() } else { (0..self.rows.len()).collect() };
        let (rows, shown) = (&self.rows, &self.table.shown);
        let position = current
            .and_then(|id| shown.iter().position(|&r| rows[r].id == id))
            .or_else(|| near.map(|n| shown.partition_point(|&r| r < n)))
            .unwrap_or(0);
        self.table.offset = 0;
        self.select(position);
    }

    /// Selects a row of the table (clamped) and scrolls it into view.
    pub fn select(&mut self, position: usize) {
        let table = &mut self.table;
        table.selected = position.min(table.shown.len().saturating_sub(1));
        let height = table.height.max(1);
        if table.selected < table.offset {
            table.offset = table.selected;
        } else if table.selected >= table.offset + height {
            table.offset = table.selected + 1 - height;
        }
    }

    /// Shows only flagged rows, or all; the message for the status bar.
    pub fn toggle_flagged_only(&mut self) -> &'static str {
        if !self.flagged_only && !self.has_flags() {
            return "No row in this view has a flag";
        }
        let current = self.selected_row();
        self.flagged_only = !self.flagged_only;
        self.refilter(current.map(|r| self.rows[r].id), current);
        if self.flagged_only { "Showing only flagged rows" } else { "Showing all rows" }
    }

    /// Switches between merged and per-device rows; the message for the status bar.
    pub fn toggle_per_device(&mut self) -> &'static str {
        if !self.has_per_device_view() {
            return "No per-device view: this performance report has one device";
        }
        self.per_device = !self.per_device;
        self.build_view();
        if self.per_device { "Rows per device" } else { "Devices merged" }
    }

    /// The tree annotations of an operation's captured graph: on each completed device operation
    /// linked to a row, that row's id and device time. Failed device operations never have one.
    pub fn tree_annotations(&self, operation_id: u64, nodes: &[GraphNode]) -> TreeAnnotations {
        let rows: HashMap<u64, u64> = self
            .linked
            .link
            .pairs
            .iter()
            .filter(|p| p.operation_id == operation_id)
            .map(|p| (p.start_id, p.row_id))
            .collect();
        if rows.is_empty() {
            return TreeAnnotations::new();
        }
        nodes
            .iter()
            .enumerate()
            .filter_map(|(position, node)| {
                let row = *rows.get(&node.id)?;
                let time = self.device_times.get(&row).copied().flatten();
                let text = match time {
                    Some(_) => format!("perf row {row} · {}", micros(time)),
                    None => format!("perf row {row}"),
                };
                Some((position, text))
            })
            .collect()
    }
}

/// The Performance tab's own keys: Enter, `[`/`]`, `m` and `f`.
pub fn perf_keymap(code: KeyCode) -> Option<Action> {
    Some(match code {
        KeyCode::Enter => Action::GoToFailure,
        KeyCode::Char(']') => Action::NextFailure,
        KeyCode::Char('[') => Action::PreviousFailure,
        KeyCode::Char('m') => Action::TogglePerDevice,
        KeyCode::Char('f') => Action::ToggleFlaggedOnly,
        _ => return None,
    })
}

impl App {
    /// Gives the Performance tab its report (`None`: the tab says none is loaded).
    pub fn set_perf(&mut self, linked: Option<LinkedReports>) {
        self.perf = linked.map(PerfTab::new);
        // Trees built so far lack their perf rows: build them again when shown.
        self.trees.clear();
    }

    /// Whether a Performance-tab action can do something now; `None` for other actions.
    pub(super) fn perf_enabled(&self, action: Action) -> Option<bool> {
        let perf = self.perf.as_ref();
        Some(match action {
            Action::TogglePerDevice => perf.is_some_and(PerfTab::has_per_device_view),
            Action::ToggleFlaggedOnly => perf.is_some_and(|p| p.flagged_only || p.has_flags()),
            Action::NextFailure | Action::PreviousFailure | Action::GoToFailure => perf.is_some_and(|p| p.listed() > 0),
            _ => return None,
        })
    }

    /// Applies an action on the Performance tab.
    pub(super) fn update_perf(&mut self, action: Action) {
        let Some(perf) = self.perf.as_mut() else {
            if self.perf_enabled(action).is_some() {
                self.message = Some(NO_PERF_REPORT.to_string());
            }
            return;
        };
        let page = perf.table.height.max(1);
        let selected = perf.table.selected;
        let listed = perf.listed();
        match action {
            Action::Down => perf.select(selected + 1),
            Action::Up => perf.select(selected.saturating_sub(1)),
            Action::PageDown => perf.select(selected + page),
            Action::PageUp => perf.select(selected.saturating_sub(page)),
            Action::HalfPageDown => perf.select(selected + page.div_ceil(2)),
            Action::HalfPageUp => perf.select(selected.saturating_sub(page.div_ceil(2))),
            Action::First => perf.select(0),
            Action::Last => perf.select(usize::MAX),
            Action::ToggleFlaggedOnly => self.message = Some(perf.toggle_flagged_only().to_string()),
            Action::TogglePerDevice => self.message = Some(perf.toggle_per_device().to_string()),
            Action::NextFailure | Action::PreviousFailure | Action::GoToFailure if listed == 0 => {
                self.message = Some("No allocation failure is listed above the table".to_string());
            }
            Action::NextFailure => perf.listing = (perf.listing + 1) % listed,
            Action::PreviousFailure => perf.listing = (perf.listing + listed - 1) % listed,
            Action::GoToFailure => self.go_to_failure(),
            _ => {}
        }
    }

    /// Shows the selected listing's operation on the Operations tab, selected and in view.
    fn go_to_failure(&mut self) {
        let Some(listing) = self.perf.as_ref().and_then(|p| p.listings.get(p.listing)) else { return };
        let id = listing.operation.id;
        let index = self.operations.partition_point(|o| o.id < id);
        if self.operations.get(index).is_none_or(|o| o.id != id) {
            self.message = Some(format!("Operation {id} is not in the operations list"));
            return;
        }
        if self.list.shown.binary_search(&index).is_err() {
            // Hidden by the error filter: show every operation again.
            self.errors_only = false;
            self.list.shown = (0..self.operations.len()).collect();
            self.refresh_matches(false);
        }
        let position = self.list.shown.binary_search(&index).unwrap_or(0);
        self.tab = Tab::Operations;
        self.select(position);
        self.center_selection = true;
        self.message = Some(format!("Operation {id} {}", self.operations[index].name));
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Pane, keymap};
    use super::*;
    use ratatui::crossterm::event::{KeyEvent, KeyModifiers};

    fn press(code: KeyCode, pane: Pane) -> Option<Action> {
        keymap(KeyEvent::new(code, KeyModifiers::NONE), pane)
    }

    #[test]
    fn performance_keys_only_on_the_performance_tab() {
        assert_eq!(press(KeyCode::Enter, Pane::Performance), Some(Action::GoToFailure));
        assert_eq!(press(KeyCode::Char(']'), Pane::Performance), Some(Action::NextFailure));
        assert_eq!(press(KeyCode::Char('['), Pane::Performance), Some(Action::PreviousFailure));
        assert_eq!(press(KeyCode::Char('m'), Pane::Performance), Some(Action::TogglePerDevice));
        assert_eq!(press(KeyCode::Char('f'), Pane::Performance), Some(Action::ToggleFlaggedOnly));
        assert_eq!(press(KeyCode::Enter, Pane::Operations), Some(Action::Toggle));
        assert_eq!(press(KeyCode::Char(']'), Pane::Operations), Some(Action::ScrollUnattachedDown));
        assert_eq!(press(KeyCode::Char('f'), Pane::Operations), None);
        assert_eq!(press(KeyCode::Char('m'), Pane::Search), Some(Action::SearchInput('m')));
    }

    #[test]
    fn times_in_microseconds() {
        assert_eq!(micros(Some(46.21)), "46.210 µs");
        assert_eq!(micros(None), "");
    }
}
