//! The Memory tab (tab 4) and the Over time tab (tab 5) on the real TT-NN 0.81.1 reports of
//! `fixtures/real/`, drawn to a 120×40 `TestBackend`: insta snapshots, plus the failing
//! operation, its place and the allocator's figures (from `truth.json`) on screen. The report
//! folder is byte-identical after each session.
//!
//! Tests marked `needs memrules` wait for the memory rules for real reports (mesh ids, the DRAM
//! region's base) that another branch adds.

use crate::real_support;
use crate::tui_support;

use insta::assert_snapshot;
use real_support::*;
use ttnn_tui::analysis::format::format_size;
use ttnn_tui::app::Action::*;
use ttnn_tui::report::{MemoryReport, resolve_report};
use tui_support::Harness;
use tui_support::support::folder_bytes;

/// Opens a fixture at 120×40 on an operation, runs `session` on it, and checks that the report
/// folder did not change meanwhile.
fn with_fixture(scenario: &str, operation: u64, session: impl FnOnce(&mut Harness)) {
    let dir = folder(scenario);
    let before = folder_bytes(&dir);
    let report = MemoryReport::open(&resolve_report(Some(&dir)).expect("a report folder"), 0).expect("opens");
    let mut h = Harness::new(report, 120, 40, false, Some(operation));
    session(&mut h);
    drop(h);
    assert_eq!(folder_bytes(&dir), before, "the report folder changed: {}", dir.display());
}

/// Tab 4 on the failing operation: the memory at the failure, with the allocator's own figures.
fn memory_tab(scenario: &str) {
    let truth = truth(scenario);
    let (id, name) = failed_operation(&truth);
    let bt = match failure(&truth)["buffer_type"].as_str().unwrap() {
        "L1_SMALL" => "L1 Small".to_string(),
        other => other.to_string(),
    };
    with_fixture(scenario, id, |h| {
        h.press(&[GoToTab(3)]);
        h.run_jobs();
        let screen = h.screen();
        assert!(screen.contains("[4 Memory]"), "{screen}");
        let title = format!("Memory at the failure of {id} {name} · device ");
        assert!(screen.contains(&title) && screen.contains(&format!(" · {bt}")), "{title:?} in\n{screen}");
        let (start, end) = allocator_region(&truth);
        // A 0 B region: tt-metal names the L1 base as its base, docs/rules/memory.md §2 the top of L1.
        let region = if start == end { "region (0 B)".to_string() } else { format!("{start}–{end} region") };
        assert!(screen.contains(&region), "the region {region} in\n{screen}");
        let (allocated, _) = allocator_blocks(&truth);
        assert_snapshot!(format!("real_{scenario}_memory_120x40"), h.terminal.backend());
        // The holders list scrolls with the selection: every live buffer shows on some screen.
        let mut screens = screen;
        for _ in 0..allocated.len() {
            h.press(&[Down]);
            screens.push_str(&h.screen());
        }
        for (address, _) in &allocated {
            assert!(screens.contains(&format!(" {address} ")), "the live buffer at {address} in\n{screens}");
        }
    });
}

/// Tab 5: the memory over the run for the failure's buffer type, the failing operation marked
/// with what the allocator held once it had failed. A run that never held that buffer type (a
/// matmul on DRAM tensors whose circular buffers did not fit) has no such line: the tab opens on
/// the line it has.
fn over_time_tab(scenario: &str) {
    let truth = truth(scenario);
    let (id, name) = failed_operation(&truth);
    let bt = failure(&truth)["buffer_type"].as_str().unwrap().to_string();
    let held = int(&truth["memory_at_failure"]["allocator"]["allocated_per_bank"]).unwrap_or(0);
    with_fixture(scenario, id, |h| {
        h.press(&[GoToTab(4)]);
        h.run_jobs();
        let screen = h.screen();
        assert!(screen.contains("[5 Over time]"), "{screen}");
        assert!(screen.contains("Memory over the run · device "), "{screen}");
        if held > 0 {
            assert!(screen.contains(&format!(" · {bt} · per bank after each operation")), "the {bt} line in\n{screen}");
            let cursor = format!("operation {id} {name} · {} per bank", format_size(held.into()));
            assert!(screen.contains(&cursor) && screen.contains("✖ failed here"), "{cursor:?} in\n{screen}");
        }
        assert_snapshot!(format!("real_{scenario}_over_time_120x40"), h.terminal.backend());
    });
}

macro_rules! real_fixture {
    ($($scenario:ident),*) => {$(
        mod $scenario {
            #[test]
            fn memory_tab_at_the_failure() {
                super::memory_tab(stringify!($scenario));
            }
            #[test]
            fn over_time_tab_marks_the_failure() {
                super::over_time_tab(stringify!($scenario));
            }
        }
    )*};
}

