//! Demo operations 13–20: patches, position embeddings and the class token.

use super::Graph;
use super::text::{self, frame};
use super::{DRAM_MC, Demo, Dram, HS_MC, IL, L1, L1_MC, attempt, call, fallback, lambda, simple_graph, tensor};

pub(super) fn patches(d: &mut Demo) {
    let up = call("x = self.patches(x)");
    let tmc = frame("x = with_fallback(lambda: ttnn.to_memory_config(x, self.c.patch_memory_config)", "patches");
    let x = tensor("1, 1, 3136, 64", "TILE");

    // 13: ttnn.to_memory_config fails, kind 1 V3 L1, not enough free space: the full stored
    // message of docs/rules/reference.md §14.3. A second, later row for the same operation follows.
    let frames13 =
        [lambda("lambda: ttnn.to_memory_config(x, self.c.patch_memory_config)"), attempt(), tmc.clone(), up.clone()];
    let g = Graph::new()
        .capture_start()
        .start("ttnn.to_memory_config")
        .tensor(1010, "Shape([1, 1, 3136, 64])")
        .start("InterleavedToShardedDeviceOperation")
        .aborted_end("InterleavedToShardedDeviceOperation", Some("Out of Memory"))
        .aborted_end("ttnn.to_memory_config", Some("Out of Memory"))
        .capture_end();
    d.io(&["x"], &[]);
    let id =
        d.op("ttnn.to_memory_config", 0.000097, &frames13, &[("tensor", &x), ("memory_config", HS_MC)], Some(g.into()));
    d.error(id, "ttnn.to_memory_config", text::NOT_ENOUGH_FREE_L1.to_string(), &frames13);
    d.error(id, "ttnn.to_memory_config", text::stored(text::FRAGMENTED_L1), &frames13);

    // 14: ttnn.to_memory_config completes: a copy into DRAM.
    let frames14 = [lambda("lambda: ttnn.to_memory_config(x, ttnn.DRAM_MEMORY_CONFIG)"), fallback(), tmc, up.clone()];
    let p = d.mem.alloc("p", Dram, 25088, IL);
    let x0 = d.mem.free("x");
    let g = simple_graph(
        Graph::new(),
        "ttnn.to_memory_config",
        "CopyDeviceOperation",
        &[p],
        &[(4096, 101440), (4096, 105536)],
        &[x0],
    );
    d.io(&["x"], &["p"]);
    d.op("ttnn.to_memory_config", 0.000143, &frames14, &[("tensor", &x), ("memory_config", DRAM_MC)], Some(g.into()));
    // The model drops its last reference to the bottleneck's input: Python frees it between
    // operations, outside any record (only the next snapshot shows it gone).
    d.mem.free("x5");

    // 15: ttnn.reshape: its captured graph is invalid JSON (cut off).
    d.io(&["p"], &[]);
    let bad = r#"[{"counter":0,"node_type":"capture_start","params":null,"connections":[1],"stacking_level":0},{"counter":1,"node_type":"function_start","params":{"inputs":"1","name":"ttnn.reshape"},"arguments":[],"input_tensors":[],"connections":[2,"#;
    d.op(
        "ttnn.reshape",
        0.000031,
        &[frame("x = ttnn.reshape(x", "patches"), up.clone()],
        &[("input_tensor", &x), ("shape", "(1, 196, 512)")],
        Some(bad.to_string()),
    );

    // 16: ttnn.embedding fails, kind 2 D2 (no placeable suffix), DRAM.
    let pos = frame("pos = with_fallback(", "patches");
    let frames16 = [lambda("pos = with_fallback("), attempt(), pos.clone(), up.clone()];
    let g = Graph::new()
        .capture_start()
        .start("ttnn.embedding")
        .tensor(1011, "Shape([1, 197])")
        .tensor(1012, "Shape([197, 512])")
        .start("EmbeddingsDeviceOperation")
        .aborted_end("EmbeddingsDeviceOperation", Some("Out of Memory"))
        .aborted_end("ttnn.embedding", Some("Out of Memory"))
        .capture_end();
    let ids = tensor("1, 197", "ROW_MAJOR");
    let table = tensor("197, 512", "ROW_MAJOR");
    d.io(&["pos_embedding"], &[]);
    let id = d.op("ttnn.embedding", 0.000088, &frames16, &[("input_tensor", &ids), ("weight", &table)], Some(g.into()));
    d.error(id, "ttnn.embedding", text::stored(text::DEPENDENCIES_D2_DRAM), &frames16);

    // 17: ttnn.embedding completes into L1, below a gather buffer it frees when done.
    let frames17 = [lambda("pos = with_fallback("), fallback(), pos, up.clone()];
    d.mem.alloc("gather", L1, 82208, IL);
    let e = d.mem.alloc("pos", L1, 4096, IL);
    let gather = d.mem.free("gather");
    let g = simple_graph(
        Graph::new(),
        "ttnn.embedding",
        "EmbeddingsDeviceOperation",
        &[gather, e],
        &[(2048, 101440), (2048, 103488)],
        &[gather],
    );
    d.io(&["pos_embedding"], &["pos"]);
    d.op(
        "ttnn.embedding",
        0.000121,
        &frames17,
        &[("input_tensor", &ids), ("weight", &table), ("memory_config", L1_MC)],
        Some(g.into()),
    );

    // 18: ttnn.concat fails, kind 1 with `only` and statistics, L1: a free block could hold it.
    let cat = frame("x = with_fallback(lambda: ttnn.concat(", "patches");
    let frames18 = [lambda("x = with_fallback(lambda: ttnn.concat("), attempt(), cat.clone(), up.clone()];
    let g = Graph::new()
        .capture_start()
        .start("ttnn.concat")
        .tensor(1013, "Shape([1, 1, 512])")
        .tensor(1014, "Shape([1, 196, 512])")
        .start("ConcatDeviceOperation")
        .aborted_end("ConcatDeviceOperation", Some("Out of Memory"))
        .aborted_end("ttnn.concat", Some("Out of Memory"))
        .capture_end();
    let cls = tensor("1, 1, 512", "TILE");
    let pt = tensor("1, 196, 512", "TILE");
    d.io(&["p"], &[]);
    let id = d.op(
        "ttnn.concat",
        0.000064,
        &frames18,
        &[("tensors", &format!("[{cls}, {pt}]")), ("dim", "1"), ("memory_config", L1_MC)],
        Some(g.into()),
    );
    d.error(id, "ttnn.concat", text::stored(text::ONLY_WITH_STATS_L1), &frames18);

    // 19: ttnn.concat completes into DRAM.
    let frames19 = [lambda("x = with_fallback(lambda: ttnn.concat("), fallback(), cat, up.clone()];
    let c = d.mem.alloc("c", Dram, 17408, IL);
    let p = d.mem.free("p");
    let g = simple_graph(Graph::new(), "ttnn.concat", "ConcatDeviceOperation", &[c], &[(4096, 101440)], &[p]);
    d.io(&["p"], &["c"]);
    d.op("ttnn.concat", 0.000176, &frames19, &[("tensors", &format!("[{cls}, {pt}]")), ("dim", "1")], Some(g.into()));

    // 20: ttnn.add of the position embeddings, into L1 (the residual stream the block keeps
    // there): the top of the 80 KiB gap operation 17's gather buffer left.
    let x = d.mem.alloc("residual", L1, 65536, IL);
    let c = d.mem.free("c");
    let e = d.mem.free("pos");
    let g = simple_graph(
        Graph::new(),
        "ttnn.add",
        "BinaryNgDeviceOperation",
        &[x],
        &[(4096, 101440), (4096, 105536), (4096, 109632)],
        &[c, e],
    );
    let t = tensor("1, 197, 512", "TILE");
    d.io(&["c", "pos"], &["residual"]);
    d.op(
        "ttnn.add",
        0.000201,
        &[frame("return ttnn.add(x, pos, memory_config=ttnn.L1_MEMORY_CONFIG)", "patches"), up],
        &[("input_tensor_a", &t), ("input_tensor_b", &t), ("memory_config", L1_MC)],
        Some(g.into()),
    );
}
