//! Tab 5's per-core grid (`c`, issue 31 §4): L1 on every core at the cursor's operation's true
//! peak, on real passing runs of `fixtures/headroom/` — `hr_partial_shard`, whose sharded tensor
//! stands on the top half of the grid only (the cores differ), and `hr_cb_only`, whose L1 holds
//! only circular buffers — at 120×40, 80×24 and a tiny terminal; the key shows and hides it; and
//! the grid's busiest core is the true peak on every operation of every measured run and of a
//! real sharded model.

use crate::tui_support;

use insta::assert_snapshot;
use std::path::{Path, PathBuf};
use ttnn_tui::analysis::memory::peak::true_peaks_per_core;
use ttnn_tui::analysis::messages::failure::BufferType;
use ttnn_tui::app::Action::*;
use ttnn_tui::report::{MemoryReport, resolve_report};
use tui_support::Harness;
use tui_support::support::folder_bytes;

fn headroom_run(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/headroom").join(name)
}

fn open(name: &str) -> MemoryReport {
    MemoryReport::open(&resolve_report(Some(&headroom_run(name))).expect("a report folder"), 0).expect("opens")
}

/// Tab 5 of a run at 120×40 on an operation, its run over time read, the grid shown; the report
/// folder unchanged after `session`.
fn with_grid(name: &str, operation: u64, session: impl FnOnce(&mut Harness)) {
    let before = folder_bytes(&headroom_run(name));
    let mut h = Harness::new(open(name), 120, 40, false, Some(operation));
    h.press(&[GoToTab(4)]);
    h.run_jobs();
    h.press(&[ToggleCoreGrid]);
    session(&mut h);
    drop(h);
    assert_eq!(folder_bytes(&headroom_run(name)), before, "{name}: the report folder changed");
}

#[test]
fn the_grid_shows_which_cores_are_full_and_what_fills_them_where_the_cores_differ() {
    with_grid("hr_partial_shard", 4, |h| {
        let screen = h.screen();
        assert_eq!(h.lines_with("L1 per core at operation 4 ttnn.add's true").len(), 1, "{screen}");
        // The sharded tensor stands on rows 0–3 only: those 32 cores are the busiest.
        assert_eq!(h.lines_with("   0  47L  47L  47L  47L  47L  47L  47L  47L").len(), 1, "{screen}");
        assert_eq!(h.lines_with("   7  29L  29L  29L  29L  29L  29L  29L  29L").len(), 1, "{screen}");
        assert_eq!(h.lines_with("busiest x 0, y 0 (32 of 64 cores as full):").len(), 1, "{screen}");
        assert_snapshot!("partial_shard_grid_120x40", h.terminal.backend());
        h.resize(80, 24);
        assert_snapshot!("partial_shard_grid_80x24", h.terminal.backend());
        // Too narrow to stand beside the chart: under it, the rows that do not fit cut with a sign.
        h.resize(60, 24);
        assert_eq!(h.lines_with("… y 3–7 cut: a taller terminal shows them").len(), 1, "{}", h.screen());
        assert_snapshot!("partial_shard_grid_60x24", h.terminal.backend());
        h.resize(60, 15);
        assert_eq!(
            h.lines_with("L1 per core at operation 4 ttnn.add: busiest x 0, y 0, 652 …").len(),
            1,
            "{}",
            h.screen()
        );
        assert_snapshot!("partial_shard_grid_60x15", h.terminal.backend());
    });
}

#[test]
fn a_blackhole_grid_of_eleven_columns_fits_under_the_chart_at_60_columns() {
    with_grid("hr_blackhole", 5, |h| {
        h.resize(60, 30);
        assert_snapshot!("blackhole_grid_60x30", h.terminal.backend());
    });
}

#[test]
fn a_run_whose_l1_is_all_circular_buffers_fills_every_core_alike() {
    with_grid("hr_cb_only", 3, |h| {
        assert_snapshot!("cb_only_grid_120x40", h.terminal.backend());
        h.resize(60, 15);
        assert_snapshot!("cb_only_grid_60x15", h.terminal.backend());
    });
}

#[test]
fn c_shows_and_hides_the_grid_and_says_why_there_is_none() {
    let mut h = Harness::new(open("hr_cb_only"), 120, 40, false, Some(3));
    h.press(&[GoToTab(4)]);
    h.run_jobs();
    let title = "L1 per core at operation 3 ttnn.add's true";
    assert!(h.lines_with(title).is_empty(), "hidden at first");
    assert!(h.enabled(ToggleCoreGrid));
    h.press(&[ToggleCoreGrid]);
    assert_eq!(h.lines_with(title).len(), 1, "{}", h.screen());
    // The cursor moves: the grid follows it.
    h.press(&[PreviousPoint]);
    assert_eq!(h.lines_with("L1 per core: nothing stands in L1 during operation 2").len(), 1, "{}", h.screen());
    h.press(&[NextPoint, ToggleCoreGrid]);
    assert!(h.lines_with(title).is_empty(), "hidden again");
    assert!(h.screen().contains("L1 per core hidden"), "{}", h.screen());
    // The run's L1 holds only circular buffers: no buffers snapshot shows L1, so the only line
    // is DRAM's; the grid is L1's whatever the line.
    assert!(h.lines_with("Memory over the run").iter().all(|l| l.contains(" DRAM ")), "{}", h.screen());
}

/// Every measured run, and the real height-sharded ViT (`fixtures/models/vit_sharded`, its
/// shards on part of the grid in ten operations).
#[test]
fn the_busiest_core_of_every_grid_is_the_true_peak_on_every_measured_run() {
    let mut differ = 0;
    let vit = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/models/vit_sharded");
    let runs = std::fs::read_dir(headroom_run("")).unwrap().map(|e| e.unwrap().path());
    for dir in runs.chain([vit]) {
        if !dir.join("db.sqlite").is_file() {
            continue;
        }
        let report = MemoryReport::open(&resolve_report(Some(&dir)).unwrap(), 0).unwrap();
        let facts = report.passes().run_facts().unwrap();
        let (peaks, grids) = true_peaks_per_core(&facts.events, &facts.layouts, &facts.last_use);
        let l1: Vec<_> = peaks.iter().filter(|p| p.buffer_type == BufferType::L1).collect();
        assert!(!l1.is_empty(), "{}", dir.display());
        for p in l1 {
            let grid = grids.iter().find(|g| (g.operation_id, g.device_id) == (p.operation_id, p.device_id));
            let grid = grid.unwrap_or_else(|| panic!("{}: operation {} has a grid", dir.display(), p.operation_id));
            let (core, fill) = grid.busiest();
            assert_eq!((fill.total(), fill), (p.peak_per_bank, p.composition), "{}: {p:?}", dir.display());
            assert_eq!(p.core.unwrap_or(core), core, "{}", dir.display());
            differ += usize::from(p.core.is_some());
        }
    }
    assert!(differ >= 12, "hr_partial_shard's two and the ViT's ten operations whose cores differ: {differ}");
}
