//! The terminal UI under abuse: a resize storm from 1×1 to 300×100 and a flood of 10 000 keys
//! over every tab and popup — never a panic, and the state still answers afterwards; a watched
//! report reordering its operations under an open popup.

use crate::tui_support;

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ttnn_tui::app::Action::*;
use ttnn_tui::app::Tab;
use ttnn_tui::app::keymap;
use ttnn_tui::report::{MemoryReport, ReportSource};
use tui_support::Harness;

fn demo() -> Harness {
    let report = MemoryReport::open(&ReportSource::Demo, 0).unwrap();
    Harness::new(report, 120, 40, false, None)
}

#[test]
fn a_resize_storm_on_every_tab() {
    let mut h = demo();
    for tab in 0..5 {
        h.press(&[GoToTab(tab)]);
        h.run_jobs();
        let mut sizes: Vec<(u16, u16)> = (1..=300).step_by(13).map(|w| (w, (w / 3).max(1))).collect();
        sizes.extend([(1, 1), (300, 100), (60, 15), (59, 15), (60, 14), (2, 100), (300, 1)]);
        for (width, height) in sizes {
            h.resize(width, height);
        }
    }
    h.resize(120, 40);
    h.press(&[GoToTab(0)]);
    assert!(h.screen().contains("[1 Operations]"), "{}", h.screen());
}

#[test]
fn keys_pressed_while_too_small_are_counted_not_acted_on() {
    let mut h = demo();
    let selected = h.selected_id();
    h.resize(50, 12);
    h.press(&[Down, Down, GoToTab(2)]);
    let screen = h.screen();
    assert!(screen.contains("terminal too small (need 60×15)"), "{screen}");
    assert!(screen.contains("3 keys ignored while the terminal was too small"), "{screen}");
    h.resize(120, 40);
    assert_eq!(h.selected_id(), selected);
    let screen = h.screen();
    assert!(screen.contains("[1 Operations]"), "{screen}");
    assert!(screen.contains("3 keys ignored while the terminal was too small"), "{screen}");
    // The next key acts, and the note goes.
    h.press(&[Down]);
    assert_ne!(h.selected_id(), selected);
    assert!(!h.screen().contains("keys ignored"), "{}", h.screen());
}

/// The keys a user can press: every printable ASCII character and ESC typed as a character, the
/// named keys, and the Ctrl keys the bindings use. What they do comes from the key map, so the
/// flood reaches every bound action of every pane without listing the actions again.
fn every_key() -> Vec<KeyEvent> {
    let mut codes: Vec<KeyCode> = (' '..='~').chain(['\u{1b}']).map(KeyCode::Char).collect();
    codes.extend([
        KeyCode::Esc,
        KeyCode::Enter,
        KeyCode::Tab,
        KeyCode::BackTab,
        KeyCode::Backspace,
        KeyCode::Up,
        KeyCode::Down,
        KeyCode::Left,
        KeyCode::Right,
        KeyCode::PageUp,
        KeyCode::PageDown,
        KeyCode::Home,
        KeyCode::End,
    ]);
    let mut keys: Vec<KeyEvent> = codes.into_iter().map(|c| KeyEvent::new(c, KeyModifiers::NONE)).collect();
    keys.extend(['d', 'u', 'c'].map(|c| KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL)));
    keys
}

#[test]
fn a_flood_of_ten_thousand_keys() {
    let keys = every_key();
    let mut h = demo();
    // A fixed pseudo-random sequence (xorshift), drawn every 50 keys as the loop coalesces them.
    let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
    for k in 0..10_000 {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let key = keys[(seed % keys.len() as u64) as usize];
        let Some(action) = keymap(key, h.app.pane()) else { continue };
        if action == Quit {
            continue;
        }
        h.app.update(action);
        if k % 50 == 0 {
            h.draw();
            h.run_jobs();
        }
    }
    h.press(&[Back, Back, GoToTab(0)]);
    assert_eq!(h.app.tab(), Tab::Operations);
    assert!(!h.app.should_quit());
}

