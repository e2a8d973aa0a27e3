//! Demo operations 21–34: the transformer block.

use serde_json::json;

use super::Graph;
use super::text::{self, frame};
use super::{DRAM_MC, Demo, Dram, ErrorRow, HS, IL, L1, L1_MC, attempt, call, fallback, lambda, simple_graph, tensor};

pub(super) fn block(d: &mut Demo) {
    let up = call("x = self.block(x)");
    let x = tensor("1, 197, 512", "TILE");
    let at = |needle: &str, func: &str| [lambda(needle), attempt(), frame(needle, func), up.clone()];
    let fb = |needle: &str, func: &str| [lambda(needle), fallback(), frame(needle, func), up.clone()];

    // 21: ttnn.layer_norm fails, kind 2 D3 (placeable suffix), L1. A statistics buffer was
    // allocated inside the failed scope before it failed.
    let frames21 = at("h = with_fallback(", "block");
    let stats = d.mem.alloc("stats", L1, 2048, IL);
    d.mem.free("stats");
    let g = Graph::new()
        .capture_start()
        .start("ttnn.layer_norm")
        .tensor(1015, "Shape([1, 197, 512])")
        .start("LayerNormDeviceOperation")
        .alloc(stats.alloc())
        .aborted_end("LayerNormDeviceOperation", Some("Out of Memory"))
        .aborted_end("ttnn.layer_norm", Some("Out of Memory"))
        .capture_end();
    let cfg = "LayerNormShardedMultiCoreProgramConfig(compute_with_storage_grid_size=(x=8,y=2),subblock_w=2,block_h=1,block_w=2,inplace=false)";
    d.io(&["residual"], &[]);
    let id =
        d.op("ttnn.layer_norm", 0.000072, &frames21, &[("input_tensor", &x), ("program_config", cfg)], Some(g.into()));
    d.error(id, "ttnn.layer_norm", text::stored(text::DEPENDENCIES_D3_L1), &frames21);

    // 22: ttnn.layer_norm completes.
    let h = d.mem.alloc("h", Dram, 17408, IL);
    let g = simple_graph(
        Graph::new(),
        "ttnn.layer_norm",
        "LayerNormDeviceOperation",
        &[h],
        &[(4096, 101440), (4096, 105536), (2048, 109632)],
        &[],
    );
    d.io(&["residual"], &["h"]);
    d.op("ttnn.layer_norm", 0.000158, &fb("h = with_fallback(", "block"), &[("input_tensor", &x)], Some(g.into()));

    // 23: ttnn.linear (qkv projection).
    let qkv = d.mem.alloc("qkv", Dram, 52224, IL);
    let h = d.mem.free("h");
    let g = simple_graph(
        Graph::new(),
        "ttnn.linear",
        "MatmulDeviceOperation",
        &[qkv],
        &[(8192, 101440), (8192, 109632), (16384, 117824)],
        &[h],
    );
    let w = tensor("512, 1536", "TILE");
    d.io(&["h", "qkv.weight"], &["qkv"]);
    let id = d.op(
        "ttnn.linear",
        0.000366,
        &[frame("qkv = ttnn.linear(", "block"), up.clone()],
        &[("input_tensor_a", &x), ("input_tensor_b", &w)],
        Some(g.into()),
    );
    // An error row with an empty operation name (written by the C++ writer), at this id.
    let row = ErrorRow::new(id, "", "RuntimeError", &text::stored(text::NOT_ENOUGH_FREE_DRAM))
        .stack_trace("C++ stack trace not available")
        .timestamp(&d.timestamp());
    d.errors.push(row);

    // 24: ttnn.experimental.nlp_create_qkv_heads fails: the dataflow-buffer variant (shown
    // raw). The newest node type dataflow_buffer_allocate precedes the failure.
    let frames24 = at("q, k, v = with_fallback(", "block");
    let q = d.mem.alloc("q", L1, 9216, IL);
    let k = d.mem.alloc("k", L1, 9216, IL);
    d.mem.free("q");
    d.mem.free("k");
    let g = Graph::new()
        .capture_start()
        .start("ttnn.experimental.nlp_create_qkv_heads")
        .tensor(1016, "Shape([1, 1, 197, 1536])")
        .start("NlpCreateHeadsDeviceOperation")
        .alloc(q.alloc())
        .alloc(k.alloc());
    let dfb = json!({"counter": g.len(), "node_type": "dataflow_buffer_allocate", "params": {"address": 101440, "borrows_memory": "0", "core_range_set": "{[0-0 - 10-7]}", "device_id": 0, "size": 1789888}, "connections": [], "stacking_level": 2});
    let g = g
        .raw(dfb)
        .aborted_end("NlpCreateHeadsDeviceOperation", None)
        .aborted_end("ttnn.experimental.nlp_create_qkv_heads", None)
        .capture_end();
    let t = tensor("1, 1, 197, 1536", "TILE");
    d.io(&["qkv"], &[]);
    let id = d.op(
        "ttnn.experimental.nlp_create_qkv_heads",
        0.000051,
        &frames24,
        &[("input_tensor", &t), ("num_heads", "8")],
        Some(g.into()),
    );
    d.error(id, "ttnn.experimental.nlp_create_qkv_heads", text::stored(text::DFB_BEYOND_L1), &frames24);

    // 25: ttnn.experimental.nlp_create_qkv_heads completes, interleaved in L1: the heads stay
    // there until the model drops them before operation 34.
    let mut heads = Vec::new();
    for name in ["q", "k", "v"] {
        heads.push(d.mem.alloc(name, L1, 128704, IL));
    }
    let qkv = d.mem.free("qkv");
    let g = simple_graph(
        Graph::new(),
        "ttnn.experimental.nlp_create_qkv_heads",
        "NlpCreateHeadsDeviceOperation",
        &heads,
        &[(8192, 101440)],
        &[qkv],
    );
    d.io(&["qkv"], &["q", "k", "v"]);
    d.op(
        "ttnn.experimental.nlp_create_qkv_heads",
        0.000134,
        &fb("q, k, v = with_fallback(", "block"),
        &[("input_tensor", &t), ("num_heads", "8"), ("memory_config", L1_MC)],
        Some(g.into()),
    );

    // 26: ttnn.matmul fails validation (not an allocation failure). 2024 capture: ttnn.matmul
    // is left open and no device operation started.
    let frames26 = at("scores = with_fallback(", "block");
    let g = Graph::strings()
        .capture_start()
        .start("ttnn.matmul")
        .tensor(1017, "ttnn.Shape([1, 8, 197, 64])")
        .tensor(1018, "ttnn.Shape([1, 8, 197, 64])")
        .capture_end();
    let qt = tensor("1, 8, 197, 64", "TILE");
    d.io(&["q", "k"], &[]);
    let id =
        d.op("ttnn.matmul", 0.000012, &frames26, &[("input_tensor_a", &qt), ("input_tensor_b", &qt)], Some(g.into()));
    d.error(id, "ttnn.matmul", text::stored(text::MATMUL_WIDTH), &frames26);

    // 27: ttnn.matmul with transpose_b completes into L1. L1 is crowded by now: the prepared
    // conv weights, then the residual stream x and the heads q, k, v fill it from the top down
    // to 636096, so the scores land right below them, at 610496 — inside the 621824 B that
    // operation 28's circular buffers need.
    let s = d.mem.alloc("scores", L1, 25600, IL);
    assert_eq!(s.address, 610496, "the scores' place in the story");
    let g = simple_graph(
        Graph::new(),
        "ttnn.matmul",
        "MatmulDeviceOperation",
        &[s],
        &[(8192, 101440), (8192, 109632), (8192, 117824)],
        &[],
    );
    d.io(&["q", "k"], &["scores"]);
    d.op(
        "ttnn.matmul",
        0.000245,
        &fb("scores = with_fallback(", "block"),
        &[("input_tensor_a", &qt), ("input_tensor_b", &qt), ("transpose_b", "True")],
        Some(g.into()),
    );

    // 28: ttnn.softmax fails, kind 4 (CB clash, old core format). 2025 capture (strings,
    // stacking levels): SoftmaxDeviceOperation allocated its output (on 40 cores) right below
    // its input — the highest free block — and its CBs, then was left open (the end of the
    // graph closes it); the unwinding freed the output. Both lie below the CB region's end, the
    // output at 600256, the lowest L1 buffer, as the message says.
    let frames28 = at("probs = with_fallback(", "block");
    let out = d.mem.alloc_on("softmax_out", L1, 10240, HS, 40);
    assert_eq!(out.address, 600256, "the L1 buffer of the message");
    d.mem.free("softmax_out");
    let g = Graph::strings_with_levels()
        .capture_start()
        .start("ttnn.softmax")
        .tensor(1019, "Shape([1, 8, 197, 197])")
        .start("SoftmaxDeviceOperation")
        .alloc(out.alloc())
        .cb_deallocate_all()
        .cb_allocate(520384, 101440, "{[(x=0,y=0) - (x=4,y=7)]}")
        .dealloc(out.alloc())
        .capture_end();
    let st = tensor("1, 8, 197, 197", "TILE");
    let cfg = "SoftmaxShardedMultiCoreProgramConfig(compute_with_storage_grid_size=(x=5,y=8),subblock_w=8,block_h=2,block_w=8)";
    d.io(&["scores"], &[]);
    let id = d.op(
        "ttnn.softmax",
        0.000043,
        &frames28,
        &[("input_tensor", &st), ("dim", "-1"), ("program_config", cfg)],
        Some(g.into()),
    );
    d.error(id, "ttnn.softmax", text::stored(text::CB_CLASH_OLD), &frames28);

    // 29: ttnn.softmax completes.
    let p = d.mem.alloc("probs", L1, 25600, IL);
    let s = d.mem.free("scores");
    let g = simple_graph(
        Graph::strings_with_levels(),
        "ttnn.softmax",
        "SoftmaxDeviceOperation",
        &[p],
        &[(8192, 101440), (8192, 109632)],
        &[s],
    );
    d.io(&["scores"], &["probs"]);
    d.op(
        "ttnn.softmax",
        0.000187,
        &fb("probs = with_fallback(", "block"),
        &[("input_tensor", &st), ("dim", "-1")],
        Some(g.into()),
    );

    // 30: ttnn.matmul fails, kind 1 V2 DRAM (no statistics). 2025 capture: the failed
    // MatmulDeviceOperation is left open and the next start at its level (MoveDeviceOperation)
    // closes it; ttnn.matmul then ends normally.
    let frames30 = at("context = with_fallback(", "block");
    let tmp = d.mem.alloc("tmp", Dram, 65536, IL);
    let moved = d.mem.alloc("moved", Dram, 25600, IL);
    d.mem.free("tmp");
    d.mem.free("moved");
    let g = Graph::strings_with_levels()
        .capture_start()
        .start("ttnn.matmul")
        .tensor(1020, "Shape([1, 8, 197, 197])")
        .tensor(1021, "Shape([1, 8, 197, 64])")
        .start("MatmulDeviceOperation")
        .alloc(tmp.alloc())
        .unwind("MatmulDeviceOperation")
        .start("MoveDeviceOperation")
        .alloc(moved.alloc())
        .end("MoveDeviceOperation")
        .dealloc(tmp.alloc())
        .dealloc(moved.alloc())
        .end("ttnn.matmul")
        .capture_end();
    let vt = tensor("1, 8, 197, 64", "TILE");
    d.io(&["probs", "v"], &[]);
    let id = d.op(
        "ttnn.matmul",
        0.000524,
        &frames30,
        &[("input_tensor_a", &st), ("input_tensor_b", &vt), ("memory_config", DRAM_MC)],
        Some(g.into()),
    );
    d.error(id, "ttnn.matmul", text::stored(text::V2_DRAM), &frames30);

    // 31: ttnn.matmul completes.
    let c = d.mem.alloc("context", Dram, 17408, IL);
    let p = d.mem.free("probs");
    let g = simple_graph(
        Graph::new(),
        "ttnn.matmul",
        "MatmulDeviceOperation",
        &[c],
        &[(8192, 101440), (8192, 109632), (8192, 117824)],
        &[p],
    );
    d.io(&["probs", "v"], &["context"]);
    d.op(
        "ttnn.matmul",
        0.000298,
        &fb("context = with_fallback(", "block"),
        &[("input_tensor_a", &st), ("input_tensor_b", &vt)],
        Some(g.into()),
    );

    // 32: ttnn.linear fails, kind 1 V3 DRAM, fragmented. Newest capture: a DRAM buffer was
    // allocated inside MatmulDeviceOperation, which then ends aborted ("Out of Memory"), and
    // so does ttnn.linear.
    let frames32 = at("out = with_fallback(", "block");
    let tmp = d.mem.alloc("tmp", Dram, 3379200, IL);
    d.mem.free("tmp");
    let g = Graph::new()
        .capture_start()
        .start("ttnn.linear")
        .tensor(1022, "Shape([1, 197, 512])")
        .tensor(1023, "Shape([512, 512])")
        .start("MatmulDeviceOperation")
        .alloc(tmp.alloc())
        .aborted_end("MatmulDeviceOperation", Some("Out of Memory"))
        .aborted_end("ttnn.linear", Some("Out of Memory"))
        .capture_end();
    let ct = tensor("1, 197, 512", "TILE");
    let wt = tensor("512, 512", "TILE");
    // Recorded as the decorator before the errors table did: no buffers rows after the failure.
    d.no_snapshot = true;
    d.io(&["context", "proj.weight"], &[]);
    let id =
        d.op("ttnn.linear", 0.000077, &frames32, &[("input_tensor_a", &ct), ("input_tensor_b", &wt)], Some(g.into()));
    d.error(id, "ttnn.linear", text::stored(text::FRAGMENTED_DRAM), &frames32);

    // 33: ttnn.linear completes into L1.
    let o = d.mem.alloc("out", L1, 8192, IL);
    let c = d.mem.free("context");
    let g = simple_graph(
        Graph::new(),
        "ttnn.linear",
        "MatmulDeviceOperation",
        &[o],
        &[(8192, 101440), (8192, 109632)],
        &[c],
    );
    d.io(&["context", "proj.weight"], &["out"]);
    d.op(
        "ttnn.linear",
        0.000231,
        &fb("out = with_fallback(", "block"),
        &[("input_tensor_a", &ct), ("input_tensor_b", &wt), ("memory_config", L1_MC)],
        Some(g.into()),
    );

    // 34: ttnn.add (residual). The model has dropped q, k and v: Python freed them between
    // operations, outside any record (only this operation's snapshot shows them gone).
    for name in ["q", "k", "v"] {
        d.mem.free(name);
    }
    let r = d.mem.alloc("r", Dram, 17408, IL);
    let o = d.mem.free("out");
    let g = simple_graph(
        Graph::new(),
        "ttnn.add",
        "BinaryNgDeviceOperation",
        &[r],
        &[(4096, 101440), (4096, 105536), (4096, 109632)],
        &[o],
    );
    d.io(&["residual", "out"], &["r"]);
    d.op(
        "ttnn.add",
        0.000189,
        &[frame("return ttnn.add(x, out)", "block"), up],
        &[("input_tensor_a", &x), ("input_tensor_b", &x)],
        Some(g.into()),
    );
}
