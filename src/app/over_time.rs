//! The Over time tab's state: the memory used after every operation, per device and buffer type
//! (read by the loop on a worker thread — the one pass over all of `buffers` — and kept for the
//! session), the series shown (`d` / `t`), and the cursor on it.

use super::jobs::{JobState, Jobs};
use super::keys::Action;
use super::tab::{Availability, Outcome};
use crate::analysis::memory::late::{LateAtFailure, LateFindings, LateSummary, LateTensor, suggestion};
use crate::analysis::memory::peak::{CoreGrid, OperationPeak};
use crate::analysis::memory::usage_series::UsageSeries;
use crate::analysis::messages::failure::BufferType;

/// The Over time tab.
#[derive(Debug, Default)]
pub struct OverTimeTab {
    /// Where the series come from: the pass over `buffers`, or, on a report without `buffers`
    /// rows, the graph replay.
    pub(crate) source: UsageSource,
    /// The operation the cursor follows (the selected one) until the user moves it.
    follows: Option<u64>,
    /// Every series, in device then buffer type order.
    pub(crate) series: Vec<UsageSeries>,
    /// The series shown.
    pub(crate) shown: usize,
    /// The point under the cursor (an index into the series' points).
    pub(crate) cursor: usize,
    /// The cursor was placed by the user: a new pass keeps it.
    moved: bool,
    /// The tensors held past their last use (issue 16), found from the same pass.
    pub(crate) late: LateFindings,
    /// Why the tensors held past their last use could not be read, when they could not.
    pub(crate) late_unavailable: Option<String>,
    /// The late tensor selected in the shown line's list (`]` / `[`), an index into it.
    pub(crate) late_selected: Option<usize>,
    /// Every operation's true peak per device and buffer type (docs/true-peak.md), in run order.
    pub(crate) true_peaks: Vec<OperationPeak>,
    /// What filled every L1 core at each operation's true peak, in run order.
    pub(crate) core_grids: Vec<CoreGrid>,
    /// L1 per core at the cursor's operation's true peak is shown (`c`).
    pub(crate) grid_shown: bool,
    /// The lines are one chip's, named device 0 whatever ids its tables use (issue 30 §4.5).
    pub(crate) single_chip: bool,
}

/// Where the run over time is read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum UsageSource {
    /// The `buffers` snapshots.
    #[default]
    Snapshots,
    /// Every captured graph, replayed (a report without `buffers` rows).
    GraphOnlyPass,
}

impl OverTimeTab {
    /// The true peaks of the shown line's device and buffer type, in run order.
    pub(crate) fn true_peaks_of_shown(&self) -> Vec<&OperationPeak> {
        let Some(s) = self.series() else { return Vec::new() };
        self.true_peaks.iter().filter(|p| p.device_id == s.device_id && p.buffer_type == s.buffer_type).collect()
    }

    /// The cursor's operation's L1 true peak and what filled each L1 core at it, on the shown
    /// line's device (whatever its buffer type: a run whose L1 holds only circular buffers has no
    /// L1 line); none when nothing stood in L1 in it.
    pub(crate) fn core_grid_at_cursor(&self) -> Option<(&OperationPeak, &CoreGrid)> {
        let s = self.series()?;
        let id = s.points.get(self.cursor)?.operation_id;
        let place = |d: u64, t: BufferType| d == s.device_id && t == BufferType::L1;
        let peak = self.true_peaks.iter().find(|p| p.operation_id == id && place(p.device_id, p.buffer_type))?;
        let grid = self.core_grids.iter().find(|g| g.operation_id == id && g.device_id == s.device_id)?;
        Some((peak, grid))
    }

    /// Shows or hides the per-core grid.
    fn toggle_grid(&mut self) -> Outcome {
        self.grid_shown = !self.grid_shown;
        if self.grid_shown { Outcome::None } else { Outcome::Message("L1 per core hidden".to_string()) }
    }

    /// The series shown, once the pass has landed.
    pub(crate) fn series(&self) -> Option<&UsageSeries> {
        self.series.get(self.shown)
    }

