//! The Memory tab (tab 4): the memory at a failure on the demo (a fit advice that frees a stale
//! tensor, a circular-buffer clash, an under-counted picture), a non-failing operation's own
//! snapshot, the holders table and its keys, without colour and at 60×15.

use crate::tui_support;

use insta::assert_snapshot;
use ttnn_tui::app::Action::*;
use ttnn_tui::app::{Loaded, MemoryPicture, Tab};
use ttnn_tui::report::{MemoryReport, ReportSource};
use tui_support::Harness;

/// The demo on an operation, on the Memory tab.
fn demo_memory(id: u64, width: u16, height: u16, plain: bool) -> Harness {
    let report = MemoryReport::open(&ReportSource::Demo, 0).unwrap();
    let mut h = Harness::new(report, width, height, plain, Some(id));
    h.press(&[GoToTab(3)]);
    h
}

#[test]
fn a_failure_with_advice_that_frees_a_stale_tensor() {
    let mut h = demo_memory(13, 120, 40, false);
    let lines = h.lines();
    assert_eq!(
        lines[0],
        " 1 Operations   2 Device ops   3 Performance  [4 Memory]  5 Over time    ttnn-tui · ttnn-tui demo",
        "{}",
        h.screen()
    );
    assert_eq!(lines[1], "Memory at the failure of 13 ttnn.to_memory_config · device 0 · L1", "{}", h.screen());
    // 293 KiB stays whole on the next line (issue 30 §4.7).
    h.assert_line("101440–1466368 region (1.3 MiB). The picture matches the allocator's figures (allocated 977 KiB, largest free block");
    h.assert_line("293 KiB).");
    h.assert_line(
        "· Freeing tensor 2007 after operation 12 (model.py:51): the 800 KiB-per-bank request fits at 268544.",
    );
    // The holders, biggest first, with their producer, last use and flags; the biggest selected.
    h.assert_line("│  Address   Size/bank Tensor Shape            Produced by       Last used Flags                                       │");
    h.assert_line("│▶ █ 166368    607 KiB   2007 [1, 1, 3136, 64] 6 ttnn.max_pool2d        11 stale                                       │");
    // The map: its scale, and its legend naming the largest free block and the request.
    h.assert_line("┌ Map · 11 KiB a column ───────────────────────────────────────────────────────────────────────────────────────────────┐");
    h.assert_line("└█ buffer (by tensor)  ▚ no tensor  ░ largest free block  ▬ request  ──────────────────────────────────────────────────┘");
    assert_snapshot!("memory_failure_op_13", h.terminal.backend());
    // Enter on the selected holder (tensor 2007) opens its producing operation on tab 1.
    h.press(&[Activate]);
    assert_eq!((h.app.tab(), h.selected_id()), (Tab::Operations, Some(6)));
}

#[test]
fn a_circular_buffer_clash_lists_the_buffers_in_the_way() {
    let mut h = demo_memory(28, 120, 40, false);
    // The sentence, wrapped at 120 columns, names both buffers below the circular buffers' end.
    h.assert_line(
        "The circular buffers (1 circular buffer of 508 KiB per core) need L1 up to 621824; 2 live L1 buffers lie below it: a",
    );
    h.assert_line("buffer at 600256 (10 KiB, this operation), tensor 2023 at 610496 (25 KiB).");
    // The map draws the circular buffers' extent with its end.
    h.assert_line(
        "│▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄ circular buffers up to 621824                                           │",
    );
    // L1 is crowded: at 120 columns the producers keep their names (the heads' long one too)
    // and Flags says `this op`, with its device operation once there is room for it.
    h.assert_line("│  █ 764800    126 KiB   2021 [1, 8, 197, 64]  25 ttnn.experimental.nlp_create_qkv_heads        27 stale               │");
    h.assert_line("│  ▚ 600256     10 KiB                                                                             this op             │");
    assert_snapshot!("memory_clash_op_28", h.terminal.backend());
    h.resize(160, 40);
    let own = h.lines_with("▚ 600256 ");
    assert!(own[0].contains(" this op (SoftmaxDeviceOperation) "), "{}", h.screen());
}

