//! Texts of the demo report (`fixtures/demo/`): the model source its stack traces point into,
//! the Python stack traces, and the full stored error messages (TT_FATAL/TT_THROW wrapper,
//! `docs/rules/formats.md` §1.1) built around real tt-metal messages (`docs/rules/messages.md`, `docs/rules/reference.md` §14).

pub const MODEL_PY_PATH: &str = "/home/user/tt-metal/models/demos/hybrid_vit/tt/model.py";
const TEST_FRAME: &str = "  File \"/home/user/tt-metal/models/demos/hybrid_vit/tests/test_hybrid_vit.py\", line 38, in test_hybrid_vit\n    output = model(pixels)\n";
const PYTEST_FRAME: &str = "  File \"/home/user/.venv/lib/python3.10/site-packages/_pytest/python.py\", line 159, in pytest_pyfunc_call\n    result = testfunction(**testargs)\n";
const DECORATOR_FRAME: &str = "  File \"/home/user/tt-metal/ttnn/ttnn/decorators.py\", line 329, in __call__\n    output = self.decorated_function(*function_args, **function_kwargs)\n";

/// One frame of `traceback.format_stack()` in the model file: the line holding `needle`
/// (which must be on exactly one line), in function `func`.
pub fn frame(needle: &str, func: &str) -> String {
    let hits: Vec<(usize, &str)> = MODEL_PY.lines().enumerate().filter(|(_, l)| l.contains(needle)).collect();
    assert_eq!(hits.len(), 1, "needle {needle:?} must be on exactly one line");
    let (index, code) = hits[0];
    format!("  File \"{MODEL_PY_PATH}\", line {}, in {func}\n    {}\n", index + 1, code.trim())
}

/// An operation's stack trace as TT-NN's `database.py` stores it: `format_stack()` without the
/// decorator's frames, innermost first, entries joined with a newline. `frames` are the model
/// frames, innermost first; the test and pytest frames follow.
pub fn op_stack(frames: &[String]) -> String {
    let mut all: Vec<&str> = frames.iter().map(String::as_str).collect();
    all.push(TEST_FRAME);
    all.push(PYTEST_FRAME);
    all.join("\n")
}

/// An error's stack trace: a Python traceback, outermost first, down to the TT-NN decorator.
pub fn error_stack(frames: &[String]) -> String {
    let mut out = String::from("Traceback (most recent call last):\n");
    out.push_str(PYTEST_FRAME);
    out.push_str(TEST_FRAME);
    for f in frames.iter().rev() {
        out.push_str(f);
    }
    out.push_str(DECORATOR_FRAME);
    out
}

/// The stored exception text: header, `info:`, the message, `backtrace:` and its frames.
pub fn wrapped(header: &str, message: &str, backtrace: &[&str]) -> String {
    let frames: Vec<String> = backtrace.iter().map(|f| format!(" --- {f}")).collect();
    format!("{header}\ninfo:\n{message}\nbacktrace:\n{}", frames.join("\n"))
}

const METAL: &str = "/home/user/tt-metal";

pub fn bank_manager_header(line: u32, condition: &str) -> String {
    format!("TT_FATAL @ {METAL}/tt_metal/impl/allocator/bank_manager.cpp:{line}: {condition}")
}

pub fn program_header(line: u32) -> String {
    format!("TT_THROW @ {METAL}/tt_metal/impl/program/program.cpp:{line}: tt::exception")
}

