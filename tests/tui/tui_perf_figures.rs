//! The Performance tab never cuts a figure (docs/rules/reference.md §13.4): device times and op-to-op gaps of
//! seconds, a negative gap and a core count wider than their columns' usual widths appear whole at
//! 80, 120 and 200 columns; the columns widen and OP Code gives up the room.

use crate::tui_support;

use insta::assert_snapshot;
use tui_support::Harness;
use tui_support::perf::{harness, linked_report};
use tui_support::support::perf::{Era, PerfCsv, Row};

/// `linked_report`'s run, slowed down: kernel durations and gaps of seconds (in ns, as the
/// profiler writes them).
fn slow_run() -> PerfCsv {
    let row = |code: &str, kernel_ns: u64, gap_ns: i64| {
        Row::device(code, 0, kernel_ns).set("OP TO OP LATENCY [ns]", gap_ns).set("AVAILABLE WORKER CORE COUNT", 64)
    };
    let mut csv = PerfCsv::new(Era::Y2026);
    csv.push(row("TilizeDeviceOperation", 1_500_000_000, 0)); // 2: op 2
    csv.push(row("MatmulDeviceOperation", 12_345_678_901, 5_048_718_545)); // 3: op 3
    csv.push(Row::signpost("layer 1")); // 4
    csv.push(row("BinaryNgDeviceOperation", 2_000, 1_000_000_000)); // 5: op 4
    csv.push(row("ReshapeViewDeviceOperation", 987_654, -2_500_000_000).set("CORE COUNT", 1_234_567)); // 6: op 7
    csv
}

/// The figures each column must show whole, by row ID.
const DEVICE_TIMES: [(u64, &str); 4] =
    [(2, "1500000.000 µs"), (3, "12345678.901 µs"), (5, "2.000 µs"), (6, "987.654 µs")];
const GAPS: [(u64, &str); 3] = [(3, "5048718.545 µs"), (5, "1000000.000 µs"), (6, "-2500000.000 µs")];
const CORES: [(u64, &str); 2] = [(3, "64"), (6, "1234567")];

/// The screen line of the table row with this ID (right-aligned after the border and marker).
fn row_line(h: &Harness, id: u64) -> String {
    let screen = h.screen();
    let mut table = screen.lines().skip_while(|l| !l.contains(" ID OP Code "));
    let line = table.find(|l| l.trim_start_matches(['"', '│', '▶', ' ']).starts_with(&format!("{id} ")));
    line.unwrap_or_else(|| panic!("no row {id} in\n{screen}")).to_string()
}

/// Asserts each figure stands whole in its row's line: preceded by a space, not by a cut digit.
fn assert_whole(h: &Harness, figures: &[(u64, &str)]) {
    for (id, figure) in figures {
        let line = row_line(h, *id);
        assert!(line.contains(&format!(" {figure}")), "{figure} whole in row {id}:\n{line}\n{}", h.screen());
    }
}

#[test]
fn figures_of_seconds_appear_whole_at_every_width() {
    for width in [80, 120, 200] {
        let h = harness(&linked_report(), &slow_run(), width, 40, false);
        assert!(h.screen().contains("Data linked between memory and performance reports"), "{}", h.screen());
        assert_whole(&h, &DEVICE_TIMES);
        for id in [2, 3, 4, 5, 6] {
            assert!(row_line(&h, id).contains(&format!(" {id} ")), "ID {id} whole at {width} columns");
        }
        if width >= 100 {
            // The wide layout shows every figure column.
            assert_whole(&h, &GAPS);
            assert_whole(&h, &CORES);
        }
    }
}

#[test]
fn the_widened_columns_at_120() {
    let h = harness(&linked_report(), &slow_run(), 120, 30, false);
    assert_snapshot!("perf_figures_of_seconds_120x30", h.terminal.backend());
}
