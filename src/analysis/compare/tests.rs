use super::*;
use crate::analysis::memory::usage_series::{UsageBasis, UsagePoint, UsageSeries};
use crate::analysis::messages::failure::{BufferType, parse_allocation_failure};
use crate::analysis::model::{ErrorRecord, Operation};

/// The messages of `fixtures/real/stale_chain` and of its re-run with every late tensor freed.
const OOM: &str = "TT_FATAL @ /project/tt_metal/impl/allocator/bank_manager.cpp:514: false\ninfo:\nOut of Memory: Not enough space to allocate 67108864 B L1 buffer across 64 banks, where each bank needs to store 1048576 B, but bank size is 1393312 B (allocated: 421888 B, free: 971424 B, largest free block: 971424 B).\nbacktrace:\n";
const CLASH: &str = "TT_THROW @ /project/tt_metal/impl/dataflow_buffer/dataflow_buffer.cpp:3096: tt::exception\ninfo:\nStatically allocated dataflow buffers in program 8 clash with L1 buffers on core range [0-0 - 7-7]. L1 buffer allocated at 112640 and static dataflow buffer region ends at 118112\nbacktrace:\n";

fn error(id: u64, name: &str, error_type: &str, message: &str) -> ErrorRecord {
    ErrorRecord {
        operation_id: Some(id),
        operation_name: name.to_string(),
        error_type: error_type.to_string(),
        message: message.to_string(),
        stack_trace: String::new(),
        timestamp: String::new(),
        rank: 0,
        failure: parse_allocation_failure(message),
        attached: true,
        log: None,
    }
}

/// A run of named operations, the errors attached to the ids given.
fn run(names: &[&str], errors: Vec<ErrorRecord>) -> (Vec<Operation>, Vec<ErrorRecord>) {
    let operations = names
        .iter()
        .enumerate()
        .map(|(k, name)| Operation {
            id: k as u64 + 1,
            name: (*name).into(),
            duration: None,
            rank: 0,
            error: errors.iter().position(|e| e.operation_id == Some(k as u64 + 1)),
            recorded: true,
        })
        .collect();
    (operations, errors)
}

fn failures(names: &[&str], errors: Vec<ErrorRecord>) -> Vec<RunFailure> {
    let (operations, errors) = run(names, errors);
    run_failures(&operations, &errors)
}

const STALE_CHAIN: [&str; 5] = ["ttnn.matmul", "ttnn.add", "ttnn.relu", "ttnn.softmax", "ttnn.matmul"];

#[test]
fn each_failure_with_its_kind_summary_and_reason() {
    let found = failures(&STALE_CHAIN, vec![error(5, "ttnn.matmul", "RuntimeError", OOM)]);
    assert_eq!(
        found,
        [RunFailure {
            index: 4,
            operation_id: 5,
            operation_name: "ttnn.matmul".into(),
            kind: "bank_out_of_memory".into(),
            label: "Out of memory".into(),
            summary: "Requested 64 MiB L1 across 64 banks (1 MiB per bank, bank size 1.33 MiB); free 949 KiB, largest free block 949 KiB".into(),
            reason: Some(crate::analysis::messages::reason::Reason::NotEnoughFreeSpace),
        }]
    );
    // An error that is no allocation failure keeps its type; the release that records no message
    // says the operation never completed.
    let message = "Operation 'ttnn.add' started but never completed (likely crashed)";
    let found = failures(&["ttnn.add"], vec![error(1, "ttnn.add", "incomplete_operation", message)]);
    assert_eq!((found[0].kind.as_str(), found[0].label.as_str()), ("incomplete_operation", NEVER_COMPLETED));
    assert_eq!((found[0].summary.as_str(), found[0].reason), (message, None));
}

