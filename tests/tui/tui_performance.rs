//! The Performance tab: linked with its failure callout, unlinked, without a performance report,
//! more than five failures, the per-device view, the flagged-only filter, keys acting on what is
//! visibly selected (the table's row, or the callout's listing after `[`/`]`), and each linked
//! device op's row in the Device ops tree.

use crate::tui_support;

use insta::assert_snapshot;
use ratatui::style::Color;
use ttnn_tui::analysis::perf::flags::FlagKind;
use ttnn_tui::app::Action::*;
use ttnn_tui::app::{Pane, Tab};
use tui_support::perf::{harness, linked_csv, linked_report, seven_failures, two_devices, unrelated_csv};
use tui_support::{Harness, scenario};

/// Ids of the rows shown, in order.
fn shown_ids(h: &Harness) -> Vec<u64> {
    h.app.perf().unwrap().shown_rows().map(|r| r.id).collect()
}

/// Ids of the rows with a flag of this kind.
fn flagged(h: &Harness, kind: FlagKind) -> Vec<u64> {
    let perf = h.app.perf().unwrap();
    let rows = perf.rows();
    (0..rows.len()).filter(|&r| perf.flags()[r].iter().any(|f| f.kind == kind)).map(|r| rows[r].id).collect()
}

#[test]
fn linked_with_the_failure_callout() {
    let mut h = harness(&linked_report(), &linked_csv(), 120, 40, false);
    let screen = h.screen();
    assert!(screen.contains("3 allocation failures recorded in the linked memory report"), "{screen}");
    assert!(screen.contains("  2 ttnn.matmul"), "{screen}");
    assert!(
        screen.contains("Failed in MatmulDeviceOperation; 1 earlier device op ran, so it has 1 row in this report."),
        "{screen}"
    );
    assert!(screen.contains("Data linked between memory and performance reports"), "{screen}");
    assert!(screen.contains("│ perf: linked"), "{screen}");
    assert!(screen.contains("✖ Op failed"), "{screen}");
    // The signpost is a row, the host op is hidden; ids are line numbers.
    assert_eq!(shown_ids(&h), [2, 3, 4, 6, 7, 8]);
    assert_eq!(flagged(&h, FlagKind::OpFailed), [2]);
    assert_eq!(flagged(&h, FlagKind::LowUtil), [4]);
    assert_eq!(flagged(&h, FlagKind::FewCores), [7]);
    assert_eq!(flagged(&h, FlagKind::Recompute), [8]);
    // The selected row's flags are explained in the footer, the failure summary in decimal.
    assert!(screen.contains("ID 2 TilizeDeviceOperation · operation 2 ttnn.matmul (Enter)"), "{screen}");
    assert!(screen.contains("✖ Operation failed to allocate — This device op ran"), "{screen}");
    assert_snapshot!("perf_linked_120x40", h.terminal.backend());

    // `]` moves the keys to the callout, on its first listing; then the others.
    h.press(&[NextFailure]);
    assert!(h.screen().contains("▶ 2 ttnn.matmul"), "{}", h.screen());
    assert_eq!(h.app.perf().unwrap().selected_listing(), Some(0));
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
    assert_eq!(h.app.perf().unwrap().selected_listing(), Some(0), "wraps around");
    h.press(&[PreviousFailure]);
    assert_eq!(h.app.perf().unwrap().selected_listing(), Some(2));
    h.press(&[First]);
    assert!(!h.screen().contains("▶ 2 ttnn.matmul"), "back on the table, the listing is not selected");
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
    assert!(screen.contains("ID 4 MatmulDeviceOperation · operation 3 ttnn.matmul"), "{screen}");
    assert!(screen.contains("! Low utilisation — Core utilisation is below ideal"), "{screen}");
    assert!(screen.contains("Core utilisation: 2%"), "{screen}");
    assert!(screen.contains("row 3/6"), "{screen}");
    h.press(&[Last]);
    let screen = h.screen();
    assert!(screen.contains("ID 8 BinaryNgDeviceOperation"), "{screen}");
    assert!(screen.contains("! Recompute candidate — An identical op hash"), "{screen}");
    assert!(screen.contains("Hash: 3333"), "{screen}");
    h.press(&[Up, Up]);
    assert!(
        h.screen().contains("ID 6 BinaryNgDeviceOperation · operation 4 ttnn.add (Enter) · no flags"),
        "{}",
        h.screen()
    );
}

#[test]
fn keys_act_on_the_selected_row() {
    let mut h = harness(&linked_report(), &linked_csv(), 120, 40, false);
    // Row 2 belongs to operation 2, which failed: `v` shows its error, `y` copies its callout.
    h.press(&[ViewError]);
    assert_eq!(h.app.pane(), Pane::ErrorPopup);
    assert!(h.screen().contains("Error of operation 2 ttnn.matmul"), "{}", h.screen());
    h.press(&[Back, Copy]);
    assert_eq!(h.app.message(), Some("Copied the callout of operation 2 (OSC 52)"));
    // Row 4 belongs to operation 3, which has no error: `v` and `y` are dimmed and say so.
    h.press(&[Down, Down]);
    assert!(!h.enabled(ViewError) && !h.enabled(Copy));
    h.press(&[ViewError]);
    assert_eq!(h.app.message(), Some("Operation 3 has no error"));
    // Enter opens the row's operation, not the callout's listing.
    h.press(&[Activate]);
    assert_eq!((h.app.tab(), h.selected_id()), (Tab::Operations, Some(3)));
    // The signpost row has no operation.
    h.press(&[GoToTab(2), First, Down, Activate]);
    assert_eq!(h.app.tab(), Tab::Performance);
    assert_eq!(h.app.message(), Some("ID 3 is not linked to an operation"));
    assert!(!h.enabled(Activate));
}

