//! Demo operations 35–39: the trace capture and the end of the run.

use super::Graph;
use super::text::{self, frame};
use super::{CORES_NEW, DEVICE, Demo, Dram, HS, HS_MC, IL, L1, call, simple_graph, tensor};

pub(super) fn finish(d: &mut Demo) {
    let trace = call("self.capture_trace(x)");
    let x = tensor("1, 197, 512", "TILE");

    // 35: ttnn.relu inside the trace capture.
    let t = d.mem.alloc("traced", Dram, 17408, IL);
    let g =
        simple_graph(Graph::new(), "ttnn.relu", "UnaryDeviceOperation", &[t], &[(4096, 101440), (4096, 105536)], &[]);
    d.io(&["residual"], &["traced"]);
    d.op(
        "ttnn.relu",
        0.000102,
        &[frame("self.traced_output = ttnn.relu(x)", "capture_trace"), trace.clone()],
        &[("input_tensor", &x)],
        Some(g.into()),
    );

    // 36: ttnn.end_trace_capture fails: trace region too small (shown raw). No captured graph.
    let frames36 = [frame("ttnn.end_trace_capture(", "capture_trace"), trace];
    let id = d.op(
        "ttnn.end_trace_capture",
        0.000019,
        &frames36,
        &[("device", DEVICE), ("trace_id", "MeshTraceId(0)"), ("cq_id", "0")],
        None,
    );
    d.error(id, "ttnn.end_trace_capture", text::stored(text::TRACE_REGION), &frames36);

    // 37: ttnn.deallocate of the scratch buffer (host scope, no device operation).
    let scratch = d.mem.free("scratch");
    let g = Graph::new()
        .capture_start()
        .start("ttnn.deallocate")
        .tensor(1024, "Shape([1, 1, 1536, 1024])")
        .dealloc(scratch.alloc())
        .end("ttnn.deallocate")
        .capture_end();
    let s = tensor("1, 1, 1536, 1024", "TILE");
    d.io(&["scratch"], &[]);
    d.op("ttnn.deallocate", 0.000008, &[call("ttnn.deallocate(self.scratch)")], &[("tensor", &s)], Some(g.into()));

    // 38: ttnn.from_device (host scope only).
    let g = Graph::new()
        .capture_start()
        .start("ttnn.from_device")
        .tensor(1025, "Shape([1, 197, 512])")
        .end("ttnn.from_device")
        .capture_end();
    d.io(&["residual"], &[]);
    d.op("ttnn.from_device", 0.001203, &[call("output = ttnn.from_device(x)")], &[("tensor", &x)], Some(g.into()));

    // 39: ttnn.to_memory_config, no error: the capture ended (no capture_end) while
    // InterleavedToShardedDeviceOperation and ttnn.to_memory_config were still open.
    let next = d.mem.alloc("next_input", L1, 102400, HS);
    let g = Graph::new()
        .capture_start()
        .start("ttnn.to_memory_config")
        .tensor(1026, "Shape([1, 1, 50176, 4])")
        .start("InterleavedToShardedDeviceOperation")
        .alloc(next.alloc())
        .cb_deallocate_all()
        .cb_allocate(102400, 101440, CORES_NEW);
    let t = tensor("1, 1, 50176, 4", "TILE");
    d.io(&["next_pixels"], &["next_input"]);
    d.op(
        "ttnn.to_memory_config",
        0.000217,
        &[frame("self.next_input = ttnn.to_memory_config(", "prefetch"), call("self.prefetch(self.next_pixels)")],
        &[("tensor", &t), ("memory_config", HS_MC)],
        Some(g.into()),
    );
}
