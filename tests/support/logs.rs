//! Builds the fixture logs of `fixtures/logs/` from the real messages of docs/rules/messages.md §R, in the
//! shapes logs give them: a pytest session with two failing tests, a CI log with a timestamp on
//! every line, messages wrapped by the people who pasted them, a log with a `TT_FATAL` but no
//! allocation failure, and a real pytest session that died in a check of its own. `examples/gen_logs.rs` writes them; `tests/explain/explain_log.rs` checks the
//! committed files are what this builds.

/// M03 (tenstorrent/tt-xla#4685): the V3 DRAM message, fragmented.
pub const M03: &str = "Out of Memory: Not enough space to allocate 3294625792 B DRAM buffer across 12 banks, where each bank needs to store 274686208 B, but bank size is 1071821792 B (allocated: 784847680 B, free: 286974112 B, largest free block: 216504544 B)";
/// M03's location line.
pub const M03_LOCATION: &str = "TT_FATAL @ /__w/tt-xla/tt-xla/third_party/tt-mlir/src/tt-mlir/third_party/tt-metal/src/tt-metal/tt_metal/impl/allocator/bank_manager.cpp:462: false";
/// K03 (tenstorrent/tt-xla#522): circular buffers clash with an L1 buffer.
pub const K03: &str = "Statically allocated circular buffers in program 453 clash with L1 buffers on core range [(x=0,y=0) - (x=4,y=0)]. L1 buffer allocated at 622592 and static circular buffer region ends at 654368";
/// M01 (tenstorrent/tt-mlir#8044): the V3 L1 message, fragmented, as the logger prints it.
pub const M01: &str = "Out of Memory: Not enough space to allocate 26542080 B L1 buffer across 48 banks, where each bank needs to store 552960 B, but bank size is 1329888 B (allocated: 417792 B, free: 912096 B, largest free block: 522240 B)";
/// K01 (tenstorrent/tt-metal#54876), with the author's line breaks.
pub const K01: &str = "TT_THROW: Statically allocated circular buffers in program 2282 clash with L1 buffers\non core range [0-0 - 10-9]. L1 buffer allocated at 1563072 and static circular buffer\nregion ends at 1563264";
/// C06 (tenstorrent/tt-metal#45331), wrapped and indented as pasted.
pub const C06: &str = "TT_THROW @ tt_metal/impl/program/program.cpp:1426: tt::exception\n  info:\n  Statically allocated circular buffers on core range [0-0 - 7-7] grow to\n  5576032 B which is beyond max L1 size of 1499136 B";
/// A15 (a bring-up note), V2 DRAM without the `Out of Memory: ` prefix, broken over two lines.
pub const A15: &str = "Not enough space to allocate 5468979200 B DRAM buffer across 12 banks,\nwhere each bank needs to store 455749632 B, but bank size is only 1073741792 B";
/// C01 (tenstorrent/tt-inference-server#1839): a trace-region error, not an allocation failure.
pub const C01_LOCATION: &str = "TT_FATAL @ /home/container_app_user/tt-metal/tt_metal/distributed/mesh_trace.cpp:167: mesh_cq.device()->get_trace_buffers_size() <= trace_region_size";
/// C01's message.
pub const C01: &str =
    "Creating trace buffers of size 36410368B on MeshDevice 0, but only 33000000B is allocated for trace region.";
/// M21 (tenstorrent/tt-metal PR#43402): a message cut short, not an allocation failure.
pub const M21: &str = "Out of Memory: Not enough space to allocate 8192 B L1_SMALL buffer across 64 banks";

const BACKTRACE: &str = " --- /tt-metal/build/lib/libtt_metal.so(+0x1dfbd5) [0x7f68df013bd5]";

/// The fixture logs: file name and text.
pub fn fixture_logs() -> Vec<(&'static str, String)> {
    vec![
        ("pytest_session.log", pytest_session()),
        ("ci_timestamps.log", ci_log()),
        ("wrapped.log", wrapped()),
        ("tt_fatal_only.log", tt_fatal_only()),
        ("pytest_tt_fatal.log", pytest_tt_fatal()),
    ]
}

/// `E       ` before every line of a text, as pytest marks an exception.
fn e_lines(text: &str) -> String {
    text.lines().map(|l| if l.is_empty() { "E\n".to_string() } else { format!("E       {l}\n") }).collect()
}

