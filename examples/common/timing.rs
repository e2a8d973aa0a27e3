//! Timing for the benchmark binaries: the median of `RUNS` runs after one warm-up run.

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
