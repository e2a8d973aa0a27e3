//! Where a failure came from in a log: frames, pytest tests, other errors.

use super::*;

fn context(lines: &[&str]) -> Context {
    let mut c = Context::default();
    for (i, line) in lines.iter().enumerate() {
        c.update(i as u64 + 1, line);
    }
    c
}

#[test]
fn the_innermost_user_frame_of_a_python_traceback() {
    let c = context(&[
        "Traceback (most recent call last):",
        "File \"/home/u/run.py\", line 8, in <module>",
        "main()",
        "File \"/home/u/model.py\", line 30, in forward",
        "y = ttnn.conv2d(x, weight)",
        "File \"/venv/lib/python3.10/site-packages/ttnn/decorators.py\", line 329, in __call__",
        "return self.function(*args)",
    ]);
    let mut c = c;
    let origin =
        Origin { source: Some("/home/u/model.py:30".into()), operation: Some("ttnn.conv2d".into()), test: None };
    assert_eq!(c.origin("x"), origin);
    // A blank line ends the traceback: a later failure is not blamed on it.
    c.update(8, "");
    assert_eq!(c.origin("x").source, None);
}

#[test]
fn pytest_long_and_short_frames_and_test_names() {
    let mut c = context(&[
        "=================== FAILURES ===================",
        "____________ TestConv.test_conv[8-16] ____________",
        ">       run_model(device)",
        "tests/test_model.py:12:",
        ">       y = ttnn.conv2d(x, w)",
        "models/x/model.py:46:",
        ">       return self.function(*args)",
    ]);
    let origin = Origin {
        source: Some("models/x/model.py:46".into()),
        operation: Some("ttnn.conv2d".into()),
        test: Some("TestConv.test_conv[8-16]".into()),
    };
    assert_eq!(c.origin("x"), origin);
    let mut c = context(&[
        "_____ test_b _____",
        "models/y.py:7: in forward",
        "out = ttnn.matmul(a, b)",
        "ttnn/ttnn/decorators.py:329: in __call__",
    ]);
    assert_eq!(c.origin("x").operation.as_deref(), Some("ttnn.matmul"));
    let mut c = context(&["tests/test_x.py::TestA::test_b[p] "]);
    assert_eq!(c.origin("x").test.as_deref(), Some("TestA.test_b[p]"));
    assert_eq!(c.origin("FAILED tests/t.py::test_z - RuntimeError: x").test.as_deref(), Some("test_z"));
}

#[test]
fn the_operation_ttnn_said_was_running() {
    // ttnn's own logger (enable_logging), as the real ttnn 0.81 prints it.
    let mut c = context(&[
        "2026-12-01 05:38:13.633 | DEBUG    | ttnn.decorators:call_wrapper:1598 - Started ttnn.empty",
        "2026-12-01 05:38:13.645 | DEBUG    | ttnn.decorators:call_wrapper:1638 - Finished ttnn.empty",
        "2026-12-01 05:38:13.655 | DEBUG    | ttnn.decorators:call_wrapper:1598 - Started ttnn.conv2d",
        "2026-12-01 05:38:13.655 | DEBUG    | ttnn.decorators:call_wrapper:1598 - Started ttnn.reshape",
    ]);
    assert_eq!(c.origin("x").operation.as_deref(), Some("ttnn.conv2d"));
    // The failure ended them.
    assert_eq!(c.origin("x").operation, None);
}

