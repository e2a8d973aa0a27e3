//! Rows of the report tables, with builder-style setters.

use rusqlite::types::Value;

use super::schema::{BufferType, Layout};

/// A `devices` row.
#[derive(Clone, Debug, PartialEq)]
pub struct Device {
    pub device_id: i64,
    pub num_y_cores: i64,
    pub num_x_cores: i64,
    pub num_y_compute_cores: i64,
    pub num_x_compute_cores: i64,
    pub worker_l1_size: i64,
    pub l1_num_banks: i64,
    pub l1_bank_size: i64,
    pub address_at_first_l1_bank: i64,
    pub address_at_first_l1_cb_buffer: i64,
    pub num_banks_per_storage_core: i64,
    pub num_compute_cores: i64,
    pub num_storage_cores: i64,
    pub total_l1_memory: i64,
    pub total_l1_for_tensors: i64,
    pub total_l1_for_interleaved_buffers: i64,
    pub total_l1_for_sharded_buffers: i64,
    pub cb_limit: i64,
    pub rank: i64,
}

impl Device {
    /// The `devices` columns and values.
    pub fn values(&self) -> Vec<(&'static str, Value)> {
        use Value::Integer as I;
        vec![
            ("device_id", I(self.device_id)),
            ("num_y_cores", I(self.num_y_cores)),
            ("num_x_cores", I(self.num_x_cores)),
            ("num_y_compute_cores", I(self.num_y_compute_cores)),
            ("num_x_compute_cores", I(self.num_x_compute_cores)),
            ("worker_l1_size", I(self.worker_l1_size)),
            ("l1_num_banks", I(self.l1_num_banks)),
            ("l1_bank_size", I(self.l1_bank_size)),
            ("address_at_first_l1_bank", I(self.address_at_first_l1_bank)),
            ("address_at_first_l1_cb_buffer", I(self.address_at_first_l1_cb_buffer)),
            ("num_banks_per_storage_core", I(self.num_banks_per_storage_core)),
            ("num_compute_cores", I(self.num_compute_cores)),
            ("num_storage_cores", I(self.num_storage_cores)),
            ("total_l1_memory", I(self.total_l1_memory)),
            ("total_l1_for_tensors", I(self.total_l1_for_tensors)),
            ("total_l1_for_interleaved_buffers", I(self.total_l1_for_interleaved_buffers)),
            ("total_l1_for_sharded_buffers", I(self.total_l1_for_sharded_buffers)),
            ("cb_limit", I(self.cb_limit)),
            ("rank", I(self.rank)),
        ]
    }

    /// A Wormhole n150: 8×8 compute grid, 64 L1 banks of 1364928 B, 1499136 B of L1 per core.
    pub fn wormhole(device_id: i64) -> Self {
        Device {
            device_id,
            num_y_cores: 10,
            num_x_cores: 12,
            num_y_compute_cores: 8,
            num_x_compute_cores: 8,
            worker_l1_size: 1499136,
            l1_num_banks: 64,
            l1_bank_size: 1364928,
            address_at_first_l1_bank: 134208,
            address_at_first_l1_cb_buffer: 101440,
            num_banks_per_storage_core: 1,
            num_compute_cores: 64,
            num_storage_cores: 0,
            total_l1_memory: 95944704,
            total_l1_for_tensors: 87355392,
            total_l1_for_interleaved_buffers: 87355392,
            total_l1_for_sharded_buffers: 87355392,
            cb_limit: 1364928,
            rank: 0,
        }
    }

    /// A Blackhole p150: 11×10 compute grid, 110 L1 banks, 1572864 B of L1 per core.
    pub fn blackhole(device_id: i64) -> Self {
        Device {
            device_id,
            num_y_cores: 10,
            num_x_cores: 11,
            num_y_compute_cores: 10,
            num_x_compute_cores: 11,
            worker_l1_size: 1572864,
            l1_num_banks: 110,
            l1_bank_size: 1331936,
            address_at_first_l1_bank: 240928,
            address_at_first_l1_cb_buffer: 208160,
            num_banks_per_storage_core: 1,
            num_compute_cores: 110,
            num_storage_cores: 0,
            total_l1_memory: 173015040,
            total_l1_for_tensors: 146512960,
            total_l1_for_interleaved_buffers: 146512960,
            total_l1_for_sharded_buffers: 146512960,
            cb_limit: 1331936,
            rank: 0,
        }
    }

    pub fn rank(mut self, rank: i64) -> Self {
        self.rank = rank;
        self
    }
}

/// A `buffers` row: one device buffer live after an operation.
#[derive(Clone, Debug, PartialEq)]
pub struct BufferRow {
    pub device_id: i64,
    pub address: i64,
    pub max_size_per_bank: i64,
    pub buffer_type: BufferType,
    /// Store `buffer_type` as its name (`'L1'`) instead of its code, as some reports do.
    pub type_as_text: bool,
    /// `None` stores NULL. Legacy reports have no such column and drop it.
    pub buffer_layout: Option<Layout>,
}