pub const ALLOCATOR_BACKTRACE: &[&str] = &[
    "/home/user/tt-metal/build/lib/libtt_metal.so(+0x4f1a2d) [0x7f3a9c8f1a2d]",
    "tt::tt_metal::BankManager::allocate_buffer(unsigned long, unsigned long, bool, CoreRangeSet const&, std::optional<unsigned int>, ttsl::StrongType<unsigned char, tt::tt_metal::AllocatorIDTag>)",
    "tt::tt_metal::AllocatorImpl::allocate_buffer(tt::tt_metal::Buffer*)",
    "tt::tt_metal::Buffer::allocate_impl()",
    "tt::tt_metal::distributed::MeshBuffer::create(tt::tt_metal::distributed::MeshBufferConfig const&, tt::tt_metal::distributed::DeviceLocalBufferConfig const&, tt::tt_metal::distributed::MeshDevice*, std::optional<unsigned long>)",
    "/home/user/tt-metal/build/lib/libttnn.so(+0x1a3f2e1) [0x7f3a8e43f2e1]",
];

pub const PROGRAM_BACKTRACE: &[&str] = &[
    "/home/user/tt-metal/build/lib/libtt_metal.so(+0x5b2c44) [0x7f3a9c9b2c44]",
    "tt::tt_metal::detail::ProgramImpl::validate_circular_buffer_region(tt::tt_metal::IDevice const*)",
    "tt::tt_metal::distributed::MeshWorkloadImpl::compile(tt::tt_metal::distributed::MeshDevice*)",
    "tt::tt_metal::distributed::FDMeshCommandQueue::enqueue_mesh_workload(tt::tt_metal::distributed::MeshWorkload&, bool)",
    "/home/user/tt-metal/build/lib/libttnn.so(+0x1b70a9c) [0x7f3a8e570a9c]",
];

/// Kind 1, V3 (statistics), L1, not enough free space: the full stored message of
/// `docs/rules/reference.md` §14.3, verbatim.
pub const NOT_ENOUGH_FREE_L1: &str = "TT_FATAL @ tt_metal/impl/allocator/bank_manager.cpp:486: false\ninfo:\nOut of Memory: Not enough space to allocate 3276800 B L1 buffer across 4 banks, where each bank needs to store 819200 B, but bank size is 1382720 B (allocated: 1000000 B, free: 382720 B, largest free block: 300000 B)\nbacktrace:\n --- build_Release/lib/libtt_metal.so(+0x570add) [0x7f0bc96eeadd]";

