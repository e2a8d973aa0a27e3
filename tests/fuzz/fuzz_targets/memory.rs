//! Fuzz target `memory`: see `harness::memory` (tests/fuzz/src/lib.rs).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::memory(data));
