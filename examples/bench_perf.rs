//! Benchmark: reading + merging + linking a 100k-row perf CSV with the 2026 header (≈ 290
//! columns) against a matching 100k-device-op memory side, next to the csv crate's bare record
//! iteration over the same file; each figure is the best of three runs. Run with `cargo run --release --example bench_perf`.

#[path = "../tests/support/perf.rs"]
mod perf;

use std::time::{Duration, Instant};
use ttnn_tui::analysis::graph::scopes::CompletedDeviceOperation;
use ttnn_tui::analysis::perf::link::{MemoryOperation, link};
use ttnn_tui::report::perf::perf_report::PerfReport;

const ROWS: usize = 100_000;
const DEVICE_OPS_PER_OPERATION: usize = 2;
const NAMES: [&str; 6] = [
    "MatmulDeviceOperation",
    "BinaryNgDeviceOperation",
    "SoftmaxDeviceOperation",
    "LayerNormDeviceOperation",
    "TilizeWithValPaddingDeviceOperation",
    "ReshardDeviceOperation",
];
const ATTRIBUTES: &str = "{'compute_kernel_config': 'ComputeKernelConfig(math_fidelity=HiFi2;math_approx_mode=0;fp32_dest_acc_en=0;packer_l1_acc=1)'; 'output_mem_config': 'MemoryConfig(memory_layout=TensorMemoryLayout::INTERLEAVED;buffer_type=BufferType::L1;shard_spec=std::nullopt)'; 'program_config': 'MatmulMultiCoreReuseMultiCastProgramConfig(compute_with_storage_grid_size=(x=11;y=10);in0_block_w=14)'}";

fn name(i: usize) -> &'static str {
    NAMES[i % NAMES.len()]
}

/// Writes the CSV and returns its path.
fn write_csv(dir: &std::path::Path) -> std::path::PathBuf {
    let columns = perf::header(perf::Era::Y2026);
    let position = |c: &str| columns.iter().position(|h| h == c).unwrap();
    let mut template = vec![String::new(); columns.len()];
    for (column, value) in [
        ("OP TYPE", "tt_dnn_device"),
        ("DEVICE ID", "0"),
        ("DEVICE ARCH", "blackhole"),
        ("ATTRIBUTES", ATTRIBUTES),
        ("MATH FIDELITY", "HiFi2"),
        ("CORE COUNT", "100"),
        ("AVAILABLE WORKER CORE COUNT", "110"),
        ("OP TO OP LATENCY [ns]", "5120"),
        ("INPUT_0_LAYOUT", "TILE"),
        ("INPUT_0_DATATYPE", "BFLOAT16"),
        ("INPUT_0_MEMORY", "DEV_0_DRAM_INTERLEAVED"),
        ("INPUT_1_MEMORY", "DEV_0_DRAM_INTERLEAVED"),
        ("OUTPUT_0_MEMORY", "DEV_0_L1_INTERLEAVED"),
        ("PROGRAM CACHE HIT", "True"),
        ("PM IDEAL [ns]", "57924"),
        ("SFPU Util Avg (%)", "12.5"),
    ] {
        template[position(column)] = value.to_string();
    }
    let numbers: Vec<usize> = columns
        .iter()
        .enumerate()
        .filter(|(_, c)| c.starts_with("DEVICE") && c.ends_with("[ns]"))
        .map(|(i, _)| i)
        .collect();
    let (code, call, start, duration, hash) = (
        position("OP CODE"),
        position("GLOBAL CALL COUNT"),
        position("HOST START TS"),
        position("DEVICE KERNEL DURATION [ns]"),
        position("PROGRAM HASH"),
    );
    let path = dir.join("ops_perf_results.csv");
    let mut writer = csv::Writer::from_path(&path).unwrap();
    writer.write_record(&columns).unwrap();
    for i in 0..ROWS {
        let mut row = template.clone();
        for &n in &numbers {
            row[n] = (90_000 + i % 977).to_string();
        }
        row[code] = name(i).to_string();
        row[call] = (1024 + i).to_string();
        row[start] = (96_293_877_843u64 + i as u64 * 1000).to_string();
        row[duration] = (93_000 + i % 1013).to_string();
        row[hash] = (7_425_838_930_976_355_737u64 - (i % 50) as u64).to_string();
        writer.write_record(&row).unwrap();
    }
    writer.flush().unwrap();
    path
}

/// The memory side: operations of two completed device ops each, in id order.
fn memory_side() -> Vec<MemoryOperation> {
    (0..ROWS / DEVICE_OPS_PER_OPERATION)
        .map(|op| {
            let starts: Vec<CompletedDeviceOperation> = (0..DEVICE_OPS_PER_OPERATION)
                .map(|k| {
                    let i = op * DEVICE_OPS_PER_OPERATION + k;
                    CompletedDeviceOperation { name: name(i).to_string(), start_id: i as u64 }
                })
                .collect();
            MemoryOperation { id: op as u64 + 1, name: "ttnn.op".into(), ends: starts.clone(), starts }
        })
        .collect()
}

/// Runs `f` three times; the last value and the fastest time.
fn time<T>(f: impl Fn() -> T) -> (T, Duration) {
    let mut best = Duration::MAX;
    let mut value = None;
    for _ in 0..3 {
        let start = Instant::now();
        value = Some(f());
        best = best.min(start.elapsed());
    }
    (value.expect("ran"), best)
}

fn main() {
    let dir = std::env::temp_dir().join(format!("ttnn-tui-bench-perf-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = write_csv(&dir);
    let size = std::fs::metadata(&path).unwrap().len();
    let memory = memory_side();

    let (records, bare) = time(|| {
        let mut reader = csv::ReaderBuilder::new().flexible(true).from_path(&path).unwrap();
        let mut record = csv::ByteRecord::new();
        let mut n = 0usize;
        while reader.read_byte_record(&mut record).unwrap() {
            n += 1;
        }
        n
    });
    let (report, read) = time(|| PerfReport::open(&path).unwrap());
    let (rows, merge) = time(|| report.rows(true));
    let (linked, linking) = time(|| link(&memory, &rows, 1));
    assert_eq!(records, ROWS);
    assert_eq!(linked.map.len(), ROWS, "the generated reports must link");
    let total = read + merge + linking;

    let ms = |d: Duration| format!("{:>9.1} ms", d.as_secs_f64() * 1000.0);
    println!(
        "perf CSV: {ROWS} rows × {} columns, {:.1} MiB",
        perf::header(perf::Era::Y2026).len(),
        size as f64 / 1048576.0
    );
    println!("{:<34}{}", "csv bare record iteration", ms(bare));
    println!("{:<34}{}", "read (PerfReport::open)", ms(read));
    println!("{:<34}{}", "rows (merge, order, figures)", ms(merge));
    println!("{:<34}{}", "link (100k device ops)", ms(linking));
    println!("{:<34}{}", "total read + merge + link", ms(total));
    println!("{:<34}{:>9.2} ×", "total / bare iteration", total.as_secs_f64() / bare.as_secs_f64());
    if std::env::var_os("KEEP").is_none() {
        let _ = std::fs::remove_dir_all(&dir);
    }
}
