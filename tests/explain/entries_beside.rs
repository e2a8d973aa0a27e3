//! Entries built on two threads (docs/performance.md, issue 29's tenth step): every second entry
//! built by a worker on a second connection to the report gives, byte for byte, the document and
//! the text built on one thread.

use std::path::Path;
use std::time::Duration;
use ttnn_tui::explain::{ExplainOptions, collect, render_json, render_text};
use ttnn_tui::report::{MemoryReport, ReportSource, resolve_report};

/// The demo report's 14 errors (11 allocation failures), opened from its file on `threads`.
fn demo_file(threads: usize) -> MemoryReport {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/demo");
    let mut report = MemoryReport::open(&resolve_report(Some(&folder)).unwrap(), 0).unwrap();
    report.set_threads(threads);
    report
}

/// The JSON document and the text of `report`, a worker asked for from the first entry on; and
/// how many entries it built for each.
fn written(report: &MemoryReport, options: &ExplainOptions) -> ((String, usize), (String, usize)) {
    let mut json = collect(report, None, options).unwrap();
    json.build_beside_from(Duration::ZERO);
    let document = render_json(report, &json, options);
    let mut text = collect(report, None, options).unwrap();
    text.build_beside_from(Duration::ZERO);
    let said = render_text(report, &text, options);
    ((document, json.built_beside()), (said, text.built_beside()))
}

#[test]
fn entries_built_by_a_worker_give_the_document_and_text_built_on_one_thread() {
    for hex in [false, true] {
        let options = ExplainOptions { hex, ..ExplainOptions::default() };
        let ((one_json, none_json), (one_text, none_text)) = written(&demo_file(1), &options);
        assert_eq!((none_json, none_text), (0, 0), "one thread builds every entry itself");
        let ((two_json, beside_json), (two_text, beside_text)) = written(&demo_file(2), &options);
        // From the first entry on, the worker takes the 2nd, 4th, … 14th.
        assert_eq!((beside_json, beside_text), (7, 7));
        assert!(two_json == one_json, "hex {hex}: the documents differ");
        assert!(two_text == one_text, "hex {hex}: the texts differ");
        let document: serde_json::Value = serde_json::from_str(&two_json).unwrap();
        let memories = document["operations"].as_array().unwrap().iter().filter(|e| e["memory"].is_object()).count();
        assert_eq!(memories, 11, "every allocation failure has its memory and fixes");
    }
}

#[test]
fn a_report_held_in_memory_builds_every_entry_on_its_own_thread() {
    let mut report = MemoryReport::open(&ReportSource::Demo, 0).unwrap();
    report.set_threads(2);
    let options = ExplainOptions::default();
    let ((held, beside_json), (_, beside_text)) = written(&report, &options);
    assert_eq!((beside_json, beside_text), (0, 0), "no second connection to a database held in memory");
    let ((from_file, _), _) = written(&demo_file(1), &options);
    // The same entries; only the path differs.
    let operations = |d: &str| serde_json::from_str::<serde_json::Value>(d).unwrap()["operations"].clone();
    assert_eq!(operations(&held), operations(&from_file));
}
