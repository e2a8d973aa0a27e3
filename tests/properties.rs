//! Properties that hold for any input (issue 9 §3), checked with proptest on a bounded number of
//! cases (a few seconds in all): parsing never panics, the sanitiser's output is printable, every
//! byte figure formats and parses back within its rounding, graph parsing and the scope rules
//! never panic. The fuzz targets under `tests/fuzz/` push the same paths much further.

use proptest::prelude::*;
use ttnn_tui::analysis::failure::parse_allocation_failure;
use ttnn_tui::analysis::format::{format_address, format_percent, format_size};
use ttnn_tui::analysis::graph::{parse_graph, parse_scopes};
use ttnn_tui::analysis::reason::{CalloutBody, explain, summary};
use ttnn_tui::analysis::sanitize::{sanitize_line, sanitize_text};
use ttnn_tui::analysis::scopes::{
    completed_device_operations, failed_device_operations, pair_scopes, scope_closes, started_device_operations,
};
use ttnn_tui::analysis::tree::device_ops_tree;

fn config() -> ProptestConfig {
    ProptestConfig { cases: 1024, failure_persistence: None, ..ProptestConfig::default() }
}

/// Pieces of real messages, so generated text reaches deep into the parser.
const MESSAGE_PIECES: &[&str] = &[
    "Out of Memory: Not enough space to allocate ",
    " B L1 buffer across ",
    " B DRAM buffer across ",
    " B L1_SMALL buffer across ",
    " banks, where each bank needs to store ",
    " B, but bank size is only ",
    " B, but bank size is ",
    " B (allocated: ",
    " B, free: ",
    " B, largest free block: ",
    " B, placeable: ",
    " B, largest placeable block: ",
    "Statically allocated circular buffers on core range [(x=0,y=0) - (x=7,y=7)] grow to ",
    " B which is beyond max L1 size of ",
    "Statically allocated circular buffers in program 12 clash with L1 buffers on core range [0-0 - 10-9]. L1 buffer allocated at ",
    " and static circular buffer region ends at ",
    "dataflow buffers",
    "\ninfo:\n",
    "TT_FATAL @ a.cpp:1: false",
    " B",
    " ",
    "\n",
];

fn message() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        proptest::sample::select(MESSAGE_PIECES).prop_map(str::to_string),
        any::<u64>().prop_map(|n| n.to_string()),
        (0u64..5_000_000).prop_map(|n| n.to_string()),
        "[ -~]{0,8}",
    ];
    proptest::collection::vec(piece, 0..24).prop_map(|pieces| pieces.concat())
}

/// Unicode's Bidi_Control characters.
fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{061C}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

fn assert_printable(text: &str, multiline: bool) -> Result<(), TestCaseError> {
    for c in text.chars() {
        prop_assert!(!(c.is_control() && !(multiline && c == '\n')), "control {:?} in {:?}", c, text);
        prop_assert!(!is_bidi_control(c), "bidi control {:?} in {:?}", c, text);
    }
    Ok(())
}

/// Text rich in controls, escapes, bidi controls and C1 characters.
fn hostile_text() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        "[\\x00-\\x1f\\x7f-\\u{9f}]{1,3}",
        proptest::sample::select(vec![
            "\x1b[", "\x1b]", "\x1bP", "\x1b\\", "\x07", "\u{9b}", "\u{9d}", "\u{9c}", "\r\n"
        ])
        .prop_map(str::to_string),
        proptest::sample::select(vec![
            '\u{061C}', '\u{200E}', '\u{200F}', '\u{202A}', '\u{202E}', '\u{2066}', '\u{2069}'
        ])
        .prop_map(String::from),
        "[ -~]{0,6}",
        any::<String>(),
    ];
    proptest::collection::vec(piece, 0..12).prop_map(|pieces| pieces.concat())
}

/// The value a formatted size stands for, and the largest error its rounding allows: half a unit
/// of its last digit place (0 for bytes, 1 KiB / 2 for KiB, 0.005 of the unit above).
fn parse_size(text: &str) -> (f64, f64) {
    let (number, unit) = text.rsplit_once(' ').expect("a number and a unit");
    let number: f64 = number.replace(',', "").parse().expect("a decimal number");
    let (scale, decimals) = match unit {
        "B" => (1.0, 0),
        "KiB" => (1024.0, 0),
        "MiB" => (1024f64.powi(2), 2),
        "GiB" => (1024f64.powi(3), 2),
        "TiB" => (1024f64.powi(4), 2),
        other => panic!("unit {other}"),
    };
    let tolerance = if unit == "B" { 0.0 } else { 0.5 * scale / 10f64.powi(decimals) };
    (number * scale, tolerance)
}

