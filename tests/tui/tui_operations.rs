//! The Operations tab driven by actions and drawn to a `TestBackend` after every step.

use crate::tui_support;

use insta::assert_snapshot;
use ratatui::style::Color;
use ttnn_tui::app::Action::*;
use ttnn_tui::app::Pane;
use tui_support::{Harness, Report, scenario};

fn harness(width: u16, height: u16) -> Harness {
    Harness::new(scenario(2).open(), width, height, false, None)
}

/// The detail pane's text of the selected operation, one string per line (before wrapping).
fn detail_text(h: &Harness) -> String {
    let i = h.app.selected_operation().expect("a selected operation");
    let lines = ttnn_tui::ui::detail::detail_lines(&h.view(), i);
    lines.iter().map(|l| l.to_string()).collect::<Vec<_>>().join("\n")
}

/// Selects the operation with this id by moving from the first row.
fn select_id(h: &mut Harness, id: u64) {
    h.press(&[First]);
    while h.selected_id() != Some(id) {
        h.press(&[Down]);
    }
}

#[test]
fn opens_on_the_first_failure_with_the_counts() {
    let mut h = harness(120, 40);
    let screen = h.screen();
    // The first operation with an error is selected; the list title counts; the status bar gives
    // the operation id and the position.
    assert_eq!(h.selected_id(), Some(2));
    assert_eq!(h.list_title(), "Operations · 10 operations · 7 with errors", "{screen}");
    assert_eq!(h.status(), " op 2 · 2/10", "{screen}");
    let rows = h.list_rows();
    assert_eq!(rows[1], "▶ ✖ OOM    2 ttnn.matmul (model.py:20)", "{screen}");
    assert_eq!(rows[9], "  ✖ error 10 ttnn.concat (model.py:100)", "{screen}");
    // Ids are right-aligned: every name starts in the same column.
    let columns: Vec<usize> = rows.iter().filter_map(|r| Some(r[..r.find("ttnn.")?].chars().count())).collect();
    assert!(columns.len() == 10 && columns.iter().all(|&c| c == columns[0]), "{columns:?}\n{screen}");
    // The unattached errors stay out of the way, folded to their title.
    assert_eq!(h.lines()[1], "▸ ✖ 2 errors recorded that are not shown on any operation  (u: show)", "{screen}");
    assert_snapshot!("list_120x40", h.terminal.backend());
    h.resize(60, 15);
    assert_snapshot!("list_60x15", h.terminal.backend());
    // Without any error, the first operation, and the callout open.
    let report = Report::default().op(1, "ttnn.add", None).op(2, "ttnn.mul", None).open();
    let h = Harness::new(report, 120, 40, false, None);
    assert_eq!(h.selected_id(), Some(1));
    assert_eq!(h.list_title(), "Operations · 2 operations · 0 with errors", "{}", h.screen());
    let report = Report::default()
        .op(1, "ttnn.add", None)
        .op(2, "ttnn.mul", None)
        .error(2, "ttnn.mul", "RuntimeError", tui_support::messages::NOT_ENOUGH)
        .open();
    let h = Harness::new(report, 120, 40, false, None);
    assert_eq!(h.list_title(), "Operations · 2 operations · 1 with an error", "{}", h.screen());
}

#[test]
fn list_in_the_no_colour_theme() {
    let h = Harness::new(scenario(1).open(), 120, 40, true, None);
    assert_eq!(h.lines()[1], "▸ ✖ 1 error recorded that is not shown on any operation  (u: show)", "{}", h.screen());
    assert_snapshot!("list_plain_120x40", h.terminal.backend());
}

#[test]
fn unattached_callout_lists_five_then_says_how_many_more() {
    let mut h = Harness::new(scenario(7).open(), 120, 40, false, None);
    h.press(&[ToggleCallout]);
    // Open, the callout is a box under its title.
    assert!(h.lines()[1].starts_with("┌ ✖ 7 errors recorded that are not shown on any operation ─"), "{}", h.screen());
    h.press(&[ScrollCalloutDown; 60]);
    h.assert_line(
        "│And 2 more.  U: show all 7                                                                                            │",
    );
    assert_snapshot!("unattached_scrolled_to_the_end", h.terminal.backend());
    h.press(&[ToggleCallout]);
    assert_eq!(
        h.lines()[1],
        "▸ ✖ 7 errors recorded that are not shown on any operation  (u: show, U: all)",
        "{}",
        h.screen()
    );
    assert_snapshot!("unattached_collapsed", h.terminal.backend());
}

