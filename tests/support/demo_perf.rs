//! The demo performance report committed as `fixtures/demo-perf/` (see its README for what each
//! row shows).
//!
//! A 2026 `ops_perf_results` CSV of the same run as the demo memory report (`demo.rs`): one
//! Wormhole (device 0, 64 worker cores, 1000 MHz), one row per **completed** device operation of
//! the demo in the demo's operation order — failed and unclosed device operations never reach
//! the device, so they have no row — after one `start` signpost, with one host op among them.
//! The model signposts once, before its run: tt-perf-report analyses the rows after the last
//! signpost by default, so its default `--csv` output of this file keeps every device row and
//! links too. The list below is written out by hand from the demo's captured graphs;
//! `tests/reading/demo_perf_fixture.rs` checks that it links. Conv, halo and matmul rows carry the
//! further inputs and `ATTRIBUTES` a profiler writes (`demo_perf_config.rs`).
//!
//! Figures are chosen to look like a real run and to raise the flags the README lists: kernel
//! durations and op-to-op latencies in ns, core counts, math fidelity, `PM IDEAL [ns]` from a
//! target core utilisation, and `PROGRAM HASH`/`PROGRAM CACHE HIT`.

use super::demo_perf_config::profiler_cells;
use super::perf::{Era, PerfCsv, Row};

/// The CSV's file name (the profiler's `--date` form).
pub const CSV_NAME: &str = "ops_perf_results_2026_11_29_10_12_00.csv";

/// The device log: its first line is what ttnn-tui reads.
pub const DEVICE_LOG: &str = "ARCH: wormhole_b0, CHIP_FREQ[MHz]: 1000, Max Compute Cores: 64\n\
PCIe slot, core_x, core_y, RISC processor type, timer_id, time[cycles since reset], data, run host ID, trace id, trace id counter, zone name, type, source line, source file, meta data\n";

/// Worker cores of the Wormhole the demo ran on.
const AVAILABLE_CORES: u64 = 64;
/// Host time of the first row, in ns.
const HOST_START: u64 = 1_764_411_120_000_000_000;
/// `GLOBAL CALL COUNT` of the first device operation.
const FIRST_CALL: u64 = 1024;

/// A tensor as the per-tensor columns print it.
#[derive(Clone, Copy)]
pub struct Tensor {
    /// W, Z, Y, X (padded; logical where they differ).
    pub shape: [(u64, u64); 4],
    /// `INTERLEAVED`, `HEIGHT_SHARDED`, …
    pub memory: &'static str,
    /// `DRAM` or `L1`.
    pub buffer: &'static str,
    /// `TILE` or `ROW_MAJOR`.
    pub layout: &'static str,
    /// `BFLOAT16`, `BFLOAT8_B`, …
    pub datatype: &'static str,
}

/// A 2-D tiled BFLOAT16 tensor.
pub(crate) const fn t(y: u64, x: u64, buffer: &'static str, memory: &'static str) -> Tensor {
    Tensor { shape: [(1, 1), (1, 1), (y, y), (x, x)], memory, buffer, layout: "TILE", datatype: "BFLOAT16" }
}

const IMAGE: Tensor = Tensor {
    shape: [(1, 1), (1, 1), (50176, 50176), (16, 4)],
    memory: "INTERLEAVED",
    buffer: "DRAM",
    layout: "ROW_MAJOR",
    datatype: "BFLOAT16",
};
const IMAGE_TILED: Tensor = t(50176, 32, "DRAM", "INTERLEAVED");
const IMAGE_SHARDED: Tensor = t(50176, 32, "L1", "HEIGHT_SHARDED");
const STEM: Tensor = t(12544, 64, "L1", "HEIGHT_SHARDED");
const POOLED: Tensor = t(3136, 64, "L1", "HEIGHT_SHARDED");
const POOLED_DRAM: Tensor = t(3136, 64, "DRAM", "INTERLEAVED");
const PATCHES: Tensor = t(224, 768, "L1", "INTERLEAVED");
const TOKENS: Tensor = t(224, 768, "DRAM", "INTERLEAVED");
const IDS: Tensor = Tensor {
    shape: [(1, 1), (1, 1), (1, 1), (224, 197)],
    memory: "INTERLEAVED",
    buffer: "DRAM",
    layout: "ROW_MAJOR",
    datatype: "UINT32",
};
const QKV: Tensor = t(224, 2304, "L1", "INTERLEAVED");
/// The attention heads (and the values they are multiplied with).
pub(crate) const HEADS: Tensor = Tensor {
    shape: [(1, 1), (12, 12), (224, 197), (64, 64)],
    memory: "INTERLEAVED",
    buffer: "L1",
    layout: "TILE",
    datatype: "BFLOAT16",
};
const SCORES: Tensor = Tensor {
    shape: [(1, 1), (12, 12), (224, 197), (224, 197)],
    memory: "INTERLEAVED",
    buffer: "L1",
    layout: "TILE",
    datatype: "BFLOAT16",
};
const MLP: Tensor = t(224, 3072, "DRAM", "INTERLEAVED");

