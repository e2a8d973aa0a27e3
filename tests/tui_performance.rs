//! The Performance tab: linked with its failure callout, unlinked, without a performance report,
//! more than five failures, the per-device view, the flagged-only filter, `Enter` on a listing,
//! and each linked device op's row in the Device ops tree.

mod tui_support;

use insta::assert_snapshot;
use ratatui::style::Color;
use ttnn_tui::analysis::flags::FlagKind;
use ttnn_tui::app::Action::*;
use ttnn_tui::app::Tab;
use tui_support::perf::{harness, linked_csv, linked_report, seven_failures, two_devices, unrelated_csv};
use tui_support::{Harness, scenario};

/// Ids of the rows shown, in order.
fn shown_ids(h: &Harness) -> Vec<u64> {
    let perf = h.app.perf.as_ref().unwrap();
    perf.table.shown.iter().map(|&r| perf.rows[r].id).collect()
}

/// Ids of the rows with a flag of this kind.
fn flagged(h: &Harness, kind: FlagKind) -> Vec<u64> {
    let perf = h.app.perf.as_ref().unwrap();
    (0..perf.rows.len()).filter(|&r| perf.flags[r].iter().any(|f| f.kind == kind)).map(|r| perf.rows[r].id).collect()
}

#[test]
fn linked_with_the_failure_callout() {
    let mut h = harness(&linked_report(), &linked_csv(), 120, 40, false);
    let screen = h.screen();
    assert!(screen.contains("3 allocation failures recorded in the linked memory report"), "{screen}");
    assert!(screen.contains("▶ 2 ttnn.matmul"), "{screen}");
    assert!(
        screen.contains("Failed in MatmulDeviceOperation; 1 earlier device op ran, so it has 1 row in this report."),
        "{screen}"
    );
    assert!(screen.contains("Data linked between memory and performance reports"), "{screen}");
    assert!(screen.contains("✖ Op failed"), "{screen}");
    // The signpost is a row, the host op is hidden; ids are line numbers.
    assert_eq!(shown_ids(&h), [2, 3, 4, 6, 7, 8]);
    assert_eq!(flagged(&h, FlagKind::OpFailed), [2]);
    assert_eq!(flagged(&h, FlagKind::LowUtil), [4]);
    assert_eq!(flagged(&h, FlagKind::FewCores), [7]);
    assert_eq!(flagged(&h, FlagKind::Recompute), [8]);
    // The selected row's flags are explained in the footer, the failure summary in decimal.
    assert!(screen.contains("Row 2 TilizeDeviceOperation · operation 2 ttnn.matmul"), "{screen}");
    assert!(screen.contains("✖ Operation failed to allocate — This device op ran"), "{screen}");
    assert_snapshot!("perf_linked_120x40", h.terminal.backend());

    // The other listings: before reaching the device, and no device ops recorded.
    h.press(&[NextFailure]);
    assert!(
        h.screen()
            .contains("Failed in SoftmaxDeviceOperation before reaching the device, so it has no row in this report.")
    );
    h.press(&[NextFailure]);
    assert!(
        h.screen()
            .contains("The memory report recorded no device ops for it, so no row in this report is linked to it.")
    );
    h.press(&[NextFailure]);
    assert_eq!(h.app.perf.as_ref().unwrap().listing, 0, "wraps around");
    h.press(&[PreviousFailure]);
    assert_eq!(h.app.perf.as_ref().unwrap().listing, 2);
    h.press(&[First]);
    h.resize(60, 15);
    assert_snapshot!("perf_linked_60x15", h.terminal.backend());
}

#[test]
fn linked_without_colour() {
    let h = harness(&linked_report(), &linked_csv(), 120, 40, true);
    assert_snapshot!("perf_linked_plain_120x40", h.terminal.backend());
    // Meaning survives without colour: glyphs and words, and no colour at all in the buffer.
    let screen = h.screen();
    assert!(screen.contains("✖ Op failed") && screen.contains("! Low util") && screen.contains("▶"), "{screen}");
    for cell in h.terminal.backend().buffer().content() {
        assert_eq!((cell.fg, cell.bg), (Color::Reset, Color::Reset), "{cell:?}");
    }
}

#[test]
fn moving_in_the_table_explains_each_row() {
    let mut h = harness(&linked_report(), &linked_csv(), 120, 40, false);
    h.press(&[Down, Down]);
    let screen = h.screen();
    assert!(screen.contains("Row 4 MatmulDeviceOperation · operation 3 ttnn.matmul"), "{screen}");
    assert!(screen.contains("! Low utilisation — Core utilisation is below ideal"), "{screen}");
    assert!(screen.contains("Core utilisation: 2%"), "{screen}");
    assert!(screen.contains("row 3/6"), "{screen}");
    h.press(&[Last]);
    let screen = h.screen();
    assert!(screen.contains("Row 8 BinaryNgDeviceOperation"), "{screen}");
    assert!(screen.contains("! Recompute candidate — An identical op hash"), "{screen}");
    assert!(screen.contains("Hash: 3333"), "{screen}");
    h.press(&[Up, Up]);
    assert!(h.screen().contains("Row 6 BinaryNgDeviceOperation · operation 4 ttnn.add · no flags"), "{}", h.screen());
}