impl BufferRow {
    pub fn new(buffer_type: BufferType, address: i64, max_size_per_bank: i64) -> Self {
        BufferRow {
            device_id: 0,
            address,
            max_size_per_bank,
            buffer_type,
            type_as_text: false,
            buffer_layout: Some(Layout::Interleaved),
        }
    }
    pub fn dram(address: i64, max_size_per_bank: i64) -> Self {
        Self::new(BufferType::Dram, address, max_size_per_bank)
    }
    pub fn l1(address: i64, max_size_per_bank: i64) -> Self {
        Self::new(BufferType::L1, address, max_size_per_bank)
    }
    pub fn l1_small(address: i64, max_size_per_bank: i64) -> Self {
        Self::new(BufferType::L1Small, address, max_size_per_bank)
    }
    pub fn device(mut self, device_id: i64) -> Self {
        self.device_id = device_id;
        self
    }
    pub fn layout(mut self, layout: Layout) -> Self {
        self.buffer_layout = Some(layout);
        self
    }
    pub fn null_layout(mut self) -> Self {
        self.buffer_layout = None;
        self
    }
    pub fn text_type(mut self) -> Self {
        self.type_as_text = true;
        self
    }

    /// The `buffers` columns and values for operation `operation_id`.
    pub fn values(&self, operation_id: i64, rank: i64) -> Vec<(&'static str, Value)> {
        let buffer_type = if self.type_as_text {
            Value::Text(self.buffer_type.token().to_string())
        } else {
            Value::Integer(self.buffer_type.code())
        };
        let layout = self.buffer_layout.map_or(Value::Null, |l| Value::Integer(l.code()));
        vec![
            ("operation_id", Value::Integer(operation_id)),
            ("device_id", Value::Integer(self.device_id)),
            ("address", Value::Integer(self.address)),
            ("max_size_per_bank", Value::Integer(self.max_size_per_bank)),
            ("buffer_type", buffer_type),
            ("buffer_layout", layout),
            ("rank", Value::Integer(rank)),
        ]
    }
}

/// A `tensors` row.
#[derive(Clone, Debug, PartialEq)]
pub struct TensorRow {
    pub tensor_id: i64,
    pub shape: String,
    pub dtype: String,
    pub layout: String,
    pub memory_config: Option<String>,
    pub device_id: Option<i64>,
    pub address: Option<i64>,
    pub buffer_type: Option<BufferType>,
    /// Multi-host reports only.
    pub size: Option<i64>,
    pub rank: i64,
}

impl TensorRow {
    /// A host tensor; see [`TensorRow::on_device`].
    pub fn new(tensor_id: i64, shape: &str, dtype: &str, layout: &str) -> Self {
        TensorRow {
            tensor_id,
            shape: shape.to_string(),
            dtype: dtype.to_string(),
            layout: layout.to_string(),
            memory_config: None,
            device_id: None,
            address: None,
            buffer_type: None,
            size: None,
            rank: 0,
        }
    }
    pub fn on_device(mut self, device_id: i64, address: i64, buffer_type: BufferType, memory_config: &str) -> Self {
        self.device_id = Some(device_id);
        self.address = Some(address);
        self.buffer_type = Some(buffer_type);
        self.memory_config = Some(memory_config.to_string());
        self
    }
    pub fn size(mut self, size: i64) -> Self {
        self.size = Some(size);
        self
    }
    pub fn rank(mut self, rank: i64) -> Self {
        self.rank = rank;
        self
    }

    /// The `tensors` columns and values.
    pub fn values(&self) -> Vec<(&'static str, Value)> {
        let int = |v: Option<i64>| v.map_or(Value::Null, Value::Integer);
        let text = |v: &Option<String>| v.clone().map_or(Value::Null, Value::Text);
        vec![
            ("tensor_id", Value::Integer(self.tensor_id)),
            ("shape", Value::Text(self.shape.clone())),
            ("dtype", Value::Text(self.dtype.clone())),
            ("layout", Value::Text(self.layout.clone())),
            ("memory_config", text(&self.memory_config)),
            ("device_id", int(self.device_id)),
            ("address", int(self.address)),
            ("buffer_type", int(self.buffer_type.map(BufferType::code))),
            ("rank", Value::Integer(self.rank)),
            ("size", int(self.size)),
        ]
    }
}

