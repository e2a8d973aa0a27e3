//! Linking memory-report operations to performance rows: the reference's positional alignment of
//! completed device-operation names against the alignable rows, all or nothing (docs/rules/reference.md §9).

use super::link_reason::{LinkFailure, diagnose};
use super::report_rows::{DEVICE_OP_TYPE, PerfRow, lock_step_groups};
use crate::analysis::graph::nodes::GraphNode;
use crate::analysis::graph::scopes::{CompletedDeviceOperation, completed_device_operations};
use std::collections::{BTreeMap, HashMap};

/// The status-bar text when the reports are linked.
pub(crate) const LINKED_TEXT: &str = "Data linked between memory and performance reports";
/// The status-bar text when they are not.
pub(crate) const UNLINKED_TEXT: &str = "Unable to link active memory and performance reports";

/// The memory side of one operation: its id and name, and its completed device operations in
/// start order and in end order (docs/rules/reference.md §3.6).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct MemoryOperation {
    /// `operation_id`.
    pub id: u64,
    /// The operation's name, e.g. `ttnn.matmul`.
    pub name: String,
    /// Completed device operations in start order.
    pub starts: Vec<CompletedDeviceOperation>,
    /// The same, in end order.
    pub ends: Vec<CompletedDeviceOperation>,
}

impl MemoryOperation {
    /// The memory side of an operation from its captured graph.
    pub fn from_graph(id: u64, name: impl Into<String>, nodes: &[GraphNode]) -> Self {
        let (starts, ends) = completed_device_operations(nodes);
        Self { id, name: name.into(), starts, ends }
    }
}

/// Which of the four attempts aligned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Attempt {
    /// Start order.
    StartOrder,
    /// End order.
    EndOrder,
    /// Start order, collapsed per device.
    StartOrderCollapsed,
    /// End order, collapsed per device.
    EndOrderCollapsed,
}

/// One aligned pair: a completed device operation and the row it ran as.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LinkPair {
    /// The operation the device operation belongs to.
    pub(crate) operation_id: u64,
    /// The device operation's `function_start` node id.
    pub(crate) start_id: u64,
    /// The perf row's id.
    pub(crate) row_id: u64,
}

/// The mapping between operations and perf rows, both ways.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct LinkMap {
    rows_of: BTreeMap<u64, Vec<u64>>,
    operation_of: HashMap<u64, u64>,
}

impl LinkMap {
    /// Adds a row to an operation (a row belongs to one operation; the first wins).
    pub(crate) fn insert(&mut self, operation_id: u64, row_id: u64) {
        if self.operation_of.contains_key(&row_id) {
            return;
        }
        self.operation_of.insert(row_id, operation_id);
        self.rows_of.entry(operation_id).or_default().push(row_id);
    }

    /// The operation a row is linked to.
    pub fn operation_of(&self, row_id: u64) -> Option<u64> {
        self.operation_of.get(&row_id).copied()
    }

    /// The rows linked to an operation, in the order they were paired.
    pub fn rows_of(&self, operation_id: u64) -> &[u64] {
        self.rows_of.get(&operation_id).map(Vec::as_slice).unwrap_or_default()
    }

    /// The number of linked rows.
    pub fn len(&self) -> usize {
        self.operation_of.len()
    }

    /// True when nothing is linked.
    pub fn is_empty(&self) -> bool {
        self.operation_of.is_empty()
    }
}

/// The result of linking.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Link {
    /// The aligned pairs, in memory-side order; empty when nothing aligned.
    pub(crate) pairs: Vec<LinkPair>,
    /// The attempt that aligned.
    pub(crate) attempt: Option<Attempt>,
    /// Operation id ↔ row ids (the merged mapping).
    pub map: LinkMap,
    /// Whether the memory report has operations at all.
    pub(crate) has_operations: bool,
    /// Why nothing aligned; none when linked.
    pub(crate) failure: Option<LinkFailure>,
}

impl Link {
    /// Linked: the operations list is non-empty and the mapping is non-empty.
    pub fn is_linked(&self) -> bool {
        self.has_operations && !self.map.is_empty()
    }

    /// The link state of two loaded reports: `unavailable` when the performance report has no
    /// rows (docs/rules/reference.md §8.1).
    pub fn state(&self) -> LinkState {
        match (self.is_linked(), &self.failure) {
            (true, _) => LinkState::Linked,
            (false, Some(LinkFailure::NoRows)) => LinkState::Unavailable,
            (false, _) => LinkState::Unlinked,
        }
    }

    /// Why the reports did not link, as one line (e.g. `the performance report has no rows`);
    /// none when linked. Shown beside [`LinkState::text`].
    pub fn reason(&self) -> Option<String> {
        if self.is_linked() { None } else { self.failure.as_ref().map(LinkFailure::text) }
    }
}

/// The link state shown in the status bar and in `explain` JSON.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LinkState {
    /// Something aligned.
    Linked,
    /// Both reports loaded, nothing aligned.
    Unlinked,
    /// A report is missing or failed to load.
    Unavailable,
}

impl LinkState {
    /// The status-bar text.
    pub fn text(self) -> &'static str {
        match self {
            Self::Linked => LINKED_TEXT,
            Self::Unlinked | Self::Unavailable => UNLINKED_TEXT,
        }
    }

    /// `linked`, `unlinked` or `unavailable`.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Self::Linked => "linked",
            Self::Unlinked => "unlinked",
            Self::Unavailable => "unavailable",
        }
    }
}

