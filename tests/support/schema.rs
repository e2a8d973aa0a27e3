//! The `db.sqlite` schema of each era (`docs/rules/formats.md` §2.2–§2.3), verbatim from real reports:
//! the `.schema` dumps of TT-NN Visualizer's `report_schemas.py` and rank-test fixtures, and
//! tt-metal's `ttnn/ttnn/database.py` and `graph_report.py`. Also the buffer-type and layout
//! enums shared by the database and the graph.

/// The report database shapes found in the wild (`docs/rules/formats.md` §2.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Schema {
    /// Before `errors`, `report_metadata`, `device_tensors`, `source_files`, `buffers.buffer_layout`
    /// and `devices.num_storage_cores`.
    Legacy,
    /// TT-NN Visualizer's `SCHEMA_V2`.
    V2,
    /// `SCHEMA_V2_1`: V2 plus `source_files`, `stack_traces.source_file_id` and its index;
    /// graph_report also stores `report_metadata('schema_version','2.1')`.
    V2_1,
    /// V2 where every per-run table gains `rank int NOT NULL DEFAULT 0`; ids restart per rank.
    MultiHost,
}

const RANK: &str = "rank int NOT NULL DEFAULT 0";

/// Tables in the order of the `.schema` dumps of real reports.
pub const TABLE_ORDER: &[&str] = &[
    "devices",
    "operations",
    "operation_arguments",
    "tensors",
    "device_tensors",
    "buffers",
    "captured_graph",
    "nodes",
    "edges",
    "report_metadata",
    "errors",
    "source_files",
    "stack_traces",
    "input_tensors",
    "output_tensors",
    "local_tensor_comparison_records",
    "global_tensor_comparison_records",
    "buffer_pages",
];

impl Schema {
    /// The column definitions (and table constraints) of `table` in this era, or `None` when
    /// the era has no such table.
    pub fn columns(self, table: &str) -> Option<Vec<&'static str>> {
        use Schema::*;
        let multi = self == MultiHost;
        let mut cols: Vec<&'static str> = match table {
            "devices" => {
                let mut c = vec![
                    "device_id int",
                    "num_y_cores int",
                    "num_x_cores int",
                    "num_y_compute_cores int",
                    "num_x_compute_cores int",
                    "worker_l1_size int",
                    "l1_num_banks int",
                    "l1_bank_size int",
                    "address_at_first_l1_bank int",
                    "address_at_first_l1_cb_buffer int",
                    "num_banks_per_storage_core int",
                    "num_compute_cores int",
                    "num_storage_cores int",
                    "total_l1_memory int",
                    "total_l1_for_tensors int",
                    "total_l1_for_interleaved_buffers int",
                    "total_l1_for_sharded_buffers int",
                    "cb_limit int",
                ];
                if self == Legacy {
                    c.retain(|c| *c != "num_storage_cores int");
                }
                c
            }
            "operations" if multi => {
                return Some(vec![
                    "operation_id int",
                    "name text",
                    "duration float",
                    RANK,
                    "UNIQUE(operation_id, rank)",
                ]);
            }
            "operations" => vec!["operation_id int UNIQUE", "name text", "duration float"],
            "operation_arguments" => vec!["operation_id int", "name text", "value text"],
            "tensors" => {
                let id = if multi { "tensor_id int" } else { "tensor_id int UNIQUE" };
                let mut c = vec![
                    id,
                    "shape text",
                    "dtype text",
                    "layout text",
                    "memory_config text",
                    "device_id int",
                    "address int",
                    "buffer_type int",
                ];
                if multi {
                    c.extend([RANK, "size int", "UNIQUE(tensor_id, rank)"]);
                    return Some(c);
                }
                c
            }
            "device_tensors" if self == Legacy => return None,
            "device_tensors" => vec!["tensor_id int", "device_id int", "address int"],
            "buffers" => {
                let mut c = vec![
                    "operation_id int",
                    "device_id int",
                    "address int",
                    "max_size_per_bank int",
                    "buffer_type int",
                ];
                if self != Legacy {
                    c.push("buffer_layout int");
                }
                c
            }
            "captured_graph" => vec!["operation_id int", "captured_graph text"],
            "nodes" => vec!["operation_id int", "unique_id int", "node_operation_id int", "name text"],
            "edges" => vec![
                "operation_id int",
                "source_unique_id int",
                "sink_unique_id int",
                "source_output_index int",
                "sink_input_index int",
                "key int",
            ],
            "report_metadata" if self == Legacy => return None,
            "report_metadata" => return Some(vec!["key text UNIQUE", "value text"]),
            "errors" if self == Legacy => return None,
            "errors" => vec![
                "operation_id int",
                "operation_name text",
                "error_type text",
                "error_message text",
                "stack_trace text",
                "timestamp text",
            ],
            "source_files" if self == V2_1 => {
                return Some(vec!["id INTEGER PRIMARY KEY", "path text UNIQUE NOT NULL", "contents text"]);
            }
            "source_files" => return None,
            "stack_traces" if self == V2_1 => {
                return Some(vec![
                    "operation_id int",
                    "stack_trace text",
                    "source_file_id int REFERENCES source_files(id)",
                ]);
            }
            "stack_traces" => vec!["operation_id int", "stack_trace text"],
            "input_tensors" => vec!["operation_id int", "input_index int", "tensor_id int"],
            "output_tensors" => vec!["operation_id int", "output_index int", "tensor_id int"],
            "local_tensor_comparison_records" | "global_tensor_comparison_records" => {
                return Some(vec![
                    "tensor_id int",
                    "golden_tensor_id int",
                    "matches int",
                    "desired_pcc float",
                    "actual_pcc float",
                ]);
            }
            "buffer_pages" => vec![
                "operation_id int",
                "device_id int",
                "address int",
                "core_y int",
                "core_x int",
                "bank_id int",
                "page_index int",
                "page_address int",
                "page_size int",
                "buffer_type int",
            ],
            _ => return None,
        };
        // Per-run tables of a multi-host report carry the rank; nodes, edges, device_tensors,
        // report_metadata and the comparison tables do not.
        let per_run = !matches!(table, "nodes" | "edges" | "device_tensors");
        if multi && per_run {
            cols.push(RANK);
        }
        Some(cols)
    }

    /// The tables of this era, in `.schema` order.
    pub fn tables(self) -> Vec<&'static str> {
        TABLE_ORDER.iter().copied().filter(|t| self.columns(t).is_some()).collect()
    }

    /// Whether `table` of this era has a column named `column`.
    pub fn has_column(self, table: &str, column: &str) -> bool {
        self.columns(table).is_some_and(|cols| cols.iter().any(|c| c.split_whitespace().next() == Some(column)))
    }

    /// The `CREATE TABLE` statement of `table`, formatted like a `.schema` dump.
    pub fn create_table_sql(self, table: &str) -> Option<String> {
        let cols = self.columns(table)?;
        Some(format!("CREATE TABLE {table} (\n    {}\n)", cols.join(",\n    ")))
    }

    /// Every statement creating this era's schema (tables, then the V2.1 index), minus `without`.
    pub fn ddl(self, without: &[String]) -> Vec<String> {
        let mut out: Vec<String> = self
            .tables()
            .into_iter()
            .filter(|t| !without.iter().any(|w| w == t))
            .filter_map(|t| self.create_table_sql(t))
            .collect();
        if self == Schema::V2_1 && !without.iter().any(|w| w == "stack_traces") {
            out.push("CREATE INDEX idx_stack_traces_source_file_id ON stack_traces (source_file_id)".to_string());
        }
        out
    }
}