#[test]
fn an_old_era_failure_is_under_counted_and_says_so() {
    let h = demo_memory(32, 120, 40, false);
    h.assert_line("bank: 843.49 MiB unaccounted, held by something the report did not record.");
    // The operation's own buffer is in the picture, with its device operation.
    h.assert_line("│▶ ▚ 581632  3.22 MiB                                               this op (MatmulDeviceOperation)                    │");
    h.assert_line("│  █ 564224    17 KiB   2025 [1, 197, 512] 31 ttnn.matmul           input                                              │");
}

#[test]
fn a_non_failing_operation_shows_its_own_snapshot_and_switches_place() {
    let mut h = demo_memory(12, 120, 40, false);
    assert_eq!(h.lines()[1], "Memory after 12 ttnn.relu · device 0 · L1", "{}", h.screen());
    h.assert_line(
        "After operation 12: 3 live L1 buffers on device 0 hold 977 KiB per bank of the 101440–1466368 region (1.3 MiB); largest",
    );
    assert_snapshot!("memory_operation_12", h.terminal.backend());
    // `t` switches to the snapshot's DRAM buffers, and back.
    h.press(&[NextBufferType]);
    assert_eq!(h.lines()[1], "Memory after 12 ttnn.relu · device 0 · DRAM", "{}", h.screen());
    h.assert_line("After operation 12: 8 live DRAM buffers on device 0 hold 575 KiB per bank");
    assert_eq!(h.app.message(), Some("Device 0 · DRAM"));
    h.press(&[NextBufferType]);
    assert_eq!(h.lines()[1], "Memory after 12 ttnn.relu · device 0 · L1", "{}", h.screen());
    // One device: `d` has nowhere to go.
    assert!(!h.enabled(NextDevice));
    h.press(&[NextDevice]);
    assert_eq!(h.app.message(), Some("This snapshot has only one device"));
}

#[test]
fn s_sorts_the_holders_by_address() {
    let mut h = demo_memory(13, 120, 40, false);
    let addresses = |h: &Harness| -> Vec<u64> {
        let Some(Loaded::Ready(picture)) = h.app.memory_picture() else { panic!("a picture") };
        let mut live: Vec<u64> = picture.live_buffers().iter().map(|b| b.address).collect();
        live.sort_unstable();
        live
    };
    let sorted = addresses(&h);
    h.press(&[ToggleSort]);
    assert_eq!(h.app.message(), Some("Holders by address"));
    let screen = h.screen();
    let table = screen.split("Size/bank").nth(1).expect("the holders table");
    let shown: Vec<u64> = table
        .lines()
        .skip(1)
        .take_while(|l| !l.contains('└'))
        .filter_map(|l| l.split('│').nth(1))
        .filter_map(|cell| cell.trim_start_matches(['▶', ' ']).split_whitespace().nth(1)?.parse().ok())
        .collect();
    // Every holder fits in the table: all of them, lowest address first.
    assert_eq!(shown, sorted, "{screen}");
}

#[test]
fn without_colour_and_at_60x15() {
    let h = demo_memory(13, 120, 40, true);
    for cell in h.terminal.backend().buffer().content() {
        assert_eq!((cell.fg, cell.bg), (ratatui::style::Color::Reset, ratatui::style::Color::Reset));
    }
    assert_snapshot!("memory_failure_op_13_plain", h.terminal.backend());
    let h = demo_memory(13, 60, 15, false);
    assert_snapshot!("memory_failure_op_13_60x15", h.terminal.backend());
}

#[test]
fn the_device_ops_tab_jumps_to_the_memory() {
    let report = MemoryReport::open(&ReportSource::Demo, 0).unwrap();
    let mut h = Harness::new(report, 120, 40, false, Some(13));
    h.press(&[GoToTab(1), ShowMemory]);
    assert_eq!(h.app.tab(), Tab::Memory);
    assert_eq!(h.lines()[1], "Memory at the failure of 13 ttnn.to_memory_config · device 0 · L1", "{}", h.screen());
    assert!(matches!(h.app.memory_picture(), Some(Loaded::Ready(MemoryPicture::Failure(_)))));
}

