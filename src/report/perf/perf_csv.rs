//! Reading an `ops_perf_results` CSV of any era, or a tt-perf-report `--csv` output: columns by
//! header name only, ragged rows tolerated and counted, the `'` formula guard removed, every
//! kept cell sanitised (docs/rules/formats.md §4–§5, docs/rules/reference.md §8).

use crate::analysis::perf::numbers::{parse_float_prefix, parse_int_prefix};
use crate::analysis::perf::report_rows::{
    Analytics, PerfRecord, PerfRow, SIGNPOST_OP_TYPE, Text, in_call_order, raw_op_code_of,
};
use crate::analysis::sanitize::sanitize_line;
use crate::report::error::ReportError;
use csv::ByteRecord;
use std::collections::HashMap;
use std::io::Read;
use std::path::Path;

/// The columns a raw CSV must have.
pub(crate) const REQUIRED_COLUMNS: [&str; 3] = ["OP CODE", "OP TYPE", "GLOBAL CALL COUNT"];

/// The rows of a CSV, by kind.
#[derive(Debug, Clone, PartialEq)]
pub enum PerfData {
    /// A raw tt-metal CSV: records for the row pipeline.
    Raw {
        /// One record per data row, in CSV order.
        records: Vec<PerfRecord>,
        /// Whether the CSV has a `HOST START TS` column.
        has_host_start: bool,
    },
    /// A tt-perf-report `--csv` output: rows already built (merged, ids given).
    Analysed(Vec<PerfRow>),
}

/// A parsed CSV.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ParsedCsv {
    /// Its rows.
    pub(crate) data: PerfData,
    /// Data rows read.
    pub(crate) data_rows: usize,
    /// Data rows with fewer or more cells than the header.
    pub(crate) ragged_rows: usize,
}

/// A cell as text: the formula guard removed, sanitised; ASCII text is taken as is.
fn cell_text(bytes: &[u8]) -> String {
    let bytes = match bytes {
        [b'\'', b'=' | b'+' | b'-' | b'@' | b'\t' | b'\r', ..] => &bytes[1..],
        _ => bytes,
    };
    if bytes.iter().all(|b| (0x20..0x7f).contains(b)) {
        // Printable ASCII: nothing to sanitise.
        String::from_utf8(bytes.to_vec()).expect("ASCII is UTF-8")
    } else {
        sanitize_line(&String::from_utf8_lossy(bytes))
    }
}

/// A cell as shared text, allocated once: as [`cell_text`] gives it.
fn cell_shared(bytes: &[u8]) -> Text {
    let unguarded = match bytes {
        [b'\'', b'=' | b'+' | b'-' | b'@' | b'\t' | b'\r', ..] => &bytes[1..],
        _ => bytes,
    };
    match std::str::from_utf8(unguarded) {
        Ok(text) if unguarded.iter().all(|b| (0x20..0x7f).contains(b)) => Text::from(text),
        _ => cell_text(bytes).into(),
    }
}

/// True when a cell reads as `text`: plain printable ASCII equal to it, with no formula guard.
fn cell_text_is(bytes: &[u8], text: &str) -> bool {
    bytes == text.as_bytes() && bytes.first() != Some(&b'\'') && bytes.iter().all(|b| (0x20..0x7f).contains(b))
}

/// Column positions by trimmed header name (the first of duplicated names wins).
struct Columns(HashMap<String, usize>);

impl Columns {
    fn new(header: &ByteRecord) -> Self {
        let mut map = HashMap::new();
        for (i, name) in header.iter().enumerate() {
            map.entry(cell_text(name).trim().to_string()).or_insert(i);
        }
        Self(map)
    }

    fn get(&self, name: &str) -> Option<usize> {
        self.0.get(name).copied()
    }

    fn has(&self, name: &str) -> bool {
        self.0.contains_key(name)
    }
}

/// Reads one record's cells by column.
struct Cells<'a> {
    record: &'a ByteRecord,
}

impl Cells<'_> {
    fn raw(&self, column: Option<usize>) -> &[u8] {
        column.and_then(|c| self.record.get(c)).unwrap_or_default()
    }

    fn text(&self, column: Option<usize>) -> Text {
        cell_shared(self.raw(column))
    }

    fn optional_text(&self, column: Option<usize>) -> Option<Text> {
        let text = cell_shared(self.raw(column));
        (!text.trim().is_empty()).then_some(text)
    }

    fn float(&self, column: Option<usize>) -> Option<f64> {
        parse_float_prefix(std::str::from_utf8(self.raw(column)).ok()?)
    }

    fn int(&self, column: Option<usize>) -> Option<i64> {
        parse_int_prefix(std::str::from_utf8(self.raw(column)).ok()?)
    }

    /// An integer cell, also written as an integral float (`1.0`).
    fn integer(&self, column: Option<usize>) -> Option<u64> {
        let text = std::str::from_utf8(self.raw(column)).ok()?.trim();
        text.parse::<u64>().ok().or_else(|| {
            let value: f64 = text.parse().ok()?;
            (value >= 0.0 && value.fract() == 0.0 && value < 1.8e19).then_some(value as u64)
        })
    }
}

