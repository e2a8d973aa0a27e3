"""`ttnn-tui mcp` driven by the official MCP Python SDK (`pip install mcp`), as an agent's client
drives it: the tools it lists, answers equal to the CLI's `--json` for the same question on every
real fixture, bad arguments as tool errors with the CLI's message, and many calls in one session.

    python tests/mcp/sdk_client.py full BINARY     # the whole check (scripts/test_mcp.sh)
    python tests/mcp/sdk_client.py wheel COMMAND   # handshake, tools, one answer (test_wheel.sh)

Exits 1 at the first difference, saying what differed; never skips.
"""

import asyncio
import json
import subprocess
import sys
from pathlib import Path

from mcp import Client
from mcp.client.stdio import StdioServerParameters

ROOT = Path(__file__).resolve().parents[2]
TOOLS = [
    "list_failures",
    "explain_failure",
    "memory_after",
    "late_tensors",
    "peak",
    "headroom",
    "what_if",
    "explain_log",
    "find_operations",
    "operation_detail",
    "compare_runs",
]


class Mismatch(Exception):
    """An answer that is not what it should be."""


def check(condition, what):
    if not condition:
        raise Mismatch(what)


def cli_json(binary, *args):
    done = subprocess.run([binary, *args], cwd=ROOT, capture_output=True, check=False)
    check(done.returncode in (0, 1), f"{binary} {' '.join(args)} exited {done.returncode}: {done.stderr!r}")
    return json.loads(done.stdout)


def cli_error(binary, *args):
    done = subprocess.run([binary, *args], cwd=ROOT, capture_output=True, check=False, text=True)
    check(done.returncode != 0, f"{binary} {' '.join(args)} succeeded")
    return done.stderr.splitlines()[0]


async def answer(client, tool, arguments):
    result = await client.call_tool(tool, arguments)
    text = result.content[0].text
    check(not result.is_error, f"{tool} {arguments}: {text}")
    return json.loads(text)


async def refusal(client, tool, arguments):
    result = await client.call_tool(tool, arguments)
    text = result.content[0].text
    check(result.is_error, f"{tool} {arguments} answered: {text[:200]}")
    return text


def whole(answer_):
    left_out = answer_.pop("left_out", None)
    check(left_out == {}, f"left out {left_out}")
    return answer_


def without_memory(entry):
    return {k: v for k, v in entry.items() if k not in ("memory", "fixes", "memory_at_start")}


async def tools_listed(client):
    listed = await client.list_tools()
    names = [t.name for t in listed.tools]
    check(names == TOOLS, f"tools/list gave {names}")
    for tool in listed.tools:
        check(len(tool.description or "") > 150, f"{tool.name}'s description says too little")
        check(tool.annotations is not None and tool.annotations.read_only_hint, f"{tool.name} is not read-only")


def real_fixtures():
    fixtures = sorted(p.parent for p in (ROOT / "fixtures" / "real").glob("*/db.sqlite"))
    check(len(fixtures) >= 10, f"only {len(fixtures)} real fixtures")
    return fixtures


async def every_fixture_as_explain_json(client, binary):
    calls = 0
    for fixture in real_fixtures():
        report = str(fixture.relative_to(ROOT))
        cli = cli_json(binary, "explain", "--json", report)
        listed = whole(await answer(client, "list_failures", {"report": report, "limit": 500}))
        calls += 1
        check(listed["memory_report"] == cli["memory_report"], f"{report}: memory_report differs")
        check(listed["unattached_errors"] == cli["unattached_errors"], f"{report}: unattached_errors differ")
        expected = [without_memory(e) for e in cli["operations"]]
        check(listed["operations"] == expected, f"{report}: list_failures differs from explain --json")
        for entry in cli["operations"]:
            args = {"report": report, "operation_id": entry["operation_id"], "limit": 500}
            explained = whole(await answer(client, "explain_failure", args))
            calls += 1
            check(explained == entry, f"{report} operation {entry['operation_id']}: explain_failure differs")
    return calls