/// A captured-graph node as JSON: a known or unknown type, a counter, loose params.
fn node() -> impl Strategy<Value = String> {
    let node_type = proptest::sample::select(vec![
        "capture_start",
        "capture_end",
        "function_start",
        "function_end",
        "buffer_allocate",
        "buffer_deallocate",
        "circular_buffer_allocate",
        "circular_buffer_deallocate_all",
        "tensor",
        "buffer",
        "other",
    ]);
    let name = proptest::sample::select(vec![
        "ttnn.conv2d",
        "Conv2dDeviceOperation",
        "MatmulDeviceOperation",
        "HaloDeviceOperation",
        "",
    ]);
    let aborted =
        proptest::sample::select(vec!["", r#","aborted":"true""#, r#","aborted":true"#, r#","aborted":"True""#]);
    let number = prop_oneof![any::<u64>().prop_map(|n| n.to_string()), any::<i64>().prop_map(|n| format!("\"{n}\""))];
    (node_type, 0u64..40, name, aborted, number.clone(), number, 0u64..4).prop_map(
        |(node_type, counter, name, aborted, size, address, level)| {
            format!(
                r#"{{"counter":{counter},"node_type":"{node_type}","params":{{"name":"{name}"{aborted},"size":{size},"address":{address},"type":"L1","stacking_level":"{level}"}},"connections":[{}]}}"#,
                counter + 1
            )
        },
    )
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn parsing_a_message_never_panics(text in prop_oneof![message(), any::<String>()]) {
        if let Some(failure) = parse_allocation_failure(&text) {
            for hex in [false, true] {
                let _ = summary(&failure, hex);
                let _ = explain(&failure, hex);
                let _ = CalloutBody::new(&failure, hex, &[], None).lines();
            }
        }
    }

    #[test]
    fn the_sanitisers_output_is_printable(text in hostile_text()) {
        assert_printable(&sanitize_line(&text), false)?;
        assert_printable(&sanitize_text(&text), true)?;
    }

    #[test]
    fn every_byte_figure_formats_and_parses_back(value in prop_oneof![any::<u64>(), 0u64..1 << 20, 0u64..1 << 40]) {
        let text = format_size(value as i128);
        let (parsed, tolerance) = parse_size(&text);
        // f64 holds the figure to about 1 part in 2^53: allow that on top of the rounding.
        let slack = tolerance + value as f64 * f64::EPSILON * 4.0;
        prop_assert!((parsed - value as f64).abs() <= slack, "{} -> {} ({} off, {} allowed)", value, text, (parsed - value as f64).abs(), slack);
    }

    #[test]
    fn signed_differences_format_exactly(value in any::<i64>()) {
        let text = format_size(value as i128);
        if value < 0 {
            let digits = text.strip_prefix('-').and_then(|t| t.strip_suffix(" B")).expect("`-{n} B`");
            prop_assert_eq!(digits.replace(',', "").parse::<u64>().ok(), Some(value.unsigned_abs()));
        }
    }

    #[test]
    fn addresses_parse_back_exactly(address in any::<u64>()) {
        prop_assert_eq!(format_address(Some(address), false).parse::<u64>().ok(), Some(address));
        let hex = format_address(Some(address), true);
        prop_assert_eq!(u64::from_str_radix(hex.strip_prefix("0x").expect("0x"), 16).ok(), Some(address));
    }

    #[test]
    fn percentages_parse_back_within_their_rounding(value in -1e12f64..1e12) {
        let text = format_percent(value);
        let parsed: f64 = text.strip_suffix('%').expect("%").replace(',', "").parse().expect("a number");
        prop_assert!((parsed - value).abs() <= 0.005 + value.abs() * f64::EPSILON * 4.0, "{} -> {}", value, text);
    }

    #[test]
    fn graph_parsing_and_the_scope_rules_never_panic(
        nodes in proptest::collection::vec(node(), 0..24),
        junk in "[\\[\\]{}\",:0-9a-z ]{0,40}",
    ) {
        for text in [format!("[{}]", nodes.join(",")), junk] {
            if let Ok(nodes) = parse_graph(&text) {
                let _ = pair_scopes(&nodes);
                for recorded in [false, true] {
                    let _ = scope_closes(&nodes, recorded);
                    let _ = device_ops_tree(&nodes, recorded);
                }
                let _ = failed_device_operations(&nodes);
                let _ = completed_device_operations(&nodes);
                let _ = started_device_operations(&nodes);
            }
            if let Ok(nodes) = parse_scopes(&text) {
                let _ = completed_device_operations(&nodes);
            }
        }
    }
}
