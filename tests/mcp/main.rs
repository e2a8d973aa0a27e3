//! `ttnn-tui mcp`: the Model Context Protocol server against the CLI's answers.
//!
//! One test binary of the layer (docs/testing.md); each module was a test file of its own.

#[path = "../cli/mod.rs"]
mod cli;
#[path = "../support/mod.rs"]
mod support;

mod mcp_protocol;