#[test]
fn detail_pane_of_each_reason_and_of_another_error() {
    let mut h = harness(120, 40);
    // An allocation failure's reason label and detail share a line (docs/rules/reference.md §5.4); another
    // error's type stands on its own line above the message.
    let cases: [(u64, &str, &str); 7] = [
        (
            2,
            "Not enough free space.",
            "Short by 426 KiB per bank: needs 800 KiB, 374 KiB free. An interleaved L1 buffer can use only the part of that free space inside the interleaved region, so it may be short by more.",
        ),
        (4, "Fragmented.", "977 KiB free per bank, but no single block holds 800 KiB; the largest is 293 KiB."),
        (
            5,
            "A free block could hold it.",
            "The largest free block, 3 KiB, could hold the 2 KiB per bank, but other allocators' reservations leave a placeable window of at most 1 KiB.",
        ),
        (
            6,
            "Larger than an empty bank.",
            "Needs 1.91 MiB per bank, more than an empty bank holds (1.32 MiB): it cannot fit in this buffer type spread across 4 banks.",
        ),
        (8, "Beyond the end of L1.", "The circular buffers run 99 KiB past the end of L1."),
        (9, "Overlaps an L1 buffer.", "The circular buffers overlap the L1 buffer at 600256 by 21 KiB."),
        (10, "TypeError", "Shape mismatch: cannot concatenate [1, 32] and [1, 16] along dim 0"),
    ];
    for (id, label, detail) in cases {
        select_id(&mut h, id);
        let text = detail_text(&h);
        let separator = if id == 10 { "\n" } else { " " };
        assert!(text.contains(&format!("\n{label}{separator}{detail}\n")), "op {id}: {text}");
        assert_snapshot!(format!("detail_op_{id}"), h.terminal.backend());
    }
    select_id(&mut h, 2);
    let text = detail_text(&h);
    assert!(text.contains("Out of memory\nRequested 3.13 MiB L1 across 4 banks (800 KiB per bank, bank size 1.32 MiB); free 374 KiB, largest free block 293 KiB\n"), "{text}");
    assert!(text.contains("\nFailed in MatmulDeviceOperation\n"), "{text}");
    h.resize(60, 15);
    assert_snapshot!("detail_op_2_60x15", h.terminal.backend());
}

#[test]
fn the_detail_pane_scrolls_with_a_marker_and_keeps_indents() {
    let mut h = harness(80, 24);
    // More than fits: a scrollbar on the pane's right edge, its thumb at the top.
    let edge = detail_pane_edge(&h);
    assert!(edge.starts_with("▲█") && edge.ends_with("║▼"), "{edge}\n{}", h.screen());
    h.press(&[ScrollDetailDown; 40]);
    let screen = h.screen();
    // Scrolled to the end: the stack trace's last lines, and the thumb at the bottom.
    assert!(screen.contains("│Stack trace (most recent call last)"), "{screen}");
    assert!(screen.contains("│      y = ttnn.op(x)"), "{screen}");
    let edge = detail_pane_edge(&h);
    assert!(edge.starts_with("▲║") && edge.ends_with("█▼"), "{edge}\n{screen}");
    // A wrapped line keeps its indent: no line of the pane starts at its left border but the
    // headings and the callout.
    assert_snapshot!("detail_scrolled_80x24", h.terminal.backend());
}

/// The right edge of the detail pane (below the list at 80 columns), between its borders.
fn detail_pane_edge(h: &Harness) -> String {
    let screen = h.screen();
    // The backend writes each row between quotes.
    let lines: Vec<&str> = screen.lines().map(|l| l.trim_matches('"')).collect();
    let top = lines.iter().position(|l| l.starts_with("┌ ✖ Operation")).expect("the detail pane");
    let bottom = top + lines[top..].iter().position(|l| l.starts_with('└')).expect("its bottom");
    lines[top + 1..bottom].iter().filter_map(|l| l.chars().last()).collect()
}

