//! Where a failure came from, as the log says it: the innermost traceback frame in the user's
//! code (and the TT-NN operation it calls), the pytest test, and the last other error.

use crate::analysis::stack::is_library_path;
use regex::Regex;
use std::sync::LazyLock;

/// A Python traceback frame: `  File "/home/u/model.py", line 30, in forward`.
static PYTHON_FRAME: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r#"^File "([^"]+)", line (\d+)"#).expect("the frame pattern is valid"));

/// A pytest frame location: `models/x/model.py:46: `, `…:46: in forward`, `…:329: RuntimeError`.
static PYTEST_FRAME: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(\S+\.py):(\d+):(?:\s+in\s+\S+|\s+[A-Za-z_][\w.]*)?$").expect("the location pattern is valid")
});

/// A pytest section header: `____ test_conv[params] ____`.
static PYTEST_SECTION: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^_{3,} (.+?) _{3,}$").expect("the section pattern is valid"));

/// A TT-NN operation called in a source line: `ttnn.conv2d(`, `ttnn.experimental.foo (`.
static OPERATION_CALL: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\b(ttnn(?:\.[A-Za-z_]\w*)+)\s*\(").expect("the call pattern is valid"));

/// A Python exception line: `RuntimeError: …`.
static PYTHON_EXCEPTION: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^[A-Za-z_][\w.]*(?:Error|Exception): \S").expect("the exception pattern is valid"));

/// tt-metal's logger line of a failed check, its fields stripped: `TT_FATAL: All Tensors should
/// have same dtypes. (assert.hpp:104)`; the message is the first group.
static LOGGED_CHECK: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^TT_(?:FATAL|THROW|ASSERT): (.+?)(?: \([\w.]+:\d+\))?$").expect("the logged check pattern is valid")
});

/// The innermost user frame of a traceback.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Frame {
    /// The frame's path and line as the log prints them: `models/x/model.py:46`.
    pub(crate) source: String,
    /// The TT-NN operation its source line calls, when it shows one.
    pub(crate) operation: Option<String>,
}

/// Where a failure seen on a line came from.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Origin {
    /// The innermost user frame of the traceback the line is part of, `path:line`.
    pub(crate) source: Option<String>,
    /// The TT-NN operation: called on the frame's source line, else the outermost one ttnn's own
    /// log says was started and not finished.
    pub(crate) operation: Option<String>,
    /// The pytest test the line belongs to.
    pub(crate) test: Option<String>,
}

/// The most likely other error of a log: its line and what it says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OtherError {
    /// The 1-based line it begins on.
    pub line: u64,
    /// What it says (a location line is replaced by the message below it).
    pub text: String,
}

/// Which traceback the frames belong to: a Python one ends at the first blank line after it
/// began; a pytest section ends at the next section or `===` line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Traceback {
    Python,
    PytestSection,
}

/// What the lines read so far say about where the next failure comes from.
#[derive(Debug, Default)]
pub(crate) struct Context {
    test: Option<String>,
    traceback: Option<Traceback>,
    frame: Option<Frame>,
    /// The latest pytest `>` line, the code of the frame whose location comes next.
    marked_code: Option<String>,
    /// The user frame whose source line is the next line (Python and pytest's short style).
    awaiting_code: bool,
    tt_error: Option<OtherError>,
    /// Lines left in which a `TT_… @` location line's message may follow.
    tt_awaiting: u8,
    python_error: Option<OtherError>,
    /// The operations ttnn's logger said were started and not yet finished (`enable_logging`:
    /// `… - Started ttnn.add`, `… - Finished ttnn.add`), outermost first.
    running: Vec<String>,
    /// A pytest test whose section ended while ttnn's logger left an operation started and not
    /// finished, and the outermost such operation: pytest prints a test's captured log after its
    /// traceback, so the failure was seen before the operation that raised it was named.
    unfinished: Option<(String, String)>,
}

/// Operations followed at most in `Context::running` (ttnn operations nest a few deep).
const MAX_RUNNING: usize = 16;

impl Context {
    /// Takes a cleaned line into account.
    pub(crate) fn update(&mut self, number: u64, line: &str) {
        self.other_error(number, line);
        self.started_or_finished(line);
        if std::mem::take(&mut self.awaiting_code)
            && let Some(frame) = &mut self.frame
            && frame.operation.is_none()
        {
            frame.operation = operation_called(line);
        }
        if line.is_empty() {
            if self.traceback == Some(Traceback::Python) {
                self.traceback = None;
                self.frame = None;
            }
            return;
        }
        if line.starts_with("===") {
            self.restart(None, None);
        } else if line.starts_with("___") {
            if let Some(c) = PYTEST_SECTION.captures(line) {
                let name = c[1].trim_start_matches("ERROR at setup of ").trim_start_matches("ERROR at teardown of ");
                self.restart(Some(name.to_string()), Some(Traceback::PytestSection));
            }
        } else if line.starts_with("Traceback (most recent call last)") {
            let test = self.test.take();
            self.restart(test, Some(Traceback::Python));
        } else if line.starts_with('>') {
            self.marked_code = Some(line.to_string());
        } else if line.starts_with("File \"") {
            if let Some(c) = PYTHON_FRAME.captures(line) {
                self.frame_seen(&c[1], &c[2], false);
            }
        } else if line.contains(".py::") {
            if let Some((false, test)) = node_test(line) {
                self.restart(Some(test), None);
            }
        } else if line.contains(".py:")
            && let Some(c) = PYTEST_FRAME.captures(line)
        {
            self.frame_seen(&c[1], &c[2], true);
        }
    }

