//! Fuzz target `failure_message`: see `harness::failure_message` (tests/fuzz/src/lib.rs).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::failure_message(data));