#[test]
fn gone_and_new_by_name_and_kind() {
    let before = failures(&STALE_CHAIN, vec![error(5, "ttnn.matmul", "RuntimeError", OOM)]);
    let mut names = vec!["ttnn.matmul", "ttnn.deallocate", "ttnn.deallocate", "ttnn.add", "ttnn.deallocate"];
    names.extend(["ttnn.deallocate", "ttnn.relu", "ttnn.deallocate", "ttnn.softmax", "ttnn.deallocate", "ttnn.matmul"]);
    let after = failures(&names, vec![error(11, "ttnn.matmul", "RuntimeError", CLASH)]);
    let changes = compare_failures(before, after);
    assert!(changes.kept.is_empty());
    assert_eq!((changes.gone.len(), changes.new.len()), (1, 1));
    assert_eq!(changes.new[0].kind, "circular_buffers_clash");
    assert_eq!(
        lead_line(&changes),
        "Out of memory in ttnn.matmul (operation 5) is gone; new: Circular buffers clash with L1 buffers in ttnn.matmul (operation 11)."
    );
}

#[test]
fn the_lead_line_in_every_case() {
    let oom = |id, name: &str| failures(&STALE_CHAIN, vec![error(id, name, "RuntimeError", OOM)]);
    let clash = |id, name: &str| failures(&STALE_CHAIN, vec![error(id, name, "RuntimeError", CLASH)]);
    let none = Vec::new;
    assert_eq!(lead_line(&compare_failures(none(), none())), "Neither run has a failure.");
    assert_eq!(
        lead_line(&compare_failures(oom(5, "ttnn.matmul"), none())),
        "Out of memory in ttnn.matmul (operation 5) is gone; no new failure."
    );
    assert_eq!(
        lead_line(&compare_failures(none(), clash(5, "ttnn.matmul"))),
        "No failure is gone; new: Circular buffers clash with L1 buffers in ttnn.matmul (operation 5)."
    );
    // Kept: the same name and kind, at another id.
    let kept = compare_failures(oom(5, "ttnn.matmul"), oom(5, "ttnn.matmul"));
    assert_eq!(lead_line(&kept), "No failure is gone or new; still there: Out of memory in ttnn.matmul (operation 5).");
    let moved = RunFailure { operation_id: 9, ..oom(5, "ttnn.matmul").remove(0) };
    let kept = compare_failures(oom(5, "ttnn.matmul"), vec![moved]);
    assert_eq!(kept_words(&kept.kept[0]), "Out of memory in ttnn.matmul (operation 5, now 9)");
    // Another kind on the same operation is not the same failure.
    let changed = compare_failures(oom(5, "ttnn.matmul"), clash(5, "ttnn.matmul"));
    assert_eq!((changed.gone.len(), changed.new.len(), changed.kept.len()), (1, 1, 0));
}

#[test]
fn several_failures_are_counted_and_kept_ones_close_the_line() {
    let errors = |names: &[(u64, &str, &str)]| {
        let list = names.iter().map(|&(id, name, message)| error(id, name, "RuntimeError", message)).collect();
        failures(&STALE_CHAIN, list)
    };
    let before = errors(&[(1, "ttnn.matmul", OOM), (2, "ttnn.add", OOM), (3, "ttnn.relu", OOM)]);
    let after = errors(&[(3, "ttnn.relu", OOM)]);
    let changes = compare_failures(before, after);
    assert_eq!(
        lead_line(&changes),
        "Out of memory in ttnn.matmul (operation 1) and 1 more are gone; no new failure; still there: Out of memory in ttnn.relu (operation 3)."
    );
    // Two of a name and kind before, one after: the first is kept, the second gone.
    let before = errors(&[(1, "ttnn.matmul", OOM), (5, "ttnn.matmul", OOM)]);
    let after = errors(&[(5, "ttnn.matmul", OOM)]);
    let changes = compare_failures(before, after);
    assert_eq!((changes.kept[0].0.operation_id, changes.kept[0].1.operation_id), (1, 5));
    assert_eq!(changes.gone[0].operation_id, 5);
}

