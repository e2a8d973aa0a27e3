//! Builds TT-NN memory reports (`db.sqlite` + `config.json`) the way TT-NN writes them.
//!
//! The DDL of each era is in [`super::schema`]; rows are in [`super::rows`]. Rows are inserted
//! with rusqlite, with the real column types; nothing is edited by hand afterwards.

use std::path::{Path, PathBuf};

use rusqlite::Connection;
use rusqlite::types::Value;

use super::rows::{Device, ErrorRow, Op, SourceFile, TensorRow};
use super::schema::{Schema, TABLE_ORDER};

/// Builds a report folder. See the module documentation of `tests/support/mod.rs`.
#[derive(Clone, Debug)]
pub struct ReportBuilder {
    schema: Schema,
    without: Vec<String>,
    without_columns: Vec<(String, String)>,
    report_name: Option<String>,
    devices: Vec<Device>,
    ops: Vec<Op>,
    tensors: Vec<TensorRow>,
    errors: Vec<ErrorRow>,
    metadata: Vec<(String, String)>,
    source_files: Vec<SourceFile>,
    sql: Vec<String>,
}

impl ReportBuilder {
    pub fn new(schema: Schema) -> Self {
        let metadata = match schema {
            Schema::V2_1 => vec![("schema_version".to_string(), "2.1".to_string())],
            _ => Vec::new(),
        };
        ReportBuilder {
            schema,
            without: Vec::new(),
            without_columns: Vec::new(),
            report_name: None,
            devices: Vec::new(),
            ops: Vec::new(),
            tensors: Vec::new(),
            errors: Vec::new(),
            metadata,
            source_files: Vec::new(),
            sql: Vec::new(),
        }
    }

    pub fn schema(&self) -> Schema {
        self.schema
    }

    /// Leaves `table` out of the database; rows meant for it are dropped.
    pub fn without_table(mut self, table: &str) -> Self {
        assert!(TABLE_ORDER.contains(&table), "without_table: unknown table {table}");
        self.without.push(table.to_string());
        self
    }

    /// Leaves `column` out of `table`, as a writer of another era did (e.g. an `errors` table
    /// without `rank` in a multi-host report); values meant for it must be droppable.
    pub fn without_column(mut self, table: &str, column: &str) -> Self {
        assert!(self.schema.has_column(table, column), "without_column: {:?} has no {table}.{column}", self.schema);
        self.without_columns.push((table.to_string(), column.to_string()));
        self
    }

    /// Written to `config.json` as `report_name`.
    pub fn report_name(mut self, name: &str) -> Self {
        self.report_name = Some(name.to_string());
        self
    }

    pub fn device(mut self, device: Device) -> Self {
        self.devices.push(device);
        self
    }

    pub fn operation(mut self, op: Op) -> Self {
        self.ops.push(op);
        self
    }

    pub fn tensor(mut self, tensor: TensorRow) -> Self {
        self.tensors.push(tensor);
        self
    }

    pub fn error(mut self, error: ErrorRow) -> Self {
        self.errors.push(error);
        self
    }

    /// A `report_metadata` row; a later value for the same key replaces the earlier one
    /// (V2.1 starts with `schema_version` = `2.1`).
    pub fn metadata(mut self, key: &str, value: &str) -> Self {
        self.metadata.retain(|(k, _)| k != key);
        self.metadata.push((key.to_string(), value.to_string()));
        self
    }

    pub fn source_file(mut self, file: SourceFile) -> Self {
        self.source_files.push(file);
        self
    }

    /// Raw SQL run after everything else, for shapes the builder does not model.
    pub fn sql(mut self, sql: &str) -> Self {
        self.sql.push(sql.to_string());
        self
    }

    /// Writes `dir/db.sqlite` (replacing an existing one) and, when a report name was set,
    /// `dir/config.json`. Returns the database path.
    pub fn write_to(&self, dir: &Path) -> PathBuf {
        std::fs::create_dir_all(dir).expect("create report dir");
        let db = dir.join("db.sqlite");
        self.write_db(&db);
        if let Some(name) = &self.report_name {
            let config = serde_json::json!({ "report_name": name });
            let text = serde_json::to_string_pretty(&config).expect("config json") + "\n";
            std::fs::write(dir.join("config.json"), text).expect("write config.json");
        }
        db
    }

    /// Writes only the database file at `path` (replacing an existing one).
    pub fn write_db(&self, path: &Path) {
        if path.exists() {
            std::fs::remove_file(path).expect("remove old db.sqlite");
        }
        let mut conn = Connection::open(path).expect("open db.sqlite");
        self.fill(&mut conn);
    }

    /// Builds the report in an in-memory database.
    pub fn in_memory(&self) -> Connection {
        let mut conn = Connection::open_in_memory().expect("open in-memory db");
        self.fill(&mut conn);
        conn
    }

    /// Inserts this builder's rows into a report whose tables exist (written by `write_to`), in
    /// one transaction, as a live writer adds an operation: no DDL, and no metadata rows.
    pub fn append_to(&self, conn: &mut Connection) {
        assert!(self.metadata.is_empty(), "append_to: metadata rows are written once, by write_to");
        let tx = conn.transaction().expect("begin");
        let mut w =
            Writer { tx: &tx, schema: self.schema, without: &self.without, without_columns: &self.without_columns };
        self.insert_rows(&mut w);
        tx.commit().expect("commit");
    }

