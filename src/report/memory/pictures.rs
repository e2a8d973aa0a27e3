//! The memory at a failure and after any operation, as the report can tell it: what the rules of
//! `analysis::memory` read is gathered here — the operation's graph and `buffers` rows, the
//! earlier snapshot of the failure's device, the tensors at the live addresses and their links
//! (from the report's tensor index, read once) — in a few queries per operation.

use super::graph_only::GraphOnlyPass;
use super::questions::Pictures;
use super::rows::Earlier;
use crate::analysis::graph::nodes::{NodeType, SharedGraph};
use crate::analysis::memory::{
    DeviceFacts, EarlierSnapshot, FailureInputs, FoundLive, LiveBuffer, MemoryAtFailure, MemoryNote, OperationInputs,
    OperationMemory, SnapshotRow, TensorFacts, drop_freed_since, failure_place, found_device, found_live, found_place,
    memory_at_failure_with, mesh_shape, needs_earlier_snapshot, operation_memory, other_devices_with_buffers,
    place_devices,
};
use crate::analysis::messages::failure::BufferType;
use crate::analysis::shared_text::SharedText;
use crate::report::error::ReportError;
use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

/// The memory at an operation's failure, as far as the report can tell it.
#[derive(Debug, Clone, PartialEq)]
pub enum FailureMemory {
    /// No memory section: no allocation failure of L1, DRAM or L1_SMALL, or no basis (docs/rules/memory.md
    /// §3.4).
    Absent,
    /// The basis is `graph_only` and the graphs of the earlier operations have not been replayed:
    /// run [`Graphs::replay`](super::graphs::Graphs::replay) once, then ask again with its result.
    NeedsReplay,
    /// The memory at the failure.
    Found(Box<MemoryAtFailure>),
}

/// One failure on its way to its memory section.
pub(super) struct Pending {
    /// The failed operation's index.
    pub(super) index: usize,
    /// What the rules read.
    pub(super) inputs: FailureInputs,
    /// The notes read so far.
    notes: Vec<MemoryNote>,
}

impl<'r> Pictures<'r> {
    /// The memory at the failure of an operation (by index); `replay` is the graph-only pass's
    /// result when it has run.
    pub fn at_failure(&self, index: usize, replay: Option<&GraphOnlyPass>) -> Result<FailureMemory, ReportError> {
        Ok(self.at_failures(&[index], replay)?.pop().map_or(FailureMemory::Absent, |(_, m)| m))
    }

    /// The memory at the failures of some operations (by index), in the order given.
    pub fn at_failures(
        &self,
        indexes: &[usize],
        replay: Option<&GraphOnlyPass>,
    ) -> Result<Vec<(usize, FailureMemory)>, ReportError> {
        let read = ReportError::read("the memory at the failure");
        let with_failure: Vec<usize> =
            indexes.iter().copied().filter(|&i| self.report.error_of(i).is_some_and(|e| e.failure.is_some())).collect();
        let mut out: Vec<(usize, FailureMemory)> = Vec::new();
        let mut ready: Vec<Pending> = Vec::new();
        for mut p in self.failure_inputs(&with_failure).map_err(&read)? {
            match self.gather(&mut p, replay).map_err(&read)? {
                Some(outcome) => out.push((p.index, outcome)),
                None => ready.push(p),
            }
        }
        for mut p in ready {
            // The tensors at its live addresses, and those its graph and inputs name.
            // Under the mesh-id rule, a tensor may be recorded on the device found (docs/rules/memory.md §2).
            let devices = place_devices(&p.inputs);
            let found = found_live(&p.inputs);
            let (earlier, own) = found.as_ref().map_or_else(Default::default, FoundLive::addresses_by_origin);
            let on_devices = |addresses: &[u64]| -> Vec<(u64, u64)> {
                devices.iter().flat_map(|&d| addresses.iter().map(move |&a| (d, a))).collect()
            };
            let (places, own) = (on_devices(&earlier), on_devices(&own));
            let mut ids = graph_tensors(&p.inputs.graph);
            ids.extend(p.inputs.input_tensor_ids.iter().copied());
            p.inputs.tensors = self.report.tensors().facts_at_failure(p.index, &places, &own, &ids).map_err(&read)?;
            let tied = self.tie_to_graphs(&mut p.inputs.tensors, p.index).map_err(&read)?;
            p.notes.extend(tied);
            let memory = match memory_at_failure_with(&p.inputs, found) {
                Some(mut m) => {
                    self.name_the_mesh(&mut m, &p.inputs, p.index);
                    self.describe(&mut m.live_buffers).map_err(&read)?;
                    self.name_last_uses(&mut m.live_buffers);
                    p.notes.append(&mut m.notes);
                    m.notes = p.notes;
                    FailureMemory::Found(Box::new(m))
                }
                None => FailureMemory::Absent,
            };
            out.push((p.index, memory));
        }
        let order: HashMap<usize, usize> = indexes.iter().enumerate().map(|(k, &i)| (i, k)).collect();
        out.sort_by_key(|(i, _)| order.get(i).copied().unwrap_or(usize::MAX));
        Ok(out)
    }