#[test]
fn the_error_popup_stays_on_its_operation_when_a_watched_report_reorders_the_operations() {
    let report = MemoryReport::open(&ReportSource::Demo, 0).unwrap();
    let mut h = Harness::new(report, 120, 40, false, Some(7));
    h.press(&[ViewError]);
    assert!(h.screen().contains("Error of operation 7 "), "{}", h.screen());
    // A writer added an operation before the others: every index moves by one.
    let report = &h.session.report;
    let mut operations = report.operations.clone();
    let mut first = operations[0].clone();
    first.id = 0;
    first.error = None;
    operations.insert(0, first);
    let errors = report.errors.clone();
    h.app.report_changed(operations, errors, Default::default(), &[], true);
    h.draw();
    assert!(h.screen().contains("Error of operation 7 "), "{}", h.screen());
}

/// Tab 5 on a report whose tensor links cannot be read (`input_tensors` damaged on disk): the
/// chart is drawn from `buffers`, and the list of tensors held past their last use says it is
/// unavailable and why, instead of an empty list.
#[test]
fn tab_5_says_when_the_late_list_cannot_be_read() {
    use tui_support::support::sim::{Era, Options, Sim, SimOp};
    use tui_support::support::{BufferType, TempDir, damage_table};
    let mut sim = Sim::new(Era::DecoratorWithErrors, Options::default(), 1);
    sim.weight("w", 0, BufferType::L1, 131_072);
    sim.run(SimOp::new("ttnn.to_layout", "TilizeDeviceOperation").input("w").output("x", BufferType::L1, 262_144));
    sim.run(SimOp::new("ttnn.relu", "UnaryDeviceOperation").input("x").output("y", BufferType::L1, 327_680));
    sim.run(SimOp::new("ttnn.exp", "UnaryDeviceOperation").input("y").output("z", BufferType::L1, 327_680));
    let dir = TempDir::new("late-unreadable");
    sim.report().write_to(dir.path());
    let db = dir.path().join("db.sqlite");
    damage_table(&db, "input_tensors");
    let report = MemoryReport::open(&ReportSource::File { database: db, folder: dir.path().to_path_buf() }, 0).unwrap();
    let mut h = Harness::new(report, 120, 40, false, None);
    h.press(&[GoToTab(4)]);
    h.run_jobs();
    let screen = h.screen();
    assert!(screen.contains("per bank after each operation"), "{screen}");
    let line = h.lines_with("Held past their last use unavailable: cannot read ");
    assert_eq!(line.len(), 1, "{screen}");
    assert!(line[0].contains("malformed"), "{screen}");
}

/// An operation whose captured graph is not valid JSON: its callout says the device operations
/// are unavailable and why, as explain's entry does, in the detail pane and the expanded row.
#[test]
fn an_unreadable_graph_is_said_in_the_callout() {
    use tui_support::support::{ErrorRow, Op, ReportBuilder, Schema, TempDir};
    const OOM: &str = "Out of Memory: Not enough space to allocate 3276800 B L1 buffer across 4 banks, where each bank needs to store 819200 B, but bank size is 1382720 B (allocated: 1000000 B, free: 382720 B, largest free block: 300000 B)";
    let dir = TempDir::new("invalid-graph-tui");
    ReportBuilder::new(Schema::V2)
        .operation(Op::new(3, "ttnn.linear").graph("[{\"node_type\": "))
        .error(ErrorRow::new(3, "ttnn.linear", "RuntimeError", OOM))
        .write_to(dir.path());
    let db = dir.path().join("db.sqlite");
    let report = MemoryReport::open(&ReportSource::File { database: db, folder: dir.path().to_path_buf() }, 0).unwrap();
    let mut h = Harness::new(report, 160, 40, false, Some(3));
    let said = h.lines_with("Device operations unavailable: invalid captured graph JSON: ");
    assert_eq!(said.len(), 1, "{}", h.screen());
    h.press(&[Toggle]);
    // The expanded row says it too (wrapped in the narrower list pane).
    assert_eq!(h.screen().matches("Device operations unavailable: invalid").count(), 2, "{}", h.screen());
}