    fn fill(&self, conn: &mut Connection) {
        let tx = conn.transaction().expect("begin");
        for stmt in self.schema.ddl(&self.without) {
            let stmt = self.drop_columns(&stmt);
            tx.execute_batch(&stmt).unwrap_or_else(|e| panic!("{e}: {stmt}"));
        }
        let mut w =
            Writer { tx: &tx, schema: self.schema, without: &self.without, without_columns: &self.without_columns };
        self.insert_rows(&mut w);
        for sql in &self.sql {
            tx.execute_batch(sql).unwrap_or_else(|e| panic!("{e}: {sql}"));
        }
        tx.commit().expect("commit");
    }

    /// A `CREATE TABLE` statement without the columns left out of its table.
    fn drop_columns(&self, stmt: &str) -> String {
        let Some(table) = stmt.strip_prefix("CREATE TABLE ").and_then(|s| s.split_whitespace().next()) else {
            return stmt.to_string();
        };
        let dropped = |line: &str| {
            let column = line.split_whitespace().next().unwrap_or("");
            self.without_columns.iter().any(|(t, c)| t == table && c == column)
        };
        let lines: Vec<&str> = stmt.lines().filter(|l| !dropped(l)).collect();
        // The last column definition loses its trailing comma when the one after it went.
        let mut out = lines.join("\n");
        out = out.replace(",\n)", "\n)");
        out
    }

    fn insert_rows(&self, w: &mut Writer) {
        use Value::{Integer as I, Null, Real, Text as T};
        for d in &self.devices {
            // Legacy devices tables have no num_storage_cores: that writer did not record it.
            w.insert("devices", &d.values(), &["num_storage_cores"]);
        }
        for f in &self.source_files {
            w.insert("source_files", &f.values(), &[]);
        }
        for op in &self.ops {
            let (id, rank) = (("operation_id", I(op.id)), ("rank", I(op.rank)));
            let duration = ("duration", op.duration.map_or(Null, Real));
            let name = ("name", T(op.name.clone()));
            w.insert("operations", &[id.clone(), name, duration, rank.clone()], &[]);
            for (name, value) in &op.arguments {
                let (name, value) = (("name", T(name.clone())), ("value", T(value.clone())));
                w.insert("operation_arguments", &[id.clone(), name, value, rank.clone()], &[]);
            }
            if let Some(trace) = &op.stack_trace {
                let trace = ("stack_trace", T(trace.clone()));
                let file = ("source_file_id", op.source_file_id.map_or(Null, I));
                w.insert("stack_traces", &[id.clone(), trace, file, rank.clone()], &[]);
            }
            for (table, index, tensors) in
                [("input_tensors", "input_index", &op.inputs), ("output_tensors", "output_index", &op.outputs)]
            {
                for (i, tensor_id) in tensors.iter().enumerate() {
                    let (i, t) = ((index, I(i as i64)), ("tensor_id", I(*tensor_id)));
                    w.insert(table, &[id.clone(), i, t, rank.clone()], &[]);
                }
            }
            for graph in &op.graphs {
                let graph = ("captured_graph", T(graph.clone()));
                w.insert("captured_graph", &[id.clone(), graph, rank.clone()], &[]);
            }
            for b in &op.buffers {
                // Legacy buffers tables have no buffer_layout column.
                w.insert("buffers", &b.values(op.id, op.rank), &["buffer_layout"]);
            }
        }
        for t in &self.tensors {
            w.insert("tensors", &t.values(), &["size"]);
        }
        for e in &self.errors {
            w.insert("errors", &e.values(), &[]);
        }
        for (key, value) in &self.metadata {
            let row = [("key", T(key.clone())), ("value", T(value.clone()))];
            w.insert("report_metadata", &row, &[]);
        }
    }
}

struct Writer<'a> {
    tx: &'a rusqlite::Transaction<'a>,
    schema: Schema,
    without: &'a [String],
    without_columns: &'a [(String, String)],
}

impl Writer<'_> {
    /// Inserts a row into `table`, naming the columns. A column the era lacks is dropped when
    /// it is `rank` = 0, a NULL, or listed in `droppable`; anything else is a mistake in the
    /// test and panics. Rows for a table removed with `without_table` are dropped.
    fn insert(&mut self, table: &str, values: &[(&str, Value)], droppable: &[&str]) {
        if self.without.iter().any(|w| w == table) {
            return;
        }
        assert!(self.schema.columns(table).is_some(), "{:?} reports have no {table} table", self.schema);
        let mut names = Vec::new();
        let mut params = Vec::new();
        for (name, value) in values {
            let left_out = self.without_columns.iter().any(|(t, c)| t == table && c == name);
            if self.schema.has_column(table, name) && !left_out {
                names.push(*name);
                params.push(value.clone());
                continue;
            }
            let harmless = matches!(value, Value::Null)
                || (*name == "rank" && *value == Value::Integer(0))
                || droppable.contains(name);
            assert!(harmless, "{:?} reports have no {table}.{name} column (value {value:?})", self.schema);
        }
        let sql = format!("INSERT INTO {table} ({}) VALUES ({})", names.join(", "), vec!["?"; names.len()].join(", "));
        let mut stmt = self.tx.prepare_cached(&sql).unwrap_or_else(|e| panic!("{e}: {sql}"));
        stmt.execute(rusqlite::params_from_iter(params)).unwrap_or_else(|e| panic!("{e}: {sql}"));
    }
}
