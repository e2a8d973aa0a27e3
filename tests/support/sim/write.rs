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
            Era::Importer => Schema::V2_1,
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
}
