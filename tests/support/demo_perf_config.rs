//! What the profiler writes beyond the first input and output for the demo's Halo, Conv2d and
//! Matmul rows: their further inputs (weights, bias, the second matmul operand) and their
//! `ATTRIBUTES`, in the shape tt-metal's `process_ops_logs.py` prints them (`{'key': 'value'; …}`,
//! commas inside a cell written as `;`), as in the real CSVs of tenstorrent/tt-perf-report's
//! `tests/data` (`bh_p100_dlv3.csv`, `bh_8xp150_deepseek_v3_d_p.csv`).
//!
//! tt-perf-report 1.4.0 reads them: `INPUT_1_MEMORY` of every conv and matmul row, `window_hw`
//! of a conv's `sliding_window_config`, a halo's `window_hw`, `stride_hw`, `padding`,
//! `dilation_hw` and `memory_layout`, a matmul's `in0_block_w` and `out_subblock_h/w`.

use super::demo_perf::{DeviceOp, HEADS, Tensor, t};

/// The weights of a convolution as the conv prepares them: (1, 1, kh·kw·Cin, Cout), tiled,
/// BFLOAT8_B, in DRAM.
const fn conv_weights(rows: (u64, u64), out_channels: u64) -> Tensor {
    Tensor {
        shape: [(1, 1), (1, 1), rows, (out_channels, out_channels)],
        memory: "INTERLEAVED",
        buffer: "DRAM",
        layout: "TILE",
        datatype: "BFLOAT8_B",
    }
}

/// A bias of 64 channels: one padded row.
const BIAS: Tensor = Tensor {
    shape: [(1, 1), (1, 1), (32, 1), (64, 64)],
    memory: "INTERLEAVED",
    buffer: "DRAM",
    layout: "TILE",
    datatype: "BFLOAT8_B",
};
/// The stem's 7×7 weights over 4 input channels: 196 rows, padded to 224.
const STEM_WEIGHTS: Tensor = conv_weights((224, 196), 64);
/// The bottleneck's 3×3 weights over 64 input channels.
const CONV2_WEIGHTS: Tensor = conv_weights((576, 576), 64);
/// The QKV projection's weights.
const QKV_WEIGHTS: Tensor = Tensor { datatype: "BFLOAT8_B", ..t(768, 2304, "DRAM", "INTERLEAVED") };
/// The MLP's first weights.
const MLP_WEIGHTS: Tensor = Tensor { datatype: "BFLOAT8_B", ..t(768, 3072, "DRAM", "INTERLEAVED") };
/// The keys, transposed for the attention scores.
const KEYS_T: Tensor = Tensor { shape: [(1, 1), (12, 12), (64, 64), (224, 197)], ..HEADS };

/// The whole Wormhole worker grid the demo ran on.
const GRID: &str = "{[(x=0;y=0) - (x=7;y=7)]}";

/// A sliding window over a square input: (size, window, stride, padding).
#[derive(Clone, Copy)]
struct Window {
    input: u64,
    window: u64,
    stride: u64,
    padding: u64,
}

impl Window {
    fn config(self) -> String {
        let Window { input, window, stride, padding } = self;
        format!(
            "SlidingWindowConfig(batch_size=1; input_hw=({input};{input}); window_hw=({window};{window}); \
             stride_hw=({stride};{stride}); padding=(({padding}; {padding}); ({padding}; {padding})); \
             output_padding = (0; 0); dilation_hw=(1;1); num_cores_nhw=64; num_cores_c=1; \
             core_range_set_={GRID}; is_transpose=false)"
        )
    }
}

/// A memory config as the attributes print it.
fn memory_config(layout: &str, buffer: &str) -> String {
    format!(
        "MemoryConfig(memory_layout=TensorMemoryLayout::{layout};buffer_type=BufferType::{buffer};\
         shard_spec=std::nullopt;nd_shard_spec=std::nullopt;created_with_nd_shard_spec=0)"
    )
}

/// A compute kernel config at a math fidelity.
fn compute_config(fidelity: &str) -> String {
    format!(
        "WormholeComputeKernelConfig(math_fidelity={fidelity};math_approx_mode=1;fp32_dest_acc_en=0;\
         packer_l1_acc=1;dst_full_sync_en=0;throttle_level=ThrottleLevel::NO_THROTTLE)"
    )
}

/// A `{'key': 'value'; …}` cell.
fn attributes(pairs: &[(&str, String)]) -> String {
    let items: Vec<String> = pairs.iter().map(|(k, v)| format!("'{k}': '{v}'")).collect();
    format!("{{{}}}", items.join("; "))
}

fn halo(w: Window, sticks_per_core: u64) -> String {
    attributes(&[
        ("config", w.config()),
        ("config_tensors_in_dram", "false".into()),
        ("in_nsticks_per_core", sticks_per_core.to_string()),
        ("is_out_tiled", "true".into()),
        ("output_memory_config", memory_config("HEIGHT_SHARDED", "L1")),
        ("pad_val", "0".into()),
        (
            "parallel_config",
            format!("ParallelConfig(grid={GRID}; shard_scheme=HEIGHT_SHARDED; shard_orientation=ROW_MAJOR)"),
        ),
        ("remote_read", "false".into()),
        ("transpose_mcast", "false".into()),
    ])
}

