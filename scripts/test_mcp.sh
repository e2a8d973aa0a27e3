#!/usr/bin/env bash
# `ttnn-tui mcp` driven by the official MCP Python SDK (tests/mcp/sdk_client.py): the tools listed,
# list_failures and explain_failure equal to `explain --json` on every real fixture, bad
# arguments as tool errors with the CLI's message, 200 calls in one session. Run by .ci/run after
# `cargo test` (which builds target/debug/ttnn-tui); fails, never skips, when it cannot run.
set -euo pipefail
cd "$(dirname "$0")/.."
python=$(scripts/ci_venv.sh)
[ -x target/debug/ttnn-tui ] || cargo build --locked
"$python" tests/mcp/sdk_client.py full "$PWD/target/debug/ttnn-tui"