#[test]
fn an_unrelated_report_links_nothing_and_blames_nothing() {
    let h = harness(&linked_report(), &unrelated_csv(), 120, 40, false);
    let screen = h.screen();
    assert!(!screen.contains("allocation failure"), "{screen}");
    assert!(!screen.contains("Op failed"), "{screen}");
    assert!(screen.contains("Unable to link active memory and performance reports"), "{screen}");
    assert!(flagged(&h, FlagKind::OpFailed).is_empty());
    assert!(!h.app.enabled(GoToFailure));
    assert_snapshot!("perf_unlinked_120x40", h.terminal.backend());
}

#[test]
fn without_a_performance_report() {
    let mut h = Harness::new(scenario(0).open(), 120, 40, false, None);
    h.press(&[GoToTab(2)]);
    assert!(h.screen().contains("No performance report loaded — pass --perf"));
    for action in [ToggleFlaggedOnly, TogglePerDevice, GoToFailure] {
        assert!(!h.app.enabled(action), "{action:?}");
        h.press(&[action]);
        assert_eq!(h.app.message.as_deref(), Some("No performance report loaded — pass --perf"));
    }
    assert_eq!(h.app.tab, Tab::Performance);
    assert_snapshot!("perf_none_120x40", h.terminal.backend());
    h.resize(60, 15);
    assert_snapshot!("perf_none_60x15", h.terminal.backend());
}

#[test]
fn more_than_five_failures() {
    let (report, csv) = seven_failures();
    let mut h = harness(&report, &csv, 120, 40, false);
    let screen = h.screen();
    assert!(screen.contains("7 allocation failures recorded in the linked memory report"), "{screen}");
    assert_eq!(h.app.perf.as_ref().unwrap().listed(), 5);
    assert_snapshot!("perf_more_than_five_120x40", h.terminal.backend());
    // The last listing scrolls into view, and the closing line follows it.
    h.press(&[PreviousFailure]);
    let screen = h.screen();
    assert!(screen.contains("▶ 5 ttnn.add"), "{screen}");
    assert!(screen.contains("And 2 more, listed with their errors in the operations view."), "{screen}");
    assert_snapshot!("perf_more_than_five_last_listing", h.terminal.backend());
}

#[test]
fn per_device_view() {
    let (report, csv) = two_devices();
    let mut h = harness(&report, &csv, 120, 40, false);
    assert_eq!(shown_ids(&h), [3, 4, 7]);
    assert_eq!(flagged(&h, FlagKind::OpFailed), [7]);
    assert!(h.screen().contains("1 earlier device op ran, so it has 1 row in this report."));
    assert!(h.screen().contains("devices merged"));
    h.press(&[TogglePerDevice]);
    assert_eq!(h.app.message.as_deref(), Some("Rows per device"));
    assert_eq!(shown_ids(&h), [2, 3, 4, 5, 6, 7]);
    assert_eq!(flagged(&h, FlagKind::OpFailed), [6, 7]);
    let screen = h.screen();
    assert!(screen.contains("1 earlier device op ran, so it has 2 rows in this report."), "{screen}");
    assert!(screen.contains("per device"), "{screen}");
    assert_snapshot!("perf_per_device_120x40", h.terminal.backend());
    h.press(&[TogglePerDevice]);
    assert_eq!(shown_ids(&h), [3, 4, 7]);
}

#[test]
fn per_device_is_disabled_with_one_device() {
    let mut h = harness(&linked_report(), &linked_csv(), 120, 40, false);
    assert!(!h.app.enabled(TogglePerDevice));
    h.press(&[TogglePerDevice]);
    assert_eq!(h.app.message.as_deref(), Some("No per-device view: this performance report has one device"));
    assert!(!h.app.perf.as_ref().unwrap().per_device);
}

#[test]
fn flagged_only_filter() {
    let mut h = harness(&linked_report(), &linked_csv(), 120, 40, false);
    h.press(&[Down]); // the signpost, which has no flag
    h.press(&[ToggleFlaggedOnly]);
    assert_eq!(shown_ids(&h), [2, 4, 7, 8]);
    let screen = h.screen();
    assert!(screen.contains("Showing 4 of 6 rows"), "{screen}");
    assert!(screen.contains("flagged only"), "{screen}");
    // The hidden signpost's place goes to the next flagged row.
    assert!(screen.contains("Row 4 MatmulDeviceOperation"), "{screen}");
    assert_snapshot!("perf_flagged_only_120x40", h.terminal.backend());
    h.press(&[ToggleFlaggedOnly]);
    assert_eq!(shown_ids(&h).len(), 6);
    assert_eq!(h.app.message.as_deref(), Some("Showing all rows"));
}