#[test]
fn a_graph_only_failure_replays_every_graph_once_and_says_so() {
    use tui_support::support::sim::{Era, Options, Sim, SimOp};
    use tui_support::support::{BufferType, TempDir};
    let l1 = BufferType::L1;
    let mut sim = Sim::new(Era::GraphOnly, Options::default(), 1);
    sim.weight("w", 0, l1, 131_072);
    sim.run(SimOp::new("ttnn.to_layout", "TilizeDeviceOperation").input("w").output("x", l1, 262_144));
    sim.run(SimOp::new("ttnn.relu", "UnaryDeviceOperation").input("x").output("y", l1, 327_680));
    sim.fail(SimOp::new("ttnn.conv2d", "Conv2dDeviceOperation").input("y").output("c", l1, 1_048_576));
    let failed = sim.truth.clone().unwrap().operation_id;
    let dir = TempDir::new("tui-graph-only");
    sim.report().write_to(dir.path());
    let report = MemoryReport::open(&ttnn_tui::report::resolve_report(Some(dir.path())).unwrap(), 0).unwrap();
    let mut h = Harness::new(report, 120, 40, false, Some(failed));
    h.press(&[GoToTab(3)]);
    h.assert_line(
        " This report has no buffers snapshot for the failure's device: replaying every captured graph before it, once for the",
    );
    assert_eq!(h.app.wanted_jobs(), [ttnn_tui::app::Job::ReplayGraphs]);
    h.run_jobs();
    assert_eq!(
        h.lines()[1],
        format!("Memory at the failure of {failed} ttnn.conv2d · device 0 · L1"),
        "{}",
        h.screen()
    );
    h.assert_line(
        "At the failure (every captured graph replayed): 2 live L1 buffers on device 0 hold 576 KiB per bank of the",
    );
    assert!(h.app.wanted_jobs().is_empty(), "replayed once for the report");
}

/// Demo operation 8 fails to allocate L1_SMALL: the allocator's bank (32 KiB, the message) is the
/// region the devices row gives (`worker_l1_size` − the L1 region's top), and the map draws the
/// 40 KiB request as larger than that region — the text and the map agree.
#[test]
fn an_l1_small_request_larger_than_its_region_agrees_in_text_and_map() {
    let mut h = demo_memory(8, 120, 40, false);
    assert_eq!(h.lines()[1], "Memory at the failure of 8 ttnn.conv2d · device 0 · L1 Small", "{}", h.screen());
    h.assert_line(
        "1466368–1499136 region (32 KiB). The picture matches the allocator's figures (allocated 0 B, largest free block 32 KiB).",
    );
    h.assert_line("The 40 KiB request is larger than the whole region (32 KiB): no freeing makes it fit.");
    // The request drawn across the whole map, as larger than the region.
    h.assert_line("│▬ request 40 KiB, larger than the region ▬▬▬▬▬▬▬▬▬▬▬▬▬▬▬▬▬▬▬▬▬▬▬▬▬▬▬▬▬▬▬▬▬▬▬▬▬▬▬▬▬▬▬▬▬▬▬▬▬▬▬▬▬▬▬▬▬▬▬▬▬▬▬▬▬▬▬▬▬▬▬▬▬▬▬▬▬│");
    assert_snapshot!("memory_l1_small_op_8", h.terminal.backend());
    h.resize(60, 15);
    assert_snapshot!("memory_l1_small_op_8_60x15", h.terminal.backend());
}

/// Issue 30 §4.1: at 80×24 demo operation 7's advice is cut with a sign, and `J` brings its
/// "No change to L1 buffers helps" line into view.
#[test]
fn the_cut_advice_says_so_and_scrolls_at_80x24() {
    let mut h = demo_memory(7, 80, 24, false);
    h.assert_line("↓ 6 more lines · J scrolls");
    assert!(h.lines_with("No change to L1 buffers helps").is_empty(), "{}", h.screen());
    h.press(&[ScrollDetailDown, ScrollDetailDown]);
    h.assert_line("· No change to L1 buffers helps: the circular buffers end at 1741152, beyond L1;");
    h.assert_line("↑ 2 lines above, ↓ 4 more · J/K scroll");
}
