//! One answer per question (issue 14): the failure's place is the same in tab 4, tab 5,
//! `--peak` and `explain --json` on a two-device run whose failures are on device 1; and on every
//! fixture, tab 4's picture, tab 5's series and `--peak` agree on each operation's bytes per bank
//! of each device and buffer type (one valid-row rule, docs/rules/memory.md §3).

use crate::cli;
use crate::tui_support;

use cli::run;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use ttnn_tui::analysis::memory::usage::MemoryUsage;
use ttnn_tui::analysis::messages::failure::BufferType as Type;
use ttnn_tui::app::Action::{GoToTab, NextBufferType};
use ttnn_tui::report::{FailureMemory, MemoryReport, resolve_report};
use tui_support::Harness;
use tui_support::support::sim::{DRAM_BANK, Era, Options, Sim, SimOp};
use tui_support::support::{BufferType, TempDir};

const L1: BufferType = BufferType::L1;
const DRAM: BufferType = BufferType::Dram;

fn open(dir: &Path) -> MemoryReport {
    MemoryReport::open(&resolve_report(Some(dir)).expect("a report folder"), 0).expect("opens")
}

/// Every `buffers` row of a report, summed as tab 5 and `--peak` read them.
fn whole_pass(report: &MemoryReport) -> MemoryUsage {
    let mut usage = MemoryUsage::default();
    report.usage().read(&mut usage, &AtomicBool::new(false), &mut |_| {}).expect("reads buffers");
    usage
}

/// A run on two devices: device 0 holds an embedding; on device 1 a chain of operations, then an
/// L1 failure and a DRAM failure. Gives the folder and the failures (id, name, type).
fn two_device_run() -> (TempDir, Vec<(u64, String, Type)>) {
    let mut sim = Sim::new(Era::DecoratorWithErrors, Options::default(), 2);
    sim.weight("v", 0, L1, 65_536);
    sim.run(SimOp::new("ttnn.embedding", "EmbeddingsDeviceOperation").input("v").output("e", L1, 200_000));
    sim.weight("w", 1, L1, 131_072);
    sim.run(SimOp::new("ttnn.to_layout", "TilizeDeviceOperation").on(1).input("w").output("x", L1, 262_144));
    sim.run(SimOp::new("ttnn.relu", "UnaryDeviceOperation").on(1).input("x").output("y", L1, 327_680));
    let conv = SimOp::new("ttnn.conv2d", "Conv2dDeviceOperation").on(1).input("y").temp(L1, 32_768);
    let l1_failure = sim.fail(conv.output("c", L1, 720_896));
    sim.weight("big", 1, DRAM, 300_000_000);
    let matmul = SimOp::new("ttnn.matmul", "MatmulDeviceOperation").on(1).input("big").input("w");
    let dram_failure = sim.fail(matmul.output("o", DRAM, DRAM_BANK - 1_000_000));
    let dir = TempDir::new("views-agree");
    sim.report().write_to(dir.path());
    let failures =
        vec![(l1_failure, "ttnn.conv2d".to_string(), Type::L1), (dram_failure, "ttnn.matmul".to_string(), Type::Dram)];
    (dir, failures)
}

/// Tab 5 on an operation, turned to the line of `buffer_type` on the device it opened on.
fn over_time_on(h: &mut Harness, buffer_type: Type) -> String {
    h.press(&[GoToTab(4)]);
    h.run_jobs();
    let wanted = format!(" · {} · per bank after each operation", buffer_type.token());
    for _ in 0..4 {
        if h.screen().contains(&wanted) {
            break;
        }
        h.press(&[NextBufferType]);
    }
    h.screen()
}

