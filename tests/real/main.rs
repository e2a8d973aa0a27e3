//! Real TT-NN reports (`fixtures/real`, `fixtures/rerun`, `fixtures/releases`, `fixtures/models`) against what the recording saw: explain, late, whatif, diff, releases.
//!
//! One test binary of the layer (docs/testing.md); each module was a test file of its own.

#[path = "../cli/mod.rs"]
mod cli;
#[path = "../real_support/mod.rs"]
mod real_support;
#[path = "../support/mod.rs"]
mod support;

mod real_advice;
mod real_cases;
mod real_diff;
mod real_explain;
mod real_headroom;
mod real_late;
mod real_models;
mod real_releases;
mod real_whatif;