/// Kind 1, V3, L1, fragmented (tt-mlir#8044).
pub const FRAGMENTED_L1: &str = "Out of Memory: Not enough space to allocate 26542080 B L1 buffer across 48 banks, where each bank needs to store 552960 B, but bank size is 1329888 B (allocated: 417792 B, free: 912096 B, largest free block: 522240 B)";
/// Kind 1, V3 L1_SMALL larger than the region the device was opened with (`l1_small_size=32768`,
/// the 32 KiB between the L1 region's top and `worker_l1_size` of `Device::wormhole`): real
/// ttnn 0.81.1 on the real-ttnn rig, a height-sharded L1_SMALL tensor of 40 KiB per core.
pub const L1_SMALL_32K: &str = "Out of Memory: Not enough space to allocate 2621440 B L1_SMALL buffer across 64 banks, where each bank needs to store 40960 B, but bank size is 32768 B (allocated: 0 B, free: 32768 B, largest free block: 32768 B). The L1_SMALL region is sized at device open; increase l1_small_size when opening the device.";
/// Kind 1, `only` and statistics, L1: a free block could hold it (`docs/rules/reference.md` §14.1 row 14).
pub const ONLY_WITH_STATS_L1: &str = "Out of Memory: Not enough space to allocate 3276800 B L1 buffer across 4 banks, where each bank needs to store 819200 B, but bank size is only 1382720 B (allocated: 382720 B, free: 1000000 B, largest free block: 900000 B)";
/// Kind 1, V2, DRAM, no statistics (tt-metal#31076).
pub const V2_DRAM: &str = "Out of Memory: Not enough space to allocate 117440512 B DRAM buffer across 12 banks, where each bank needs to store 9787392 B, but bank size is only 1046181792 B";
/// Kind 1, V3, DRAM, fragmented (tt-xla#4130).
pub const FRAGMENTED_DRAM: &str = "Out of Memory: Not enough space to allocate 58720256 B DRAM buffer across 12 banks, where each bank needs to store 4894720 B, but bank size is 1071821792 B (allocated: 888424448 B, free: 183397344 B, largest free block: 3382944 B)";
/// Kind 1, V3, DRAM, not enough free space (tt-xla#5535).
pub const NOT_ENOUGH_FREE_DRAM: &str = "Out of Memory: Not enough space to allocate 1073741824 B DRAM buffer across 12 banks, where each bank needs to store 89479168 B, but bank size is 1070773184 B (allocated: 1003628544 B, free: 67144640 B, largest free block: 67140352 B)";
/// Kind 2, D2 (no placeable suffix), DRAM (`docs/rules/reference.md` §14.1 row 5).
pub const DEPENDENCIES_D2_DRAM: &str = "Out of Memory: Not enough space after considering dependencies to allocate 4096 B DRAM across 2 banks (2048 B per bank), bank size is 8192 B (allocated: 3072 B, free: 5120 B, largest free block: 3072 B)";
/// Kind 2, D3 (placeable suffix), L1 (`docs/rules/reference.md` §14.1 row 4).
pub const DEPENDENCIES_D3_L1: &str = "Out of Memory: Not enough space after considering dependencies to allocate 4096 B L1 across 2 banks (2048 B per bank), bank size is 8192 B (allocated: 3072 B, free: 5120 B, largest free block: 3072 B). After subtracting 1 dependency range(s) and 0 additional occupied range(s), 2048 B remained placeable across 2 window(s), largest 1024 B";
/// Kind 3, old core format (tt-metal#17947).
pub const CB_BEYOND_L1: &str = "Statically allocated circular buffers on core range [(x=0,y=0) - (x=7,y=7)] grow to 1741152 B which is beyond max L1 size of 1499136 B";
/// Kind 4, old core format (`docs/rules/reference.md` §14.1 row 7).
pub const CB_CLASH_OLD: &str = "Statically allocated circular buffers in program 166 clash with L1 buffers on core range [(x=0,y=0) - (x=4,y=7)]. L1 buffer allocated at 600256 and static circular buffer region ends at 621824";
/// Kind 4, 2026 core format (tt-metal#54876).
pub const CB_CLASH_NEW: &str = "Statically allocated circular buffers in program 2282 clash with L1 buffers on core range [0-0 - 10-9]. L1 buffer allocated at 1563072 and static circular buffer region ends at 1563264";
/// Dataflow-buffer variant: not one of the four kinds, shown raw (`docs/rules/messages.md` B13).
pub const DFB_BEYOND_L1: &str = "Statically allocated dataflow buffers on core range [0-0 - 10-7] grow to 1891328 B which is beyond max L1 size of 1572864 B";
/// Op validation, not an allocation failure (`docs/rules/messages.md` D1).
pub const MATMUL_WIDTH: &str = "ttnn.matmul: The width of the first tensor must be equal to the height of the second tensor (64 != 32). The shape of first tensor was ttnn.Shape([1, 1, 32, 64]) and the shape of second tensor was ttnn.Shape([1, 1, 32, 32]))";
/// Trace region too small, not an allocation failure (`docs/rules/messages.md` C1).
pub const TRACE_REGION: &str =
    "Creating trace buffers of size 36410368B on MeshDevice 0, but only 33000000B is allocated for trace region.";