/// The lookup indexes TT-NN's `database.py` creates (`docs/rules/formats.md` §2.1), except the V2.1
/// stack-trace index, which [`Schema::ddl`] already creates.
pub const LOOKUP_INDEXES: &[&str] = &[
    "CREATE INDEX IF NOT EXISTS idx_buffers_address ON buffers (address)",
    "CREATE INDEX IF NOT EXISTS idx_buffers_operation_id ON buffers (operation_id)",
    "CREATE INDEX IF NOT EXISTS idx_buffers_device_id ON buffers (device_id)",
    "CREATE INDEX IF NOT EXISTS idx_buffers_max_size_per_bank ON buffers (max_size_per_bank)",
    "CREATE INDEX IF NOT EXISTS idx_buffers_buffer_type ON buffers (buffer_type)",
    "CREATE INDEX IF NOT EXISTS idx_output_tensors_tensor_id ON output_tensors (tensor_id)",
    "CREATE INDEX IF NOT EXISTS idx_input_tensors_tensor_id ON input_tensors (tensor_id)",
];

/// `BufferType` of tt-metal (`docs/rules/formats.md` §1.7).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BufferType {
    Dram,
    L1,
    SystemMemory,
    L1Small,
    Trace,
}

impl BufferType {
    /// The integer stored in `buffer_type int` columns and integer graph params.
    pub fn code(self) -> i64 {
        match self {
            BufferType::Dram => 0,
            BufferType::L1 => 1,
            BufferType::SystemMemory => 2,
            BufferType::L1Small => 3,
            BufferType::Trace => 4,
        }
    }

    /// The enum name, as error messages and text `buffer_type` columns print it.
    pub fn token(self) -> &'static str {
        match self {
            BufferType::Dram => "DRAM",
            BufferType::L1 => "L1",
            BufferType::SystemMemory => "SYSTEM_MEMORY",
            BufferType::L1Small => "L1_SMALL",
            BufferType::Trace => "TRACE",
        }
    }

    /// The graph nodes' `type` param: only `DRAM` or `L1`.
    pub fn graph_type(self) -> &'static str {
        match self {
            BufferType::L1 | BufferType::L1Small => "L1",
            _ => "DRAM",
        }
    }
}

/// `TensorMemoryLayout` (the `buffers.buffer_layout` column, the graph's `layout` param).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    Interleaved,
    HeightSharded,
    WidthSharded,
    BlockSharded,
}

impl Layout {
    pub fn code(self) -> i64 {
        match self {
            Layout::Interleaved => 0,
            Layout::HeightSharded => 2,
            Layout::WidthSharded => 3,
            Layout::BlockSharded => 4,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Layout::Interleaved => "INTERLEAVED",
            Layout::HeightSharded => "HEIGHT_SHARDED",
            Layout::WidthSharded => "WIDTH_SHARDED",
            Layout::BlockSharded => "BLOCK_SHARDED",
        }
    }
}
