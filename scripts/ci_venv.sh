#!/usr/bin/env bash
# The one Python venv CI's scripts share (target/ci-venv), with what they need: maturin builds the
# wheel (scripts/test_wheel.sh), the official MCP SDK drives `ttnn-tui mcp` (scripts/test_mcp.sh,
# and the wheel's MCP step). Created on first use, never in the system's site-packages; prints
# its python. Fails when it cannot be made: the tests that need it must not be skipped.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=$PWD/target/ci-venv
[ -x "$venv/bin/python" ] || python3 -m venv "$venv" >&2
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check 'maturin>=1.9,<2' 'mcp>=2.3,<3' >&2
echo "$venv/bin/python"