    /// Takes the series of a finished pass, keeping the device and buffer type shown (at first,
    /// the line of the followed operation's failure); the cursor starts on the operation it
    /// follows (the selected one), else on the first failure, else on the peak.
    pub(crate) fn set_series(&mut self, series: Vec<UsageSeries>) {
        let current = self.series().map(|s| (s.device_id, s.buffer_type));
        self.series = series;
        // The line shown before, else the line marking the followed operation's failure, else
        // the first line with a failure, else L1, else the first.
        let position = |f: &dyn Fn(&UsageSeries) -> bool| self.series.iter().position(f);
        let marks = |s: &UsageSeries, id: u64| {
            s.failures.iter().any(|&k| s.points.get(k).is_some_and(|p| p.operation_id == id))
        };
        self.shown = current
            .and_then(|c| position(&|s| (s.device_id, s.buffer_type) == c))
            .or_else(|| self.follows.and_then(|id| position(&|s| marks(s, id))))
            .or_else(|| {
                let first_failure = |s: &UsageSeries| s.failures.first().copied().unwrap_or(usize::MAX);
                let earliest = self.series.iter().map(first_failure).min().filter(|&f| f < usize::MAX)?;
                position(&|s| first_failure(s) == earliest)
            })
            .or_else(|| position(&|s| s.buffer_type == crate::analysis::messages::failure::BufferType::L1))
            .unwrap_or(0);
        let Some(series) = self.series() else { return };
        let last = series.points.len().saturating_sub(1);
        if !self.moved {
            let followed = self.follows.and_then(|id| series.points.iter().position(|p| p.operation_id == id));
            self.cursor = followed.or(series.failures.first().copied()).or(series.peak).unwrap_or(0);
        }
        self.cursor = self.cursor.min(last);
    }