#[test]
fn enter_on_a_listing_lands_on_its_operation() {
    let mut h = harness(&linked_report(), &linked_csv(), 120, 40, false);
    h.press(&[GoToTab(0), ToggleErrorsOnly, GoToTab(2), NextFailure, GoToFailure]);
    assert_eq!(h.app.tab, Tab::Operations);
    let selected = h.app.selected_operation().unwrap();
    assert_eq!(h.app.operations[selected].id, 5);
    let screen = h.screen();
    assert!(screen.contains("Operation 5 ttnn.softmax"), "{screen}");
    assert!(screen.lines().any(|l| l.contains("▶ ") && l.contains("5 ttnn.softmax")), "{screen}");
}

#[test]
fn the_tree_shows_each_linked_device_op_row() {
    let report = linked_report();
    let mut h = harness(&report, &linked_csv(), 120, 40, false);
    h.press(&[GoToTab(0), Down, GoToTab(1)]);
    let screen = h.screen();
    assert!(screen.contains("TilizeDeviceOperation  perf row 2 · 1.000 µs"), "{screen}");
    let failed = screen.lines().find(|l| l.contains("✖ MatmulDeviceOperation")).unwrap();
    assert!(!failed.contains("perf row"), "a failed device op never has a row: {failed}");
    assert_snapshot!("perf_tree_annotations", h.terminal.backend());
    h.press(&[GoToTab(0), Down, GoToTab(1), Open]);
    assert!(h.screen().contains("MatmulDeviceOperation  perf row 4 · 5.000 µs"), "{}", h.screen());
}

#[test]
fn help_lists_the_performance_keys_and_dims_the_disabled_ones() {
    let h = harness(&linked_report(), &linked_csv(), 120, 40, false);
    let help: Vec<String> = ttnn_tui::ui::help::help_lines(&h.app).iter().map(|l| l.to_string()).collect();
    let section = help.iter().position(|l| l == "Performance").unwrap();
    let keys = &help[section..help[section..].iter().position(String::is_empty).map_or(help.len(), |e| section + e)];
    for expected in ["j/k", "Enter", "go to failure", "[/]", "choose failure", "f ", "flagged only", "m ", "x "] {
        assert!(keys.iter().any(|l| l.contains(expected)), "{expected:?} in {keys:#?}");
    }
    let per_device = keys.iter().find(|l| l.contains("merged/per device")).unwrap();
    assert!(per_device.contains("(not available now)"), "{per_device}");
    let hints = ttnn_tui::ui::status::hints(&h.app, h.app.pane());
    assert!(hints.contains(&("Enter", "go to failure", true)), "{hints:?}");
    assert!(hints.contains(&("m", "merged/per device", false)), "{hints:?}");
}

/// The embedded demo with its embedded performance report, as `--demo` opens them.
fn demo(width: u16, height: u16) -> Harness {
    use ttnn_tui::report::linked::LinkedReports;
    use ttnn_tui::report::perf::PerfReport;
    use ttnn_tui::report::{MemoryReport, ReportSource};
    let memory = MemoryReport::open(&ReportSource::Demo, 0).unwrap();
    let linked = LinkedReports::new(&memory, PerfReport::demo().unwrap()).unwrap();
    let merged_flags = linked.flags();
    let mut h = Harness::new(memory, width, height, false, None);
    h.app.set_perf(Some(linked));
    h.press(&[GoToTab(2)]);
    // The tab flags the rows as `explain --perf` does.
    assert_eq!(h.app.perf.as_ref().unwrap().flags, merged_flags);
    h
}

#[test]
fn the_demo_links_and_lists_its_failures() {
    let h = demo(120, 40);
    let screen = h.screen();
    assert!(screen.contains("Data linked between memory and performance reports"), "{screen}");
    assert_snapshot!("perf_demo_120x40", h.terminal.backend());
    let h = demo(60, 15);
    assert_snapshot!("perf_demo_60x15", h.terminal.backend());
}

#[test]
fn every_size_draws_without_panicking() {
    let mut h = demo(120, 40);
    h.press(&[Last, PreviousFailure]);
    for (width, height) in [(1, 1), (20, 5), (59, 15), (60, 14), (60, 15), (61, 16), (75, 20), (99, 30), (100, 30)] {
        h.resize(width, height);
        let perf = h.app.perf.as_ref().unwrap();
        assert!(perf.table.selected >= perf.table.offset, "{width}×{height}");
    }
    h.resize(20, 5);
    assert!(h.screen().contains("terminal too small"), "{}", h.screen());
}