    /// The mesh a failure happened on (docs/rules/memory.md §2): its shape from the failed operation's
    /// arguments (unreadable, unnamed), and the other mesh devices with live buffers.
    fn name_the_mesh(&self, m: &mut MemoryAtFailure, inputs: &FailureInputs, index: usize) {
        let arguments = self.report.details().arguments(index).unwrap_or_default();
        m.mesh = mesh_shape(arguments.iter().map(|(_, value)| value.as_str()));
        let others = other_devices_with_buffers(inputs, m.device_id);
        if m.mesh.is_some() && !others.is_empty() {
            m.notes.push(MemoryNote::OtherMeshDevices { devices: others });
        }
    }

    /// The snapshot-and-graph setup of some operations with an error (by index): the inputs of
    /// the rules as far as N's own records go — its error's allocation failure, graph (an
    /// invalid one as a note), `buffers` rows, the devices, its input tensors and the device of
    /// its first one.
    pub(super) fn failure_inputs(&self, indexes: &[usize]) -> rusqlite::Result<Vec<Pending>> {
        let devices: Vec<DeviceFacts> = self.report.devices.iter().map(|d| d.facts()).collect();
        let inputs_of = self.input_tensor_ids(indexes)?;
        let mut pending: Vec<Pending> = Vec::new();
        for &index in indexes {
            let op = &self.report.operations[index];
            let Some(error) = self.report.error_of(index) else { continue };
            let (own_snapshot, graph, notes) = self.own_records(index)?;
            let inputs = FailureInputs {
                operation_id: op.id,
                failure: error.failure.clone(),
                graph,
                own_snapshot,
                devices: devices.clone(),
                input_tensor_ids: inputs_of.get(&index).cloned().unwrap_or_default(),
                ..FailureInputs::default()
            };
            pending.push(Pending { index, inputs, notes });
        }
        // The device of each failure may come from its first input.
        let first_inputs: Vec<u64> =
            pending.iter().filter_map(|p| p.inputs.input_tensor_ids.first().copied()).collect();
        let first_facts: Vec<TensorFacts> = self
            .report
            .tensors()
            .placements_by_id(&first_inputs)?
            .into_iter()
            .map(|p| TensorFacts { tensor_id: p.tensor_id, device_id: p.device_id, ..TensorFacts::default() })
            .collect();
        for p in &mut pending {
            p.inputs.tensors = first_facts.clone();
        }
        Ok(pending)
    }

    /// An operation's own records (by index), the snapshot-and-graph setup of every memory
    /// view: its `buffers` rows and its captured graph, with notes for rows cut off and a graph
    /// that is invalid (then read as empty).
    fn own_records(&self, index: usize) -> rusqlite::Result<(Arc<Vec<SnapshotRow>>, SharedGraph, Vec<MemoryNote>)> {
        let op = &self.report.operations[index];
        let (snapshot, cut) = self.report.snapshots().rows_shared(op.id, op.rank)?;
        let mut notes: Vec<MemoryNote> = cut.into_iter().collect();
        let graph = self.report.graphs().graph_arc(index).unwrap_or_else(|e| {
            notes.push(MemoryNote::InvalidGraph { reason: e.to_string() });
            SharedGraph::default()
        });
        Ok((snapshot, graph, notes))
    }

