//! The committed demo performance report (`fixtures/demo-perf/`) and what it shows with the demo
//! memory report: it links, its failures' earlier device ops are flagged `Op failed`, and its
//! figures raise `Few cores`, `Low util` and `Recompute` on the rows its README lists.
//!
//! `committed_demo_perf_matches_builder` builds the files with `tests/support/demo_perf.rs` and
//! compares them byte for byte with the committed ones. After changing the builder, run
//! `UPDATE_DEMO=1 cargo test --test reading demo_perf_fixture` to rewrite them, and update
//! `fixtures/demo-perf/README.md` by hand.

use crate::support;

use std::path::{Path, PathBuf};
use support::TempDir;
use support::demo_perf::{CSV_NAME, TWO_DEVICES_CSV_NAME, build_demo_perf, build_demo_perf_two_devices, device_rows};
use ttnn_tui::analysis::perf::flags::FlagKind;
use ttnn_tui::analysis::perf::link::LinkState;
use ttnn_tui::report::perf::linked::LinkedReports;
use ttnn_tui::report::perf::perf_report::{DEMO_PERF_PATH, PerfReport};
use ttnn_tui::report::{MemoryReport, ReportSource};

fn demo_perf_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/demo-perf")
}

const FILES: [&str; 2] = [CSV_NAME, "profile_log_device.csv"];

#[test]
fn committed_demo_perf_matches_builder() {
    let built = TempDir::new("demo-perf");
    build_demo_perf(built.path());
    if std::env::var_os("UPDATE_DEMO").is_some() {
        build_demo_perf(&demo_perf_dir());
        return;
    }
    for file in FILES {
        let expected = std::fs::read_to_string(built.path().join(file)).unwrap();
        let committed = std::fs::read_to_string(demo_perf_dir().join(file)).unwrap_or_default();
        let (e, c): (Vec<&str>, Vec<&str>) = (expected.lines().collect(), committed.lines().collect());
        if let Some(i) = (0..e.len().max(c.len())).find(|&i| e.get(i) != c.get(i)) {
            panic!(
                "fixtures/demo-perf/{file} differs at line {}:\n  built:     {}\n  committed: {}\n\
                 Run `UPDATE_DEMO=1 cargo test --test reading demo_perf_fixture` if the change is intended.",
                i + 1,
                e.get(i).unwrap_or(&"<end>"),
                c.get(i).unwrap_or(&"<end>")
            );
        }
        assert_eq!(expected, committed, "{file}: line endings differ");
    }
}

/// `fixtures/demo-perf-2dev/`'s raw CSV is what the builder writes (`UPDATE_DEMO=1` rewrites it).
#[test]
fn committed_two_device_demo_perf_matches_builder() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/demo-perf-2dev");
    if std::env::var_os("UPDATE_DEMO").is_some() {
        build_demo_perf_two_devices(&dir);
        return;
    }
    let built = TempDir::new("demo-perf-2dev");
    build_demo_perf_two_devices(built.path());
    let read = |d: &Path| std::fs::read_to_string(d.join(TWO_DEVICES_CSV_NAME)).unwrap_or_default();
    assert!(
        read(built.path()) == read(&dir),
        "fixtures/demo-perf-2dev differs from the builder: run `UPDATE_DEMO=1 cargo test --test demo_perf_fixture`"
    );
}

fn linked_demo() -> (MemoryReport, LinkedReports) {
    let memory = MemoryReport::open(&ReportSource::Demo, 0).unwrap();
    let perf = PerfReport::demo().unwrap();
    let linked = LinkedReports::new(&memory, perf).unwrap();
    (memory, linked)
}

/// The row ids carrying a flag, in row order.
fn flagged(linked: &LinkedReports, kind: FlagKind) -> Vec<u64> {
    linked
        .rows
        .iter()
        .zip(linked.flags())
        .filter(|(_, f)| f.iter().any(|f| f.kind == kind))
        .map(|(r, _)| r.id)
        .collect()
}

#[test]
fn the_embedded_demo_perf_is_the_committed_folder() {
    let embedded = PerfReport::demo().unwrap();
    assert_eq!(embedded.path, Path::new(DEMO_PERF_PATH));
    let folder = PerfReport::open(&demo_perf_dir()).unwrap();
    assert_eq!(folder.path.file_name().unwrap(), CSV_NAME);
    assert_eq!(embedded.data, folder.data);
    assert_eq!(embedded.device_log, folder.device_log);
    let log = embedded.device_log.as_ref().unwrap();
    assert_eq!((log.arch.as_deref(), log.max_compute_cores), (Some("wormhole_b0"), Some(64)));
    assert_eq!(embedded.data_rows, 28);
    assert_eq!(embedded.ragged_rows, 0);
    // The 2026 header with per-tensor and perf-counter columns.
    let header = std::fs::read_to_string(demo_perf_dir().join(CSV_NAME)).unwrap();
    let columns = header.lines().next().unwrap().split(',').count();
    assert!((280..=300).contains(&columns), "{columns} columns");
}

#[test]
fn every_device_row_links_to_its_operation() {
    let (_, linked) = linked_demo();
    assert_eq!(linked.state(), LinkState::Linked);
    let rows = device_rows();
    assert_eq!(linked.link.map.len(), rows.len());
    for (id, op) in rows {
        assert_eq!(linked.link.map.operation_of(id), Some(op.operation), "row {id} ({})", op.name);
    }
    // The signpost (2) stays unlinked; the host op (22) is hidden.
    let shown: Vec<u64> = linked.rows.iter().map(|r| r.id).collect();
    assert!(!shown.contains(&22));
    assert!(shown.contains(&2) && linked.link.map.operation_of(2).is_none());
    assert_eq!(shown.len(), 27);
}

