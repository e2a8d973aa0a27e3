//! Builds `ops_perf_results` CSVs of every era and tt-perf-report outputs for tests and the
//! benchmark (docs/rules/formats.md §4.2–§4.3, §5).
#![allow(dead_code)]

use std::collections::HashMap;

/// A CSV header era.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Era {
    /// 2023: no `DEVICE ID`, `PM IDEAL NS`.
    Y2023,
    /// 2024–2025: `DEVICE ID`, `OP TO OP LATENCY [ns]`, `PM IDEAL [ns]`.
    Y2025,
    /// 2026: `DEVICE ARCH`, `AVAILABLE WORKER CORE COUNT`, `PROGRAM HASH`, per-tensor columns and
    /// the perf-counter block (≈ 290 columns).
    Y2026,
}

const Y2023: &str = "OP CODE,OP TYPE,GLOBAL CALL COUNT,ATTRIBUTES,MATH FIDELITY,CORE COUNT,PARALLELIZATION STRATEGY,HOST START TS,HOST END TS,HOST DURATION [ns],DEVICE FW START CYCLE,DEVICE FW END CYCLE,DEVICE FW DURATION [ns],DEVICE KERNEL DURATION [ns],DEVICE BRISC KERNEL DURATION [ns],DEVICE NCRISC KERNEL DURATION [ns],DEVICE TRISC0 KERNEL DURATION [ns],DEVICE TRISC1 KERNEL DURATION [ns],DEVICE TRISC2 KERNEL DURATION [ns],DEVICE ERISC KERNEL DURATION [ns],DEVICE COMPUTE CB WAIT FRONT [ns],DEVICE COMPUTE CB RESERVE BACK [ns],INPUTS,OUTPUTS,CALL DEPTH,COMPUTE KERNEL PATH,COMPUTE KERNEL HASH,DATA MOVEMENT KERNEL PATH,DATA MOVEMENT KERNEL HASH,PM IDEAL NS,PM COMPUTE NS,PM BANDWIDTH NS,PM REQ I BW,PM REQ O BW";

const Y2025_HEAD: &str = "OP CODE,OP TYPE,GLOBAL CALL COUNT,DEVICE ID,ATTRIBUTES,MATH FIDELITY,CORE COUNT,PARALLELIZATION STRATEGY,HOST START TS,HOST END TS,HOST DURATION [ns],DEVICE FW START CYCLE,DEVICE FW END CYCLE,OP TO OP LATENCY [ns],OP TO OP LATENCY BR/NRISC START [ns],DEVICE FW DURATION [ns],DEVICE KERNEL DURATION [ns],DEVICE KERNEL DURATION DM START [ns],DEVICE KERNEL DURATION PER CORE MIN [ns],DEVICE KERNEL DURATION PER CORE MAX [ns],DEVICE KERNEL DURATION PER CORE AVG [ns],DEVICE KERNEL FIRST TO LAST START [ns],DEVICE BRISC KERNEL DURATION [ns],DEVICE NCRISC KERNEL DURATION [ns],DEVICE TRISC0 KERNEL DURATION [ns],DEVICE TRISC1 KERNEL DURATION [ns],DEVICE TRISC2 KERNEL DURATION [ns],DEVICE ERISC KERNEL DURATION [ns],DEVICE COMPUTE CB WAIT FRONT [ns],DEVICE COMPUTE CB RESERVE BACK [ns],DISPATCH TOTAL CQ CMD OP TIME [ns],DISPATCH GO SEND WAIT TIME [ns]";

const Y2025_TAIL: &str = "METAL TRACE ID,METAL TRACE REPLAY SESSION ID,COMPUTE KERNEL SOURCE,COMPUTE KERNEL HASH,DATA MOVEMENT KERNEL SOURCE,DATA MOVEMENT KERNEL HASH,BRISC MAX KERNEL SIZE [B],NCRISC MAX KERNEL SIZE [B],TRISC 0 MAX KERNEL SIZE [B],TRISC 1 MAX KERNEL SIZE [B],TRISC 2 MAX KERNEL SIZE [B],ERISC MAX KERNEL SIZE [B],PM IDEAL [ns],PM COMPUTE [ns],PM BANDWIDTH [ns],PM REQ I BW,PM REQ O BW,PM FPU UTIL (%),NOC UTIL (%),DRAM BW UTIL (%),NPE CONG IMPACT (%)";

