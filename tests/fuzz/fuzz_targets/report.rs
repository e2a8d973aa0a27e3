//! Fuzz target `report`: see `harness::report` (tests/fuzz/src/lib.rs).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::report(data));
