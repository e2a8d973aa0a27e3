//! The terminal UI on the real reports of ttnn 0.66.0, 0.75.0 and 0.80.0 (`fixtures/releases/`),
//! with and without the log of each run (docs/rules/reference.md §13.5): the operations list and tab 4.

use crate::tui_support;

use insta::assert_snapshot;
use std::path::Path;
use std::sync::Arc;
use ttnn_tui::app::Action::*;
use ttnn_tui::report::{LogBeside, MemoryReport, resolve_report};
use tui_support::Harness;

const SCENARIOS: [&str; 5] = ["a_l1_add_oom", "c_cb_clash", "dram_oom", "l1_fragmented", "small_model"];

/// A release's recording of a scenario, opened with its run's log or not.
fn open(version: &str, scenario: &str, with_log: bool, width: u16, height: u16) -> Harness {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/releases").join(version).join(scenario);
    let mut report = MemoryReport::open(&resolve_report(Some(&folder)).unwrap(), 0).unwrap();
    if with_log {
        let file = std::fs::File::open(folder.join("run.log")).unwrap();
        let findings = ttnn_tui::explain::scan_log(std::io::BufReader::new(file)).unwrap();
        report.join_log(Arc::new(LogBeside { path: "run.log".into(), findings }));
    }
    Harness::new(report, width, height, false, None)
}

fn truth(version: &str, scenario: &str) -> serde_json::Value {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/releases").join(version).join(scenario).join("truth.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Every recording opens on its failed operation, marked in the list (`(not recorded)` where the
/// release left it out); with the log, tab 4 shows the memory at its failure.
#[test]
fn every_recording_opens_on_its_failure() {
    for version in ["0.66.0", "0.75.0", "0.80.0"] {
        for scenario in SCENARIOS {
            let f = truth(version, scenario)["failure"].clone();
            let (id, name) = (f["expected_operation_id"].as_u64().unwrap(), f["operation_name"].as_str().unwrap());
            let recorded = f["recorded"] == true;
            let h = open(version, scenario, false, 120, 40);
            assert_eq!(h.selected_id(), Some(id), "{version} {scenario}");
            let row = h.lines_with(&format!("{id} {name}"));
            let marker = if recorded { "✖ " } else { "✖ error" };
            assert!(row.iter().any(|l| l.contains(marker)), "{version} {scenario}: {row:?}");
            assert_eq!(row.iter().any(|l| l.contains("(not recorded)")), !recorded, "{version} {scenario}: {row:?}");
            let mut h = open(version, scenario, true, 120, 40);
            let kind = if f["kind"].as_str().unwrap().starts_with("circular") { "✖ CB" } else { "✖ OOM" };
            assert!(h.lines_with(&format!("{id} {name}")).iter().any(|l| l.contains(kind)), "{version} {scenario}");
            h.press(&[GoToTab(3)]);
            let heading = format!("Memory at the failure of {id} {name} · device ");
            assert!(h.screen().contains(&heading), "{version} {scenario}: {}", h.screen());
        }
    }
}

#[test]
fn the_list_and_tab_4_of_each_release() {
    for version in ["0.66.0", "0.75.0", "0.80.0"] {
        let mut h = open(version, "a_l1_add_oom", true, 120, 40);
        assert_snapshot!(format!("release_{version}_list_with_log"), h.terminal.backend());
        h.press(&[GoToTab(3)]);
        assert_snapshot!(format!("release_{version}_memory_with_log"), h.terminal.backend());
    }
    let mut h = open("0.75.0", "a_l1_add_oom", false, 120, 40);
    assert_snapshot!("release_0.75.0_list", h.terminal.backend());
    h.press(&[GoToTab(3)]);
    assert_snapshot!("release_0.75.0_memory_at_start", h.terminal.backend());
    let mut h = open("0.75.0", "a_l1_add_oom", true, 60, 15);
    assert_snapshot!("release_0.75.0_list_with_log_60x15", h.terminal.backend());
    h.press(&[GoToTab(3)]);
    assert_snapshot!("release_0.75.0_memory_with_log_60x15", h.terminal.backend());
}
