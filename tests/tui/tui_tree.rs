//! The Device ops tab: trees of every capture shape, navigation, and graphs that cannot be shown.

use crate::tui_support;

use insta::assert_snapshot;
use ttnn_tui::app::Action::*;
use tui_support::{Harness, scenario};

/// Opens the Device ops tab on the operation with this id (120×40 unless given).
fn tree_of(id: u64, width: u16, height: u16, plain: bool) -> Harness {
    let mut h = Harness::new(scenario(0).open(), width, height, plain, Some(id));
    h.press(&[GoToTab(1)]);
    h
}

/// The footer line: the selected entry's outcome.
fn footer(h: &Harness) -> String {
    let tree = h.app.tree(h.app.selected_operation().unwrap()).expect("the tree is built");
    ttnn_tui::ui::device_ops::selected_entry_text(tree, h.app.hex()).unwrap_or_default()
}

#[test]
fn aborted_ends_open_on_the_failed_device_op() {
    let mut h = tree_of(2, 120, 40, false);
    let screen = h.screen();
    assert!(screen.contains("▾ ✖ ttnn.matmul (failed)"), "{screen}");
    assert!(screen.contains("▶   ▾ ✖ MatmulDeviceOperation (failed)"), "{screen}");
    assert!(screen.contains("circular_buffer_allocate  32 KiB  at 0  on {[0-0 - 7-7]}  ×2 devices"));
    assert!(screen.contains("buffer_allocate  800 KiB  L1  at 1474560"));
    assert_eq!(footer(&h), "MatmulDeviceOperation: Out of Memory");
    assert_snapshot!("tree_aborted_ends", h.terminal.backend());
    h.press(&[Up]);
    assert_eq!(footer(&h), "ttnn.matmul: Did not complete: an error was raised inside it");
    h.press(&[ToggleHex, Down, Down, Down, Down]);
    assert!(h.screen().contains("buffer_allocate  800 KiB  L1  at 0x168000"), "{}", h.screen());
    h.resize(60, 15);
    assert_snapshot!("tree_aborted_ends_60x15", h.terminal.backend());
}

#[test]
fn stacking_level_reconstruction() {
    let h = tree_of(4, 120, 40, false);
    let screen = h.screen();
    assert!(screen.contains("▾ ✖ ttnn.conv2d"), "{screen}");
    assert!(screen.contains("▶   ▾ ✖ Conv2dDeviceOperation (failed)"), "{screen}");
    // The next start at the same level closed the failed scope: MoveDeviceOperation is its sibling.
    let conv = screen.find("Conv2dDeviceOperation").unwrap();
    let moved = screen.find("MoveDeviceOperation").unwrap();
    let alloc = screen.find("buffer_allocate  400 KiB").unwrap();
    assert!(conv < alloc && alloc < moved);
    assert_eq!(footer(&h), "Conv2dDeviceOperation: Launch failed before reaching the device");
    assert_snapshot!("tree_stacking_levels", h.terminal.backend());
}

#[test]
fn without_stacking_levels_what_follows_nests_inside() {
    let mut h = tree_of(5, 120, 40, false);
    let screen = h.screen();
    assert!(screen.contains("▶   ▾ ✖ MatmulDeviceOperation (failed)"), "{screen}");
    assert_snapshot!("tree_without_levels", h.terminal.backend());
    h.press(&[Down, Down]);
    assert_eq!(footer(&h), "Tensor::to_device: Completed");
}

#[test]
fn unclosed_scope_without_a_recorded_error() {
    let mut h = tree_of(7, 120, 40, false);
    h.press(&[Open, Down, Open]);
    let screen = h.screen();
    assert!(!screen.contains('✖'), "{screen}");
    assert!(screen.contains("ReshapeDeviceOperation (unclosed)"), "{screen}");
    assert_eq!(footer(&h), "ReshapeDeviceOperation: The capture ended before this scope closed");
    assert_snapshot!("tree_unclosed", h.terminal.backend());
}

#[test]
fn completed_tree_in_the_no_colour_theme() {
    let mut h = tree_of(3, 120, 40, true);
    h.press(&[Open, Down, Open, Down]);
    assert!(h.screen().contains("▶       buffer_allocate  2 KiB  L1  at 1024"), "{}", h.screen());
    assert_snapshot!("tree_completed_plain", h.terminal.backend());
    h.press(&[Close, Close]);
    assert_eq!(footer(&h), "BinaryNgDeviceOperation: Completed");
}

#[test]
fn graphs_that_cannot_be_shown_say_so() {
    let h = tree_of(1, 120, 40, false);
    assert!(h.screen().contains("Operation 1 has no captured graph"));
    let h = tree_of(8, 120, 40, false);
    assert!(h.screen().contains("The captured graph of operation 8 cannot be shown: invalid captured graph JSON"));
    assert_snapshot!("tree_invalid_graph", h.terminal.backend());
}

#[test]
fn trees_are_built_once_and_kept() {
    let mut h = tree_of(2, 120, 40, false);
    h.press(&[Up]);
    let tree = |h: &Harness| h.app.tree(h.app.selected_operation().unwrap()).unwrap().state.selected().to_vec();
    let selected = tree(&h);
    h.press(&[GoToTab(0), NextTab]);
    assert_eq!(tree(&h), selected);
    assert_eq!(h.app.tree_count(), 1);
    // Another operation gets its own tree; the first is kept.
    h.press(&[PreviousTab, Down, GoToTab(1)]);
    assert_eq!(h.app.tree_count(), 2);
}

#[test]
fn x_switches_the_tree_to_hex_at_once() {
    let mut h = tree_of(2, 120, 40, false);
    assert!(h.screen().contains("buffer_allocate  800 KiB  L1  at 1474560"), "{}", h.screen());
    h.press(&[ToggleHex]);
    assert!(h.screen().contains("buffer_allocate  800 KiB  L1  at 0x168000"), "{}", h.screen());
    h.press(&[ToggleHex]);
    assert!(h.screen().contains("buffer_allocate  800 KiB  L1  at 1474560"), "{}", h.screen());
}
