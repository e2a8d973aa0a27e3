#!/usr/bin/env python3
"""Record a TT-NN memory report around a model run, even when the run dies.

Copy `recording_report` (and the TTNN_CONFIG_OVERRIDES lines above `import ttnn`) into your
script, then wrap the run:

    with recording_report():
        run_model(device)

When the run raises (an "Out of Memory" or a circular-buffer clash), the report is still written
before the exception goes on: open it with `ttnn-tui <report folder>` or
`ttnn-tui explain <report folder>`. This is what ttnn 0.8x needs (graph capture, then
`ttnn.graph_report.import_report`); older ttnn writes the report itself from the same
configuration keys (see the README, "Recording a report").

`enable_graph_python_stack_traces` makes the report name the model's source lines (its
`stack_traces` table: each operation's Python call stack); without it ttnn 0.8x records none.
The key exists from ttnn 0.72 on; 0.67.4 to 0.71 have only the call
`ttnn.graph.enable_python_stack_traces()`, and an unknown key stops `import ttnn` there.

Run as a script, it records a tiny model that dies of an L1 out-of-memory (used by ttnn-tui's
tests on a mock device; see fixtures/snippet/README.md):

    python docs/record_report.py OUTDIR
"""
import contextlib
import json
import os
import shutil
import sys
import traceback
from pathlib import Path

# The report configuration must be set before ttnn is imported.
os.environ.setdefault(
    "TTNN_CONFIG_OVERRIDES",
    json.dumps(
        {
            "enable_fast_runtime_mode": False,
            "enable_logging": True,
            "enable_graph_report": True,
            "enable_graph_python_stack_traces": True,
            "enable_detailed_buffer_report": True,
            "enable_detailed_tensor_report": False,
            "report_name": "my_run",
        }
    ),
)

import ttnn  # noqa: E402
from ttnn.graph_report import import_report  # noqa: E402  (ttnn 0.8x)


@contextlib.contextmanager
def recording_report():
    """Captures every operation run inside the block and writes the report folder
    (ttnn.CONFIG.report_path: db.sqlite and config.json) when the block ends, also by an exception."""
    report_path = Path(ttnn.CONFIG.report_path)
    ttnn.graph.enable_detailed_buffer_tracing()
    ttnn.graph.begin_graph_capture(ttnn.graph.RunMode.NORMAL)
    try:
        yield report_path
    finally:
        report_path.mkdir(parents=True, exist_ok=True)
        capture = report_path / "graph_capture.json"
        ttnn.graph.end_graph_capture_to_file(str(capture))
        import_report(capture, report_path)  # the capture and its Python I/O sidecar beside it
        capture.unlink(missing_ok=True)
        ttnn.graph.disable_detailed_buffer_tracing()
        ttnn.save_config_to_json_file(report_path / "config.json")
        print(f"TT-NN memory report written to {report_path}", file=sys.stderr)


def tiny_model(device):
    """Ten 8 MiB L1 tensors fill L1; the add of two of them cannot place its L1 output."""
    tiles = dict(dtype=ttnn.bfloat16, layout=ttnn.TILE_LAYOUT, device=device, memory_config=ttnn.L1_MEMORY_CONFIG)
    held = [ttnn.empty([1, 1, 2048, 2048], **tiles) for _ in range(10)]
    return ttnn.add(held[0], held[1], memory_config=ttnn.L1_MEMORY_CONFIG)


def main(outdir: Path) -> int:
    device = ttnn.open_device(device_id=0)
    try:
        with recording_report() as report_path:
            tiny_model(device)
    except RuntimeError as e:
        traceback.print_exc()
        print(f"the run died as expected: {str(e).splitlines()[0]}", file=sys.stderr)
    else:
        print("the tiny model did not die", file=sys.stderr)
        return 1
    finally:
        ttnn.close_device(device)
    outdir.mkdir(parents=True, exist_ok=True)
    for name in ("db.sqlite", "config.json"):
        shutil.copy2(report_path / name, outdir / name)
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print(__doc__.strip(), file=sys.stderr)
        sys.exit(2)
    sys.exit(main(Path(sys.argv[1])))
