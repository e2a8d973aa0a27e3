#!/usr/bin/env bash
# The wheel (docs/rules/interfaces.md §3): builds it with the one command (`maturin build --release`),
# installs it into a fresh venv whose PATH holds no Rust toolchain, and runs `ttnn-tui` from there.
# Run by .ci/run; needs python3 (with venv) and cargo. maturin and the MCP SDK are installed into
# target/ci-venv (scripts/ci_venv.sh), never into the system's site-packages.
#
# Step 6 runs `ttnn-tui mcp` from the wheel's venv and drives it with the official MCP Python SDK
# (tests/mcp/sdk_client.py wheel): the handshake, the ten tools, one answer equal to the CLI's.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

fail() { echo "test_wheel: FAIL: $*" >&2; exit 1; }
step() { echo "test_wheel: $*"; }

version=$(cargo pkgid --offline | sed 's/.*[#@]//')

# 1. maturin (the same requirement as pyproject.toml's build-system) and the MCP SDK, in the venv
#    CI's scripts share.
python=$(scripts/ci_venv.sh)
tools=$(dirname "$(dirname "$python")")

# 2. The one command. It shares target/release with `cargo build --release`, so an unchanged
#    crate is not compiled twice.
rm -f target/wheels/ttnn_tui-*.whl
start=$(date +%s)
"$tools/bin/maturin" build --release
step "maturin build --release took $(($(date +%s) - start)) s"
shopt -s nullglob
wheels=(target/wheels/ttnn_tui-"$version"-py3-none-manylinux_*_"$(uname -m)".whl)
[ ${#wheels[@]} -eq 1 ] || fail "expected one manylinux wheel of $version in target/wheels, found: $(ls target/wheels)"
wheel=$root/${wheels[0]}
step "built $(basename "$wheel") ($(stat -c %s "$wheel") bytes)"

# 3. A fresh venv, used through an environment that has no Rust: only the venv and the system's
#    bin folders on PATH, nothing inherited (no CARGO_HOME, RUSTUP_HOME, ~/.cargo/bin).
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 -m venv "$tmp/venv"
mkdir "$tmp/home" "$tmp/work"
clean=(env -i HOME="$tmp/home" PATH="$tmp/venv/bin:/usr/local/bin:/usr/bin:/bin" LANG=C.UTF-8
       PIP_DISABLE_PIP_VERSION_CHECK=1)
for tool in cargo rustc rustup; do
    if found=$("${clean[@]}" sh -c "command -v $tool"); then
        fail "the clean PATH still finds $tool at $found"
    fi
done
"${clean[@]}" python -m pip install --quiet --no-index "$wheel"
installed=$("${clean[@]}" sh -c 'command -v ttnn-tui') || fail "ttnn-tui is not on the venv's PATH"
[ "$installed" = "$tmp/venv/bin/ttnn-tui" ] || fail "ttnn-tui found at $installed, not in the venv"
cmp -s "$installed" target/release/ttnn-tui || fail "the installed ttnn-tui is not target/release/ttnn-tui"
step "pip installed it as $installed"

# 4. `explain --demo`: exit 0, nothing on stderr, and the exact text of the reviewed snapshot.
run() { (cd "$tmp/work" && "${clean[@]}" ttnn-tui "$@" >"$tmp/out" 2>"$tmp/err"); }
rc=0; run explain --demo || rc=$?
[ "$rc" -eq 0 ] || fail "ttnn-tui explain --demo exited $rc: $(cat "$tmp/err")"
[ ! -s "$tmp/err" ] || fail "ttnn-tui explain --demo wrote to stderr: $(cat "$tmp/err")"
first='14 operations with errors, 2 errors not placed on an operation'
[ "$(head -1 "$tmp/out")" = "$first" ] || fail "explain --demo began with: $(head -1 "$tmp/out")"
sed '1,/^---$/d' tests/explain/snapshots/explain__explain_cli__demo_explain_text.snap >"$tmp/expected"
diff -u "$tmp/expected" "$tmp/out" >&2 || fail "explain --demo differs from tests/explain/snapshots/explain__explain_cli__demo_explain_text.snap"
step "ttnn-tui explain --demo: exit 0, $(wc -l <"$tmp/out") lines, equal to the snapshot"

# 5. `--version` names the crate's version.
rc=0; run --version || rc=$?
[ "$rc" -eq 0 ] || fail "ttnn-tui --version exited $rc"
[ "$(cat "$tmp/out")" = "ttnn-tui $version" ] || fail "ttnn-tui --version said: $(cat "$tmp/out")"
step "ttnn-tui --version: ttnn-tui $version"

# 6. `ttnn-tui mcp` from the wheel (issue 23 §1): listed among the commands, then served from the
#    venv's PATH to the official MCP SDK (its client runs from CI's venv, in the clean environment).
run --help || fail "ttnn-tui --help failed"
awk '/^Commands:/ { on = 1; next } /^$/ { on = 0 } on && $1 == "mcp" { found = 1 } END { exit !found }' "$tmp/out" \
    || fail "ttnn-tui --help lists no mcp command"
"${clean[@]}" "$python" tests/mcp/sdk_client.py wheel ttnn-tui >"$tmp/out" 2>"$tmp/err" \
    || fail "ttnn-tui mcp from the wheel: $(cat "$tmp/out" "$tmp/err")"
step "ttnn-tui mcp: $(cat "$tmp/out")"
step "ok in $SECONDS s"
