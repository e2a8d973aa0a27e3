//! Running the `ttnn-tui` binary from integration tests (only test files include this; the
//! fixture builder under `support/` is also compiled into an example, which has no binary path).

use std::path::Path;
use std::process::{Command, Output};

/// Runs the binary with `args`, in `cwd` when given, with `NO_COLOR` unset.
pub fn run(args: &[&str], cwd: Option<&Path>) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_ttnn-tui"));
    command.args(args).env_remove("NO_COLOR");
    if let Some(dir) = cwd {
        command.current_dir(dir);
    }
    command.output().expect("the binary runs")
}
