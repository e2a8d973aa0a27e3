//! Failures recognised beyond the reference (docs/rules/reference.md §13) on screen: a circular buffer
//! larger than its L1 buffer counts as an allocation failure everywhere, and every record made
//! beyond the reference is marked in its callout; a parity record is not.

use crate::tui_support;

use ttnn_tui::app::Action::*;
use tui_support::{Harness, Report};

const CB_TOO_LARGE: &str =
    "Cannot set to globally allocated buffer. Circular buffer size 28672 B exceeds allocated L1 buffer size of 4096 B";
const V0_L1: &str = "Out of Memory: Not enough space to allocate 98304000 B L1 buffer across 100 banks, where each bank needs to store 983040 B";
const WRAPPED_CLASH: &str = "TT_THROW: Statically allocated circular buffers in program 2282 clash with L1 buffers\non core range [0-0 - 10-9]. L1 buffer allocated at 1563072 and static circular buffer\nregion ends at 1563264";
const CLASH: &str = "Statically allocated circular buffers in program 453 clash with L1 buffers on core range [(x=0,y=0) - (x=4,y=0)]. L1 buffer allocated at 622592 and static circular buffer region ends at 654368";

fn harness(plain: bool) -> Harness {
    let report = Report::default()
        .op(1, "ttnn.add", None)
        .op(2, "ttnn.add", None)
        .op(3, "ttnn.matmul", None)
        .op(4, "ttnn.conv2d", None)
        .op(5, "ttnn.conv2d", None)
        .op(6, "ttnn.relu", None)
        .error(2, "ttnn.add", "RuntimeError", CB_TOO_LARGE)
        .error(3, "ttnn.matmul", "RuntimeError", V0_L1)
        .error(4, "ttnn.conv2d", "RuntimeError", WRAPPED_CLASH)
        .error(5, "ttnn.conv2d", "RuntimeError", CLASH)
        .open();
    Harness::new(report, 160, 40, plain, None)
}

/// The detail pane's text of the operation with this id, one string per line.
fn detail_of(h: &mut Harness, id: u64) -> String {
    h.press(&[First]);
    while h.selected_id() != Some(id) {
        h.press(&[Down]);
    }
    let i = h.app.selected_operation().expect("a selected operation");
    let lines = ttnn_tui::ui::detail::detail_lines(&h.view(), i);
    lines.iter().map(|l| l.to_string()).collect::<Vec<_>>().join("\n")
}

#[test]
fn a_circular_buffer_larger_than_its_buffer_is_an_allocation_failure_in_the_list() {
    let mut h = harness(false);
    let screen = h.screen();
    assert!(screen.contains("Operations · 6 operations · 4 with errors"), "{screen}");
    assert!(screen.contains("✖ CB    2 ttnn.add (model.py:20)"), "{screen}");
    assert!(screen.contains("✖ OOM   3 ttnn.matmul (model.py:30)"), "{screen}");
    // It opens on operation 2, whose callout is marked on screen.
    assert!(screen.contains("Circular buffer larger than its L1 buffer (beyond TT-NN Visualizer)"), "{screen}");
    h.press(&[ToggleErrorsOnly]);
    let screen = h.screen();
    assert!(screen.contains("Showing 4 of 6 operations"), "{screen}");
    assert!(!screen.contains("ttnn.relu"), "{screen}");
}

#[test]
fn callouts_made_beyond_the_reference_are_marked_and_parity_ones_are_not() {
    let mut h = harness(true);
    let cb = detail_of(&mut h, 2);
    assert!(
        cb.contains(
            "Circular buffer larger than its L1 buffer (beyond TT-NN Visualizer)\nA circular buffer of 28 KiB is set on an L1 buffer of 4 KiB per bank\nLarger than its buffer. The circular buffer lives inside a tensor's L1 buffer, which holds 4 KiB per bank; it needs 24 KiB more."
        ),
        "{cb}"
    );
    let old = detail_of(&mut h, 3);
    assert!(
        old.contains(
            "Out of memory (beyond TT-NN Visualizer)\nRequested 93.75 MiB L1 across 100 banks (960 KiB per bank)\n"
        ),
        "{old}"
    );
    // Found only once its lines were joined: beyond the reference too.
    let wrapped = detail_of(&mut h, 4);
    assert!(
        wrapped.contains(
            "Circular buffers clash with L1 buffers (beyond TT-NN Visualizer)\nCircular buffers on [0-0 - 10-9] end at 1563264, past an L1 buffer at 1563072\n"
        ),
        "{wrapped}"
    );
    let parity = detail_of(&mut h, 5);
    assert!(parity.contains("Circular buffers clash with L1 buffers\nCircular buffers on [(x=0,y=0)"), "{parity}");
    assert!(!parity.contains("beyond TT-NN Visualizer"), "{parity}");
}

/// Issue 30 §4.4: the mark is explained where it is drawn (a legend line under the callout),
/// and in the `?` help; a parity callout has no legend.
#[test]
fn the_mark_is_explained_under_the_callout_and_in_the_help() {
    let mut h = harness(true);
    let legend = "(beyond TT-NN Visualizer: TT-NN Visualizer shows the message raw; ttnn-tui recognises it with a pattern of its own)";
    let cb = detail_of(&mut h, 2);
    assert_eq!(cb.lines().filter(|l| *l == legend).count(), 1, "{cb}");
    let kind = cb.lines().position(|l| l.ends_with("(beyond TT-NN Visualizer)")).unwrap();
    let legend_at = cb.lines().position(|l| l == legend).unwrap();
    assert!(legend_at > kind && legend_at <= kind + 4, "{cb}");
    assert!(!detail_of(&mut h, 5).contains(legend));
    let help: Vec<String> = ttnn_tui::ui::help::help_lines(&h.app, &h.theme, ttnn_tui::app::Pane::Operations)
        .iter()
        .map(|l| l.to_string())
        .collect();
    assert_eq!(help[help.len() - 2], "Marks");
    assert_eq!(
        help[help.len() - 1],
        "  (beyond TT-NN Visualizer) after a failure's kind: TT-NN Visualizer shows the message raw; ttnn-tui recognises it with a pattern of its own (beyond_reference: true in the JSON)"
    );
}