/// An operation and the rows hanging off it (arguments, stack trace, graph, buffers, tensors).
#[derive(Clone, Debug, PartialEq)]
pub struct Op {
    pub id: i64,
    pub name: String,
    pub duration: Option<f64>,
    pub rank: i64,
    pub arguments: Vec<(String, String)>,
    pub stack_trace: Option<String>,
    /// `stack_traces.source_file_id` (V2.1 only).
    pub source_file_id: Option<i64>,
    pub graphs: Vec<String>,
    pub buffers: Vec<BufferRow>,
    pub inputs: Vec<i64>,
    pub outputs: Vec<i64>,
}

impl Op {
    pub fn new(id: i64, name: &str) -> Self {
        Op {
            id,
            name: name.to_string(),
            duration: None,
            rank: 0,
            arguments: Vec::new(),
            stack_trace: None,
            source_file_id: None,
            graphs: Vec::new(),
            buffers: Vec::new(),
            inputs: Vec::new(),
            outputs: Vec::new(),
        }
    }
    /// In seconds, as `operations.duration` stores it.
    pub fn duration(mut self, seconds: f64) -> Self {
        self.duration = Some(seconds);
        self
    }
    pub fn rank(mut self, rank: i64) -> Self {
        self.rank = rank;
        self
    }
    pub fn argument(mut self, name: &str, value: &str) -> Self {
        self.arguments.push((name.to_string(), value.to_string()));
        self
    }
    pub fn stack_trace(mut self, trace: &str) -> Self {
        self.stack_trace = Some(trace.to_string());
        self
    }
    pub fn source_file(mut self, source_file_id: i64) -> Self {
        self.source_file_id = Some(source_file_id);
        self
    }
    /// A `captured_graph` row; call again for a second row with the same id.
    pub fn graph(mut self, json: impl Into<String>) -> Self {
        self.graphs.push(json.into());
        self
    }
    pub fn buffers(mut self, rows: Vec<BufferRow>) -> Self {
        self.buffers.extend(rows);
        self
    }
    pub fn inputs(mut self, tensor_ids: &[i64]) -> Self {
        self.inputs.extend_from_slice(tensor_ids);
        self
    }
    pub fn outputs(mut self, tensor_ids: &[i64]) -> Self {
        self.outputs.extend_from_slice(tensor_ids);
        self
    }
}

/// An `errors` row.
#[derive(Clone, Debug, PartialEq)]
pub struct ErrorRow {
    pub operation_id: Option<i64>,
    pub operation_name: String,
    pub error_type: String,
    pub error_message: String,
    pub stack_trace: String,
    pub timestamp: String,
    pub rank: i64,
}

impl ErrorRow {
    pub fn new(operation_id: i64, operation_name: &str, error_type: &str, message: &str) -> Self {
        ErrorRow {
            operation_id: Some(operation_id),
            operation_name: operation_name.to_string(),
            error_type: error_type.to_string(),
            error_message: message.to_string(),
            stack_trace: String::new(),
            timestamp: String::new(),
            rank: 0,
        }
    }
    /// The row graph_report writes for a top-level scope that never ended (`docs/rules/formats.md` §2.5):
    /// at the base id, empty stack trace and timestamp.
    pub fn incomplete(base_operation_id: i64, op_name: &str) -> Self {
        let msg = format!("Operation '{op_name}' started but never completed (likely crashed)");
        Self::new(base_operation_id, op_name, "incomplete_operation", &msg)
    }
    pub fn stack_trace(mut self, trace: &str) -> Self {
        self.stack_trace = trace.to_string();
        self
    }
    pub fn timestamp(mut self, timestamp: &str) -> Self {
        self.timestamp = timestamp.to_string();
        self
    }
    pub fn rank(mut self, rank: i64) -> Self {
        self.rank = rank;
        self
    }

    /// The `errors` columns and values.
    pub fn values(&self) -> Vec<(&'static str, Value)> {
        vec![
            ("operation_id", self.operation_id.map_or(Value::Null, Value::Integer)),
            ("operation_name", Value::Text(self.operation_name.clone())),
            ("error_type", Value::Text(self.error_type.clone())),
            ("error_message", Value::Text(self.error_message.clone())),
            ("stack_trace", Value::Text(self.stack_trace.clone())),
            ("timestamp", Value::Text(self.timestamp.clone())),
            ("rank", Value::Integer(self.rank)),
        ]
    }
}

/// A `source_files` row (V2.1).
#[derive(Clone, Debug, PartialEq)]
pub struct SourceFile {
    pub id: i64,
    pub path: String,
    pub contents: Option<String>,
}

impl SourceFile {
    pub fn new(id: i64, path: &str, contents: &str) -> Self {
        SourceFile { id, path: path.to_string(), contents: Some(contents.to_string()) }
    }

    /// The `source_files` columns and values.
    pub fn values(&self) -> Vec<(&'static str, Value)> {
        vec![
            ("id", Value::Integer(self.id)),
            ("path", Value::Text(self.path.clone())),
            ("contents", self.contents.clone().map_or(Value::Null, Value::Text)),
        ]
    }
}