#[test]
fn hex_toggle_changes_addresses() {
    let mut h = harness(120, 40);
    select_id(&mut h, 9);
    assert!(
        detail_text(&h)
            .contains("Circular buffers on [(x=0,y=0) - (x=4,y=7)] end at 621824, past an L1 buffer at 600256")
    );
    h.press(&[ToggleHex]);
    let text = detail_text(&h);
    assert!(text.contains("end at 0x97D00, past an L1 buffer at 0x928C0"), "{text}");
    assert!(
        text.contains("\nOverlaps an L1 buffer. The circular buffers overlap the L1 buffer at 0x928C0 by 21 KiB.\n"),
        "{text}"
    );
    assert_eq!(h.status(), " op 9 · 9/10 │ hex │ Addresses in hexadecimal", "{}", h.screen());
}

#[test]
fn error_filter_on_and_off() {
    let mut h = harness(120, 40);
    select_id(&mut h, 3);
    h.press(&[ToggleErrorsOnly]);
    let screen = h.screen();
    assert!(screen.contains("Operations · Showing 7 of 10 operations "), "{screen}");
    let rows: Vec<String> = h.list_rows().into_iter().filter(|r| !r.is_empty()).collect();
    assert!(rows.len() == 7 && rows.iter().all(|r| r.contains('✖')), "{screen}");
    assert_eq!(h.selected_id(), Some(4));
    assert_snapshot!("filter_on", h.terminal.backend());
    h.press(&[ToggleErrorsOnly]);
    assert_eq!(h.list_title(), "Operations · 10 operations · 7 with errors", "{}", h.screen());
    assert_snapshot!("filter_off", h.terminal.backend());
}

#[test]
fn error_filter_disabled_without_errors() {
    let report = Report::default().op(1, "ttnn.add", None).op(2, "ttnn.mul", None).open();
    let mut h = Harness::new(report, 120, 40, false, None);
    assert!(!h.enabled(ToggleErrorsOnly));
    h.press(&[ToggleErrorsOnly]);
    assert_eq!(h.status(), " op 1 · 1/2 │ No operation in the list has an error attached", "{}", h.screen());
    assert_snapshot!("filter_disabled", h.terminal.backend());
    assert_eq!(hint_key_colour(&h, "e errors only"), Some(Color::DarkGray), "the disabled key is dimmed");
    let h = harness(120, 40);
    assert_eq!(hint_key_colour(&h, "e errors only"), Some(Color::Cyan), "the enabled key is not");
}

/// The foreground colour of the first character of a hint on the status bar's last line.
fn hint_key_colour(h: &Harness, hint: &str) -> Option<Color> {
    let buffer = h.terminal.backend().buffer();
    let y = buffer.area.height - 1;
    let line: String = (0..buffer.area.width).map(|x| buffer[(x, y)].symbol().to_string()).collect();
    let x = line.find(hint)?;
    Some(buffer[(line[..x].chars().count() as u16, y)].fg)
}

#[test]
fn error_popup_shows_message_and_stack_trace() {
    let mut h = harness(120, 40);
    select_id(&mut h, 2);
    h.press(&[ViewError]);
    assert_eq!(h.app.pane(), Pane::ErrorPopup);
    let popup = h.popup_lines("┌ Error of operation 2 ttnn.matmul ─");
    assert_eq!((popup[0].as_str(), popup[1].as_str()), ("Error details", "RuntimeError"), "{}", h.screen());
    assert!(popup.iter().any(|l| l == "Stack Trace"), "{}", h.screen());
    assert_snapshot!("error_popup", h.terminal.backend());
    h.press(&[Back]);
    assert_eq!(h.app.pane(), Pane::Operations);
    select_id(&mut h, 10);
    h.press(&[ViewError]);
    let popup = h.popup_lines("┌ Error of operation 10 ttnn.concat ─");
    assert_eq!(
        popup[..6],
        [
            "Error details",
            "TypeError",
            "Shape mismatch: cannot concatenate [1, 32] and [1, 16] along dim 0",
            "",
            "Stack Trace",
            "No stack trace recorded"
        ],
        "{}",
        h.screen()
    );
    h.press(&[Back]);
    select_id(&mut h, 1);
    h.press(&[ViewError]);
    assert_eq!(h.app.pane(), Pane::Operations);
    assert_eq!(h.app.message(), Some("Operation 1 has no error"));
}

