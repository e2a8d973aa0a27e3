//! What the reference hides, on tab 1 (docs/rules/reference.md §7.5, §13.4): every unattached error is
//! reachable past `And {n − 5} more.`, an error row without an operation id attaches to nothing,
//! a report older than the `errors` table says it does not record errors, and `y` copies what a
//! message says rather than its location line.

use crate::tui_support;

use insta::assert_snapshot;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ttnn_tui::app::Action::*;
use ttnn_tui::app::Pane;
use ttnn_tui::app::keymap;
use tui_support::{Error, Harness, Report, scenario};

/// The scenario's ten operations with 59 unattached errors (the count).
fn fifty_nine(width: u16, height: u16) -> Harness {
    Harness::new(scenario(59).open(), width, height, false, None)
}

#[test]
fn the_and_more_line_leads_to_every_unattached_error() {
    let mut h = fifty_nine(120, 40);
    // Folded, the callout already says how to reach them all; the status bar and help offer `U`.
    let folded = "▸ ✖ 59 errors recorded that are not shown on any operation  (u: show, U: all)";
    assert!(h.screen().contains(folded), "{}", h.screen());
    // The status bar offers `U` where it fits beside the list's own keys.
    h.resize(140, 40);
    assert_eq!(h.lines_with("y copy  U unattached errors  Tab tab  ? help").len(), 1, "{}", h.screen());
    h.resize(120, 40);
    h.press(&[ToggleCallout]);
    h.press(&[ScrollCalloutDown; 80]);
    assert!(h.screen().contains("And 54 more.  U: show all 59"), "{}", h.screen());
    assert!(!h.screen().contains("Operation crashed before it was written (58)"));
    h.press(&[ShowUnattached]);
    assert_eq!(h.app.pane(), Pane::UnattachedPopup);
    assert!(h.screen().contains("✖ 59 errors recorded that are not shown on any operation"), "{}", h.screen());
    assert!(h.screen().contains("1. Unknown operation incomplete_operation"), "{}", h.screen());
    assert_snapshot!("unattached_all_120x40", h.terminal.backend());
    // The 59th error is reachable, explained as the callout explains the first five.
    h.press(&[Last]);
    assert!(h.screen().contains("59. ttnn.embedding RuntimeError"), "{}", h.screen());
    assert!(h.screen().contains("Operation crashed before it was written (58)"), "{}", h.screen());
    assert_snapshot!("unattached_all_last_120x40", h.terminal.backend());
    // The second error is an allocation failure: its callout body, no `Failed in`.
    h.press(&[First]);
    assert!(h.screen().contains("2. ttnn.embedding RuntimeError"));
    assert!(h.screen().contains("  Larger than an empty bank."), "{}", h.screen());
    // Esc closes; the list has the keys again.
    h.press(&[Back]);
    assert_eq!(h.app.pane(), Pane::Operations);
    assert!(!h.screen().contains("59. ttnn.embedding"));
}

#[test]
fn the_whole_list_at_the_smallest_size() {
    let mut h = fifty_nine(60, 15);
    h.press(&[ShowUnattached]);
    assert_snapshot!("unattached_all_60x15", h.terminal.backend());
    h.press(&[Last]);
    assert!(h.screen().contains("(58)"), "{}", h.screen());
    assert_eq!(h.lines_with("└ j/k scroll · g/G top/bottom · Esc close ─").len(), 1, "{}", h.screen());
    assert_eq!(h.lines_with(" j/k scroll  Esc close  q quit  U close").len(), 1, "{}", h.screen());
    // `U` closes it too.
    let u = KeyEvent::new(KeyCode::Char('U'), KeyModifiers::SHIFT);
    let action = keymap(u, h.app.pane()).unwrap();
    h.press(&[action]);
    assert_eq!(h.app.pane(), Pane::Operations);
}