    /// What the tab waits on (`jobs` holds every pass): the graph replay while a report without
    /// `buffers` rows waits for it, else the run over time.
    pub(crate) fn pass<'a>(&self, jobs: &'a Jobs) -> &'a JobState {
        match (self.source, &jobs.replay) {
            (UsageSource::GraphOnlyPass, replay) if *replay != JobState::Done => replay,
            _ => &jobs.usage,
        }
    }

    /// Takes the tensors held past their last use found from the same pass.
    pub(crate) fn set_late(&mut self, late: Result<LateFindings, String>) {
        (self.late, self.late_unavailable) = match late {
            Ok(late) => (late, None),
            Err(reason) => (LateFindings::default(), Some(reason)),
        };
        self.late_selected = None;
    }

    /// The shown line's late tensors, biggest peak saving first.
    pub(crate) fn late_of_shown(&self) -> Vec<&LateTensor> {
        let Some(s) = self.series() else { return Vec::new() };
        self.late.late.iter().filter(|t| (t.device_id, t.buffer_type) == (s.device_id, s.buffer_type)).collect()
    }

    /// What freeing every late tensor at its last use would have done (replayed) at one failure
    /// the shown line marks: the one under the cursor, else the next after it, else the last.
    pub(crate) fn late_failure_at_cursor(&self) -> Option<&LateAtFailure> {
        let s = self.series()?;
        let at = s.points.get(self.cursor).map_or(0, |p| p.operation_id);
        let marked: Vec<u64> = s.failures.iter().filter_map(|&k| s.points.get(k)).map(|p| p.operation_id).collect();
        let mine: Vec<&LateAtFailure> = self
            .late
            .failures
            .iter()
            .filter(|f| f.buffer_type == s.buffer_type && marked.contains(&f.operation_id))
            .collect();
        mine.iter().find(|f| f.operation_id >= at).or(mine.last()).copied()
    }

    /// The shown line's peak and what freeing every late tensor would make it.
    pub(crate) fn late_summary_of_shown(&self) -> Option<&LateSummary> {
        let s = self.series()?;
        self.late.summary.iter().find(|l| (l.device_id, l.buffer_type) == (s.device_id, s.buffer_type))
    }

    /// The selected late tensor of the shown line.
    pub(crate) fn selected_late(&self) -> Option<&LateTensor> {
        self.late_of_shown().get(self.late_selected?).copied()
    }

    /// The suggestion of the selected late tensor, to copy (`y`).
    pub(crate) fn late_suggestion(&self) -> Option<String> {
        self.selected_late().map(suggestion)
    }

    /// Selects the next (or previous) late tensor of the shown line; from none, the first.
    fn choose_late(&mut self, forward: bool) -> Outcome {
        let count = self.late_of_shown().len();
        if count == 0 {
            return Outcome::Message("No tensor is held past its last use on this line".to_string());
        }
        self.late_selected = Some(match (self.late_selected, forward) {
            (None, _) => 0,
            (Some(k), true) => (k + 1).min(count - 1),
            (Some(k), false) => k.saturating_sub(1),
        });
        Outcome::None
    }

    /// Follows the selected operation (`None`: none selected): the cursor goes to it, unless the
    /// user has moved the cursor on this tab.
    pub(crate) fn follow(&mut self, operation_id: Option<u64>) {
        if self.moved {
            return;
        }
        self.follows = operation_id;
        let point =
            self.series().zip(operation_id).and_then(|(s, id)| s.points.iter().position(|p| p.operation_id == id));
        if let Some(point) = point {
            self.cursor = point;
        }
    }

    /// The next series whose device (`d`) or buffer type (`t`) differs, keeping the other.
    fn next_series(&self, device: bool) -> Option<usize> {
        let current = self.series()?;
        let others = (1..self.series.len()).map(|k| (self.shown + k) % self.series.len());
        let mut candidates = others.filter(|&k| {
            let s = &self.series[k];
            if device { s.device_id != current.device_id } else { s.device_id == current.device_id }
        });
        let first = candidates.next()?;
        if !device {
            return Some(first);
        }
        let same_type = (1..self.series.len()).map(|k| (self.shown + k) % self.series.len()).find(|&k| {
            self.series[k].device_id == self.series[first].device_id
                && self.series[k].buffer_type == current.buffer_type
        });
        Some(same_type.unwrap_or(first))
    }

    /// Whether an action can do something now.
    pub(crate) fn availability(&self, action: Action) -> Availability {
        let ready = self.series().is_some_and(|s| !s.points.is_empty());
        Availability::from(match action {
            Action::NextDevice => self.next_series(true).is_some(),
            Action::NextBufferType => self.next_series(false).is_some(),
            Action::JumpToPeak => self.series().is_some_and(|s| s.peak.is_some()),
            Action::ToggleCoreGrid => !self.core_grids.is_empty(),
            Action::NextLateTensor | Action::PreviousLateTensor => !self.late_of_shown().is_empty(),
            _ => ready,
        })
    }

    /// Applies an action on the tab; `pass` is how far the run over time is.
    pub(crate) fn update(&mut self, action: Action, pass: &JobState) -> Outcome {
        if action == Action::ToggleCoreGrid {
            return self.toggle_grid();
        }
        let Some(series) = self.series() else {
            return match pass {
                JobState::Done => Outcome::Message("The report records no buffers on any device".to_string()),
                _ => Outcome::None,
            };
        };
        let last = series.points.len().saturating_sub(1);
        let step = (series.points.len() / 50).max(1);
        let cursor = self.cursor;
        let moved = match action {
            Action::PreviousPoint | Action::Up => cursor.saturating_sub(1),
            Action::NextPoint | Action::Down => (cursor + 1).min(last),
            Action::PageUp | Action::HalfPageUp => cursor.saturating_sub(step),
            Action::PageDown | Action::HalfPageDown => (cursor + step).min(last),
            Action::First => 0,
            Action::Last => last,
            Action::JumpToPeak => match series.peak {
                Some(peak) => peak,
                None => return Outcome::Message("No figure on this line".to_string()),
            },
            Action::Activate => {
                if let Some(late) = self.selected_late() {
                    return Outcome::ShowOperation(late.last_use_operation_id);
                }
                return series.points.get(cursor).map_or(Outcome::None, |p| Outcome::ShowOperation(p.operation_id));
            }
            Action::NextLateTensor | Action::PreviousLateTensor => {
                return self.choose_late(action == Action::NextLateTensor);
            }
            Action::NextDevice | Action::NextBufferType => {
                return match self.next_series(action == Action::NextDevice) {
                    Some(k) => {
                        self.shown = k;
                        self.late_selected = None;
                        let s = &self.series[k];
                        self.cursor = self.cursor.min(s.points.len().saturating_sub(1));
                        Outcome::Message(format!("Device {} · {}", s.device_id, s.buffer_type.label()))
                    }
                    None => Outcome::Message(format!(
                        "The report has only one {}",
                        if action == Action::NextDevice { "device with buffers" } else { "buffer type on this device" }
                    )),
                };
            }
            _ => return Outcome::None,
        };
        self.cursor = moved;
        self.moved = true;
        Outcome::None
    }
}