/// The full stored text of each demo error, by message.
pub fn stored(message: &str) -> String {
    match message {
        FRAGMENTED_L1 => wrapped(&bank_manager_header(462, "false"), message, ALLOCATOR_BACKTRACE),
        L1_SMALL_32K => wrapped(&bank_manager_header(514, "false"), message, ALLOCATOR_BACKTRACE),
        V2_DRAM => wrapped(&bank_manager_header(433, "address.has_value()"), message, ALLOCATOR_BACKTRACE),
        ONLY_WITH_STATS_L1 | NOT_ENOUGH_FREE_DRAM => {
            wrapped(&bank_manager_header(486, "false"), message, ALLOCATOR_BACKTRACE)
        }
        FRAGMENTED_DRAM => wrapped(&bank_manager_header(439, "false"), message, ALLOCATOR_BACKTRACE),
        DEPENDENCIES_D2_DRAM | DEPENDENCIES_D3_L1 => {
            wrapped(&bank_manager_header(512, "false"), message, ALLOCATOR_BACKTRACE)
        }
        CB_BEYOND_L1 => wrapped(&program_header(898), message, PROGRAM_BACKTRACE),
        CB_CLASH_OLD => wrapped(&program_header(921), message, PROGRAM_BACKTRACE),
        CB_CLASH_NEW => wrapped(&program_header(1043), message, PROGRAM_BACKTRACE),
        DFB_BEYOND_L1 => wrapped(
            &format!("TT_THROW @ {METAL}/tt_metal/impl/dataflow_buffer/dataflow_buffer.cpp:2682: tt::exception"),
            message,
            &[
                "/home/user/tt-metal/build/lib/libtt_metal.so(+0x5c0e18) [0x7f3a9c9c0e18]",
                "tt::tt_metal::detail::ProgramImpl::validate_dataflow_buffer_region(tt::tt_metal::IDevice const*)",
                "tt::tt_metal::distributed::MeshWorkloadImpl::compile(tt::tt_metal::distributed::MeshDevice*)",
            ],
        ),
        MATMUL_WIDTH => wrapped(
            "TT_THROW @ ../ttnn/cpp/ttnn/operations/matmul/matmul.cpp:61: tt::exception",
            message,
            &[
                "/home/user/tt-metal/build/lib/libttnn.so(+0x2c81f3) [0x7f3a8d6c81f3]",
                "ttnn::operations::matmul::matmul(tt::tt_metal::Tensor const&, tt::tt_metal::Tensor const&, std::optional<tt::tt_metal::Tensor const> const&, ttnn::operations::matmul::Matmul const&, unsigned char, std::optional<tt::tt_metal::Tensor> const&)",
            ],
        ),
        TRACE_REGION => wrapped(
            &format!(
                "TT_FATAL @ {METAL}/tt_metal/distributed/mesh_trace.cpp:167: mesh_cq.device()->get_trace_buffers_size() <= trace_region_size"
            ),
            message,
            &[
                "/home/user/tt-metal/build/lib/libtt_metal.so(+0x63d7a1) [0x7f3a9ca3d7a1]",
                "tt::tt_metal::distributed::MeshTrace::populate_mesh_buffer(tt::tt_metal::distributed::MeshCommandQueue&, std::shared_ptr<tt::tt_metal::distributed::MeshTraceBuffer>&)",
                "tt::tt_metal::distributed::MeshDevice::end_mesh_trace(unsigned char, tt::tt_metal::distributed::MeshTraceId const&)",
            ],
        ),
        other => panic!("no stored form for {other}"),
    }
}

/// The model file every stack trace points into; stored in `source_files` (id 1).
pub const MODEL_PY: &str = r##"# SPDX-FileCopyrightText: © 2026 Tenstorrent AI ULC
#
# SPDX-License-Identifier: Apache-2.0

from loguru import logger

import ttnn


def with_fallback(attempt, fallback):
    try:
        return attempt()
    except RuntimeError as error:
        logger.warning(f"retrying with the fallback configuration: {error}")
        return fallback()