#[test]
fn expanded_items_explain_above_the_raw_message() {
    let mut h = harness(120, 40);
    select_id(&mut h, 2);
    h.press(&[Toggle]);
    let screen = h.screen();
    let text: String = screen.lines().map(|l| l.split('│').nth(1).unwrap_or("").trim()).collect::<Vec<_>>().join(" ");
    let at = |needle: &str| text.find(needle).unwrap_or_else(|| panic!("{needle:?} not in {text}"));
    // The explanation, wrapped and whole, above the raw message and the stack trace.
    assert!(
        at("Not enough free space.") < at("so it may be short by more.") && at("short by more.") < at("Error Message")
    );
    assert!(at("Error Message") < at("Error Stack Trace"));
    assert_snapshot!("expanded_item", h.terminal.backend());
    select_id(&mut h, 10);
    h.press(&[Toggle]);
    let rows = h.list_rows();
    let at = rows.iter().position(|r| r.ends_with("10 ttnn.concat (model.py:100)")).expect("op 10's row");
    assert_eq!(
        rows[at + 1..at + 4],
        ["    Error Message", "    Shape mismatch: cannot concatenate [1, 32] and", "    [1, 16] along dim 0"],
        "{}",
        h.screen()
    );
    assert_snapshot!("expanded_items", h.terminal.backend());
    h.resize(60, 15);
    assert_snapshot!("expanded_items_60x15", h.terminal.backend());
}

#[test]
fn search_with_matches_and_with_none() {
    let mut h = harness(120, 40);
    h.press(&[SearchStart]);
    h.type_text("NORM");
    assert!(h.screen().contains("/NORM█ 1/1 matches"), "{}", h.screen());
    h.press(&[SearchConfirm]);
    assert_eq!(h.selected_id(), Some(9));
    h.press(&[SearchStart]);
    h.type_text("ttnn.");
    h.press(&[SearchConfirm, NextMatch, NextMatch]);
    // From op 9, the next match is op 10, then the search wraps to op 1.
    assert!(h.screen().contains("op 1 · 1/10 │ /ttnn. 1/10 matches"), "{}", h.screen());
    assert_snapshot!("search_matches", h.terminal.backend());
    h.press(&[SearchStart]);
    h.type_text("zzz");
    assert!(h.screen().contains("/zzz█ no matches"));
    assert_snapshot!("search_no_match", h.terminal.backend());
    h.press(&[Back]);
    assert_eq!(h.app.pane(), Pane::Operations);
    assert_eq!(h.status(), " op 1 · 1/10", "{}", h.screen());
}

#[test]
fn help_lists_every_key() {
    let mut h = harness(120, 40);
    h.press(&[Help]);
    let popup = h.popup_lines("┌ Keys ─");
    for line in ["  e               errors only", "  Ctrl-d/Ctrl-u   half page down/up"] {
        assert!(popup.iter().any(|l| l == line), "{line:?} in\n{}", h.screen());
    }
    assert_snapshot!("help_120x40", h.terminal.backend());
    h.press(&[Back]);
    h.resize(60, 15);
    h.press(&[Help]);
    assert_snapshot!("help_60x15", h.terminal.backend());
}

#[test]
fn operation_start_up_selects_and_shows_it() {
    let h = Harness::new(scenario(2).open(), 120, 40, false, Some(9));
    assert_eq!(h.selected_id(), Some(9));
    assert_eq!(h.status(), " op 9 · 9/10", "{}", h.screen());
    assert_snapshot!("operation_start_up", h.terminal.backend());
}

#[test]
fn tiny_terminals_say_so_and_never_panic() {
    let mut h = harness(20, 5);
    assert_snapshot!("tiny_20x5", h.terminal.backend());
    for (w, hgt) in [(1, 1), (59, 40), (120, 14), (60, 15), (2, 3)] {
        h.resize(w, hgt);
        h.press(&[Down, Toggle, GoToTab(1), Down, Help, Back, GoToTab(0)]);
    }
}

#[test]
fn copy_puts_the_callout_on_the_clipboard_and_says_so() {
    let mut h = harness(120, 40);
    select_id(&mut h, 2);
    h.press(&[Copy]);
    let copied = h.app.take_clipboard().expect("something to copy");
    assert_eq!(
        copied,
        "Operation 2 ttnn.matmul\n\
         Out of memory\n\
         Requested 3.13 MiB L1 across 4 banks (800 KiB per bank, bank size 1.32 MiB); free 374 KiB, largest free block 293 KiB\n\
         Not enough free space. Short by 426 KiB per bank: needs 800 KiB, 374 KiB free. An interleaved L1 buffer can use only \
         the part of that free space inside the interleaved region, so it may be short by more.\n\
         Failed in MatmulDeviceOperation\n\
         Fixes: tab 4 replays them (press 4)\n"
    );
    assert_eq!(h.app.message(), Some("Copied the callout of operation 2 (OSC 52)"));
}