const Y2026_HEAD: &str = "OP CODE,OP TYPE,GLOBAL CALL COUNT,DEVICE ID,DEVICE ARCH,ATTRIBUTES,MATH FIDELITY,CORE COUNT,AVAILABLE WORKER CORE COUNT,PARALLELIZATION STRATEGY,HOST START TS,HOST END TS,HOST DURATION [ns],DEVICE FW START CYCLE,DEVICE FW END CYCLE,OP TO OP LATENCY [ns],OP TO OP LATENCY BR/NRISC START [ns],DEVICE FW DURATION [ns],DEVICE KERNEL DURATION [ns],DEVICE KERNEL DURATION DM START [ns],DEVICE KERNEL DURATION PER CORE MIN [ns],DEVICE KERNEL DURATION PER CORE MAX [ns],DEVICE KERNEL DURATION PER CORE AVG [ns],DEVICE KERNEL FIRST TO LAST START [ns],DEVICE BRISC KERNEL DURATION [ns],DEVICE NCRISC KERNEL DURATION [ns],DEVICE TRISC0 KERNEL DURATION [ns],DEVICE TRISC1 KERNEL DURATION [ns],DEVICE TRISC2 KERNEL DURATION [ns],DEVICE ERISC KERNEL DURATION [ns],DEVICE COMPUTE CB WAIT FRONT [ns],DEVICE COMPUTE CB RESERVE BACK [ns],DISPATCH TOTAL CQ CMD OP TIME [ns],DISPATCH GO SEND WAIT TIME [ns]";

const Y2026_TAIL: &str = "METAL TRACE ID,METAL TRACE REPLAY SESSION ID,COMPUTE KERNEL SOURCE,COMPUTE KERNEL HASH,DATA MOVEMENT KERNEL SOURCE,DATA MOVEMENT KERNEL HASH,PROGRAM HASH,PROGRAM CACHE HIT,TENSIX DM 0 MAX KERNEL SIZE [B],TENSIX DM 1 MAX KERNEL SIZE [B],TENSIX COMPUTE 0 MAX KERNEL SIZE [B],TENSIX COMPUTE 1 MAX KERNEL SIZE [B],TENSIX COMPUTE 2 MAX KERNEL SIZE [B],ACTIVE ETH DM 0 MAX KERNEL SIZE [B],ACTIVE ETH DM 1 MAX KERNEL SIZE [B],IDLE ETH DM 0 MAX KERNEL SIZE [B],IDLE ETH DM 1 MAX KERNEL SIZE [B],PM IDEAL [ns],PM COMPUTE [ns],PM BANDWIDTH [ns],PM REQ I BW,PM REQ O BW,PM FPU UTIL (%),NOC UTIL (%),MULTICAST NOC UTIL (%),DRAM BW UTIL (%),ETH BW UTIL (%),NPE CONG IMPACT (%)";

/// Metrics of the optional perf-counter block, each with Min/Median/Max/Avg columns.
const COUNTERS: [&str; 28] = [
    "SFPU Util",
    "FPU Util",
    "MATH Util",
    "Unpack Util",
    "Pack Util",
    "TRISC0 Stall",
    "TRISC1 Stall",
    "TRISC2 Stall",
    "BRISC Stall",
    "NCRISC Stall",
    "L1 Read BW",
    "L1 Write BW",
    "CB Wait",
    "CB Reserve",
    "SrcA Valid",
    "SrcB Valid",
    "Dest Busy",
    "Math Busy",
    "Pack Busy",
    "Unpack Busy",
    "NOC Ring 0 Outgoing Util",
    "NOC Ring 0 Incoming Util",
    "NOC Ring 1 Outgoing Util",
    "NOC Ring 1 Incoming Util",
    "DRAM Read Util",
    "DRAM Write Util",
    "Eth Tx Util",
    "Eth Rx Util",
];

fn tensor_columns(prefix: &str, count: usize) -> Vec<String> {
    let fields =
        ["W_PAD[LOGICAL]", "Z_PAD[LOGICAL]", "Y_PAD[LOGICAL]", "X_PAD[LOGICAL]", "LAYOUT", "DATATYPE", "MEMORY"];
    (0..count).flat_map(|n| fields.iter().map(move |f| format!("{prefix}_{n}_{f}"))).collect()
}

fn split(list: &str) -> Vec<String> {
    list.split(',').map(str::to_string).collect()
}

/// The header of an era.
pub fn header(era: Era) -> Vec<String> {
    match era {
        Era::Y2023 => split(Y2023),
        Era::Y2025 => {
            let mut h = split(Y2025_HEAD);
            h.extend(tensor_columns("INPUT", 2));
            h.extend(tensor_columns("OUTPUT", 1));
            h.extend(split(Y2025_TAIL));
            h
        }
        Era::Y2026 => {
            let mut h = split(Y2026_HEAD);
            h.extend(tensor_columns("INPUT", 12));
            h.extend(tensor_columns("OUTPUT", 4));
            h.extend(split(Y2026_TAIL));
            h.extend(COUNTERS.iter().flat_map(|m| ["Min", "Median", "Max", "Avg"].map(|s| format!("{m} {s} (%)"))));
            h
        }
    }
}

