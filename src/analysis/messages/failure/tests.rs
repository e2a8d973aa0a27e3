//! The order of docs/rules/reference.md §13.1, the patterns of §13.2 and what stays raw, and the property
//! that breaking a message over lines changes only its `beyond_reference` flag.

use super::patterns::collapse_whitespace;
use super::{FailureKind, parse_allocation_failure};
use crate::analysis::messages::reason::{explain, summary};
use proptest::prelude::*;

fn kind(message: &str) -> Option<FailureKind> {
    parse_allocation_failure(message).map(|f| f.kind)
}

/// `(summary, "{reason label}. {detail}")` of a message that must parse.
fn texts(message: &str) -> (String, Option<String>) {
    let f = parse_allocation_failure(message).unwrap_or_else(|| panic!("not parsed: {message}"));
    (summary(&f, false), explain(&f, false).map(|e| format!("{}. {}", e.reason.label(), e.detail)))
}

const V2_L1: &str = "Out of Memory: Not enough space to allocate 3276800 B L1 buffer across 4 banks, where each bank needs to store 819200 B, but bank size is only 1382720 B";
const V3_L1: &str = "Out of Memory: Not enough space to allocate 3276800 B L1 buffer across 4 banks, where each bank needs to store 819200 B, but bank size is 1382720 B (allocated: 1000000 B, free: 382720 B, largest free block: 300000 B)";
const V0_L1: &str = "Out of Memory: Not enough space to allocate 3276800 B L1 buffer across 4 banks, where each bank needs to store 819200 B";

#[test]
fn a_reference_pattern_anywhere_wins_over_an_earlier_old_message() {
    let f = parse_allocation_failure(&format!("{V0_L1}\n{V2_L1}")).unwrap();
    assert!(!f.beyond_reference);
    assert_eq!(f.figures.bank_size, Some(1382720));
}

#[test]
fn patterns_beyond_the_reference_on_the_stored_text_come_before_collapsing() {
    // A circular-buffer message broken over lines, then a one-line dataflow clash: the clash is
    // found on the stored text (step 2) before the broken message is rejoined (step 3).
    let text = "Statically allocated circular buffers on core range [0-0 - 1-1] grow to\n  2000 B which is beyond max L1 size of 1000 B\nStatically allocated dataflow buffers in program 1 clash with L1 buffers on core range [0-0 - 1-1]. L1 buffer allocated at 10 and static dataflow buffer region ends at 20";
    let f = parse_allocation_failure(text).unwrap();
    assert_eq!((f.kind, f.beyond_reference), (FailureKind::CircularBuffersClash, true));
    let rejoined = parse_allocation_failure(&text[..text.find("\nStatically allocated dataflow").unwrap()]).unwrap();
    assert_eq!((rejoined.kind, rejoined.beyond_reference), (FailureKind::CircularBuffersBeyondL1, true));
}

#[test]
fn a_v2_message_broken_after_the_per_bank_figure_keeps_its_bank_size() {
    // The old (B2) wording is a prefix of it; read on the stored text it would lose the bank size.
    let broken = V2_L1.replace("819200 B, but", "819200 B,\r\n    but");
    let f = parse_allocation_failure(&broken).unwrap();
    assert_eq!((f.beyond_reference, f.figures.bank_size), (true, Some(1382720)));
    let unprefixed = broken.replace("Out of Memory: ", "");
    assert_eq!(parse_allocation_failure(&unprefixed).unwrap().figures.bank_size, Some(1382720));
}

#[test]
fn a_v3_message_broken_inside_its_statistics_reads_as_the_v2_form_the_reference_sees() {
    let broken = V3_L1.replace("1000000 B, free", "1000000 B,\nfree");
    let f = parse_allocation_failure(&broken).unwrap();
    assert!(!f.beyond_reference, "the reference matches the message up to the bank size");
    assert_eq!((f.figures.bank_size, f.figures.allocated, f.figures.free), (Some(1382720), None, None));
}

