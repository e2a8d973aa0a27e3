//! The report a simulated run leaves, as its writer era writes it.

use super::super::fixture::ReportBuilder;
use super::super::rows::TensorRow;
use super::super::schema::{BufferType, Schema};
use super::{Era, Sim};

fn memory_config(buffer_type: BufferType) -> String {
    format!(
        "MemoryConfig(memory_layout=TensorMemoryLayout::INTERLEAVED,buffer_type=BufferType::{},shard_spec=std::nullopt)",
        buffer_type.token()
    )
}

impl Sim {
    /// The report of the run so far.
    pub fn report(&self) -> ReportBuilder {
        let schema = match self.era {
            Era::DecoratorBeforeErrors { errors_table: false } => Schema::Legacy,
            Era::Importer | Era::ImporterWithoutMessage => Schema::V2_1,
            _ => Schema::V2,
        };
        let mut b = ReportBuilder::new(schema).report_name("simulated run");
        if !self.options.no_devices_row {
            for d in &self.devices {
                b = b.device(d.row.clone());
            }
            // A chip opened as a mesh, once a program compiled: a second, identical row.
            if self.options.mesh.is_some_and(|m| m.tables == 1) {
                b = b.device(super::super::rows::Device { device_id: 1, ..self.devices[0].row.clone() });
            }
        }
        for op in &self.ops {
            b = b.operation(op.clone());
        }
        if !self.options.no_tensor_rows {
            for t in &self.tensors {
                let row = TensorRow::new(
                    t.id as i64,
                    &format!("Shape([{}])", t.per_bank),
                    "DataType::BFLOAT16",
                    "Layout::TILE",
                )
                .on_device(
                    self.table_device(t.device) as i64,
                    t.address as i64,
                    t.buffer_type,
                    &memory_config(t.buffer_type),
                );
                b = b.tensor(row);
            }
        }
        if schema != Schema::Legacy {
            for e in &self.errors {
                b = b.error(e.clone());
            }
        }
        b
    }

    /// Graph capture's Python calls (`graph_capture.python_io.json`) as ttnn 0.75 writes them
    /// beside the report: every operation's name, arguments and tensors, the failed one last with
    /// its arguments and inputs only; none in the eras that keep the failed operation's row.
    pub fn python_io(&self) -> Option<String> {
        let failed = self.unrecorded.as_ref()?;
        let tensor = |id: &i64| {
            let t = self.tensors.iter().find(|t| t.id as i64 == *id);
            let shape = t.map_or(0, |t| t.per_bank);
            format!(
                "ttnn.Tensor(shape=Shape([{shape}]), dtype=DataType.BFLOAT16, storage_type=StorageType.DEVICE, tensor_id={id}, is_allocated=True, device_id=0, mesh_shape=MeshShape([1, 1]))"
            )
        };
        let call = |op: &super::super::rows::Op, recorded: bool| {
            let arguments: serde_json::Map<String, serde_json::Value> =
                op.inputs.iter().enumerate().map(|(k, id)| (k.to_string(), tensor(id).into())).collect();
            let mut call = serde_json::json!({"name": op.name, "arguments": arguments, "input_tensor_ids": op.inputs});
            if recorded {
                call["output_tensor_ids"] = serde_json::json!(op.outputs);
                call["captured_graph"] = serde_json::json!([{"counter": 0, "node_type": "capture_start"}]);
            }
            call
        };
        let calls: Vec<serde_json::Value> =
            self.ops.iter().map(|op| call(op, true)).chain(std::iter::once(call(failed, false))).collect();
        Some(serde_json::to_string(&calls).expect("JSON values serialise"))
    }

    /// Writes the report of the run so far into `dir`, with graph capture's Python calls beside
    /// it when the era leaves them (see [`Sim::python_io`]).
    pub fn write_to(&self, dir: &std::path::Path) {
        self.report().write_to(dir);
        if let Some(calls) = self.python_io() {
            std::fs::write(dir.join("graph_capture.python_io.json"), calls).expect("write the Python calls");
        }
    }
}
