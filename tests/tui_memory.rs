//! The Memory tab (tab 4): the memory at a failure on the demo (a fit advice that frees a stale
//! tensor, a circular-buffer clash, an under-counted picture), a non-failing operation's own
//! snapshot, the holders table and its keys, without colour and at 60×15.

mod tui_support;

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
    let screen = h.screen();
    assert!(screen.contains("[4 Memory]"), "{screen}");
    assert!(screen.contains("Memory at the failure of 13 ttnn.to_memory_config · device 0 · L1"), "{screen}");
    assert!(screen.contains("The picture matches the allocator's figures"), "{screen}");
    assert!(screen.contains("Freeing tensor 2007"), "{screen}");
    assert!(screen.contains("the 800 KiB request fits at 268544."), "{screen}");
    // The holders, biggest first, with their producer, last use and flags.
    let holder = h
        .lines_with("6 ttnn.max_pool2d")
        .into_iter()
        .find(|l| l.starts_with("│▶") && l.contains("2007"))
        .unwrap_or_else(|| panic!("tensor 2007's row in {}", h.screen()));
    assert!(holder.contains(" 166368    607 KiB   2007 [1, 1, 3136, 64] 6 ttnn.max_pool2d "), "{holder}");
    assert!(holder.trim_end_matches([' ', '│']).ends_with(" 11 stale"), "{holder}");
    // The map: its scale, and its legend naming the largest free block and the request.
    assert!(screen.contains("┌ Map · 11 KiB a column ─"), "{screen}");
    assert!(screen.contains("└█ buffer (by tensor)  ▚ no tensor  ░ largest free block  ▬ request  ─"), "{screen}");
    assert_snapshot!("memory_failure_op_13", h.terminal.backend());
    // Enter on a holder opens its producing operation on tab 1.
    while h.app.memory_picture().is_some() && !h.screen().lines().any(|l| l.contains("▶") && l.contains("2007")) {
        h.press(&[Down]);
    }
    h.press(&[Activate]);
    assert_eq!((h.app.tab(), h.selected_id()), (Tab::Operations, Some(6)));
}

#[test]
fn a_circular_buffer_clash_lists_the_buffers_in_the_way() {
    let mut h = demo_memory(28, 120, 40, false);
    let screen = h.screen();
    // The sentence, wrapped at 120 columns, names both buffers below the circular buffers' end.
    assert!(screen.contains("need L1 up to 621824; 2 live L1 buffers lie below it: a"), "{screen}");
    assert!(screen.contains("buffer at 600256 (10 KiB, this operation), tensor 2023 at 610496 (25 KiB)."), "{screen}");
    // The map draws the circular buffers' extent with its end.
    assert!(screen.contains("▄▄▄ circular buffers up to 621824 "), "{screen}");
    // L1 is crowded: at 120 columns the producers keep their names (the heads' long one too)
    // and Flags says `this op`, with its device operation once there is room for it.
    assert!(screen.contains(" 25 ttnn.experimental.nlp_create_qkv_heads "), "{screen}");
    let own = h.lines_with("▚ 600256 ");
    assert!(own.len() == 1 && own[0].trim_end_matches([' ', '│']).ends_with(" this op"), "{screen}");
    assert_snapshot!("memory_clash_op_28", h.terminal.backend());
    h.resize(160, 40);
    let own = h.lines_with("▚ 600256 ");
    assert!(own[0].contains(" this op (SoftmaxDeviceOperation) "), "{}", h.screen());
}

#[test]
fn an_old_era_failure_is_under_counted_and_says_so() {
    let h = demo_memory(32, 120, 40, false);
    let screen = h.screen();
    assert!(screen.contains("bank: 843.49 MiB unaccounted, held by something the report did not"), "{screen}");
    // The operation's own buffer is in the picture, with its device operation.
    let own = h.lines_with(" 581632  3.22 MiB ");
    assert!(own.len() == 1 && own[0].contains(" this op (MatmulDeviceOperation) "), "{screen}");
    assert!(screen.contains(" 31 ttnn.matmul "), "{screen}");
}

#[test]
fn a_non_failing_operation_shows_its_own_snapshot_and_switches_place() {
    let mut h = demo_memory(12, 120, 40, false);
    let screen = h.screen();
    assert!(screen.contains("Memory after 12 ttnn.relu · device 0 · L1"), "{screen}");
    assert!(screen.contains("After operation 12:"), "{screen}");
    assert_snapshot!("memory_operation_12", h.terminal.backend());
    // `t` switches to the snapshot's DRAM buffers, and back.
    h.press(&[NextBufferType]);
    assert!(h.screen().contains("Memory after 12 ttnn.relu · device 0 · DRAM"), "{}", h.screen());
    assert_eq!(h.app.message(), Some("Device 0 · DRAM"));
    h.press(&[NextBufferType]);
    assert!(h.screen().contains("· device 0 · L1"), "{}", h.screen());
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
    assert!(h.screen().contains("Memory at the failure of 13"), "{}", h.screen());
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
    let screen = h.screen();
    assert!(screen.contains("replaying every captured graph before it"), "{screen}");
    assert_eq!(h.app.wanted_jobs(), [ttnn_tui::app::Job::ReplayGraphs]);
    h.run_jobs();
    let screen = h.screen();
    assert!(screen.contains(&format!("Memory at the failure of {failed} ttnn.conv2d")), "{screen}");
    assert!(screen.contains("At the failure (every captured graph replayed)"), "{screen}");
    assert!(h.app.wanted_jobs().is_empty(), "replayed once for the report");
}

/// Demo operation 8 fails to allocate L1_SMALL: the allocator's bank (32 KiB, the message) is the
/// region the devices row gives (`worker_l1_size` − the L1 region's top), and the map draws the
/// 40 KiB request as larger than that region — the text and the map agree.
#[test]
fn an_l1_small_request_larger_than_its_region_agrees_in_text_and_map() {
    let mut h = demo_memory(8, 120, 40, false);
    let screen = h.screen();
    assert!(screen.contains("Memory at the failure of 8 ttnn.conv2d · device 0 · L1 Small"), "{screen}");
    assert!(
        screen.contains("1466368–1499136 region (32 KiB). The picture matches the allocator's figures"),
        "{screen}"
    );
    assert!(screen.contains("The 40 KiB request is larger than the whole region (32 KiB): no freeing makes it fit."));
    assert!(screen.contains("│▬ request 40 KiB, larger than the region ▬▬▬"), "{screen}");
    assert_snapshot!("memory_l1_small_op_8", h.terminal.backend());
    h.resize(60, 15);
    assert_snapshot!("memory_l1_small_op_8_60x15", h.terminal.backend());
}