#[test]
fn the_service_core_clash_is_a_clash() {
    let b4 = "Circular buffers on service-core range [0-0 - 0-9] in program 12 clash with ServiceCoreManager-allocated L1 (lowest service allocation at 1400000, CB region ends at 1400512)";
    let f = parse_allocation_failure(b4).unwrap();
    assert_eq!((f.kind, f.beyond_reference), (FailureKind::CircularBuffersClash, true));
    assert_eq!(
        texts(b4),
        (
            "Circular buffers on [0-0 - 0-9] end at 1400512, past an L1 buffer at 1400000".to_string(),
            Some("Overlaps an L1 buffer. The circular buffers overlap the L1 buffer at 1400000 by 512 B.".to_string())
        )
    );
}

#[test]
fn both_wordings_of_a_circular_buffer_larger_than_its_buffer() {
    // The 2026 wording, as a public bring-up note quotes it: once on one line, once broken.
    let one_line = "TT_FATAL ... Cannot set circular buffer size to 65536. This is larger than the associated dynamically allocated L1 buffer bank size of 34816 B";
    let broken = "TT_FATAL ... Cannot set circular buffer size to 65536. This is larger than the\n             associated dynamically allocated L1 buffer bank size of 34816 B";
    let expected = (
        "A circular buffer of 64 KiB is set on an L1 buffer of 34 KiB per bank".to_string(),
        Some("Larger than its buffer. The circular buffer lives inside a tensor's L1 buffer, which holds 34 KiB per bank; it needs 30 KiB more. A larger shard for that tensor, or a smaller circular buffer (a smaller block), fits.".to_string()),
    );
    for message in [one_line, broken] {
        assert_eq!(kind(message), Some(FailureKind::CircularBufferExceedsItsBuffer), "{message}");
        assert_eq!(texts(message), expected, "{message}");
    }
    // The 2024–2025 wording with and without `bank`.
    let old = "Cannot set to globally allocated buffer. Circular buffer size 35904 B exceeds allocated L1 buffer bank size of 34816 B";
    assert_eq!(parse_allocation_failure(old).unwrap().figures.l1_buffer_size, Some(34816));
    let without_bank = old.replace("buffer bank size", "buffer size");
    assert_eq!(parse_allocation_failure(&without_bank).unwrap().figures.circular_buffer_size, Some(35904));
}

#[test]
fn still_raw_after_section_13() {
    for text in [
        // D1 without statistics (docs/rules/messages.md D01) and a message cut short (M21).
        "Out of Memory: Not enough space after considering dependencies to allocate 262144 B L1 across 1 banks (262144 B per bank)",
        "Out of Memory: Not enough space to allocate 8192 B L1_SMALL buffer across 64 banks",
        // Unformatted templates.
        "Out of Memory: Not enough space to allocate {} B {} buffer across {} banks, where each bank needs to store {} B",
        "Statically allocated circular buffers in program {} clash with L1 buffers on core range {}. L1 buffer allocated at {} and static circular buffer region ends at {}",
        "Cannot set circular buffer size to {}. This is larger than the associated dynamically allocated L1 buffer bank size of {} B",
        // The free list's own limit (tt-metal `FreeList::allocate`).
        "Out of Memory: Cannot allocate at an address below 1048576. Allocation at 1024",
        // The circular-buffer size warning (tt-metal#15337) lacks the `Cannot set …` sentence.
        "Circular buffer size 104448 B exceeds allocated L1 buffer bank size of 90304 B. This may allow this circular buffer to write outside the allocated buffer space.",
    ] {
        assert_eq!(kind(text), None, "{text}");
    }
}

#[test]
fn a_figure_beyond_64_bits_leaves_any_pattern_unrecognised() {
    let huge = "18446744073709551616";
    assert_eq!(kind(&V0_L1.replace("819200", huge)), None);
    assert_eq!(
        kind(&format!(
            "Cannot set circular buffer size to {huge}. This is larger than the associated dynamically allocated L1 buffer bank size of 1 B"
        )),
        None
    );
    assert_eq!(kind(&V2_L1.replace("819200 B, but", &format!("{huge} B,\nbut"))), None);
}