    /// Reads what the rules need of a failure beyond its own records: which devices have rows
    /// (mesh ids), the earlier snapshot S0 of its device, its DRAM base, the graph-only pass's
    /// result. The outcome already, when there is no section to compute (no place, or the
    /// graphs must be replayed first).
    fn gather(&self, p: &mut Pending, replay: Option<&GraphOnlyPass>) -> rusqlite::Result<Option<FailureMemory>> {
        let op = &self.report.operations[p.index];
        let Some(mut lookups) = self.devices_with_rows(&mut p.inputs, op.id, op.rank)? else {
            return Ok(Some(FailureMemory::Absent));
        };
        let Some((device, buffer_type)) = failure_place(&p.inputs) else { return Ok(Some(FailureMemory::Absent)) };
        let earlier = match needs_earlier_snapshot(&p.inputs, device) {
            true => match lookups.remove(&device) {
                Some(earlier) => earlier,
                None => self.report.snapshots().earlier(op.id, device, op.rank)?,
            },
            false => Earlier::None,
        };
        match earlier {
            Earlier::Found(id) => {
                let (mut rows, cut) = self.report.snapshots().rows(id, op.rank)?;
                p.notes.extend(cut);
                let dropped = self.drop_freed_since(&mut rows, id, p.index, device)?;
                p.notes.extend((dropped > 0).then_some(MemoryNote::FreedSince { snapshot: id, count: dropped }));
                p.inputs.earlier_snapshot = Some(EarlierSnapshot { operation_id: id, rows });
            }
            Earlier::Stopped(rows) => p.notes.push(MemoryNote::EarlierSearchStopped { rows }),
            Earlier::None => {}
        }
        let dram = buffer_type == BufferType::Dram;
        if dram {
            p.inputs.lowest_dram_address = self.report.snapshots().lowest_dram_address(op.id, device, op.rank)?;
        }
        let own_rows = p.inputs.own_snapshot.iter().any(|r| r.device_id == device);
        if own_rows || p.inputs.earlier_snapshot.is_some() {
            return Ok(None);
        }
        let Some(r) = replay else { return Ok(Some(FailureMemory::NeedsReplay)) };
        p.inputs.replayed_before = Some(r.live_before(op.id).map(<[_]>::to_vec).unwrap_or_default());
        if dram {
            let replayed = r.lowest_dram_before(op.id, device);
            p.inputs.lowest_dram_address = p.inputs.lowest_dram_address.into_iter().chain(replayed).min();
        }
        p.notes.extend(r.notes.iter().cloned());
        Ok(None)
    }

    /// Takes out of S0's rows (the snapshot after operation `snapshot`) what the graphs of the
    /// operations between it and N (by index) freed: they wrote no rows for the device
    /// (`analysis::memory::drop_freed_since`). Looked at only when there are a few of them.
    fn drop_freed_since(
        &self,
        rows: &mut Vec<SnapshotRow>,
        snapshot: u64,
        n: usize,
        device: u64,
    ) -> rusqlite::Result<usize> {
        const AT_MOST: usize = 64;
        let first = self.report.operations.partition_point(|o| o.id <= snapshot).min(n);
        if first == n || n - first > AT_MOST {
            return Ok(0);
        }
        let graphs = self.report.graphs().read((first..n).collect())?;
        let mut ordered: Vec<(usize, Vec<crate::analysis::graph::nodes::GraphNode>)> =
            graphs.into_iter().filter_map(|(i, g)| Some((i, SharedGraph::unwrap_or_clone(g.ok()?)))).collect();
        ordered.sort_by_key(|(i, _)| *i);
        let graphs: Vec<_> = ordered.into_iter().map(|(_, g)| g).collect();
        Ok(drop_freed_since(rows, device, &graphs))
    }

    /// Fills `devices_with_rows` for the mesh-id rule (docs/rules/memory.md §2): whether the device found
    /// has a `buffers` row before N, and only when it has none (and none of N's own), which of
    /// the other `devices` do. Gives the earlier snapshots found on the way, by device; none when
    /// nothing names the error's device.
    pub(super) fn devices_with_rows(
        &self,
        inputs: &mut FailureInputs,
        n: u64,
        rank: u32,
    ) -> rusqlite::Result<Option<HashMap<u64, Earlier>>> {
        let found = found_place(inputs).map(|(device, _)| device).or_else(|| found_device(inputs));
        let Some(found) = found else { return Ok(None) };
        let mut lookups = HashMap::new();
        let own = |device: u64| inputs.own_snapshot.iter().any(|r| r.device_id == device);
        if own(found) {
            return Ok(Some(lookups));
        }
        let earlier = self.report.snapshots().earlier(n, found, rank)?;
        let mut with_rows = Vec::new();
        let found_has_rows = match earlier {
            Earlier::Found(_) => true,
            Earlier::None => false,
            // The bounded search stopped: a mesh id (no `devices` row) has none; a device of the
            // report is looked up for certain.
            Earlier::Stopped(_) => {
                self.report.devices.iter().any(|d| d.device_id == found)
                    && self.report.snapshots().has_rows(n, found, rank)?
            }
        };
        if found_has_rows {
            with_rows.push(found);
        } else {
            for device in self.report.devices.iter().map(|d| d.device_id).filter(|&d| d != found && !own(d)) {
                let other = self.report.snapshots().earlier(n, device, rank)?;
                if matches!(other, Earlier::Found(_)) {
                    with_rows.push(device);
                }
                lookups.insert(device, other);
            }
        }
        lookups.insert(found, earlier);
        inputs.devices_with_rows = with_rows;
        Ok(Some(lookups))
    }

