//! The Python calls graph capture recorded beside a report (`*.python_io.json`, docs/rules/formats.md §3.9):
//! for an operation the report did not record (docs/rules/reference.md §13.5), its arguments and input
//! tensors. The file is streamed, one call at a time: only the call asked for is kept.

use crate::analysis::sanitize::{sanitize_line, sanitize_text};
use crate::report::error::ReportError;
use serde::Deserialize;
use serde::de::{Deserializer, SeqAccess, Visitor};
use std::path::{Path, PathBuf};

/// The ending of the file graph capture writes beside its report file.
const SUFFIX: &str = ".python_io.json";

/// What graph capture kept of one Python call, sanitised.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PythonCall {
    /// Its arguments: name and printed value, in the file's order.
    pub arguments: Vec<(String, String)>,
    /// Its input tensors' ids.
    pub input_tensor_ids: Vec<u64>,
}

/// One call as the file holds it; the captured graph and the rest are skipped.
#[derive(Deserialize)]
struct RawCall {
    #[serde(default)]
    name: String,
    #[serde(default)]
    arguments: serde_json::Map<String, serde_json::Value>,
    #[serde(default)]
    input_tensor_ids: Vec<serde_json::Value>,
}

/// The `*.python_io.json` of a report folder: `graph_capture.python_io.json` when there, else
/// the last by name; none when the folder has none.
fn python_io_file(folder: &Path) -> Option<PathBuf> {
    let preferred = folder.join(format!("graph_capture{SUFFIX}"));
    if preferred.is_file() {
        return Some(preferred);
    }
    let mut found: Vec<PathBuf> = std::fs::read_dir(folder)
        .ok()?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_file() && p.file_name().is_some_and(|n| n.to_string_lossy().ends_with(SUFFIX)))
        .collect();
    found.sort();
    found.pop()
}

/// The last call named `name` in the folder's `*.python_io.json`; none without the file or such
/// a call. A file that is not a list of calls is an error.
pub(crate) fn last_call(folder: &Path, name: &str) -> Result<Option<PythonCall>, ReportError> {
    let Some(path) = python_io_file(folder) else { return Ok(None) };
    let unreadable = |e: String| ReportError::Read { what: "graph_capture.python_io.json", message: e };
    let file = std::fs::File::open(&path).map_err(|e| unreadable(e.to_string()))?;
    let mut reader = serde_json::Deserializer::from_reader(std::io::BufReader::new(file));
    let last = reader.deserialize_seq(LastCall { name }).map_err(|e| unreadable(e.to_string()))?;
    Ok(last.map(|call| PythonCall {
        arguments: call.arguments.iter().map(|(k, v)| (sanitize_line(k), sanitize_text(&printed(v)))).collect(),
        input_tensor_ids: call.input_tensor_ids.iter().filter_map(serde_json::Value::as_u64).collect(),
    }))
}

/// A value as the `operation_arguments` table prints it: a string as is, anything else as JSON.
fn printed(value: &serde_json::Value) -> String {
    match value {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Walks the list of calls keeping the last one named `name`.
struct LastCall<'n> {
    name: &'n str,
}

impl<'de> Visitor<'de> for LastCall<'_> {
    type Value = Option<RawCall>;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a list of Python calls")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut last = None;
        // Each call is read on its own, its captured graph skipped unread.
        while let Some(call) = seq.next_element::<RawCall>()? {
            if call.name == self.name {
                last = Some(call);
            }
        }
        Ok(last)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn folder_with(text: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("python-io-{}-{:?}", std::process::id(), std::thread::current().id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("graph_capture.python_io.json"), text).unwrap();
        dir
    }

    /// As ttnn 0.75 writes it: the failed call last, without outputs or a graph.
    #[test]
    fn the_last_call_of_the_name_with_its_arguments_and_inputs() {
        let dir = folder_with(
            r#"[{"name": "ttnn.add", "arguments": {"0": "x"}, "input_tensor_ids": [1], "output_tensor_ids": [3], "captured_graph": [{"counter": 0}]},
                {"name": "ttnn.empty", "arguments": {"0": "[1, 1]"}, "input_tensor_ids": []},
                {"name": "ttnn.add", "arguments": {"memory_config": "L1\u001b[2J", "0": "ttnn.Tensor(tensor_id=2)", "1": 5}, "input_tensor_ids": [2, 5]}]"#,
        );
        let call = last_call(&dir, "ttnn.add").unwrap().unwrap();
        assert_eq!(call.input_tensor_ids, vec![2, 5]);
        let names: Vec<&str> = call.arguments.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(names, ["memory_config", "0", "1"]);
        assert!(!call.arguments[0].1.contains('\u{1b}'));
        assert_eq!(call.arguments[2].1, "5");
        assert_eq!(last_call(&dir, "ttnn.matmul").unwrap(), None);
        std::fs::write(dir.join("graph_capture.python_io.json"), "{\"not\": \"a list\"}").unwrap();
        assert!(last_call(&dir, "ttnn.add").is_err());
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(last_call(&dir, "ttnn.add").unwrap(), None);
    }
}