    /// Where a failure on `line` (already taken into account) comes from. The operations ttnn said
    /// were running end with it.
    pub(crate) fn origin(&mut self, line: &str) -> Origin {
        let local_test = node_test(line).filter(|(summary, _)| *summary).map(|(_, test)| test);
        let running = std::mem::take(&mut self.running).into_iter().next();
        let (source, operation) = match &self.frame {
            Some(frame) => (Some(frame.source.clone()), frame.operation.clone().or(running)),
            None => (None, running),
        };
        Origin { source, operation, test: local_test.or_else(|| self.test.clone()) }
    }

    fn started_or_finished(&mut self, line: &str) {
        // One search for what `- Started ttnn.` and `- Finished ttnn.` share.
        let Some(at) = line.find("ed ttnn.") else { return };
        let name = format!("ttnn.{}", line[at + "ed ttnn.".len()..].trim());
        if line[..at].ends_with(" - Start") {
            if self.running.len() < MAX_RUNNING {
                self.running.push(name);
            }
        } else if line[..at].ends_with(" - Finish")
            && let Some(at) = self.running.iter().rposition(|n| *n == name)
        {
            self.running.truncate(at);
        }
    }

    /// The most likely other error seen: the last `TT_FATAL`/`TT_THROW`/`TT_ASSERT` line, else the
    /// last Python exception line.
    pub(crate) fn other_error_seen(&self) -> Option<&OtherError> {
        self.tt_error.as_ref().or(self.python_error.as_ref())
    }

    /// The test whose section ended with an operation started and not finished, and that
    /// operation, once (see `unfinished`).
    pub(crate) fn take_unfinished(&mut self) -> Option<(String, String)> {
        self.unfinished.take()
    }

    /// The end of the log: it ends the last test's section.
    pub(crate) fn finish(&mut self) {
        self.restart(None, None);
    }

    fn restart(&mut self, test: Option<String>, traceback: Option<Traceback>) {
        if self.test.is_some() && test != self.test {
            // The section of a test ended: what its captured log left running is its own.
            let running = std::mem::take(&mut self.running).into_iter().next();
            if let (Some(ended), Some(operation)) = (self.test.clone(), running) {
                self.unfinished = Some((ended, operation));
            }
        }
        self.test = test;
        self.traceback = traceback;
        self.frame = None;
        self.marked_code = None;
        self.awaiting_code = false;
    }

    fn frame_seen(&mut self, path: &str, line: &str, pytest: bool) {
        let marked = self.marked_code.take();
        if self.traceback.is_none() {
            self.traceback = Some(if pytest { Traceback::PytestSection } else { Traceback::Python });
        }
        if !is_user_code(path) {
            return;
        }
        let operation = marked.as_deref().and_then(operation_called);
        self.awaiting_code = operation.is_none();
        self.frame = Some(Frame { source: format!("{path}:{line}"), operation });
    }

    fn other_error(&mut self, number: u64, line: &str) {
        if self.tt_awaiting > 0 {
            self.tt_awaiting -= 1;
            let text = line.strip_prefix("info:").unwrap_or(line).trim();
            if !text.is_empty() && !text.starts_with("backtrace:") {
                if let Some(error) = &mut self.tt_error {
                    error.text = text.to_string();
                }
                self.tt_awaiting = 0;
            }
        }
        // pytest's short summary (`FAILED tests/t.py::test - RuntimeError: TT_FATAL @ …`) repeats
        // the first line of an error its traceback gave whole: it names none of its own.
        let summary = node_test(line).is_some_and(|(summary, _)| summary);
        if summary && (self.tt_error.is_some() || self.python_error.is_some()) {
            return;
        }
        if let Some(logged) = LOGGED_CHECK.captures(line) {
            // The logger's copy of a check: its message, unless the traceback gave it already.
            let text = logged[1].to_string();
            if self.tt_error.as_ref().is_none_or(|e| e.text != text) {
                self.tt_error = Some(OtherError { line: number, text });
            }
            self.tt_awaiting = 0;
        } else if ["TT_FATAL", "TT_THROW", "TT_ASSERT"].iter().any(|k| line.contains(k)) {
            self.tt_error = Some(OtherError { line: number, text: line.to_string() });
            let location = ["TT_FATAL @", "TT_THROW @", "TT_ASSERT @"].iter().any(|k| line.contains(k));
            self.tt_awaiting = if location { 3 } else { 0 };
        } else if (line.contains("Error: ") || line.contains("Exception: ")) && PYTHON_EXCEPTION.is_match(line) {
            self.python_error = Some(OtherError { line: number, text: line.to_string() });
        }
    }
}

/// The test of a line that starts with a pytest node id (`tests/test_x.py::TestA::test_b[p] PASSED`),
/// or with the short summary's `FAILED ` / `ERROR ` and one (then `true`): pytest's name of the test
/// as its section headers print it, `TestA.test_b[p]`.
fn node_test(line: &str) -> Option<(bool, String)> {
    let (summary, rest) = match line.strip_prefix("FAILED ").or_else(|| line.strip_prefix("ERROR ")) {
        Some(rest) => (true, rest),
        None => (false, line),
    };
    let node = rest.split(char::is_whitespace).next()?;
    let (file, test) = node.split_once("::")?;
    (file.ends_with(".py") && !file.is_empty() && !test.is_empty()).then(|| (summary, test.replace("::", ".")))
}

/// The first TT-NN operation called in a source line.
fn operation_called(code: &str) -> Option<String> {
    OPERATION_CALL.captures(code).map(|c| c[1].to_string())
}

/// False for frames inside the ttnn package, site-packages, pytest or pluggy (and Python's own
/// `<frozen …>` frames): [`is_library_path`], the rule operation stack traces follow too.
fn is_user_code(path: &str) -> bool {
    !is_library_path(path)
}

#[cfg(test)]
#[path = "context_tests.rs"]
mod tests;
