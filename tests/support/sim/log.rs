//! The run's log as pytest prints it: ttnn's logger lines (`Started` / `Finished` of each
//! operation), the allocator's message as tt-metal's logger prints it, then the test's failure
//! with its traceback through the model's line (`model/block.py`, line 100 + the operation's id,
//! as the simulated stack traces give it) and pytest's `E` lines.

use super::Sim;

/// `E       ` before every line of a text, as pytest marks an exception.
fn e_lines(text: &str) -> String {
    text.lines().map(|l| format!("E       {l}\n")).collect()
}

fn logger(line: &str) -> String {
    format!("2026-05-14 01:00:31.755 | DEBUG    | ttnn.decorators:call_wrapper:1598 - {line}\n")
}

impl Sim {
    /// The log of the run of `test`, which died of the failure of operation `failed` (its id)
    /// named `name`.
    pub fn log(&self, test: &str, failed: u64, name: &str) -> String {
        let message = self.message.as_deref().expect("an operation failed");
        let mut s = format!("{:=^80}\n", " test session starts ");
        s += "platform linux -- Python 3.10.12, pytest-7.2.2, pluggy-1.6.0\ncollected 1 item\n\n";
        s += &format!("tests/test_model.py::{test} FAILED{:>40}\n\n", "[100%]");
        s += &format!("{:=^80}\n", " FAILURES ");
        s += &format!("{:_^80}\n\n", format!(" {test} "));
        s += &format!(
            "device = <ttnn._ttnn.device.Device object at 0x7f1c2c0b1230>\n\n    def {test}(device):\n>       run_model(device)\n\n"
        );
        s += "tests/test_model.py:12: \n";
        s += &format!("{}\n\n", "_ ".repeat(40).trim_end());
        s += &format!("    def forward(x):\n>       y = {name}(x)\n\n");
        s += &format!("model/block.py:{}: \n", 100 + failed);
        s += &format!("{}\n\n", "_ ".repeat(40).trim_end());
        s += "self = FastOperation(python_fully_qualified_name='ttnn.op')\n\n";
        s += "    def __call__(self, *function_args, **function_kwargs):\n>       result = self.function(*function_args, **function_kwargs)\n";
        s += &e_lines(&format!(
            "RuntimeError: TT_FATAL @ tt_metal/impl/allocator/bank_manager.cpp:486: false\ninfo:\n{message}\nbacktrace:\n --- x"
        ));
        s += "\n/venv/lib/python3.10/site-packages/ttnn/decorators.py:329: RuntimeError\n";
        s += &format!("{:-^80}\n", " Captured log call ");
        for op in self.ops.iter().filter(|op| op.id as u64 != failed) {
            s += &logger(&format!("Started {}", op.name));
            s += &logger(&format!("Finished {}", op.name));
        }
        s += &logger(&format!("Started {name}"));
        s += &format!("2026-05-14 01:00:31.756 | critical |          Always | TT_FATAL: {message} (assert.hpp:104)\n");
        s += &format!("{:=^80}\n", " short test summary info ");
        s += &format!(
            "FAILED tests/test_model.py::{test} - RuntimeError: TT_FATAL @ tt_metal/impl/allocator/bank_manager.cpp:486: false\n"
        );
        s += &format!("{:=^80}\n", " 1 failed in 3.21s ");
        s
    }
}