#[test]
fn an_unrelated_report_links_nothing_and_blames_nothing() {
    let h = harness(&linked_report(), &unrelated_csv(), 120, 40, false);
    let screen = h.screen();
    assert!(!screen.contains("allocation failure"), "{screen}");
    assert!(!screen.contains("Op failed"), "{screen}");
    assert!(screen.contains("Unable to link active memory and performance reports"), "{screen}");
    assert!(screen.contains("│ perf: not linked"), "{screen}");
    assert!(flagged(&h, FlagKind::OpFailed).is_empty());
    assert!(!h.enabled(Activate));
    // No callout: its keys are not offered.
    let hints: Vec<&str> = ttnn_tui::ui::status::hints(&h.app).iter().map(|(b, _)| b.label).collect();
    assert!(!hints.contains(&"]/[") && !hints.contains(&"u"), "{hints:?}");
    assert_snapshot!("perf_unlinked_120x40", h.terminal.backend());
}

#[test]
fn without_a_performance_report() {
    let mut h = Harness::new(scenario(0).open(), 120, 40, false, None);
    h.press(&[GoToTab(2)]);
    assert!(h.screen().contains("No performance report loaded — pass --perf PATH"));
    // The tab advertises no key it cannot use: only the tabs, help and quit.
    let hints: Vec<&str> = ttnn_tui::ui::status::hints(&h.app).iter().map(|(b, _)| b.label).collect();
    assert_eq!(hints, ["Tab", "?", "q"]);
    for action in [ToggleFlaggedOnly, TogglePerDevice, Activate, NextFailure, Down] {
        h.press(&[action]);
        assert_eq!(h.app.tab(), Tab::Performance);
    }
    assert_snapshot!("perf_none_120x40", h.terminal.backend());
    h.resize(60, 15);
    assert_snapshot!("perf_none_60x15", h.terminal.backend());
}

#[test]
fn more_than_five_failures_are_all_reachable() {
    let (report, csv) = seven_failures();
    let mut h = harness(&report, &csv, 120, 40, false);
    let screen = h.screen();
    assert!(screen.contains("7 allocation failures recorded in the linked memory report"), "{screen}");
    assert_eq!(h.app.perf().unwrap().listed(), 5);
    assert_snapshot!("perf_more_than_five_120x40", h.terminal.backend());
    // The last listing scrolls into view, and the closing line follows it.
    h.press(&[PreviousFailure, PreviousFailure, PreviousFailure]);
    let screen = h.screen();
    assert!(screen.contains("▶ 5 ttnn.add"), "{screen}");
    assert!(screen.contains("And 2 more, listed with their errors in the operations view."), "{screen}");
    assert_snapshot!("perf_more_than_five_last_listing", h.terminal.backend());
    // The closing line is selectable: Enter lists the failures on tab 1, on the sixth.
    h.press(&[NextFailure]);
    assert!(h.screen().contains("▶ And 2 more"), "{}", h.screen());
    h.press(&[Activate]);
    assert_eq!((h.app.tab(), h.selected_id()), (Tab::Operations, Some(6)));
    assert!(h.screen().contains("Showing 7 of 7 operations"), "{}", h.screen());
}

#[test]
fn the_callout_folds_and_gives_the_table_its_rows() {
    let (report, csv) = seven_failures();
    let mut h = harness(&report, &csv, 120, 24, false);
    let rows_before = h.screen().lines().filter(|l| l.contains("TilizeDeviceOperation")).count();
    h.press(&[ToggleCallout]);
    let screen = h.screen();
    assert!(screen.contains("▸ ✖ 7 allocation failures recorded in the linked memory report"), "{screen}");
    let rows_after = screen.lines().filter(|l| l.contains("TilizeDeviceOperation")).count();
    assert!(rows_after > rows_before, "{rows_before} → {rows_after}\n{screen}");
    assert_snapshot!("perf_callout_folded_120x24", h.terminal.backend());
    // Choosing a failure opens it again.
    h.press(&[NextFailure]);
    assert!(h.screen().contains("▶ 1 ttnn.matmul"), "{}", h.screen());
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
    assert_eq!(h.app.message(), Some("Rows per device"));
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
    assert!(!h.enabled(TogglePerDevice));
    h.press(&[TogglePerDevice]);
    assert_eq!(h.app.message(), Some("No per-device view: this performance report has one device"));
    assert!(!h.app.perf().unwrap().is_per_device());
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
    assert!(screen.contains("ID 4 MatmulDeviceOperation"), "{screen}");
    assert_snapshot!("perf_flagged_only_120x40", h.terminal.backend());
    h.press(&[ToggleFlaggedOnly]);
    assert_eq!(shown_ids(&h).len(), 6);
    assert_eq!(h.app.message(), Some("Showing all rows"));
}

