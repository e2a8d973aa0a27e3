//! Fuzz target `graph`: see `harness::graph` (tests/fuzz/src/lib.rs).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::graph(data));