#[test]
fn tab_4_tab_5_peak_and_explain_name_the_same_place_for_every_failure() {
    let (dir, failures) = two_device_run();
    let doc: Value = {
        let o = run(&["explain", dir.path().to_str().unwrap(), "--json"], None);
        assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
        serde_json::from_slice(&o.stdout).expect("valid JSON")
    };
    for (id, name, buffer_type) in &failures {
        let token = buffer_type.token();
        let entry = doc["operations"].as_array().unwrap().iter().find(|o| o["operation_id"] == *id).unwrap();
        assert_eq!(
            (&entry["memory"]["device_id"], &entry["memory"]["buffer_type"]),
            (&Value::from(1), &Value::from(token))
        );

        let mut h = Harness::new(open(dir.path()), 120, 40, false, Some(*id));
        h.press(&[GoToTab(3)]);
        h.run_jobs();
        let title = format!("Memory at the failure of {id} {name} · device 1 · {token}");
        assert!(h.screen().contains(&title), "{title:?} in\n{}", h.screen());

        let mut h = Harness::new(open(dir.path()), 120, 40, false, Some(*id));
        let screen = over_time_on(&mut h, *buffer_type);
        let header = format!("Memory over the run · device 1 · {token} · per bank after each operation");
        assert!(screen.contains(&header), "{header:?} in\n{screen}");
        let cursor = h.lines_with(&format!("operation {id} {name} · "));
        assert!(cursor.len() == 1 && cursor[0].contains("✖ failed here"), "{cursor:?} in\n{screen}");
    }
    // The same places in the series: each failure on device 1 and its own type only.
    let report = open(dir.path());
    let usage = whole_pass(&report);
    let position = |id: u64| report.operations.iter().position(|o| o.id == id).unwrap();
    for (device, buffer_type) in usage.sums.keys().copied() {
        let marked = report.usage().series(&usage, device, buffer_type).failures;
        let expected: Vec<usize> =
            failures.iter().filter(|f| device == 1 && f.2 == buffer_type).map(|f| position(f.0)).collect();
        assert_eq!(marked, expected, "failures on device {device} {}", buffer_type.token());
    }
    // `--peak` measures device 1's DRAM against the bank size of the DRAM failure, placed there.
    let o = run(&["explain", dir.path().to_str().unwrap(), "--peak"], None);
    let text = String::from_utf8(o.stdout).unwrap();
    let dram_lines: Vec<&str> = text.lines().filter(|l| l.starts_with("Peak DRAM use on device ")).collect();
    assert!(!dram_lines.is_empty(), "{text}");
    for line in dram_lines {
        let on_1 = line.starts_with("Peak DRAM use on device 1:");
        assert_eq!(line.ends_with(" region)"), on_1, "{line}");
    }
}

/// The demo report and every real report.
fn every_fixture() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let mut folders = vec![root.join("demo")];
    let mut real: Vec<PathBuf> =
        std::fs::read_dir(root.join("real")).unwrap().map(|e| e.unwrap().path()).filter(|p| p.is_dir()).collect();
    real.sort();
    folders.extend(real);
    folders
}

/// The fixtures that hold a database.
fn every_report() -> Vec<PathBuf> {
    every_fixture().into_iter().filter(|f| f.join("db.sqlite").exists()).collect()
}

/// `explain --json` of a report folder, with `args` before it.
fn explain_json(folder: &Path, args: &[&str]) -> Value {
    let mut all = vec!["explain", "--json"];
    all.extend_from_slice(args);
    all.push(folder.to_str().unwrap());
    serde_json::from_slice(&run(&all, None).stdout).unwrap()
}