/// pytest prints a test's captured log after its traceback: the operation ttnn's logger left
/// started when the test's section ended is that test's, and ends there.
#[test]
fn the_operation_a_test_s_captured_log_left_running() {
    let mut c = context(&[
        "_____ test_scenario[a] _____",
        "E       Out of Memory: …",
        "----- Captured stderr call -----",
        "2026-12-01 15:17:03.688 | DEBUG    | ttnn.decorators:call_wrapper:930 - Finished ttnn.empty",
        "2026-12-01 15:17:03.759 | DEBUG    | ttnn.decorators:call_wrapper:895 - Started ttnn.add",
    ]);
    assert_eq!(c.take_unfinished(), None);
    c.update(6, "=========== short test summary info ===========");
    assert_eq!(c.take_unfinished(), Some(("test_scenario[a]".into(), "ttnn.add".into())));
    assert_eq!(c.take_unfinished(), None);
    assert_eq!(c.origin("x").operation, None);
    // A traceback inside the same test does not end its section; the end of the log does.
    let mut c = context(&["_____ test_b _____", "log - Started ttnn.matmul", "Traceback (most recent call last):"]);
    assert_eq!(c.take_unfinished(), None);
    c.finish();
    assert_eq!(c.take_unfinished(), Some(("test_b".into(), "ttnn.matmul".into())));
}

#[test]
fn the_last_tt_error_and_its_message() {
    let c = context(&[
        "RuntimeError: TT_THROW @ ../ttnn/cpp/ttnn/operations/matmul/matmul.cpp:61: tt::exception",
        "info:",
        "ttnn.matmul: The width of the first tensor must be equal to the height of the second tensor",
    ]);
    let e = c.other_error_seen().unwrap();
    assert_eq!(e.line, 1);
    assert_eq!(e.text, "ttnn.matmul: The width of the first tensor must be equal to the height of the second tensor");
    // pytest's summary line repeats the error above it: the error keeps its own text.
    let c = context(&[
        "RuntimeError: TT_FATAL @ /tt-metal/ttnn/cpp/ttnn/operations/eltwise/binary/device/binary_device_operation.cpp:166: input_tensor_a.dtype() == input_tensor_b.dtype()",
        "info:",
        "Input tensors must have the same dtype",
        "FAILED tests/test_add.py::test_add - RuntimeError: TT_FATAL @ /tt-metal/ttnn/cpp/ttnn/operations/eltwise/binary/device/binary_device_operation.cpp:166: input_tensor_a.dtype() == input_tensor_b.dtype()",
    ]);
    let e = c.other_error_seen().unwrap();
    assert_eq!((e.line, e.text.as_str()), (1, "Input tensors must have the same dtype"));
    // Alone (the traceback was not captured), the summary line is the error there is.
    // The logger's copy of the same check keeps the traceback's line; its own message counts
    // when it is the only one.
    let c = context(&[
        "RuntimeError: TT_FATAL @ /project/ttnn/cpp/ttnn/operations/data_movement/concat/device/concat_device_operation.cpp:157: in_ref.dtype() == first_input.dtype()",
        "info:",
        "All Tensors should have same dtypes.",
        "TT_FATAL: All Tensors should have same dtypes. (assert.hpp:104)",
    ]);
    let e = c.other_error_seen().unwrap();
    assert_eq!((e.line, e.text.as_str()), (1, "All Tensors should have same dtypes."));
    let c = context(&["TT_FATAL: All Tensors should have same dtypes. (assert.hpp:104)"]);
    assert_eq!(c.other_error_seen().unwrap().text, "All Tensors should have same dtypes.");
    let alone = "FAILED tests/test_add.py::test_add - RuntimeError: TT_FATAL @ binary.cpp:166: a == b";
    assert_eq!(context(&[alone]).other_error_seen().unwrap().text, alone);
    let c = context(&["ValueError: bad shape"]);
    assert_eq!(c.other_error_seen().unwrap().text, "ValueError: bad shape");
    assert!(context(&["all good"]).other_error_seen().is_none());
}

#[test]
fn user_code_excludes_ttnn_site_packages_pytest_and_pluggy() {
    assert!(is_user_code("models/x/model.py"));
    assert!(is_user_code("tests/ttnn/unit_tests/test_conv.py"));
    assert!(!is_user_code("/venv/lib/python3.10/site-packages/ttnn/decorators.py"));
    assert!(!is_user_code("ttnn/ttnn/decorators.py"));
    assert!(!is_user_code("/home/u/tt-metal/ttnn/ttnn/operations/conv2d.py"));
    assert!(!is_user_code("/usr/lib/python3/dist-packages/_pytest/python.py"));
    assert!(!is_user_code("<frozen runpy>"));
}
