//! Fuzz target `perf_csv`: see `harness::perf_csv` (tests/fuzz/src/lib.rs).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::perf_csv(data));