#[test]
fn the_callout_lists_five_failures_and_the_rest() {
    let (_, linked) = linked_demo();
    // 11: the ten of the demo README, and op 24's dataflow-buffer message, which ttnn-tui reads
    // as kind 3 beyond the reference (docs/rules/reference.md §13).
    let callout = linked.callout(false).unwrap();
    assert_eq!(callout.title, "11 allocation failures recorded in the linked memory report");
    let labels: Vec<&str> = callout.listings.iter().map(|l| l.label.as_str()).collect();
    assert_eq!(
        labels,
        ["7 ttnn.conv2d", "8 ttnn.conv2d", "10 ttnn.add", "13 ttnn.to_memory_config", "16 ttnn.embedding"]
    );
    let status = |i: usize| callout.listings[i].body.last_line.clone().unwrap();
    assert_eq!(status(0), "Failed in Conv2dDeviceOperation; 1 earlier device op ran, so it has 1 row in this report.");
    assert_eq!(
        status(2),
        "Failed in BinaryNgDeviceOperation before reaching the device, so it has no row in this report."
    );
    assert_eq!(callout.more.as_deref(), Some("And 6 more, listed with their errors in the operations view."));
}

#[test]
fn flags_of_the_demo_rows() {
    let (_, linked) = linked_demo();
    // Ops 7 and 8 ran their Halo before Conv2d failed; op 30 its Move before Matmul failed.
    assert_eq!(flagged(&linked, FlagKind::OpFailed), [10, 11, 25]);
    assert_eq!(flagged(&linked, FlagKind::FewCores), [3, 17, 19]);
    assert_eq!(flagged(&linked, FlagKind::LowUtil), [12, 23]);
    assert_eq!(flagged(&linked, FlagKind::Recompute), [11, 28]);
    // The demo's tensors show each retry after an L1 failure writing its output to DRAM.
    assert_eq!(flagged(&linked, FlagKind::DramFallback), [12, 15, 17, 19]);
    assert!(flagged(&linked, FlagKind::DramBound).is_empty());

    let flags = linked.flags();
    let detail = |id: u64, kind: FlagKind| {
        let i = linked.rows.iter().position(|r| r.id == id).unwrap();
        flags[i].iter().find(|f| f.kind == kind).and_then(|f| f.detail.clone()).unwrap()
    };
    assert_eq!(
        detail(10, FlagKind::OpFailed),
        "Circular buffers on [(x=0,y=0) - (x=7,y=7)] grow to 1.66 MiB, beyond the L1 size of 1.43 MiB"
    );
    assert_eq!(detail(17, FlagKind::FewCores), "Cores: 10 / 64");
    assert_eq!(detail(12, FlagKind::LowUtil), "Core utilisation: 17%");
    assert_eq!(detail(23, FlagKind::LowUtil), "Core utilisation: 24%");
    assert_eq!(detail(28, FlagKind::Recompute), format!("Hash: {}", 0xf809_1a2b_3c4d_5e6f_u64));
}

/// The committed CSV's cells by column name, one map per data row.
fn committed_cells() -> Vec<std::collections::HashMap<String, String>> {
    let mut reader = csv::Reader::from_path(demo_perf_dir().join(CSV_NAME)).unwrap();
    let header = reader.headers().unwrap().clone();
    reader
        .records()
        .map(|r| header.iter().zip(r.unwrap().iter()).map(|(h, c)| (h.to_string(), c.to_string())).collect())
        .collect()
}

/// What tt-perf-report 1.4.0 reads of conv and matmul rows is there, as a profiler writes it:
/// without `INPUT_1_MEMORY` it stops on the first of them, without a conv's `window_hw` it cannot
/// size the conv.
#[test]
fn conv_and_matmul_rows_carry_what_tt_perf_report_reads() {
    let rows = committed_cells();
    let code = |r: &std::collections::HashMap<String, String>| r["OP CODE"].clone();
    let convs: Vec<_> = rows.iter().filter(|r| code(r) == "Conv2dDeviceOperation").collect();
    let matmuls: Vec<_> = rows.iter().filter(|r| code(r) == "MatmulDeviceOperation").collect();
    assert_eq!((convs.len(), matmuls.len()), (2, 4));
    for row in convs.iter().chain(&matmuls) {
        assert!(row["INPUT_1_MEMORY"].starts_with("DEV_0_"), "{}: {:?}", code(row), row["INPUT_1_MEMORY"]);
        assert!(!row["INPUT_1_DATATYPE"].is_empty() && !row["INPUT_1_X_PAD[LOGICAL]"].is_empty());
    }
    let windows: Vec<&str> = convs
        .iter()
        .map(|r| {
            let attributes = &r["ATTRIBUTES"];
            let at = attributes.find("window_hw=").expect("window_hw");
            &attributes[at..at + "window_hw=(7;7)".len()]
        })
        .collect();
    assert_eq!(windows, ["window_hw=(7;7)", "window_hw=(3;3)"]);
    for row in &matmuls {
        assert!(row["ATTRIBUTES"].contains("in0_block_w="), "{}", row["ATTRIBUTES"]);
    }
    // One signpost, before the run: tt-perf-report analyses what follows the last one.
    let signposts: Vec<usize> =
        rows.iter().enumerate().filter(|(_, r)| r["OP TYPE"] == "signpost").map(|(i, _)| i).collect();
    assert_eq!(signposts, [0]);
}