/// One row: cells by column name; columns not set are written empty.
#[derive(Debug, Clone, Default)]
pub struct Row {
    /// Cells by column name.
    pub cells: HashMap<String, String>,
    /// Write only the first n cells (a row with missing cells).
    pub truncate: Option<usize>,
    /// Extra cells after the header's width.
    pub extra: usize,
}

impl Row {
    /// Sets a cell.
    pub fn set(mut self, column: &str, value: impl ToString) -> Self {
        self.cells.insert(column.to_string(), value.to_string());
        self
    }

    /// A device operation on a device, with its kernel duration in ns.
    pub fn device(op_code: &str, device: u64, duration_ns: u64) -> Self {
        Row::default()
            .set("OP CODE", op_code)
            .set("OP TYPE", "tt_dnn_device")
            .set("DEVICE ID", device)
            .set("DEVICE KERNEL DURATION [ns]", duration_ns)
            .set("CORE COUNT", 64)
            .set("MATH FIDELITY", "HiFi4")
            .set("INPUT_0_MEMORY", "DEV_0_DRAM_INTERLEAVED")
            .set("OUTPUT_0_MEMORY", "DEV_0_L1_INTERLEAVED")
    }

    /// A signpost row.
    pub fn signpost(text: &str) -> Self {
        Row::default().set("OP CODE", text).set("OP TYPE", "signpost")
    }

    /// A host (fallback) op.
    pub fn host(op_code: &str) -> Self {
        Row::default().set("OP CODE", op_code).set("OP TYPE", "python_fallback")
    }
}

/// A raw `ops_perf_results` CSV under construction.
#[derive(Debug, Clone)]
pub struct PerfCsv {
    /// Its header.
    pub columns: Vec<String>,
    rows: Vec<Row>,
}

impl PerfCsv {
    /// An empty CSV of an era.
    pub fn new(era: Era) -> Self {
        Self { columns: header(era), rows: Vec::new() }
    }

    /// Adds a row; `GLOBAL CALL COUNT` and `HOST START TS` count up unless set.
    pub fn push(&mut self, row: Row) -> &mut Self {
        let n = self.rows.len() as u64;
        let mut row = row;
        row.cells.entry("GLOBAL CALL COUNT".into()).or_insert_with(|| (1024 + n).to_string());
        row.cells.entry("HOST START TS".into()).or_insert_with(|| (96_293_877_843 + n * 1000).to_string());
        self.rows.push(row);
        self
    }

    /// The CSV text.
    pub fn to_csv(&self) -> String {
        let mut writer = csv::WriterBuilder::new().flexible(true).from_writer(Vec::new());
        writer.write_record(&self.columns).unwrap();
        for row in &self.rows {
            let mut cells: Vec<&str> =
                self.columns.iter().map(|c| row.cells.get(c).map(String::as_str).unwrap_or("")).collect();
            if let Some(n) = row.truncate {
                cells.truncate(n);
            }
            cells.extend(std::iter::repeat_n("x", row.extra));
            writer.write_record(&cells).unwrap();
        }
        String::from_utf8(writer.into_inner().unwrap()).unwrap()
    }

    /// Writes the CSV into a folder under a name, returning its path.
    pub fn write(&self, folder: &std::path::Path, name: &str) -> std::path::PathBuf {
        let path = folder.join(name);
        std::fs::write(&path, self.to_csv()).unwrap();
        path
    }
}

/// tt-perf-report 1.4.0's `--csv` header with raw op codes.
pub const ANALYSED_HEADER: &str = "ID,Total %,Bound,OP Code,Device,Device Time,Op-to-Op Gap,Cores,DRAM,DRAM %,FLOPs,FLOPs %,Math Fidelity,Output Datatype,Input 0 Datatype,Input 1 Datatype,DRAM Sharded,Input 0 Memory,Inner Dim Block Size,Output Subblock H,Output Subblock W,Global Call Count,Sub Device ID,Available Cores,Op Category,Bound Analysis,Advice,Raw OP Code";

/// One tt-perf-report output row from its ID and
/// `[Total %, Bound, OP Code, Device Time, Cores, DRAM %, FLOPs %, Raw OP Code]`.
pub fn analysed_row(id: u64, cells: [&str; 8]) -> String {
    let [total, bound, op_code, time, cores, dram, flops, raw] = cells;
    format!("{id},{total},{bound},{op_code},0,{time},,{cores},,{dram},,{flops},HiFi2,,,,,,,,,{id},,,,,,{raw}")
}
