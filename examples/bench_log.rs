//! Benchmark of `explain --log` on a large generated log: time and peak memory.
//!
//! ```sh
//! cargo build --release && cargo run --release --example bench_log -- /tmp/ttnn-1g.log 1024
//! ```
//!
//! Writes (once; an existing file of the size asked is reused) a CI-style log of about SIZE MiB:
//! every line under a GitHub Actions timestamp, tt-metal logger lines with colour codes, pytest
//! progress lines, and every 50 000 lines a failing test's traceback with a real allocation-failure
//! message printed three times (logger line, exception, pytest `E` line) — so a 1 GiB log holds
//! about 200 failures. Then it times the floor (reading every line with `BufRead::read_until`) and
//! the release binary's `explain --log PATH --json` under `/usr/bin/time -v` (wall time, peak RSS).

use std::io::{BufRead, BufWriter, Write};
use std::path::Path;
use std::process::Command;
use std::time::Instant;

const MESSAGE: &str = "Out of Memory: Not enough space to allocate 3294625792 B DRAM buffer across 12 banks, where each bank needs to store 274686208 B, but bank size is 1071821792 B (allocated: 784847680 B, free: 286974112 B, largest free block: 216504544 B)";

fn write_log(path: &Path, bytes: u64) -> std::io::Result<u64> {
    let mut out = BufWriter::with_capacity(1 << 20, std::fs::File::create(path)?);
    let (mut written, mut line) = (0u64, 0u64);
    let mut emit = |out: &mut BufWriter<std::fs::File>, text: &str| -> std::io::Result<u64> {
        line += 1;
        let stamped = format!(
            "2026-05-14T01:{:02}:{:02}.{:07}Z {text}\n",
            line / 60_000 % 60,
            line / 1000 % 60,
            line % 10_000_000
        );
        out.write_all(stamped.as_bytes())?;
        Ok(stamped.len() as u64)
    };
    let mut i = 0u64;
    while written < bytes {
        i += 1;
        let text = match i % 4 {
            0 => format!(
                "tests/models/test_big.py::test_case[{i}] PASSED                                  [ {}%]",
                i % 100
            ),
            1 => format!(
                "2026-05-14 01:00:31.755 | \x1b[32minfo    \x1b[0m |          Device | Program cache hit for op {i} (program_cache.cpp:88)"
            ),
            2 => format!(
                "2026-05-14 01:00:31.755 | \x1b[36mdebug   \x1b[0m |           Metal | Allocating buffer of {} B at address {} (allocator.cpp:142)",
                i * 64,
                i * 4096
            ),
            _ => {
                "    y = ttnn.linear(x, self.weight, bias=self.bias, memory_config=ttnn.DRAM_MEMORY_CONFIG)".to_string()
            }
        };
        written += emit(&mut out, &text)?;
        if i.is_multiple_of(50_000) {
            for text in [
                format!(
                    "2026-05-14 01:00:31.755 | \x1b[1;31mcritical\x1b[0m |          Always | TT_FATAL: {MESSAGE} (assert.hpp:104)"
                ),
                format!("{:_^80}", format!(" test_case[{i}] ")),
                ">       y = ttnn.conv2d(input_tensor=x, weight_tensor=w, device=device)".to_string(),
                "models/x/model.py:46: ".to_string(),
                "E       RuntimeError: TT_FATAL @ /tt-metal/tt_metal/impl/allocator/bank_manager.cpp:462: false"
                    .to_string(),
                "E       info:".to_string(),
                format!("E       {MESSAGE}"),
                String::new(),
                format!("{:=^80}", " next "),
            ] {
                written += emit(&mut out, &text)?;
            }
        }
    }
    out.flush()?;
    Ok(line)
}

fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let path = Path::new(args.get(1).map_or("/tmp/ttnn-1g.log", String::as_str));
    let mib: u64 = args.get(2).map_or(1024, |s| s.parse().expect("SIZE in MiB"));
    let bytes = mib << 20;
    if std::fs::metadata(path).map(|m| m.len()).unwrap_or(0) < bytes {
        let start = Instant::now();
        let lines = write_log(path, bytes)?;
        println!("wrote {} ({lines} lines) in {:.1?}", path.display(), start.elapsed());
    }
    let size = std::fs::metadata(path)?.len();
    let start = Instant::now();
    let mut reader = std::io::BufReader::new(std::fs::File::open(path)?);
    let (mut buf, mut lines) = (Vec::new(), 0u64);
    while reader.read_until(b'\n', &mut buf)? > 0 {
        lines += 1;
        buf.clear();
    }
    println!(
        "floor (read every line): {lines} lines, {:.2} GiB in {:.2?}",
        size as f64 / (1u64 << 30) as f64,
        start.elapsed()
    );

    let exe = std::env::current_exe()?;
    let binary = exe.parent().and_then(Path::parent).map(|d| d.join("ttnn-tui")).expect("target/release");
    let out =
        Command::new("/usr/bin/time").arg("-v").arg(&binary).args(["explain", "--json", "--log"]).arg(path).output()?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    let field = |name: &str| stderr.lines().find_map(|l| l.trim().strip_prefix(name)).unwrap_or("?").trim().to_string();
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("explain --log --json output");
    let failures = json["failures"].as_array().map_or(0, Vec::len);
    let repeats: usize =
        json["failures"].as_array().map_or(0, |f| f.iter().map(|f| f["also_at"].as_array().map_or(0, Vec::len)).sum());
    println!(
        "explain --log --json: exit {:?}, {failures} failures ({repeats} repeat lines), wall {}, peak RSS {} KiB",
        out.status.code(),
        field("Elapsed (wall clock) time (h:mm:ss or m:ss):"),
        field("Maximum resident set size (kbytes):"),
    );
    Ok(())
}