/// A conv's attributes: its window, input shape, output buffer and rows of tiles per core.
fn conv(w: Window, input_channels: u64, buffer: &str, height_tiles: u64) -> String {
    let layout = if buffer == "DRAM" { "INTERLEAVED" } else { "HEIGHT_SHARDED" };
    attributes(&[
        ("activation", "std::nullopt".into()),
        (
            "block_config",
            format!(
                "Conv2dBlockConfig(act_block_h_ntiles={height_tiles};act_block_w_ntiles=1;\
                 out_subblock_h_ntiles=1;out_subblock_w_ntiles=2)"
            ),
        ),
        ("compute_kernel_config", compute_config("LoFi")),
        ("dtype", "DataType::BFLOAT16".into()),
        ("enable_act_double_buffer", "false".into()),
        ("enable_weights_double_buffer", "false".into()),
        ("force_split_reader", "std::nullopt".into()),
        ("groups", "1".into()),
        ("has_bias", "true".into()),
        ("input_tensor_shape", format!("{{1; {0}; {0}; {input_channels}}}", w.input)),
        ("memory_config", memory_config(layout, buffer)),
        ("output_channels", "64".into()),
        (
            "parallelization_config",
            format!(
                "Conv2dParallelizationConfig(grid_size=(x=8;y=8);num_cores_nhw=64;num_cores_c_in=1;\
                 num_cores_c_out=1;per_core_out_matrix_height_ntile={height_tiles};per_core_out_matrix_width_ntile=2)"
            ),
        ),
        ("sliding_window_config", w.config()),
        ("untilize_out", "false".into()),
    ])
}

/// A matmul's attributes: its program config, and where its output goes.
fn matmul(program_config: &str, output_buffer: &str) -> String {
    attributes(&[
        ("bcast_batch", "false".into()),
        ("compute_kernel_config", compute_config("HiFi2")),
        ("output_dtype", "DataType::BFLOAT16".into()),
        ("output_mem_config", memory_config("INTERLEAVED", output_buffer)),
        ("output_tile", "Tile(tile_shape={32; 32};face_shape={16; 16};num_faces=4)".into()),
        ("program_config", program_config.into()),
        ("transpose_a", "false".into()),
        ("transpose_b", "false".into()),
        ("untilize_out", "false".into()),
    ])
}

/// A 2-D matmul's program config on the 8×8 grid: K and N in tiles per core, and the subblock.
fn multicast(in0_block_w: u64, per_core_n: u64, subblock_w: u64) -> String {
    format!(
        "MatmulMultiCoreReuseMultiCastProgramConfig(compute_with_storage_grid_size=(x=8;y=8);\
         in0_block_w={in0_block_w};out_subblock_h=1;out_subblock_w={subblock_w};out_block_h=1;\
         out_block_w={per_core_n};per_core_M=1;per_core_N={per_core_n};transpose_mcast=0;\
         fused_activation=std::nullopt;fuse_batch=1)"
    )
}

/// A batched matmul's program config (one head's block per core).
fn batched(in0_block_w: u64, per_core_n: u64, subblock_w: u64) -> String {
    format!(
        "MatmulMultiCoreReuseProgramConfig(compute_with_storage_grid_size=(x=8;y=8);\
         in0_block_w={in0_block_w};out_subblock_h=1;out_subblock_w={subblock_w};per_core_M=7;\
         per_core_N={per_core_n})"
    )
}

/// What the profiler writes for a device operation beyond `INPUT_0` and `OUTPUT_0`.
pub struct ProfilerCells {
    /// `INPUT_1_*`, `INPUT_2_*`, … in order.
    pub more_inputs: Vec<Tensor>,
    /// `ATTRIBUTES`; empty for the device operations the demo does not describe.
    pub attributes: String,
}

/// The further inputs and attributes of one of the demo's device operations.
pub fn profiler_cells(d: &DeviceOp) -> ProfilerCells {
    let stem = Window { input: 224, window: 7, stride: 2, padding: 3 };
    let pool = Window { input: 112, window: 3, stride: 2, padding: 1 };
    let conv2 = Window { input: 56, window: 3, stride: 1, padding: 1 };
    let (more_inputs, attributes) = match (d.operation, d.name) {
        (4, "HaloDeviceOperation") => (vec![], halo(stem, 784)),
        (4, "Conv2dDeviceOperation") => (vec![STEM_WEIGHTS, BIAS], conv(stem, 4, "L1", 7)),
        (6, "HaloDeviceOperation") => (vec![], halo(pool, 196)),
        (7 | 8, "HaloDeviceOperation") => (vec![], halo(conv2, 49)),
        (9, "Conv2dDeviceOperation") => (vec![CONV2_WEIGHTS, BIAS], conv(conv2, 64, "DRAM", 2)),
        (23, "MatmulDeviceOperation") => (vec![QKV_WEIGHTS], matmul(&multicast(4, 9, 3), "L1")),
        (27, "MatmulDeviceOperation") => (vec![KEYS_T], matmul(&batched(2, 7, 7), "L1")),
        (31, "MatmulDeviceOperation") => (vec![HEADS], matmul(&batched(7, 2, 2), "L1")),
        (33, "MatmulDeviceOperation") => (vec![MLP_WEIGHTS], matmul(&multicast(4, 12, 4), "DRAM")),
        _ => (vec![], String::new()),
    };
    ProfilerCells { more_inputs, attributes }
}