/// Parses a CSV; `path` names it in errors.
pub(crate) fn parse_csv(input: impl Read, path: &Path) -> Result<ParsedCsv, ReportError> {
    let mut reader =
        csv::ReaderBuilder::new().has_headers(false).flexible(true).buffer_capacity(1 << 16).from_reader(input);
    let read_error = |e: csv::Error| ReportError::new(format!("cannot read the CSV ({e})"), path);
    let (header, columns, analysed) = read_header(&mut reader, path)?;
    let width = header.len();
    let mut record = ByteRecord::new();
    let mut data_rows = 0;
    let mut ragged_rows = 0;
    let mut raw = Vec::new();
    let mut rows = Vec::new();
    let raw_columns = RawColumns::new(&columns);
    let analysed_columns = AnalysedColumns::new(&columns);
    while reader.read_byte_record(&mut record).map_err(read_error)? {
        if record.len() != width {
            ragged_rows += 1;
        }
        let cells = Cells { record: &record };
        let id = data_rows as u64 + 2;
        data_rows += 1;
        if analysed {
            rows.extend(analysed_columns.row(&cells));
        } else {
            let record = raw_columns.record(&cells, id, raw.last());
            raw.push(record);
        }
    }
    // A header and no rows is what the profiler leaves when the model died before its first
    // operation finished: an empty report, not a refusal (docs/rules/reference.md §8.1).
    let data = if analysed {
        rows.retain(|r: &PerfRow| !r.is_host_op());
        PerfData::Analysed(in_call_order(rows))
    } else {
        PerfData::Raw { records: raw, has_host_start: columns.has("HOST START TS") }
    };
    Ok(ParsedCsv { data, data_rows, ragged_rows })
}

/// Reads a CSV's header line only, and checks it is a perf report's (raw or tt-perf-report's).
pub(crate) fn check_header(input: impl Read, path: &Path) -> Result<(), ReportError> {
    let mut reader = csv::ReaderBuilder::new().has_headers(false).flexible(true).from_reader(input);
    read_header(&mut reader, path).map(|_| ())
}

/// The header record, its columns, and whether it is a tt-perf-report output.
fn read_header<R: Read>(reader: &mut csv::Reader<R>, path: &Path) -> Result<(ByteRecord, Columns, bool), ReportError> {
    let mut header = ByteRecord::new();
    let read = reader.read_byte_record(&mut header);
    if !read.map_err(|e| ReportError::new(format!("cannot read the CSV ({e})"), path))? {
        return Err(ReportError::new("empty file, not a perf report", path)
            .hint("pass an ops_perf_results*.csv or its profiler report folder"));
    }
    let columns = Columns::new(&header);
    let analysed = columns.has("ID") && columns.has("OP Code");
    if !analysed && let Some(missing) = REQUIRED_COLUMNS.iter().find(|c| !columns.has(c)) {
        return Err(ReportError::new(format!("no `{missing}` column: not a tt-metal ops perf report"), path)
            .hint("pass an ops_perf_results*.csv or its profiler report folder"));
    }
    Ok((header, columns, analysed))
}

/// Positions of the raw columns the rules read.
struct RawColumns {
    op_code: Option<usize>,
    op_type: Option<usize>,
    global_call_count: Option<usize>,
    device_id: Option<usize>,
    host_start_ts: Option<usize>,
    kernel_duration: Option<usize>,
    op_to_op_latency: Option<usize>,
    core_count: Option<usize>,
    available_cores: Option<usize>,
    math_fidelity: Option<usize>,
    program_hash: Option<usize>,
    cache_hit: Option<usize>,
    pm_ideal: Option<usize>,
}

impl RawColumns {
    fn new(c: &Columns) -> Self {
        Self {
            op_code: c.get("OP CODE"),
            op_type: c.get("OP TYPE"),
            global_call_count: c.get("GLOBAL CALL COUNT"),
            device_id: c.get("DEVICE ID"),
            host_start_ts: c.get("HOST START TS"),
            kernel_duration: c.get("DEVICE KERNEL DURATION [ns]"),
            op_to_op_latency: c.get("OP TO OP LATENCY [ns]"),
            core_count: c.get("CORE COUNT"),
            available_cores: c.get("AVAILABLE WORKER CORE COUNT"),
            math_fidelity: c.get("MATH FIDELITY"),
            program_hash: c.get("PROGRAM HASH"),
            cache_hit: c.get("PROGRAM CACHE HIT"),
            // The 2023 header spells it without brackets.
            pm_ideal: c.get("PM IDEAL [ns]").or_else(|| c.get("PM IDEAL NS")),
        }
    }