    /// The post-operation picture of an operation (by index) for `place` (device, buffer
    /// type), else its L1 of the lowest device, else the first in its snapshot; none when it has
    /// no `buffers` row. For an operation the report did not record, the memory when it started:
    /// the snapshot of the last recorded operation (docs/rules/reference.md §13.5).
    pub fn after_operation(
        &self,
        index: usize,
        place: Option<(u64, BufferType)>,
    ) -> Result<Option<OperationMemory>, ReportError> {
        let read = ReportError::read("the memory after the operation");
        let op = &self.report.operations[index];
        let started_from = index.checked_sub(1).filter(|_| !op.recorded);
        let (own, graph, mut notes) = self.own_records(index).map_err(&read)?;
        let snapshot = match started_from {
            Some(p) => {
                let (rows, cut) = self.report.snapshots().rows(self.report.operations[p].id, op.rank).map_err(&read)?;
                notes.extend(cut);
                rows
            }
            None => Arc::unwrap_or_clone(own),
        };
        let mut inputs = OperationInputs {
            operation_id: op.id,
            input_tensor_ids: self.input_tensor_ids(&[index]).map_err(&read)?.remove(&index).unwrap_or_default(),
            graph: SharedGraph::unwrap_or_clone(graph),
            snapshot,
            devices: self.report.devices.iter().map(|d| d.facts()).collect(),
            tensors: Vec::new(),
        };
        let Some(first) = operation_memory(&inputs, place) else { return Ok(None) };
        let places: Vec<(u64, u64)> = first.live_buffers.iter().map(|b| (first.device_id, b.address)).collect();
        let mut ids = graph_tensors(&inputs.graph);
        ids.extend(inputs.input_tensor_ids.iter().copied());
        // Its outputs by their links too: an output whose `tensors.address` is NULL (its place
        // only in `device_tensors`) is still the tenant of its buffer (docs/rules/memory.md §4).
        let outputs = self.linked_tensor_ids("output_tensors", "output_index", &[index]).map_err(&read)?;
        ids.extend(outputs.into_values().flatten());
        inputs.tensors = self.report.tensors().facts(index, &places, &ids).map_err(&read)?;
        notes.extend(self.tie_to_graphs(&mut inputs.tensors, index).map_err(&read)?);
        let mut memory = operation_memory(&inputs, Some((first.device_id, first.buffer_type)));
        if let Some(m) = &mut memory {
            m.snapshot_operation_id = started_from.map(|p| self.report.operations[p].id);
            self.describe(&mut m.live_buffers).map_err(&read)?;
            notes.append(&mut m.notes);
            m.notes = notes;
        }
        Ok(memory)
    }

    /// The memory when an unrecorded operation (by index) started, for each device and buffer
    /// type of the last recorded operation's snapshot (docs/rules/reference.md §13.5); empty for a recorded
    /// operation, or when that snapshot holds nothing.
    pub fn at_start(&self, index: usize) -> Result<Vec<OperationMemory>, ReportError> {
        if self.report.operations[index].recorded {
            return Ok(Vec::new());
        }
        let Some(first) = self.after_operation(index, None)? else { return Ok(Vec::new()) };
        let mut out = Vec::new();
        for &place in &first.places {
            let same = (first.device_id, first.buffer_type) == place;
            match same {
                true => out.push(first.clone()),
                false => out.extend(self.after_operation(index, Some(place))?),
            }
        }
        Ok(out)
    }

    /// Fills in the shape and dtype of the tensors that hold buffers.
    fn describe(&self, buffers: &mut [LiveBuffer]) -> rusqlite::Result<()> {
        let ids: Vec<u64> = buffers.iter().filter_map(|b| b.tensor_id).collect::<BTreeSet<_>>().into_iter().collect();
        let texts = self.report.tensors().describe(&ids)?;
        // Each distinct text made once and shared: 150 000 tensors may have one dtype.
        let mut shared: HashMap<&str, SharedText> = HashMap::new();
        for b in buffers {
            if let Some((shape, dtype)) = b.tensor_id.and_then(|id| texts.get(&id)) {
                b.shape = shape.as_deref().map(|t| shared.entry(t).or_insert_with(|| SharedText::from(t)).clone());
                b.dtype = dtype.as_deref().map(|t| shared.entry(t).or_insert_with(|| SharedText::from(t)).clone());
            }
        }
        Ok(())
    }

    /// Names the source line of each live buffer's last use (`LiveBuffer::last_use_source`), the
    /// same line `explain --late` gives; without stack traces the buffers stay as they are.
    pub(crate) fn name_last_uses(&self, buffers: &mut [LiveBuffer]) {
        let sources = self.report.details().model_sources(buffers.iter().filter_map(|b| b.last_use_operation_id));
        for b in buffers {
            b.last_use_source =
                b.last_use_operation_id.and_then(|id| sources.get(&id)).map(|s| SharedText::from(s.as_str()));
        }
    }
}

/// The tensor ids of a graph's `tensor` nodes.
fn graph_tensors(graph: &[crate::analysis::graph::nodes::GraphNode]) -> Vec<u64> {
    graph.iter().filter(|n| n.is(NodeType::Tensor)).filter_map(|n| n.tensor_id()).collect()
}
