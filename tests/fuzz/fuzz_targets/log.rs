//! Fuzz target `log`: see `harness::log` (tests/fuzz/src/lib.rs).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::log(data));