async def bad_arguments(client, binary):
    report = "fixtures/real/a_l1_add_oom"
    missing = "fixtures/real/no_such_report"
    log = "fixtures/logs/no_such.log"
    cases = [
        ("list_failures", {"report": missing}, ["explain", missing]),
        ("explain_failure", {"report": report, "operation_id": 999}, ["explain", report, "--operation", "999"]),
        ("explain_log", {"path": log}, ["explain", "--log", log]),
        (
            "what_if",
            {"report": report, "operation_id": 11, "fixes": ["free x@3"]},
            ["whatif", report, "--operation", "11", "--free", "x@3"],
        ),
    ]
    for tool, arguments, cli_args in cases:
        said = await refusal(client, tool, arguments)
        expected = cli_error(binary, *cli_args)
        check(said == expected, f"{tool}: said {said!r}, the CLI says {expected!r}")
        # The server goes on serving.
        listed = await answer(client, "list_failures", {"report": report})
        check(len(listed["operations"]) == 1, "no answer after a tool error")
    said = await refusal(client, "compare_runs", {"before": report, "after": missing})
    expected = cli_error(binary, "diff", report, missing)
    check(said == expected, f"compare_runs: said {said!r}, the CLI says {expected!r}")
    return 2 * len(cases) + 1


async def compared_as_diff_json(client, binary):
    before = "fixtures/real/stale_chain"
    after = "fixtures/rerun/stale_chain__free_late"
    compared = await answer(client, "compare_runs", {"before": before, "after": after})
    cli = cli_json(binary, "diff", "--json", before, after)
    check(compared == cli, "compare_runs differs from diff --json")
    check(compared["failures"]["new"][0]["operation_id"] == 11, f"new failures: {compared['failures']['new']}")
    return 1


async def many_calls(client, count):
    report = "fixtures/real/l1_fragmented"
    first = await answer(client, "list_failures", {"report": report})
    for i in range(count):
        match i % 3:
            case 0:
                check(await answer(client, "list_failures", {"report": report}) == first, f"call {i} differs")
            case 1:
                found = await answer(client, "find_operations", {"report": report, "limit": 5})
                check(len(found["operations"]) == 5, f"call {i}: {found}")
            case _:
                said = await refusal(client, "explain_failure", {"report": report, "operation_id": 10**6 + i})
                check(said.startswith("error: no operation "), said)
    return count + 1


async def full(binary):
    params = StdioServerParameters(command=binary, args=["mcp"], cwd=str(ROOT))
    async with Client(params) as client:
        info = client.session.server_info
        check(info is not None and info.name == "ttnn-tui", f"server info {info}")
        await tools_listed(client)
        calls = await every_fixture_as_explain_json(client, binary)
        calls += await bad_arguments(client, binary)
        calls += await compared_as_diff_json(client, binary)
        calls += await many_calls(client, 200)
        version = client.session.protocol_version
    print(f"sdk_client: {calls} calls in one session (protocol {version}), every answer as the CLI's")


async def wheel(command):
    """The installed `ttnn-tui mcp`: handshake, the eleven tools, one answer equal to the CLI's."""
    params = StdioServerParameters(command=command, args=["mcp"], cwd=str(ROOT))
    async with Client(params) as client:
        await tools_listed(client)
        report = str(ROOT / "fixtures" / "real" / "a_l1_add_oom")
        cli = cli_json(command, "explain", "--json", report)
        explained = whole(await answer(client, "explain_failure", {"report": report, "operation_id": 11}))
        check(explained == cli["operations"][0], "explain_failure differs from explain --json")
    print("sdk_client: the installed ttnn-tui mcp lists the eleven tools and answers as explain --json")


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("full", "wheel"):
        print(__doc__, file=sys.stderr)
        return 2
    try:
        asyncio.run(full(sys.argv[2]) if sys.argv[1] == "full" else wheel(sys.argv[2]))
    except Mismatch as e:
        print(f"sdk_client: FAIL: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