#[test]
fn paging_and_ends_move_the_selection() {
    let ops = (1..=500).fold(Report::default(), |r, id| r.op(id, "ttnn.add", None));
    let mut h = Harness::new(ops.open(), 120, 40, false, None);
    // 40 lines less the tab bar, the status bar and the list's borders: 35 rows a page.
    h.press(&[PageDown]);
    assert_eq!(h.selected_id(), Some(36));
    h.press(&[Last]);
    assert_eq!(h.status(), " op 500 · 500/500", "{}", h.screen());
    assert_eq!(
        h.list_rows().last().map(String::as_str),
        Some("▶         500 ttnn.add (model.py:5000)"),
        "{}",
        h.screen()
    );
    h.press(&[HalfPageUp, First]);
    assert_eq!(h.status(), " op 1 · 1/500", "{}", h.screen());
}

#[test]
fn long_names_are_cut_with_an_ellipsis_keeping_the_place() {
    let name = "ttnn.experimental.all_gather_concat_heads_fused_with_rotary_embedding_llama";
    let report = Report::default().op(1, name, None).op(2, "ttnn.add", None).open();
    let h = Harness::new(report, 80, 24, false, None);
    assert_eq!(
        h.list_rows()[0],
        "▶         1 ttnn.experimental.all_gather_concat_heads_fused_wi… (model.py:10)",
        "{}",
        h.screen()
    );
}

#[test]
fn at_80_columns_the_hints_keep_help_and_quit() {
    let h = harness(80, 24);
    // The tabs give up their padding so the report's name stays whole.
    let title = h.screen().lines().next().unwrap().trim_matches('"').trim_end().to_string();
    assert_eq!(title, "[1 Operations] 2 Device ops 3 Performance 4 Memory 5 Over time  resnet_run");
    assert_eq!(h.lines().last().unwrap(), " j/k move  Enter expand  e errors only  / search  ? help  q quit");
    assert_snapshot!("list_80x24", h.terminal.backend());
    let h = harness(60, 15);
    assert_eq!(h.lines().last().unwrap(), " j/k move  Enter expand  e errors only  ? help  q quit");
}

#[test]
fn stack_traces_read_in_the_same_order_in_the_pane_and_the_popup() {
    let report = ttnn_tui::report::MemoryReport::open(&ttnn_tui::report::ReportSource::Demo, 0).unwrap();
    let mut h = Harness::new(report, 120, 60, false, Some(13));
    let pane = detail_text(&h);
    let trace = &pane[pane.find("Stack trace (most recent call last)").expect("the heading")..];
    let order = |text: &str| ["test_hybrid_vit", "in patches", "in with_fallback", "in <lambda>"].map(|f| text.find(f));
    let in_pane = order(trace);
    assert!(in_pane.iter().all(Option::is_some) && in_pane.is_sorted(), "{trace}");
    h.press(&[ViewError]);
    let screen = h.screen();
    let popup = &screen[screen.find("Stack Trace").expect("the popup's trace")..];
    let in_popup = order(popup);
    assert!(in_popup.iter().all(Option::is_some) && in_popup.is_sorted(), "{popup}");
}

#[test]
fn demo_list_and_a_failure_in_it() {
    let report = ttnn_tui::report::MemoryReport::open(&ttnn_tui::report::ReportSource::Demo, 0).unwrap();
    let mut h = Harness::new(report, 120, 40, false, Some(32));
    assert_eq!(h.lines()[1], "▸ ✖ 2 errors recorded that are not shown on any operation  (u: show)", "{}", h.screen());
    let text = detail_text(&h);
    assert!(
        text.contains(
            "\nFragmented. 174.9 MiB free per bank, but no single block holds 4.67 MiB; the largest is 3.23 MiB.\n"
        ),
        "{text}"
    );
    assert!(text.contains("\nFailed in MatmulDeviceOperation\n"), "{text}");
    assert_snapshot!("demo_op_32", h.terminal.backend());
    h.press(&[GoToTab(1)]);
    assert_snapshot!("demo_op_32_tree", h.terminal.backend());
}