#[test]
fn every_whitespace_run_becomes_one_space() {
    assert_eq!(collapse_whitespace("a \t\r\n b\u{2028}c\u{2029}\u{2029}d\te"), "a b c d e");
    assert!(matches!(collapse_whitespace("one space each"), std::borrow::Cow::Borrowed(_)));
    let paragraph = V2_L1.replace(" where", "\u{2029}where").replace("bank size", "bank\u{2028}size");
    assert_eq!(parse_allocation_failure(&paragraph).unwrap().figures.bank_size, Some(1382720));
}

/// Parity messages whose every word is required, so a break anywhere leaves the stored text
/// unmatched (a break inside an optional tail reads as the shorter form, as the reference does).
const PARITY: &[&str] = &[
    V2_L1,
    "Out of Memory: Not enough space to allocate 27776 B L1_SMALL buffer across 62 banks, where each bank needs to store 448 B, but bank size is only 0 B",
    "Out of Memory: Not enough space after considering dependencies to allocate 4096 B DRAM across 2 banks (2048 B per bank), bank size is 8192 B (allocated: 3072 B, free: 5120 B, largest free block: 3072 B)",
    "Statically allocated circular buffers on core range [(x=0,y=0) - (x=7,y=7)] grow to 1600000 B which is beyond max L1 size of 1499136 B",
    "Statically allocated circular buffers in program 166 clash with L1 buffers on core range [(x=0,y=0) - (x=4,y=7)]. L1 buffer allocated at 600256 and static circular buffer region ends at 621824",
];

/// The word boundaries of a message: its spaces, except those inside a core range and the ones
/// around it (the core range is any text on one line, so extra spaces there are kept verbatim,
/// as the reference keeps them).
fn word_boundaries(message: &str) -> Vec<usize> {
    let core_range = message.find('[').zip(message.find(']'));
    message
        .char_indices()
        .filter(|&(i, c)| c == ' ' && !core_range.is_some_and(|(start, end)| start <= i + 1 && i <= end + 1))
        .map(|(i, _)| i)
        .collect()
}

fn whitespace_run() -> impl Strategy<Value = String> {
    prop::collection::vec(prop_oneof![Just(" "), Just("\n"), Just("\r\n"), Just("\t")], 1..4)
        .prop_map(|parts| parts.concat())
        .prop_filter("a single space changes nothing", |run| run != " ")
}

proptest! {
    #[test]
    fn whitespace_at_word_boundaries_gives_the_same_failure_beyond_the_reference(
        which in 0..PARITY.len(),
        breaks in prop::collection::vec((any::<prop::sample::Index>(), whitespace_run()), 1..4),
    ) {
        let message = PARITY[which];
        let parity = parse_allocation_failure(message).expect("a parity message");
        prop_assert!(!parity.beyond_reference);
        let boundaries = word_boundaries(message);
        let mut runs = std::collections::BTreeMap::new();
        for (index, run) in breaks {
            runs.insert(*index.get(&boundaries), run);
        }
        let mut broken = String::new();
        for (i, c) in message.char_indices() {
            match runs.get(&i) {
                Some(run) => broken.push_str(run),
                None => broken.push(c),
            }
        }
        let found = parse_allocation_failure(&broken);
        prop_assert!(found.is_some(), "not parsed: {:?}", broken);
        let found = found.unwrap();
        prop_assert_eq!(found.kind, parity.kind);
        prop_assert_eq!(&found.figures, &parity.figures);
        prop_assert!(found.beyond_reference, "{:?}", broken);
    }
}

#[test]
fn a_core_range_is_sanitised_text_from_the_message() {
    // Found by the `log` fuzz target: the core range is copied from the message, which is
    // untrusted; a NUL or an escape in it must not reach the summary.
    let message = "Statically allocated circular buffers on core range [0-0 -\u{0}7-7\u{1b}[2J] grow to 5576032 B which is beyond max L1 size of 1499136 B";
    let (summary, _) = texts(message);
    assert!(summary.starts_with("Circular buffers on [0-0 -"), "{summary}");
    assert!(!summary.chars().any(|c| c.is_control()), "{summary:?}");
}