crate::each_real_scenario!(real_fixture);

/// Programs that "ran" on the mock device leave `sub_device_manager` and `program_execution`
/// nodes in their graphs (not in the spec's list); the Device ops tab shows such an operation as
/// its completed device operation.
#[test]
fn a_graph_with_program_execution_nodes_is_a_completed_device_operation() {
    let scenario = "small_model";
    let softmax = truth(scenario)["operations"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["name"] == "ttnn.softmax")
        .and_then(|o| int(&o["operation_id"]))
        .expect("the script's softmax has a report id");
    let dir = folder(scenario);
    let graph =
        rusqlite::Connection::open_with_flags(dir.join("db.sqlite"), rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
            .unwrap()
            .query_row("SELECT captured_graph FROM captured_graph WHERE operation_id = ?1", [softmax], |r| {
                r.get::<_, String>(0)
            })
            .unwrap();
    assert!(graph.contains("\"program_execution\"") && graph.contains("\"sub_device_manager\""), "{graph}");
    with_fixture(scenario, softmax, |h| {
        h.press(&[GoToTab(1)]);
        let screen = h.screen();
        assert!(screen.contains(&format!("Device operations of {softmax} ttnn.softmax")), "{screen}");
        assert!(screen.contains("SoftmaxDeviceOperation: Completed"), "{screen}");
    });
}

/// ttnn 0.81's importer writes a duration of 0 for the operation that failed: the detail pane
/// says it has none rather than `0.000 ms`; an operation that completed keeps its figure.
#[test]
fn a_failed_operation_has_no_duration_rather_than_zero() {
    let scenario = "a_l1_add_oom";
    let (id, name) = failed_operation(&truth(scenario));
    with_fixture(scenario, id, |h| {
        let screen = h.screen();
        assert!(screen.contains(&format!("│{id} {name} · duration not recorded (it failed) ")), "{screen}");
        assert!(!screen.contains("0.000 ms"), "{screen}");
        h.press(&[Up]);
        let screen = h.screen();
        assert!(screen.contains(&format!("│{} ", id - 1)) && screen.contains(" ms "), "{screen}");
        assert!(!screen.contains("duration not recorded"), "{screen}");
    });
}

/// Tab 5 on a passing real run (`fixtures/headroom/hr_add_l1`): the true peak inside operation 7
/// — its circular buffers standing on the tensors — beside the after-operation line, and the
/// tightest operation, at 120×40 and on a tiny terminal.
#[test]
fn over_time_shows_the_true_peak_beside_the_after_operation_line() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/headroom/hr_add_l1");
    let before = folder_bytes(&dir);
    let report = MemoryReport::open(&resolve_report(Some(&dir)).expect("a report folder"), 0).expect("opens");
    let mut h = Harness::new(report, 120, 40, false, Some(7));
    h.press(&[GoToTab(4)]);
    h.run_jobs();
    let screen = h.screen();
    assert!(screen.contains("operation 7 ttnn.add · 896 KiB per bank after it"), "{screen}");
    assert!(
        screen.contains(
            "true peak 908 KiB inside it: circular buffers 12 KiB · own 128 KiB · live 768 KiB · stale 0 B · tightest: operation 7"
        ),
        "{screen}"
    );
    assert_snapshot!("real_hr_add_l1_over_time_true_peak_120x40", h.terminal.backend());
    h.resize(60, 15);
    assert_snapshot!("real_hr_add_l1_over_time_true_peak_60x15", h.terminal.backend());
    drop(h);
    assert_eq!(folder_bytes(&dir), before, "the report folder changed");
}

/// A single chip is one device named by the id the user's script knows (issue 30 §4.5), on tab 5
/// as in `explain`: `fixtures/real/small_model` names it by two ids (`devices` rows 0 and 1, every
/// `buffers` row 1), and tab 5's title says device 0, as `explain --peak` and `--late` do.
#[test]
fn over_time_names_a_single_chip_device_0_whatever_ids_its_tables_use() {
    with_fixture("small_model", 8, |h| {
        h.press(&[GoToTab(4)]);
        h.run_jobs();
        let titles = h.lines_with("Memory over the run · device ");
        assert_eq!(titles.len(), 1, "{}", h.screen());
        assert!(titles[0].starts_with("Memory over the run · device 0 · "), "{titles:?}");
        h.press(&[NextBufferType]);
        let titles = h.lines_with("Memory over the run · device ");
        assert!(titles[0].starts_with("Memory over the run · device 0 · "), "{titles:?}");
    });
}