/// One completed device operation of the demo and how it ran.
#[derive(Clone, Copy)]
pub struct DeviceOp {
    /// The demo operation it belongs to.
    pub operation: u64,
    /// The device operation's name: the row's `OP CODE`.
    pub name: &'static str,
    /// `DEVICE KERNEL DURATION [ns]`.
    pub kernel_ns: u64,
    /// `OP TO OP LATENCY [ns]`.
    pub gap_ns: u64,
    /// `CORE COUNT`.
    pub cores: u64,
    /// `MATH FIDELITY`.
    pub fidelity: &'static str,
    /// Core utilisation that `PM IDEAL [ns]` is derived from (docs/rules/reference.md §11.5's u).
    pub utilisation: f64,
    /// `PROGRAM HASH`.
    pub hash: u64,
    /// `INPUT_0_*` and `OUTPUT_0_*`.
    pub tensors: (Tensor, Tensor),
}

/// A row of the demo run, in CSV order.
// A constant table of about thirty rows: boxing the large variant would buy nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Copy)]
pub enum Entry {
    /// A device operation.
    Device(DeviceOp),
    /// A signpost (`OP TYPE` `signpost`).
    Signpost(&'static str),
    /// A host op, hidden by the table.
    Host(&'static str),
}

#[allow(clippy::too_many_arguments)]
const fn op(
    operation: u64,
    name: &'static str,
    kernel_ns: u64,
    gap_ns: u64,
    cores: u64,
    fidelity: &'static str,
    utilisation: f64,
    hash: u64,
    tensors: (Tensor, Tensor),
) -> Entry {
    Entry::Device(DeviceOp { operation, name, kernel_ns, gap_ns, cores, fidelity, utilisation, hash, tensors })
}

use Entry::{Host, Signpost};

/// The demo run: the completed device operations of the demo memory report, by operation.
/// Operations 1, 15, 26, 36–39 and the failed ones ran none (10, 13, 16, 18, 21, 24, 28, 32);
/// 7 and 8 ran their Halo, and 30 its Move, before the failure.
pub const RUN: &[Entry] = &[
    Signpost("start"),
    op(
        2,
        "TilizeWithValPaddingDeviceOperation",
        46_210,
        0,
        8,
        "HiFi4",
        0.62,
        0x1a2b_3c4d_5e6f_7081,
        (IMAGE, IMAGE_TILED),
    ),
    op(
        3,
        "InterleavedToShardedDeviceOperation",
        9_870,
        4_120,
        64,
        "HiFi4",
        0.71,
        0x2b3c_4d5e_6f70_8192,
        (IMAGE_TILED, IMAGE_SHARDED),
    ),
    op(
        4,
        "HaloDeviceOperation",
        14_330,
        3_560,
        64,
        "HiFi4",
        0.66,
        0x3c4d_5e6f_7081_92a3,
        (IMAGE_SHARDED, IMAGE_SHARDED),
    ),
    op(4, "Conv2dDeviceOperation", 212_640, 5_210, 64, "LoFi", 0.58, 0x4d5e_6f70_8192_a3b4, (IMAGE_SHARDED, STEM)),
    op(5, "UnaryDeviceOperation", 6_120, 2_980, 64, "HiFi4", 0.74, 0x5e6f_7081_92a3_b4c5, (STEM, STEM)),
    op(6, "HaloDeviceOperation", 12_760, 3_340, 64, "HiFi4", 0.64, 0x6f70_8192_a3b4_c5d6, (STEM, STEM)),
    op(6, "Pool2D", 41_390, 3_870, 64, "HiFi4", 0.52, 0x7081_92a3_b4c5_d6e7, (STEM, POOLED)),
    op(7, "HaloDeviceOperation", 8_940, 3_120, 64, "HiFi4", 0.61, 0x8192_a3b4_c5d6_e7f8, (POOLED, POOLED)),
    op(8, "HaloDeviceOperation", 8_910, 38_450, 64, "HiFi4", 0.61, 0x8192_a3b4_c5d6_e7f8, (POOLED, POOLED)),
    op(
        9,
        "Conv2dDeviceOperation",
        986_420,
        41_870,
        64,
        "LoFi",
        0.17,
        0xa3b4_c5d6_e7f8_091a,
        (POOLED_DRAM, POOLED_DRAM),
    ),
    op(
        11,
        "BinaryNgDeviceOperation",
        7_480,
        36_210,
        64,
        "HiFi4",
        0.69,
        0xb4c5_d6e7_f809_1a2b,
        (POOLED_DRAM, POOLED_DRAM),
    ),
    op(12, "UnaryDeviceOperation", 5_930, 3_010, 64, "HiFi4", 0.73, 0x92a3_b4c5_d6e7_f809, (POOLED_DRAM, POOLED_DRAM)),
    op(14, "CopyDeviceOperation", 11_280, 33_940, 64, "HiFi4", 0.68, 0xc5d6_e7f8_091a_2b3c, (POOLED_DRAM, PATCHES)),
    op(17, "EmbeddingsDeviceOperation", 25_160, 35_120, 32, "HiFi4", 0.56, 0xd6e7_f809_1a2b_3c4d, (IDS, TOKENS)),
    op(19, "ConcatDeviceOperation", 31_570, 37_480, 10, "HiFi4", 0.63, 0xe7f8_091a_2b3c_4d5e, (TOKENS, TOKENS)),
    op(20, "BinaryNgDeviceOperation", 7_210, 3_260, 64, "HiFi4", 0.71, 0xf809_1a2b_3c4d_5e6f, (TOKENS, TOKENS)),
    op(22, "LayerNormDeviceOperation", 22_840, 36_930, 12, "HiFi4", 0.59, 0x091a_2b3c_4d5e_6f70, (TOKENS, TOKENS)),
    op(23, "MatmulDeviceOperation", 96_350, 4_480, 64, "HiFi2", 0.47, 0x1a2b_3c4d_5e6f_7082, (TOKENS, QKV)),
    op(25, "NlpCreateHeadsDeviceOperation", 12_420, 35_770, 64, "HiFi4", 0.66, 0x2b3c_4d5e_6f70_8193, (QKV, HEADS)),
    Host("aten::permute (torch)"),
    op(27, "MatmulDeviceOperation", 183_760, 37_150, 64, "HiFi2", 0.24, 0x3c4d_5e6f_7081_92a4, (HEADS, SCORES)),
    op(29, "SoftmaxDeviceOperation", 28_470, 38_020, 64, "HiFi4", 0.57, 0x4d5e_6f70_8192_a3b5, (SCORES, SCORES)),
    op(30, "MoveDeviceOperation", 15_060, 4_130, 64, "HiFi4", 0.65, 0x5e6f_7081_92a3_b4c6, (SCORES, SCORES)),
    op(31, "MatmulDeviceOperation", 141_290, 39_640, 64, "HiFi2", 0.51, 0x6f70_8192_a3b4_c5d7, (SCORES, HEADS)),
    op(33, "MatmulDeviceOperation", 163_880, 41_220, 64, "HiFi2", 0.46, 0x7081_92a3_b4c5_d6e8, (TOKENS, MLP)),
    op(34, "BinaryNgDeviceOperation", 7_190, 36_580, 64, "HiFi4", 0.71, 0xf809_1a2b_3c4d_5e6f, (TOKENS, TOKENS)),
    op(35, "UnaryDeviceOperation", 5_870, 2_940, 64, "HiFi4", 0.74, 0xa3b4_c5d6_e7f8_0919, (TOKENS, TOKENS)),
];

fn tensor_cells(mut row: Row, prefix: &str, tensor: &Tensor) -> Row {
    for (axis, (padded, logical)) in ["W", "Z", "Y", "X"].iter().zip(tensor.shape) {
        row = row.set(&format!("{prefix}_{axis}_PAD[LOGICAL]"), format!("{padded}[{logical}]"));
    }
    row.set(&format!("{prefix}_LAYOUT"), tensor.layout)
        .set(&format!("{prefix}_DATATYPE"), tensor.datatype)
        .set(&format!("{prefix}_MEMORY"), format!("DEV_0_{}_{}", tensor.buffer, tensor.memory))
}

/// The row of a device operation that started `host_ns` into the run.
fn device_row(d: &DeviceOp, call: u64, host_ns: u64, device_start: u64) -> Row {
    device_row_on(d, 0, call, host_ns, device_start)
}

/// The row of a device operation on a device.
fn device_row_on(d: &DeviceOp, device: u64, call: u64, host_ns: u64, device_start: u64) -> Row {
    let ideal = (d.utilisation * d.kernel_ns as f64 * d.cores as f64 / AVAILABLE_CORES as f64).round() as u64;
    let fw = d.kernel_ns + 640;
    let row = Row::device(d.name, device, d.kernel_ns)
        .set("GLOBAL CALL COUNT", call)
        .set("DEVICE ARCH", "WORMHOLE_B0")
        .set("MATH FIDELITY", d.fidelity)
        .set("CORE COUNT", d.cores)
        .set("AVAILABLE WORKER CORE COUNT", AVAILABLE_CORES)
        .set("PARALLELIZATION STRATEGY", if d.cores == AVAILABLE_CORES { "MULTI_CORE" } else { "MULTI_CORE_SHARDED" })
        .set("HOST START TS", HOST_START + host_ns)
        .set("HOST END TS", HOST_START + host_ns + 18_400)
        .set("HOST DURATION [ns]", 18_400)
        .set("DEVICE FW START CYCLE", device_start)
        .set("DEVICE FW END CYCLE", device_start + fw)
        .set("OP TO OP LATENCY [ns]", d.gap_ns)
        .set("OP TO OP LATENCY BR/NRISC START [ns]", d.gap_ns + 210)
        .set("DEVICE FW DURATION [ns]", fw)
        .set("DEVICE KERNEL DURATION DM START [ns]", d.kernel_ns - 120)
        .set("DEVICE KERNEL DURATION PER CORE MIN [ns]", d.kernel_ns * 9 / 10)
        .set("DEVICE KERNEL DURATION PER CORE MAX [ns]", d.kernel_ns - 80)
        .set("DEVICE KERNEL DURATION PER CORE AVG [ns]", d.kernel_ns * 19 / 20)
        .set("METAL TRACE ID", "")
        .set("PROGRAM HASH", d.hash)
        // A first run, and the model's fallback handler clears the program cache after each
        // failure: every program was compiled, the two repeated after a failure included.
        .set("PROGRAM CACHE HIT", "False")
        .set("PM IDEAL [ns]", ideal)
        .set("PM COMPUTE [ns]", ideal * 3 / 4)
        .set("PM BANDWIDTH [ns]", ideal)
        .set("PM FPU UTIL (%)", format!("{:.1}", d.utilisation * 100.0))
        .set("FPU Util Avg (%)", format!("{:.1}", d.utilisation * 80.0))
        .set("DRAM Read Util Avg (%)", format!("{:.1}", 100.0 - d.utilisation * 90.0));
    let extra = profiler_cells(d);
    let mut row = tensor_cells(row.set("ATTRIBUTES", extra.attributes), "INPUT_0", &d.tensors.0);
    for (n, tensor) in extra.more_inputs.iter().enumerate() {
        row = tensor_cells(row, &format!("INPUT_{}", n + 1), tensor);
    }
    tensor_cells(row, "OUTPUT_0", &d.tensors.1)
}

/// The demo CSV.
pub fn demo_perf_csv() -> PerfCsv {
    let mut csv = PerfCsv::new(Era::Y2026);
    let (mut host_ns, mut device_cycle, mut call) = (0u64, 812_345_000u64, FIRST_CALL);
    for entry in RUN {
        let row = match entry {
            Entry::Device(d) => {
                device_cycle += d.gap_ns;
                let row = device_row(d, call, host_ns, device_cycle);
                device_cycle += d.kernel_ns + 640;
                call += 1;
                row
            }
            Entry::Signpost(text) => Row::signpost(text).set("HOST START TS", HOST_START + host_ns),
            Entry::Host(code) => Row::host(code)
                .set("GLOBAL CALL COUNT", "")
                .set("HOST START TS", HOST_START + host_ns)
                .set("HOST DURATION [ns]", 84_300),
        };
        csv.push(row);
        host_ns += 52_000;
    }
    csv
}

/// The demo run on two devices in lock step (a 1×2 mesh), as the profiler writes it: device 0's
/// rows (with the signpost and the host op), then device 1's. Each device operation runs on
/// both with the same `GLOBAL CALL COUNT`; device 1 starts it 1 µs later on the host and takes
/// 10 % longer on odd calls, 10 % less on even ones, so which device's row is the slowest
/// alternates (tt-perf-report 1.4.0 keeps the slowest row's `ID` and re-sorts by it; 1.4.1 keeps
/// host-start order).
pub fn demo_perf_two_devices_csv() -> PerfCsv {
    let mut csv = PerfCsv::new(Era::Y2026);
    for device in [0u64, 1] {
        let (mut host_ns, mut device_cycle, mut call) = (0u64, 812_345_000u64, FIRST_CALL);
        for entry in RUN {
            let row = match entry {
                Entry::Device(d) => {
                    let kernel_ns = match (device, call % 2) {
                        (0, _) => d.kernel_ns,
                        (_, 1) => d.kernel_ns * 11 / 10,
                        _ => d.kernel_ns * 9 / 10,
                    };
                    let d = DeviceOp { kernel_ns, ..*d };
                    device_cycle += d.gap_ns;
                    let row = device_row_on(&d, device, call, host_ns + device * 1_000, device_cycle);
                    device_cycle += d.kernel_ns + 640;
                    call += 1;
                    Some(row)
                }
                Entry::Signpost(text) if device == 0 => {
                    Some(Row::signpost(text).set("HOST START TS", HOST_START + host_ns))
                }
                Entry::Host(code) if device == 0 => Some(
                    Row::host(code)
                        .set("GLOBAL CALL COUNT", "")
                        .set("HOST START TS", HOST_START + host_ns)
                        .set("HOST DURATION [ns]", 84_300),
                ),
                _ => None,
            };
            if let Some(row) = row {
                csv.push(row);
            }
            host_ns += 52_000;
        }
    }
    csv
}

/// The two-device CSV's name.
pub const TWO_DEVICES_CSV_NAME: &str = "ops_perf_results_2026_11_29_10_12_00.csv";

/// Writes `fixtures/demo-perf-2dev/`'s CSV into `dir`.
pub fn build_demo_perf_two_devices(dir: &std::path::Path) {
    std::fs::create_dir_all(dir).expect("create demo-perf-2dev dir");
    demo_perf_two_devices_csv().write(dir, TWO_DEVICES_CSV_NAME);
}

/// The device operations of the run, in CSV order, with their row ids (line numbers).
pub fn device_rows() -> Vec<(u64, DeviceOp)> {
    RUN.iter()
        .enumerate()
        .filter_map(|(i, e)| match e {
            Entry::Device(d) => Some((i as u64 + 2, *d)),
            _ => None,
        })
        .collect()
}

/// Writes `fixtures/demo-perf/` into `dir`: the CSV and the device log.
pub fn build_demo_perf(dir: &std::path::Path) {
    std::fs::create_dir_all(dir).expect("create demo-perf dir");
    demo_perf_csv().write(dir, CSV_NAME);
    std::fs::write(dir.join("profile_log_device.csv"), DEVICE_LOG).expect("write device log");
}