#[test]
fn five_or_fewer_are_all_in_the_callout_already() {
    let mut h = Harness::new(scenario(5).open(), 120, 40, false, None);
    h.resize(140, 40);
    assert!(h.lines_with("U unattached errors").is_empty(), "{}", h.screen());
    h.press(&[ToggleCallout, ScrollCalloutDown, ScrollCalloutDown, ScrollCalloutDown]);
    h.press(&[ScrollCalloutDown; 40]);
    assert!(!h.screen().contains("U: show all"), "{}", h.screen());
    assert!(h.screen().contains("Operation crashed before it was written (4)"), "{}", h.screen());
    h.press(&[ShowUnattached]);
    assert_eq!(h.app.pane(), Pane::Operations);
    assert!(h.screen().contains("The callout above the list shows the 5 unattached errors"), "{}", h.screen());
    // The help lists the key, not available here.
    h.press(&[Help]);
    let help = ttnn_tui::ui::help::help_lines(&h.app, &h.theme, Pane::Operations);
    let line = help.iter().map(|l| l.to_string()).find(|l| l.starts_with("  U ")).unwrap();
    assert_eq!(line, "  U               unattached errors (not available now)");
}

#[test]
fn an_error_row_without_an_operation_id_stays_unattached() {
    // Operation 0 is real and carries the row's name: a NULL id must not read as 0.
    let mut report = Report::default().op(0, "ttnn.add", None).op(1, "ttnn.mul", None);
    report.errors.push(Error {
        operation_id: None,
        operation_name: "ttnn.add",
        error_type: "RuntimeError",
        message: "the device was closed".to_string(),
        stack_trace: "",
    });
    let mut h = Harness::new(report.open(), 120, 40, false, None);
    assert!(h.screen().contains("Operations · 2 operations · 0 with errors"), "{}", h.screen());
    assert!(h.screen().contains("1 error recorded that is not shown on any operation"), "{}", h.screen());
    assert!(h.lines_with("0 ttnn.add").iter().all(|l| !l.contains('✖')), "{}", h.screen());
    assert!(h.screen().contains("ttnn.add RuntimeError"), "{}", h.screen());
    assert!(h.screen().contains("the device was closed"));
    h.press(&[Toggle]);
    assert!(h.screen().contains("No error recorded for this operation"), "{}", h.screen());
}

#[test]
fn a_report_older_than_the_errors_table_says_it_does_not_record_errors() {
    let report = Report::default().op(1, "ttnn.from_torch", None).op(2, "ttnn.conv2d", None).open_legacy();
    let mut h = Harness::new(report, 120, 40, false, None);
    // The list title and the status bar say it, where `0 with errors` read as if the run had none.
    assert!(h.screen().contains("Operations · 2 operations · errors not recorded "), "{}", h.screen());
    assert_eq!(h.lines_with(" op 1 · 1/2 │ this report version does not record errors").len(), 1, "{}", h.screen());
    assert!(!h.enabled(ToggleErrorsOnly));
    h.press(&[ToggleErrorsOnly]);
    let message = "│ Nothing to filter: this report version does not record errors";
    assert_eq!(h.lines_with(message).len(), 1, "{}", h.screen());
    h.press(&[Toggle]);
    assert_eq!(h.lines_with("    This report version does not record errors").len(), 1, "{}", h.screen());
    assert!(!h.screen().contains("No error recorded for this operation"));
}

#[test]
fn copy_takes_what_an_unrecognised_message_says_not_its_location_line() {
    let mut report = Report::default().op(1, "ttnn.matmul", None);
    report.errors.push(Error {
        operation_id: Some(1),
        operation_name: "ttnn.matmul",
        error_type: "RuntimeError",
        message: "TT_FATAL @ /tt-metal/tt_metal/impl/allocator/bank_manager.cpp:439: false\ninfo:\nsub-device 1: no L1 left\nsub-device 2: no L1 left\nbacktrace:\n --- libtt_metal.so(+0x570add)".to_string(),
        stack_trace: "",
    });
    let mut h = Harness::new(report.open(), 120, 40, false, None);
    h.press(&[Copy]);
    let copied = h.app.take_clipboard().expect("something to copy");
    assert_eq!(copied, "Operation 1 ttnn.matmul\nRuntimeError\nsub-device 1: no L1 left\nsub-device 2: no L1 left\n");
}