#[test]
fn tab_4_tab_5_and_peak_agree_on_every_operation_of_every_fixture() {
    for folder in every_fixture() {
        let report = open(&folder);
        let usage = whole_pass(&report);
        assert!(!usage.sums.is_empty(), "{}: no buffers rows to compare", folder.display());
        let at = |key, id| usage.sums[&key].iter().find(|(op, _)| *op == id).map(|(_, used)| *used);
        for (&(device, buffer_type), sums) in &usage.sums {
            // Tab 4's picture of each operation with rows of this device and type.
            for &(id, used) in sums {
                let index = report.operation_index(id).expect("an operation of the report");
                let picture = report.pictures().after_operation(index, Some((device, buffer_type))).unwrap().unwrap();
                assert_eq!(
                    (picture.buffer_type, picture.map.used_per_bank),
                    (buffer_type, used),
                    "{}: operation {id} on device {device} {}",
                    folder.display(),
                    buffer_type.token()
                );
            }
            // Tab 5's line: the recorded points are the sums (0 after a snapshot of the device
            // without rows of this type).
            let series = report.usage().series(&usage, device, buffer_type);
            for point in series.points.iter().filter(|p| p.recorded) {
                let sum = at((device, buffer_type), point.operation_id).unwrap_or(0);
                assert_eq!(point.used_per_bank, Some(sum), "{}: {point:?}", folder.display());
            }
        }
        // `--peak`: the greatest of each line, after the operation tab 5 marks as the line's peak.
        for peak in report.usage().peaks(&usage) {
            let key = (peak.device_id, peak.buffer_type);
            let greatest = usage.sums[&key].iter().map(|(_, used)| *used).max();
            assert_eq!(at(key, peak.operation_id), greatest, "{}", folder.display());
            let series = report.usage().series(&usage, key.0, key.1);
            let point = series.peak_point().map(|p| (p.operation_id, p.used_per_bank));
            assert_eq!(point, Some((peak.operation_id, greatest)), "{}", folder.display());
        }
        // Each failure with a memory section is marked on tab 5's line of its place, and only there.
        for (index, op) in report.operations.iter().enumerate() {
            let Ok(FailureMemory::Found(m)) = report.pictures().at_failure(index, None) else { continue };
            for &(device, buffer_type) in usage.sums.keys() {
                let marked = report.usage().series(&usage, device, buffer_type).failures.contains(&index);
                let place = (device, buffer_type) == (m.device_id, m.buffer_type);
                assert_eq!(marked, place, "{}: operation {} on {device} {buffer_type:?}", folder.display(), op.id);
            }
        }
    }
}