#[test]
fn enter_on_a_listing_lands_on_its_operation() {
    let mut h = harness(&linked_report(), &linked_csv(), 120, 40, false);
    h.press(&[GoToTab(0), ToggleErrorsOnly, GoToTab(2), NextFailure, NextFailure, Activate]);
    assert_eq!((h.app.tab(), h.selected_id()), (Tab::Operations, Some(5)));
    let screen = h.screen();
    assert!(screen.contains("Operation 5 ttnn.softmax"), "{screen}");
    assert!(screen.lines().any(|l| l.contains("▶ ") && l.contains("5 ttnn.softmax")), "{screen}");
}

#[test]
fn the_tree_shows_each_linked_device_op_row() {
    let report = linked_report();
    let mut h = harness(&report, &linked_csv(), 120, 40, false);
    h.press(&[GoToTab(0), First, Down, GoToTab(1)]);
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
    let help: Vec<String> =
        ttnn_tui::ui::help::help_lines(&h.app, &h.theme, Pane::Performance).iter().map(|l| l.to_string()).collect();
    let section = help.iter().position(|l| l == "Performance").unwrap();
    let keys = &help[section..help[section..].iter().position(String::is_empty).map_or(help.len(), |e| section + e)];
    for expected in ["j/k", "Enter", "go to operation", "]/[", "choose failure", "f ", "flagged only", "m ", "x "] {
        assert!(keys.iter().any(|l| l.contains(expected)), "{expected:?} in {keys:#?}");
    }
    let per_device = keys.iter().find(|l| l.contains("merged/per device")).unwrap();
    assert!(per_device.contains("(not available now)"), "{per_device}");
    let hints: Vec<(&str, bool)> = ttnn_tui::ui::status::hints(&h.app).iter().map(|(b, on)| (b.label, *on)).collect();
    assert!(hints.contains(&("Enter", true)), "{hints:?}");
    assert!(hints.contains(&("m", false)), "{hints:?}");
}

/// The embedded demo with its embedded performance report, as `--demo` opens them.
fn demo(width: u16, height: u16) -> Harness {
    use ttnn_tui::report::perf::linked::LinkedReports;
    use ttnn_tui::report::perf::perf_report::PerfReport;
    use ttnn_tui::report::{MemoryReport, ReportSource};
    let memory = MemoryReport::open(&ReportSource::Demo, 0).unwrap();
    let linked = LinkedReports::new(&memory, PerfReport::demo().unwrap()).unwrap();
    let merged_flags = linked.flags();
    let mut h = Harness::new(memory, width, height, false, None);
    h.app.set_perf(ttnn_tui::tui::perf_input(linked));
    h.press(&[GoToTab(2)]);
    // The tab flags the rows as `explain --perf` does.
    assert_eq!(h.app.perf().unwrap().flags(), merged_flags);
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
    }
    h.resize(20, 5);
    assert!(h.screen().contains("terminal too small"), "{}", h.screen());
}

#[test]
fn while_linking_the_tab_and_the_status_bar_say_so_and_keys_work() {
    let mut h = Harness::new(scenario(0).open(), 120, 40, false, None);
    h.app.set_perf_linking("ops_perf_results.csv".to_string());
    h.press(&[GoToTab(2)]);
    let screen = h.screen();
    assert!(screen.contains("Linking ops_perf_results.csv with the memory report… (keys work meanwhile)"), "{screen}");
    assert!(screen.contains("│ perf: linking…"), "{screen}");
    h.press(&[GoToTab(0), Down]);
    assert!(h.screen().contains("│ perf: linking…"), "{}", h.screen());
    assert_eq!(h.selected_id(), Some(3));
}

#[test]
fn a_performance_report_without_rows_says_so() {
    use tui_support::support::perf::{Era, PerfCsv};
    let h = harness(&linked_report(), &PerfCsv::new(Era::Y2026), 120, 40, false);
    let screen = h.screen();
    assert!(
        screen.contains("Unable to link active memory and performance reports: the performance report has no rows"),
        "{screen}"
    );
    assert!(screen.contains("│ perf: not linked — the performance report has no rows"), "{screen}");
}

/// At 80 columns the status bar keeps the link status: the message after the filter is what
/// gets cut, not `perf: linked`.
#[test]
fn the_link_status_stays_on_the_status_bar_beside_a_long_message() {
    for (width, height) in [(80, 24), (60, 15)] {
        let mut h = harness(&linked_report(), &linked_csv(), width, height, false);
        h.press(&[GoToTab(0), ToggleErrorsOnly]);
        let status = h.screen().lines().rev().nth(1).unwrap().trim_matches('"').to_string();
        assert!(status.contains(" │ errors only │ perf: linked │ Showing only"), "{width}: {status}");
    }
}