    fn record(&self, cells: &Cells<'_>, id: u64, previous: Option<&PerfRecord>) -> PerfRecord {
        // Neighbouring rows mostly repeat their op type, fidelity and often op code: share the
        // previous row's text instead of allocating it again.
        let shared = |column: Option<usize>, last: Option<&Text>| match last {
            Some(text) if cell_text_is(cells.raw(column), text) => text.clone(),
            _ => cells.text(column),
        };
        PerfRecord {
            id,
            op_code: shared(self.op_code, previous.map(|p| &p.op_code)),
            op_type: shared(self.op_type, previous.map(|p| &p.op_type)),
            device_id: cells.integer(self.device_id),
            host_start_ts: cells.float(self.host_start_ts),
            kernel_duration_ns: cells.float(self.kernel_duration),
            op_to_op_latency_ns: cells.float(self.op_to_op_latency),
            core_count: cells.int(self.core_count),
            available_cores: cells.int(self.available_cores),
            math_fidelity: shared(self.math_fidelity, previous.map(|p| &p.math_fidelity)),
            program_hash: cells.optional_text(self.program_hash),
            cache_hit: match cells.raw(self.cache_hit) {
                b"True" => Some(true),
                b"False" => Some(false),
                _ => None,
            },
            pm_ideal_ns: cells.float(self.pm_ideal),
            global_call_count: cells.text(self.global_call_count),
        }
    }
}

/// Positions of the tt-perf-report output columns read.
struct AnalysedColumns {
    id: Option<usize>,
    op_code: Option<usize>,
    raw_op_code: Option<usize>,
    total_percent: Option<usize>,
    bound: Option<usize>,
    device: Option<usize>,
    device_time: Option<usize>,
    op_to_op_gap: Option<usize>,
    cores: Option<usize>,
    available_cores: Option<usize>,
    dram_percent: Option<usize>,
    flops_percent: Option<usize>,
    math_fidelity: Option<usize>,
    global_call_count: Option<usize>,
    bound_analysis: Option<usize>,
}

impl AnalysedColumns {
    fn new(c: &Columns) -> Self {
        Self {
            id: c.get("ID"),
            op_code: c.get("OP Code"),
            raw_op_code: c.get("Raw OP Code"),
            total_percent: c.get("Total %"),
            bound: c.get("Bound"),
            device: c.get("Device"),
            device_time: c.get("Device Time"),
            op_to_op_gap: c.get("Op-to-Op Gap"),
            cores: c.get("Cores"),
            available_cores: c.get("Available Cores"),
            dram_percent: c.get("DRAM %"),
            flops_percent: c.get("FLOPs %"),
            math_fidelity: c.get("Math Fidelity"),
            global_call_count: c.get("Global Call Count"),
            bound_analysis: c.get("Bound Analysis"),
        }
    }

    /// A row, or none without a readable `ID`.
    fn row(&self, cells: &Cells<'_>) -> Option<PerfRow> {
        let id = cells.integer(self.id)?;
        let op_code = cells.text(self.op_code);
        let signpost = op_code.ends_with(" (signpost)");
        let raw_op_code = match self.raw_op_code {
            Some(_) => cells.text(self.raw_op_code),
            None if signpost => op_code.strip_suffix(" (signpost)").unwrap_or(&op_code).into(),
            None => raw_op_code_of(&op_code).into(),
        };
        let analytics = Analytics {
            bound: cells.optional_text(self.bound).map(|t| t.to_string()),
            dram_percent: cells.float(self.dram_percent),
            flops_percent: cells.float(self.flops_percent),
            bound_analysis: cells.optional_text(self.bound_analysis).map(|t| t.to_string()),
        };
        Some(PerfRow {
            id,
            raw_op_code,
            op_type: if signpost { SIGNPOST_OP_TYPE.into() } else { "".into() },
            op_code,
            device: cells.integer(self.device),
            device_time_us: cells.float(self.device_time),
            op_to_op_gap_us: cells.float(self.op_to_op_gap),
            cores: cells.int(self.cores),
            available_cores: cells.int(self.available_cores),
            total_percent: cells.float(self.total_percent),
            math_fidelity: cells.text(self.math_fidelity),
            program_hash: None,
            cache_hit: None,
            pm_ideal_ns: None,
            global_call_count: cells.text(self.global_call_count),
            analytics: Some(analytics),
        })
    }
}