/// The holders a failure's picture names (docs/rules/memory.md §4) are the ones tab 4's picture of the
/// operation its snapshot was taken after names at the same addresses: on a_l1_add_oom, the
/// output of operation 10 is tensor 29 in both (its graph names an internal tensor 28 at the same
/// address, which no link records).
#[test]
fn a_failure_and_the_picture_after_the_operation_before_it_name_the_same_holders() {
    let mut compared = 0;
    for folder in every_report() {
        let report = open(&folder);
        for index in 0..report.operations.len() {
            let Ok(FailureMemory::Found(m)) = report.pictures().at_failure(index, None) else { continue };
            let Some(k) = m.snapshot_operation_id else { continue };
            let Some(before) = report.operations.iter().position(|o| o.id == k) else { continue };
            let Some(picture) = report.pictures().after_operation(before, Some((m.device_id, m.buffer_type))).unwrap()
            else {
                continue;
            };
            if picture.buffer_type != m.buffer_type {
                continue;
            }
            for b in m.live_buffers.iter().filter(|b| b.origin == Some(ttnn_tui::analysis::memory::Origin::Earlier)) {
                // A tensor first seen at the failed operation (its input) cannot be named after
                // the operation before it: only where both name one must they agree.
                let Some(p) = picture.live_buffers.iter().find(|p| p.address == b.address) else { continue };
                if p.tensor_id.is_none() || b.tensor_id.is_none() {
                    continue;
                }
                assert_eq!(
                    p.tensor_id,
                    b.tensor_id,
                    "{}: the buffer at {} after operation {k} and at operation {}'s failure",
                    folder.display(),
                    b.address,
                    report.operations[index].id
                );
                compared += 1;
            }
        }
    }
    assert!(compared >= 20, "only {compared} buffers compared");
    let report = open(&Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/real/a_l1_add_oom"));
    let ten = report.operations.iter().position(|o| o.id == 10).unwrap();
    let picture = report.pictures().after_operation(ten, None).unwrap().unwrap();
    let output = picture.live_buffers.iter().find(|b| b.address == 188416).unwrap();
    assert_eq!(output.tensor_id, Some(29));
}

/// Tab 4's fix list says each fix with the sentence `explain --json` gives it (`fixes[].sentence`,
/// the answer layer's `FixAnswer`), on every failure of every real report and the demo.
#[test]
fn tab_4_says_every_fix_as_explain_json_does() {
    let mut said = 0;
    for folder in every_report() {
        let json = explain_json(&folder, &[]);
        for entry in json["operations"].as_array().unwrap() {
            let Some(fixes) = entry["fixes"].as_array().filter(|f| !f.is_empty()) else { continue };
            let id = entry["operation_id"].as_u64().unwrap();
            let mut h = Harness::new(open(&folder), 400, 120, false, Some(id));
            h.press(&[GoToTab(3)]);
            h.run_jobs();
            let screen = h.screen();
            for fix in fixes {
                let sentence = format!("· {}", fix["sentence"].as_str().unwrap());
                assert!(screen.contains(&sentence), "{}: operation {id}: {sentence:?} in\n{screen}", folder.display());
                said += 1;
            }
        }
    }
    assert!(said >= 20, "only {said} fixes compared");
}

/// Tab 5 says what freeing every late tensor does at a failure with the sentence
/// `explain --late --json` gives it (`late_failures[].sentence`), on every real report.
#[test]
fn tab_5_says_every_late_failure_as_explain_late_json_does() {
    let mut said = 0;
    for folder in every_report() {
        let json = explain_json(&folder, &["--late"]);
        // Tab 5 says it under a line's list: of a device and buffer type with a line (the demo's
        // L1_SMALL failure has none, no L1_SMALL buffer being recorded).
        let lined = |f: &Value| {
            json["late_summary"]
                .as_array()
                .unwrap()
                .iter()
                .any(|l| (&l["device_id"], &l["buffer_type"]) == (&f["device_id"], &f["buffer_type"]))
        };
        for f in json["late_failures"].as_array().unwrap().iter().filter(|f| lined(f)) {
            let id = f["operation_id"].as_u64().unwrap();
            let mut h = Harness::new(open(&folder), 400, 60, false, Some(id));
            h.press(&[GoToTab(4)]);
            h.run_jobs();
            let sentence = f["sentence"].as_str().unwrap();
            assert!(h.screen().contains(sentence), "{}: {sentence:?} in\n{}", folder.display(), h.screen());
            said += 1;
        }
    }
    assert!(said >= 5, "only {said} late failures compared");
}

/// Opened on a failure, tab 5 shows that failure's line: the DRAM failure on device 1 opens on
/// device 1's DRAM line, the L1 failure on its L1 line.
#[test]
fn tab_5_opens_on_the_line_of_the_selected_failure() {
    let (dir, failures) = two_device_run();
    for (id, _, buffer_type) in failures {
        let mut h = Harness::new(open(dir.path()), 120, 40, false, Some(id));
        h.press(&[GoToTab(4)]);
        h.run_jobs();
        let heading =
            format!("Memory over the run · device 1 · {} · per bank after each operation", buffer_type.token());
        assert!(h.screen().contains(&heading), "{heading:?} in\n{}", h.screen());
    }
}

/// Tab 1's callout of each failure says its summary and reason as `explain --json` does
/// (`allocation_failure.summary`, `reason_label`, `reason_detail`), on every real report.
#[test]
fn tab_1_says_every_failure_as_explain_json_does() {
    let mut said = 0;
    for folder in every_report() {
        let json = explain_json(&folder, &[]);
        for entry in json["operations"].as_array().unwrap() {
            let failure = &entry["allocation_failure"];
            let Some(id) = entry["operation_id"].as_u64().filter(|_| !failure.is_null()) else { continue };
            // Wide enough that no sentence wraps in the callout's pane.
            let h = Harness::new(open(&folder), 1000, 60, false, Some(id));
            let screen = h.screen();
            for key in ["summary", "reason_label", "reason_detail"] {
                let Some(text) = failure[key].as_str() else { continue };
                assert!(screen.contains(text), "{}: operation {id} {key} {text:?} in\n{screen}", folder.display());
                said += 1;
            }
        }
    }
    assert!(said >= 60, "only {said} texts compared");
}