/// One memory-side entry of an ordered list.
#[derive(Debug, Clone, Copy)]
struct Entry<'a> {
    name: &'a str,
    operation_id: u64,
    start_id: u64,
}

/// Links operations (in id order) to the merged rows; `num_devices` is the number of distinct
/// device ids of the memory report (docs/rules/reference.md §9).
pub fn link(operations: &[MemoryOperation], rows: &[PerfRow], num_devices: usize) -> Link {
    let entries = |pick: fn(&MemoryOperation) -> &[CompletedDeviceOperation]| -> Vec<Entry<'_>> {
        operations
            .iter()
            .flat_map(|op| {
                pick(op).iter().map(move |d| Entry { name: &d.name, operation_id: op.id, start_id: d.start_id })
            })
            .collect()
    };
    let starts = entries(|op| &op.starts);
    let ends = entries(|op| &op.ends);
    let alignable: Vec<&PerfRow> = rows.iter().filter(|r| !r.is_signpost()).collect();
    let same_multiset = || multiset(&starts) == multiset(&ends);
    // Attempts are built only when the previous ones failed.
    let attempt_list = |attempt: Attempt| -> Option<std::borrow::Cow<'_, [Entry<'_>]>> {
        match attempt {
            Attempt::StartOrder => Some(starts.as_slice().into()),
            Attempt::EndOrder => same_multiset().then(|| ends.as_slice().into()),
            Attempt::StartOrderCollapsed if num_devices > 1 => collapse(&starts, num_devices).map(Into::into),
            Attempt::EndOrderCollapsed if num_devices > 1 => collapse(&ends, num_devices).map(Into::into),
            _ => None,
        }
    };
    let mut result = Link { has_operations: !operations.is_empty(), ..Link::default() };
    let attempts = [Attempt::StartOrder, Attempt::EndOrder, Attempt::StartOrderCollapsed, Attempt::EndOrderCollapsed];
    for attempt in attempts {
        let Some(list) = attempt_list(attempt) else { continue };
        if let Some(pairs) = align(&list, &alignable) {
            for p in &pairs {
                result.map.insert(p.operation_id, p.row_id);
            }
            result.pairs = pairs;
            result.attempt = Some(attempt);
            break;
        }
    }
    if !result.is_linked() {
        let tried: Vec<Vec<&str>> =
            attempts.into_iter().filter_map(attempt_list).map(|l| l.iter().map(|e| e.name).collect()).collect();
        result.failure = Some(diagnose(&tried, &alignable, rows.len(), result.has_operations));
    }
    result
}

/// The sorted (operation id, name) keys of a list.
fn multiset<'a>(list: &[Entry<'a>]) -> Vec<(u64, &'a str)> {
    let mut keys: Vec<(u64, &str)> = list.iter().map(|e| (e.operation_id, e.name)).collect();
    keys.sort_unstable();
    keys
}

/// Pairs `list[k]` with `rows[k]`, or nothing unless every name matches its row's raw op code.
fn align(list: &[Entry<'_>], rows: &[&PerfRow]) -> Option<Vec<LinkPair>> {
    if list.is_empty() || list.len() > rows.len() {
        return None;
    }
    list.iter()
        .zip(rows)
        .map(|(e, r)| {
            (*r.raw_op_code == *e.name).then_some(LinkPair {
                operation_id: e.operation_id,
                start_id: e.start_id,
                row_id: r.id,
            })
        })
        .collect()
}

/// Keeps the first entry of each (name, operation id) key occurring exactly `num_devices` times;
/// none unless that accounts for the whole list.
fn collapse<'a>(list: &[Entry<'a>], num_devices: usize) -> Option<Vec<Entry<'a>>> {
    let mut counts: HashMap<(&str, u64), usize> = HashMap::new();
    for e in list {
        *counts.entry((e.name, e.operation_id)).or_default() += 1;
    }
    let mut seen: HashMap<(&str, u64), ()> = HashMap::new();
    let collapsed: Vec<Entry<'a>> = list
        .iter()
        .filter(|e| {
            let key = (e.name, e.operation_id);
            counts[&key] == num_devices && seen.insert(key, ()).is_none()
        })
        .copied()
        .collect();
    (collapsed.len() * num_devices == list.len()).then_some(collapsed)
}

/// The mapping of the per-device view: the merged mapping plus, for each lock-step group of the
/// unmerged device rows whose mapped rows name exactly one operation, its unmapped rows
/// (docs/rules/reference.md §9.8).
pub fn per_device_map(merged: &LinkMap, unmerged_rows: &[PerfRow]) -> LinkMap {
    let mut map = merged.clone();
    if merged.is_empty() {
        return map;
    }
    let device_of = |r: &PerfRow| if &*r.op_type == DEVICE_OP_TYPE { r.device } else { None };
    for group in lock_step_groups(unmerged_rows, device_of, |r| &r.raw_op_code).iter() {
        let mut operations: Vec<u64> = group.iter().filter_map(|&i| merged.operation_of(unmerged_rows[i].id)).collect();
        operations.sort_unstable();
        operations.dedup();
        if let [operation_id] = operations[..] {
            for &i in group {
                map.insert(operation_id, unmerged_rows[i].id);
            }
        }
    }
    map
}

#[cfg(test)]
#[path = "link_tests.rs"]
mod tests;