class HybridViT:
    """A convolutional stem followed by one transformer block."""

    def __init__(self, device, parameters, config):
        self.device = device
        self.p = parameters
        self.c = config

    def __call__(self, pixels):
        x = self.stem(pixels)
        x = self.bottleneck(x)
        x = self.patches(x)
        x = self.block(x)
        self.capture_trace(x)
        ttnn.deallocate(self.scratch)
        output = ttnn.from_device(x)
        self.prefetch(self.next_pixels)
        return output

    def stem(self, pixels):
        x = ttnn.to_device(pixels, self.device, memory_config=ttnn.DRAM_MEMORY_CONFIG)
        x = ttnn.to_layout(x, ttnn.TILE_LAYOUT)
        x = ttnn.to_memory_config(x, self.c.stem_memory_config)
        x = ttnn.conv2d(input_tensor=x, weight_tensor=self.p.conv1.weight, device=self.device, **self.c.conv1)
        x = ttnn.relu(x)
        return ttnn.max_pool2d(x, **self.c.pool)

    def conv2(self, x, config):
        return ttnn.conv2d(input_tensor=x, weight_tensor=self.p.conv2.weight, device=self.device, **config)

    def bottleneck(self, x):
        y = with_fallback(lambda: self.conv2(x, self.c.conv2_l1), lambda: self.conv2_fallback(x))
        y = with_fallback(lambda: ttnn.add(y, x, output_tensor=y), lambda: ttnn.add(y, x))
        return ttnn.relu(y)

    def conv2_fallback(self, x):
        return with_fallback(lambda: self.conv2(x, self.c.conv2_l1_small), lambda: self.conv2(x, self.c.conv2_dram))

    def patches(self, x):
        x = with_fallback(lambda: ttnn.to_memory_config(x, self.c.patch_memory_config), lambda: ttnn.to_memory_config(x, ttnn.DRAM_MEMORY_CONFIG))
        x = ttnn.reshape(x, (1, 196, 512))
        pos = with_fallback(lambda: ttnn.embedding(self.position_ids, self.p.pos_embedding), lambda: ttnn.embedding(self.position_ids, self.p.pos_embedding, memory_config=ttnn.L1_MEMORY_CONFIG))
        x = with_fallback(lambda: ttnn.concat([self.cls_token, x], dim=1, memory_config=ttnn.L1_MEMORY_CONFIG), lambda: ttnn.concat([self.cls_token, x], dim=1))
        return ttnn.add(x, pos, memory_config=ttnn.L1_MEMORY_CONFIG)

    def block(self, x):
        h = with_fallback(lambda: ttnn.layer_norm(x, weight=self.p.ln.weight, bias=self.p.ln.bias, program_config=self.c.ln_sharded), lambda: ttnn.layer_norm(x, weight=self.p.ln.weight, bias=self.p.ln.bias))
        qkv = ttnn.linear(h, self.p.qkv.weight, bias=self.p.qkv.bias)
        q, k, v = with_fallback(lambda: ttnn.experimental.nlp_create_qkv_heads(qkv, num_heads=8, memory_config=self.c.heads_l1), lambda: ttnn.experimental.nlp_create_qkv_heads(qkv, num_heads=8, memory_config=ttnn.L1_MEMORY_CONFIG))
        scores = with_fallback(lambda: ttnn.matmul(q, k), lambda: ttnn.matmul(q, k, transpose_b=True))
        probs = with_fallback(lambda: ttnn.softmax(scores, dim=-1, program_config=self.c.softmax_sharded), lambda: ttnn.softmax(scores, dim=-1))
        context = with_fallback(lambda: ttnn.matmul(probs, v, memory_config=ttnn.DRAM_MEMORY_CONFIG), lambda: ttnn.matmul(probs, v, program_config=self.c.context_program_config))
        out = with_fallback(lambda: ttnn.linear(context, self.p.proj.weight, bias=self.p.proj.bias), lambda: ttnn.linear(context, self.p.proj.weight, bias=self.p.proj.bias, memory_config=ttnn.L1_MEMORY_CONFIG))
        return ttnn.add(x, out)

    def capture_trace(self, x):
        trace_id = ttnn.begin_trace_capture(self.device, cq_id=0)
        self.traced_output = ttnn.relu(x)
        ttnn.end_trace_capture(self.device, trace_id, cq_id=0)

    def prefetch(self, pixels):
        self.next_input = ttnn.to_memory_config(pixels, self.c.stem_memory_config)
"##;