/// A pytest section of a test that died in a TT-NN operation called from `models/x/model.py`.
fn pytest_failure(test: &str, call: &str, line: u32, exception: &str, captured: Option<&str>) -> String {
    let mut s = format!("{:_^80}\n\n", format!(" {test} "));
    s += "device = <ttnn._ttnn.multi_device.MeshDevice object at 0x7f1c2c0b1230>\n\n";
    s += &format!("    def {test}(device):\n        x = make_input(device)\n>       y = block(device, x)\n\n");
    s += "tests/models/test_x.py:21: \n";
    s += &format!("{}\n\n", "_ ".repeat(40).trim_end());
    s += &format!(
        "device = <ttnn._ttnn.multi_device.MeshDevice object at 0x7f1c2c0b1230>, x = <Tensor>\n\n    def block(device, x):\n>       return {call}\n\n"
    );
    s += &format!("models/x/model.py:{line}: \n");
    s += &format!("{}\n\n", "_ ".repeat(40).trim_end());
    s += "self = FastOperation(python_fully_qualified_name='ttnn.op')\n\n";
    s += "    def __call__(self, *function_args, **function_kwargs):\n>       result = self.function(*function_args, **function_kwargs)\n";
    s += &e_lines(&format!("RuntimeError: {exception}\nbacktrace:\n{BACKTRACE}"));
    s += "\n/usr/local/lib/python3.10/site-packages/ttnn/decorators.py:329: RuntimeError\n";
    if let Some(captured) = captured {
        s += &format!("{:-^80}\n{captured}\n", " Captured stderr call ");
    }
    s
}

/// A pytest session (long tracebacks) with two failing tests and one passing.
pub fn pytest_session() -> String {
    let mut s = format!("{:=^80}\n", " test session starts ");
    s += "platform linux -- Python 3.10.12, pytest-8.3.4, pluggy-1.5.0\nrootdir: /home/u/tt-metal\ncollected 3 items\n\n";
    s += "tests/models/test_x.py::test_conv_block FAILED                           [ 33%]\n";
    s += "tests/models/test_x.py::test_add_residual FAILED                         [ 66%]\n";
    s += "tests/models/test_x.py::test_small PASSED                                [100%]\n\n";
    s += &format!("{:=^80}\n", " FAILURES ");
    let logger = format!("2026-05-14 01:00:31.755 | critical |          Always | TT_FATAL: {M03} (assert.hpp:104)");
    s += &pytest_failure(
        "test_conv_block",
        "ttnn.conv2d(input_tensor=x, weight_tensor=w, device=device, in_channels=256)",
        46,
        &format!("{M03_LOCATION}\ninfo:\n{M03}"),
        Some(&logger),
    );
    s += &pytest_failure(
        "test_add_residual",
        "ttnn.add(x, x, memory_config=ttnn.L1_MEMORY_CONFIG)",
        61,
        &format!("TT_THROW @ /tt-metal/tt_metal/impl/program/program.cpp:1043: tt::exception\ninfo:\n{K03}"),
        None,
    );
    s += &format!("{:=^80}\n", " short test summary info ");
    s += &format!("FAILED tests/models/test_x.py::test_conv_block - RuntimeError: {M03_LOCATION}\n");
    s += "FAILED tests/models/test_x.py::test_add_residual - RuntimeError: TT_THROW @ /tt-metal/tt_metal/impl/program/program.cpp:1043: tt::exception\n";
    s += &format!("{:=^80}\n", " 2 failed, 1 passed in 12.34s ");
    s
}

/// A GitHub Actions job log: a timestamp before every line, colour codes from the logger, the
/// logger line, then the Python traceback of the same failure (M01).
pub fn ci_log() -> String {
    let body = [
        "##[group]Run python models/demo/run.py".to_string(),
        "python models/demo/run.py".to_string(),
        "##[endgroup]".to_string(),
        "2026-05-14 01:00:30.101 | \x1b[32minfo    \x1b[0m |          Device | Opening user mode device driver"
            .to_string(),
        format!(
            "2026-05-14 01:00:31.755 | \x1b[1;31mcritical\x1b[0m |          Always | TT_FATAL: {M01} (assert.hpp:104)"
        ),
        "Traceback (most recent call last):".to_string(),
        "  File \"/home/runner/work/m/m/models/demo/run.py\", line 88, in <module>".to_string(),
        "    main()".to_string(),
        "  File \"/home/runner/work/m/m/models/demo/model.py\", line 30, in forward".to_string(),
        "    x = ttnn.matmul(x, self.w1, memory_config=ttnn.L1_MEMORY_CONFIG)".to_string(),
        "  File \"/opt/venv/lib/python3.10/site-packages/ttnn/decorators.py\", line 329, in __call__".to_string(),
        "    result = self.function(*function_args, **function_kwargs)".to_string(),
        "RuntimeError: TT_FATAL @ /tt-metal/tt_metal/impl/allocator/bank_manager.cpp:462: false".to_string(),
        "info:".to_string(),
        M01.to_string(),
        "backtrace:".to_string(),
        BACKTRACE.to_string(),
        "##[error]Process completed with exit code 1.".to_string(),
    ];
    body.iter()
        .enumerate()
        .map(|(i, line)| format!("2026-05-14T01:00:{:02}.{:07}Z {line}\n", 29 + i / 8, 1_234_567 + i * 1_000))
        .collect()
}

