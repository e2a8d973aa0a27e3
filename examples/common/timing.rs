//! Timing for the benchmark binaries: the median of `RUNS` runs after one warm-up run, and wall
//! and CPU time of one call. Each benchmark uses some of these.
#![allow(dead_code)]

use std::time::{Duration, Instant};

/// The median of some durations.
pub fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

/// Runs `f` once to warm the page cache, then `runs` times; the median.
pub fn time(runs: usize, mut f: impl FnMut()) -> Duration {
    f();
    median(
        (0..runs)
            .map(|_| {
                let start = Instant::now();
                f();
                start.elapsed()
            })
            .collect(),
    )
}

/// CPU time (user + system) of this process so far, from /proc/self/stat (in clock ticks of
/// 10 ms): on a shared machine the figure that other engineers' work moves least.
pub fn cpu_time() -> Duration {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // The fields after the command name (which may hold spaces) close with ')'.
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks = |i: usize| fields.get(i).and_then(|f| f.parse::<u64>().ok()).unwrap_or(0);
    // utime and stime are fields 14 and 15 of the line, 12 and 13 after the name.
    Duration::from_millis((ticks(11) + ticks(12)) * 10)
}

/// Wall and CPU time of one call.
pub fn wall_and_cpu<T>(f: impl FnOnce() -> T) -> (T, Duration, Duration) {
    let (start, cpu) = (Instant::now(), cpu_time());
    let out = f();
    (out, start.elapsed(), cpu_time().saturating_sub(cpu))
}

/// Runs per figure: `BENCH_RUNS` (at least 1), else `default`.
pub fn runs(default: usize) -> usize {
    std::env::var("BENCH_RUNS").ok().and_then(|r| r.parse().ok()).unwrap_or(default).max(1)
}

/// Peak resident memory of this process so far, from /proc/self/status.
pub fn peak_rss() -> String {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status.lines().find(|l| l.starts_with("VmHWM:")).map_or("unknown".into(), |l| l[6..].trim().to_string())
}

/// Where one call's CPU time went: the calling thread, each pool worker, the rest of the process.
pub struct ThreadCpu {
    /// Wall time.
    pub wall: Duration,
    /// The whole process's CPU time.
    pub total: Duration,
    /// The calling thread's.
    pub caller: Duration,
    /// Each pool worker's (`report::rowid_ranges`), in the order they ended.
    pub workers: Vec<Duration>,
}

impl ThreadCpu {
    /// Times `f`, with each thread's share.
    pub fn of<T>(f: impl FnOnce() -> T) -> (T, Self) {
        use ttnn_tui::report::rowid_ranges::{take_worker_cpu, thread_cpu_time};
        drop(take_worker_cpu());
        let caller = thread_cpu_time();
        let (out, wall, total) = wall_and_cpu(f);
        let caller = thread_cpu_time().saturating_sub(caller);
        (out, Self { wall, total, caller, workers: take_worker_cpu() })
    }

    /// The busiest thread's CPU time.
    pub fn busiest(&self) -> Duration {
        self.workers.iter().copied().chain([self.caller, self.other()]).max().unwrap_or_default()
    }

    /// CPU time of threads that are neither the caller nor a pool worker (e.g. headroom's).
    pub fn other(&self) -> Duration {
        self.total.saturating_sub(self.caller).saturating_sub(self.workers.iter().sum())
    }

    /// The least wall time this work could take on `cores` idle cores: the busiest thread's CPU
    /// time, or the whole CPU time shared evenly, whichever is longer.
    pub fn floor_on(&self, cores: usize) -> Duration {
        self.busiest().max(self.total / cores.max(1) as u32)
    }
}
