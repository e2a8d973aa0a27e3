//! The command line: `ttnn-tui [REPORT] [options]` opens the terminal UI, `ttnn-tui explain`
//! prints, `whatif` replays a fix, `headroom` says how close a run is to failing, `diff` compares
//! two runs, `mcp` serves agents. Each subcommand takes only the options that apply to it (its
//! `--help` lists them); an option of the UI given before a subcommand applies to it when the
//! subcommand takes it.

mod command_line;
mod front_end;
mod inputs;
mod options;
mod prints;
mod subcommands;

pub use command_line::Cli;
pub use front_end::run;
pub use options::{ColorChoice, OpenArgs};
pub use subcommands::{Command, DiffArgs, ExplainArgs, HeadroomArgs, Target, WhatifArgs};

#[cfg(test)]
mod tests;
