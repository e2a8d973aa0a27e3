//! Demo operations 1–12: the convolutional stem and the bottleneck.

use serde_json::json;

use super::Graph;
use super::text::{self, frame};
use super::{
    CORES_NEW, CORES_OLD, DEVICE, DRAM_MC, Demo, Dram, HS, HS_MC, IL, L1, attempt, call, fallback, lambda, refs,
    simple_graph, tensor,
};

pub(super) fn stem(d: &mut Demo) {
    let up = [call("x = self.stem(pixels)")];
    let fr = |needle: &str, func: &str| [frame(needle, func), up[0].clone()];

    // 1: ttnn.to_device — host scopes only.
    let x0 = d.mem.alloc("x0", Dram, 51200, IL);
    let g = Graph::new()
        .capture_start()
        .start("ttnn.to_device")
        .tensor(1000, "Shape([1, 224, 224, 4])")
        .start("Tensor::to_device")
        .alloc(x0.alloc())
        .end("Tensor::to_device")
        .end("ttnn.to_device")
        .capture_end();
    let args = [
        ("tensor", tensor("1, 224, 224, 4", "ROW_MAJOR")),
        ("device", DEVICE.into()),
        ("memory_config", DRAM_MC.into()),
    ];
    let args = refs(&args);
    d.io(&[], &["x0"]);
    d.op("ttnn.to_device", 0.000912, &fr("ttnn.to_device(pixels", "stem"), &args, Some(g.into()));

    // 2: ttnn.to_layout — TilizeWithValPaddingDeviceOperation.
    let x1 = d.mem.alloc("x1", Dram, 67584, IL);
    let x0 = d.mem.free("x0");
    let g = simple_graph(
        Graph::new(),
        "ttnn.to_layout",
        "TilizeWithValPaddingDeviceOperation",
        &[x1],
        &[(8192, 101440), (8192, 109632)],
        &[x0],
    );
    let t = tensor("1, 224, 224, 4", "ROW_MAJOR");
    d.io(&["x0"], &["x1"]);
    d.op(
        "ttnn.to_layout",
        0.000384,
        &fr("ttnn.to_layout(x", "stem"),
        &[("tensor", &t), ("layout", "Layout::TILE")],
        Some(g.into()),
    );

    // 3: ttnn.to_memory_config — InterleavedToShardedDeviceOperation into L1.
    let x2 = d.mem.alloc("x2", L1, 102400, HS);
    let x1 = d.mem.free("x1");
    let g = simple_graph(
        Graph::new(),
        "ttnn.to_memory_config",
        "InterleavedToShardedDeviceOperation",
        &[x2],
        &[(102400, 101440)],
        &[x1],
    );
    let t = tensor("1, 1, 50176, 4", "TILE");
    d.io(&["x1"], &["x2"]);
    d.op(
        "ttnn.to_memory_config",
        0.000221,
        &fr("ttnn.to_memory_config(x, self.c.stem_memory_config)", "stem"),
        &[("tensor", &t), ("memory_config", HS_MC)],
        Some(g.into()),
    );

    // 4: ttnn.conv2d — HaloDeviceOperation then Conv2dDeviceOperation, both complete.
    let halo = d.mem.alloc("halo", L1, 110592, HS);
    let x3 = d.mem.alloc("x3", L1, 200704, HS);
    let x2 = d.mem.free("x2");
    d.mem.free("halo");
    let g = Graph::new()
        .capture_start()
        .start("ttnn.conv2d")
        .tensor(1002, "Shape([1, 1, 50176, 4])")
        .tensor(1003, "Shape([64, 4, 7, 7])")
        .start("HaloDeviceOperation")
        .alloc(halo.alloc())
        .cb_deallocate_all()
        .cb_allocate(110592, 101440, CORES_NEW)
        .end("HaloDeviceOperation")
        .start("Conv2dDeviceOperation")
        .alloc(x3.alloc())
        .cb_deallocate_all()
        .cb_allocate(65536, 101440, CORES_NEW)
        .cb_allocate(32768, 166976, CORES_NEW)
        .end("Conv2dDeviceOperation")
        .dealloc(halo.alloc())
        .dealloc(x2.alloc())
        .end("ttnn.conv2d")
        .capture_end();
    let t = tensor("1, 1, 50176, 4", "TILE");
    let w = tensor("64, 4, 7, 7", "ROW_MAJOR");
    d.io(&["x2", "conv1.prepared"], &["x3"]);
    d.op(
        "ttnn.conv2d",
        0.004127,
        &fr("weight_tensor=self.p.conv1.weight", "stem"),
        &[
            ("input_tensor", &t),
            ("weight_tensor", &w),
            ("in_channels", "4"),
            ("out_channels", "64"),
            ("kernel_size", "(7, 7)"),
            ("stride", "(2, 2)"),
            ("padding", "(3, 3)"),
        ],
        Some(g.into()),
    );

    // 5: ttnn.relu — UnaryDeviceOperation, sharded in L1.
    let x4 = d.mem.alloc("x4", L1, 84960, HS);
    let x3 = d.mem.free("x3");
    let g = simple_graph(
        Graph::new(),
        "ttnn.relu",
        "UnaryDeviceOperation",
        &[x4],
        &[(4096, 101440), (4096, 105536)],
        &[x3],
    );
    let t = tensor("1, 1, 12544, 64", "TILE");
    d.io(&["x3"], &["x4"]);
    d.op("ttnn.relu", 0.000153, &fr("x = ttnn.relu(x)", "stem"), &[("input_tensor", &t)], Some(g.into()));

    // 6: ttnn.max_pool2d — HaloDeviceOperation then Pool2D. Its output, the bottleneck's
    // input, stays in L1 after its last use (operation 11) until the model drops it after
    // operation 14: the stale tensor of operation 13's failure.
    let halo = d.mem.alloc("halo", L1, 215040, HS);
    let x5 = d.mem.alloc("x5", L1, 621376, HS);
    d.mem.free("halo");
    let x4 = d.mem.free("x4");
    let g = Graph::new()
        .capture_start()
        .start("ttnn.max_pool2d")
        .tensor(1005, "Shape([1, 1, 12544, 64])")
        .start("HaloDeviceOperation")
        .alloc(halo.alloc())
        .end("HaloDeviceOperation")
        .start("Pool2D")
        .alloc(x5.alloc())
        .cb_deallocate_all()
        .cb_allocate(16384, 101440, CORES_NEW)
        .end("Pool2D")
        .dealloc(halo.alloc())
        .dealloc(x4.alloc())
        .end("ttnn.max_pool2d")
        .capture_end();
    let t = tensor("1, 1, 12544, 64", "TILE");
    d.io(&["x4"], &["x5"]);
    d.op(
        "ttnn.max_pool2d",
        0.000876,
        &fr("ttnn.max_pool2d(x", "stem"),
        &[("input_tensor", &t), ("kernel_size", "[3, 3]"), ("stride", "[2, 2]"), ("padding", "[1, 1]")],
        Some(g.into()),
    );
}