/// Messages pasted into an issue, wrapped as their authors pasted them (K01, C06, A15), with
/// Windows line endings.
pub fn wrapped() -> String {
    let text = format!(
        "Running the Qwen block on n150 dies in the first matmul:\n\n{K01}\n\nWith a larger grid it dies earlier:\n\n{C06}\n\nAnd the DRAM one from the bring-up notes:\n\n{A15}\n"
    );
    text.replace('\n', "\r\n")
}

/// A log with a cut-short message (M21) and a trace-region `TT_FATAL` (C01), but no allocation
/// failure.
pub fn tt_fatal_only() -> String {
    [
        "2026-01-21 10:02:11.201 | warning  |          Always | ".to_string() + M21,
        "Traceback (most recent call last):".to_string(),
        "  File \"/home/u/serve.py\", line 12, in <module>".to_string(),
        "    ttnn.execute_trace(device, trace_id, cq_id=0, blocking=False)".to_string(),
        format!("RuntimeError: {C01_LOCATION}"),
        "info:".to_string(),
        C01.to_string(),
        "backtrace:".to_string(),
        BACKTRACE.to_string(),
    ]
    .iter()
    .map(|l| format!("{l}\n"))
    .collect()
}

/// A check that failed in `ttnn.concat` (not an allocation failure), its location line, as real
/// ttnn 0.81.1 raises it for tensors of two dtypes (recorded on the real-ttnn rig, paths scrubbed).
pub const CONCAT_DTYPES_LOCATION: &str = "TT_FATAL @ /project/ttnn/cpp/ttnn/operations/data_movement/concat/device/concat_device_operation.cpp:157: in_ref.dtype() == first_input.dtype()";
/// That check's message.
pub const CONCAT_DTYPES: &str = "All Tensors should have same dtypes.";

/// A pytest session whose one failing test dies in a `TT_FATAL` that is no allocation failure,
/// as real ttnn 0.81.1 and pytest 9 print it on the rig (`ttnn.concat` of a bfloat16 and a
/// float32 tensor; the long frames shortened, paths scrubbed): the traceback, the logger's copy
/// of the check in the captured output, and pytest's short summary, cut by pytest itself.
pub fn pytest_tt_fatal() -> String {
    let mut s = format!("{:=^80}\n", " test session starts ");
    s += "platform linux -- Python 3.10.13, pytest-9.2.0, pluggy-1.7.0\nrootdir: /opt/tmp/t\ncollected 2 items\n\n";
    s += &format!("test_dtype.py .F{:>64}\n\n", "[100%]");
    s += &format!("{:=^80}\n", " FAILURES ");
    s += &format!("{:_^80}\n\n", " test_concat_mixed ");
    s += "device = MeshDevice(1x1 grid, 1 devices)\n\n    def test_concat_mixed(device):\n";
    s += "        a = ttnn.from_torch(torch.rand(1, 1, 32, 32), dtype=ttnn.bfloat16, layout=ttnn.TILE_LAYOUT, device=device)\n";
    s += "        b = ttnn.from_torch(torch.rand(1, 1, 32, 32), dtype=ttnn.float32, layout=ttnn.TILE_LAYOUT, device=device)\n";
    s += ">       c = ttnn.concat([a, b], dim=3)\n\ntest_dtype.py:17: \n";
    s += &format!("{}\n\n", "_ ".repeat(40).trim_end());
    s += "self = FastOperation(python_fully_qualified_name='ttnn.concat')\nfunction_kwargs = {'dim': 3}\n\n";
    s += "    def __call__(self, *function_args, **function_kwargs):\n            if cq_id is None:\n";
    s += ">               result = self.function(*function_args, **function_kwargs)\n";
    let exception = format!(
        "RuntimeError: {CONCAT_DTYPES_LOCATION}\ninfo:\n{CONCAT_DTYPES}\nbacktrace:\n --- /opt/venv/lib/python3.10/site-packages/ttnn/build/lib/_ttnncpp.so(+0xb233e8) [0x7f0a76b233e8]\n --- ttnn::prim::ConcatDeviceOperation::validate_on_program_cache_miss(ttnn::prim::ConcatParams const&, ttnn::prim::ConcatInputs const&)"
    );
    s += &e_lines(&exception).replace("E       ", "E               ");
    s += "\n/opt/venv/lib/python3.10/site-packages/ttnn/decorators.py:1245: RuntimeError\n";
    s += &format!("{:-^80}\n", " Captured stdout call ");
    s +=
        &format!("2026-12-01 15:18:02.259 | critical |          Always | TT_FATAL: {CONCAT_DTYPES} (assert.hpp:104)\n");
    s += &format!("{:=^80}\n", " short test summary info ");
    s += "FAILED test_dtype.py::test_concat_mixed - RuntimeError: TT_FATAL @ /project/t...\n";
    s += &format!("{:=^80}\n", " 1 failed, 1 passed in 6.06s ");
    s
}
