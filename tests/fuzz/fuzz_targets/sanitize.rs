//! Fuzz target `sanitize`: see `harness::sanitize` (tests/fuzz/src/lib.rs).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::sanitize(data));