pub(super) fn bottleneck(d: &mut Demo) {
    let up = call("x = self.bottleneck(x)");
    let bn = frame("y = with_fallback(lambda: self.conv2(x, self.c.conv2_l1)", "bottleneck");
    let conv2 = frame("weight_tensor=self.p.conv2.weight", "conv2");
    let t = tensor("1, 1, 3136, 64", "TILE");
    let w = tensor("64, 64, 3, 3", "ROW_MAJOR");
    let conv_args = |cfg: &'static str| -> Vec<(&'static str, String)> {
        vec![
            ("input_tensor", t.clone()),
            ("weight_tensor", w.clone()),
            ("in_channels", "64".into()),
            ("out_channels", "64".into()),
            ("kernel_size", "(3, 3)".into()),
            ("conv_config", cfg.into()),
        ]
    };

    // 7: ttnn.conv2d fails, kind 3 (CB beyond L1, old core format). Newest capture: the halo
    // completes, then Conv2dDeviceOperation allocates its output and CBs and is aborted at
    // launch; ttnn.conv2d is aborted too. No abort reason.
    let frames7 = [conv2.clone(), lambda("lambda: self.conv2(x, self.c.conv2_l1)"), attempt(), bn.clone(), up.clone()];
    let halo = d.mem.alloc("halo", L1, 57344, HS);
    let out = d.mem.alloc("y", L1, 51200, HS);
    d.mem.free("halo");
    d.mem.free("y");
    let g = Graph::new()
        .capture_start()
        .start("ttnn.conv2d")
        .tensor(1006, "Shape([1, 1, 3136, 64])")
        .tensor(1007, "Shape([64, 64, 3, 3])")
        .start("HaloDeviceOperation")
        .alloc(halo.alloc())
        .cb_deallocate_all()
        .cb_allocate(57344, 101440, CORES_OLD)
        .end("HaloDeviceOperation")
        .start("Conv2dDeviceOperation")
        .alloc(out.alloc())
        .cb_deallocate_all()
        .cb_allocate(589824, 101440, CORES_OLD)
        .cb_allocate(851968, 691264, CORES_OLD)
        .cb_allocate(197920, 1543232, CORES_OLD)
        .aborted_end("Conv2dDeviceOperation", None)
        .aborted_end("ttnn.conv2d", None)
        .capture_end();
    let args = conv_args(
        "Conv2dConfig(shard_layout=TensorMemoryLayout::HEIGHT_SHARDED,act_block_h_override=0,enable_weights_double_buffer=true)",
    );
    let args = refs(&args);
    d.io(&["x5", "conv2.prepared"], &[]);
    let id = d.op("ttnn.conv2d", 0.002315, &frames7, &args, Some(g.into()));
    d.error(id, "ttnn.conv2d", text::stored(text::CB_BEYOND_L1), &frames7);

    // 8: ttnn.conv2d fails, kind 1 V3 L1_SMALL: its 40 KiB per bank is more than the 32 KiB
    // L1_SMALL region the device was opened with. Older capture (2024 strings, no levels):
    // Conv2dDeviceOperation is left open, with no end node.
    let fb = frame("return with_fallback(lambda: self.conv2(x, self.c.conv2_l1_small)", "conv2_fallback");
    let frames8 = [
        conv2.clone(),
        lambda("lambda: self.conv2(x, self.c.conv2_l1_small)"),
        attempt(),
        fb.clone(),
        lambda("lambda: self.conv2_fallback(x)"),
        fallback(),
        bn.clone(),
        up.clone(),
    ];
    let halo = d.mem.alloc("halo", L1, 57344, HS);
    let out = d.mem.alloc("y", L1, 51200, HS);
    d.mem.free("halo");
    d.mem.free("y");
    let g = Graph::strings()
        .capture_start()
        .start("ttnn.conv2d")
        .tensor(1006, "ttnn.Shape([1, 1, 3136, 64])")
        .start("HaloDeviceOperation")
        .alloc(halo.alloc())
        .end("HaloDeviceOperation")
        .start("Conv2dDeviceOperation")
        .alloc(out.alloc())
        .capture_end();
    let args = conv_args("Conv2dConfig(shard_layout=TensorMemoryLayout::HEIGHT_SHARDED,config_tensors_in_dram=false)");
    let args = refs(&args);
    d.io(&["x5", "conv2.prepared"], &[]);
    let id = d.op("ttnn.conv2d", 0.001904, &frames8, &args, Some(g.into()));
    d.error(id, "ttnn.conv2d", text::stored(text::L1_SMALL_32K), &frames8);

    // 9: ttnn.conv2d completes with the DRAM configuration (2024 strings capture).
    let frames9 = [
        conv2.clone(),
        lambda("lambda: self.conv2(x, self.c.conv2_dram)"),
        fallback(),
        fb,
        lambda("lambda: self.conv2_fallback(x)"),
        fallback(),
        bn.clone(),
        up.clone(),
    ];
    let y = d.mem.alloc("y", Dram, 25088, IL);
    let g = Graph::strings()
        .capture_start()
        .start("ttnn.conv2d")
        .tensor(1006, "ttnn.Shape([1, 1, 3136, 64])")
        .start("Conv2dDeviceOperation")
        .alloc(y.alloc())
        .cb_deallocate_all()
        .cb_allocate(65536, 101440, CORES_OLD)
        .cb_allocate(36864, 166976, CORES_OLD)
        .end("Conv2dDeviceOperation")
        .end("ttnn.conv2d")
        .capture_end();
    let args = conv_args("Conv2dConfig(output_layout=Layout::TILE,config_tensors_in_dram=true)");
    let args = refs(&args);
    d.io(&["x5", "conv2.prepared"], &["y"]);
    d.op("ttnn.conv2d", 0.006038, &frames9, &args, Some(g.into()));

    // 10: ttnn.add in place fails, kind 4 (CB clash, 2026 core format). Newest capture, ends
    // aborted with boolean `true` and no reason.
    let add = "y = with_fallback(lambda: ttnn.add(y, x, output_tensor=y)";
    let frames10 = [lambda("lambda: ttnn.add(y, x, output_tensor=y)"), attempt(), frame(add, "bottleneck"), up.clone()];
    let g = Graph::new()
        .capture_start()
        .start("ttnn.add")
        .tensor(1008, "Shape([1, 1, 3136, 64])")
        .tensor(1009, "Shape([1, 1, 3136, 64])")
        .start("BinaryNgDeviceOperation")
        .cb_deallocate_all()
        .cb_allocate(1048576, 101440, "{[0-0 - 10-9]}")
        .cb_allocate(413248, 1150016, "{[0-0 - 10-9]}")
        .aborted_end_with("BinaryNgDeviceOperation", json!(true), None)
        .aborted_end_with("ttnn.add", json!(true), None)
        .capture_end();
    let y = tensor("1, 1, 3136, 64", "TILE");
    d.io(&["y", "x5"], &[]);
    let id = d.op(
        "ttnn.add",
        0.000410,
        &frames10,
        &[("input_tensor_a", &y), ("input_tensor_b", &y), ("output_tensor", &y)],
        Some(g.into()),
    );
    d.error(id, "ttnn.add", text::stored(text::CB_CLASH_NEW), &frames10);

    // 11: ttnn.add completes into DRAM; the model keeps its input x (x5) alive.
    let frames11 = [lambda("lambda: ttnn.add(y, x))"), fallback(), frame(add, "bottleneck"), up.clone()];
    let z = d.mem.alloc("z", Dram, 25088, IL);
    let y = d.mem.free("y");
    let g = simple_graph(
        Graph::new(),
        "ttnn.add",
        "BinaryNgDeviceOperation",
        &[z],
        &[(4096, 101440), (4096, 105536), (4096, 109632)],
        &[y],
    );
    let t = tensor("1, 1, 3136, 64", "TILE");
    d.io(&["y", "x5"], &["z"]);
    d.op("ttnn.add", 0.000297, &frames11, &[("input_tensor_a", &t), ("input_tensor_b", &t)], Some(g.into()));

    // 12: ttnn.relu.
    let r = d.mem.alloc("x", Dram, 25088, IL);
    let z = d.mem.free("z");
    let g =
        simple_graph(Graph::new(), "ttnn.relu", "UnaryDeviceOperation", &[r], &[(4096, 101440), (4096, 105536)], &[z]);
    d.io(&["z"], &["x"]);
    d.op(
        "ttnn.relu",
        0.000188,
        &[frame("return ttnn.relu(y)", "bottleneck"), up],
        &[("input_tensor", &t)],
        Some(g.into()),
    );
}