#[test]
fn the_demo_opens_on_its_first_failure() {
    let report = ttnn_tui::report::MemoryReport::open(&ttnn_tui::report::ReportSource::Demo, 0).unwrap();
    let h = Harness::new(report, 120, 40, false, None);
    assert_eq!(h.selected_id(), Some(7));
    assert_eq!(h.list_title(), "Operations · 40 operations · 14 with errors", "{}", h.screen());
    assert_eq!(h.status(), " op 7 · 7/40", "{}", h.screen());
}

#[test]
fn the_list_fills_its_pane_when_the_selection_is_near_the_end() {
    // 120×16: ten rows for ten operations. Opened on operation 9, the list shows all ten, not
    // 5–10 over four blank rows.
    let mut h = Harness::new(scenario(2).open(), 120, 16, false, Some(9));
    let rows = h.list_rows();
    assert_eq!(rows.len(), 10, "{}", h.screen());
    assert_eq!(rows[0], "           1 ttnn.from_torch (model.py:10)", "{}", h.screen());
    assert_eq!(rows[8], "▶ ✖ CB     9 ttnn.layer_norm (model.py:90)", "{}", h.screen());
    assert_eq!(rows[9], "  ✖ error 10 ttnn.concat (model.py:100)", "{}", h.screen());
    assert_snapshot!("list_opened_near_the_end_120x16", h.terminal.backend());
    h.resize(60, 15);
    assert_snapshot!("list_opened_near_the_end_60x15", h.terminal.backend());
}

#[test]
fn a_new_failure_at_the_end_of_a_watched_run_leaves_no_blank_rows() {
    use tui_support::support::live_writer::serve;
    use tui_support::support::{Op, ReportBuilder, Schema, TempDir};
    let dir = TempDir::new("tui-watch-fill");
    let first =
        (1..=3).fold(ReportBuilder::new(Schema::V2), |r, id| r.operation(Op::new(id, "ttnn.add").duration(0.001)));
    let db = first.write_to(dir.path());
    let source = ttnn_tui::report::resolve_report(Some(dir.path())).unwrap();
    let report = ttnn_tui::report::MemoryReport::open_watched(&source, 0).unwrap();
    let mut h = Harness::new(report, 120, 16, false, None);
    // Eight more operations, the last one failing: twelve rows for eleven lines (no callout).
    let commands: String =
        (4..=11).map(|id| format!("op {id} ttnn.add\n")).collect::<String>() + "fail 12 ttnn.conv2d\nquit\n";
    serve(&db, "DELETE", commands.as_bytes(), Vec::new());
    assert!(h.session.poll_changes(&mut h.app));
    h.draw();
    assert_eq!(h.selected_id(), Some(12));
    let rows = h.list_rows();
    assert_eq!(rows.len(), 11, "{}", h.screen());
    assert_eq!(rows[0], "           2 ttnn.add", "{}", h.screen());
    assert_eq!(rows[10], "▶ ✖ OOM   12 ttnn.conv2d", "{}", h.screen());
}

/// Issue 30 §4.7: at 300 columns the list is as wide as its widest row or title, not 45% of
/// the width; the details take the rest.
#[test]
fn at_300_columns_the_list_is_as_wide_as_its_content() {
    let mut h = Harness::new(scenario(0).open(), 300, 40, false, None);
    let top = h.lines().into_iter().find(|l| l.starts_with("┌ Operations")).unwrap();
    let corner = top.chars().position(|c| c == '┐').unwrap();
    assert_eq!(corner + 1, 48, "{top}");
    let rows = h.list_rows();
    assert_eq!(rows[1], "▶ ✖ OOM    2 ttnn.matmul (model.py:20)");
    assert_eq!(rows[9], "  ✖ error 10 ttnn.concat (model.py:100)");
    assert!(rows.iter().all(|r| !r.contains('…')), "{rows:#?}");
    h.resize(120, 40);
    let top = h.lines().into_iter().find(|l| l.starts_with("┌ Operations")).unwrap();
    assert_eq!(top.chars().position(|c| c == '┐').unwrap() + 1, 48, "{top}");
}