/// ttnn 0.75 records no message for a failed operation: its failure is the same as another
/// release's failure of that operation, whatever its kind; two known kinds still differ.
#[test]
fn a_failure_without_a_message_is_kept_with_the_other_runs() {
    let message = "Operation 'ttnn.add' started but never completed (likely crashed)";
    let unknown = failures(&["ttnn.add"], vec![error(1, "ttnn.add", "incomplete_operation", message)]);
    let oom = failures(&["ttnn.add"], vec![error(1, "ttnn.add", "RuntimeError", OOM)]);
    let changes = compare_failures(unknown.clone(), oom.clone());
    assert_eq!((changes.gone.len(), changes.new.len(), changes.kept.len()), (0, 0, 1));
    assert_eq!(lead_line(&changes), "No failure is gone or new; still there: Out of memory in ttnn.add (operation 1).");
    let changes = compare_failures(oom, unknown);
    assert_eq!(kept_words(&changes.kept[0]), "Out of memory in ttnn.add (operation 1)");
    let clash = failures(&["ttnn.matmul"], vec![error(1, "ttnn.matmul", "RuntimeError", CLASH)]);
    let on_matmul = failures(&["ttnn.matmul"], vec![error(1, "ttnn.matmul", "RuntimeError", OOM)]);
    assert_eq!(compare_failures(on_matmul, clash).kept.len(), 0);
}

fn series(figures: &[Option<u64>]) -> UsageSeries {
    let points = figures
        .iter()
        .enumerate()
        .map(|(k, used)| UsagePoint { operation_id: k as u64 + 1, used_per_bank: *used, recorded: true })
        .collect();
    UsageSeries::new((0, BufferType::L1), UsageBasis::Snapshots, points, &[], None)
}

#[test]
fn memory_after_each_aligned_pair() {
    let before = ["ttnn.empty", "ttnn.empty", "ttnn.add"];
    let after = ["ttnn.empty", "ttnn.deallocate", "ttnn.empty", "ttnn.add"];
    let alignment = Alignment::new(&before, &after);
    let (b, a) = (series(&[Some(100), Some(300), None]), series(&[Some(100), Some(50), Some(250), Some(400)]));
    let uses: Vec<PairUse> = pair_uses(&b, &a, &alignment).collect();
    // The failed `ttnn.add` of BEFORE has no figure: it is not compared.
    assert_eq!(uses.len(), 2);
    let counted = count_pair_uses(uses.into_iter());
    assert_eq!((counted.compared, counted.lower, counted.higher), (2, 1, 0));
    let name = |side: bool, k: usize| ((k + 1) as u64, if side { before[k] } else { after[k] }.to_string());
    assert_eq!(
        pairs_sentence("L1 per bank on device 0", &counted, name),
        "L1 per bank on device 0 after the 2 aligned operations with a figure in both runs: less after 1, more after none, the same after 1; the largest change is after operation 2 ttnn.empty (now operation 3): 300 B before, 250 B after."
    );
    assert_eq!(
        aligned_sentence(&alignment, (3, 4), name),
        "3 operations aligned (3 before, 4 after); the runs part at operation 2 ttnn.deallocate, which only the after run has."
    );
}

#[test]
fn a_line_of_one_run_in_the_other() {
    let keys = [(1, BufferType::L1), (1, BufferType::Dram)];
    assert_eq!(matching_key((1, BufferType::L1), &keys), Some((1, BufferType::L1)));
    // A single chip named 0 by one release and 1 by another.
    assert_eq!(matching_key((0, BufferType::Dram), &keys), Some((1, BufferType::Dram)));
    let two = [(0, BufferType::L1), (1, BufferType::L1)];
    assert_eq!(matching_key((2, BufferType::L1), &two), None);
    assert_eq!(matching_key((0, BufferType::L1Small), &keys), None);
}
