//! Properties that hold for any input (issue 9 §3), checked with proptest on a bounded number of
//! cases (a few seconds in all): parsing never panics, the sanitiser's output is printable, every
//! byte figure formats and parses back within its rounding, graph parsing and the scope rules
//! never panic; text around a message in a log never changes its explanation, and a log of any
//! bytes never panics. The fuzz targets under `tests/fuzz/` push the same paths much further.

use proptest::prelude::*;
use ttnn_tui::analysis::format::{format_address, format_percent, format_size};
use ttnn_tui::analysis::graph::nodes::{parse_graph, parse_scopes};
use ttnn_tui::analysis::graph::scopes::{
    completed_device_operations, failed_device_operations, pair_scopes, scope_closes, started_device_operations,
};
use ttnn_tui::analysis::graph::tree::device_ops_tree;
use ttnn_tui::analysis::messages::failure::parse_allocation_failure;
use ttnn_tui::analysis::messages::reason::{CalloutBody, explain, summary};
use ttnn_tui::analysis::sanitize::{sanitize_line, sanitize_text};
use ttnn_tui::explain::{render_log_json, render_log_text, scan_log};

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

/// Real messages of docs/rules/messages.md §R the log scan must find whatever surrounds them.
const REAL_MESSAGES: &[&str] = &[
    "Out of Memory: Not enough space to allocate 26542080 B L1 buffer across 48 banks, where each bank needs to store 552960 B, but bank size is 1329888 B (allocated: 417792 B, free: 912096 B, largest free block: 522240 B) (assert.hpp:104)",
    "Out of Memory: Not enough space to allocate 4294967296 B DRAM buffer across 12 banks, where each bank needs to store 357916672 B, but bank size is 1071821792 B (allocated: 527808576 B, free: 544013216 B, largest free block: 306904160 B) (assert.hpp:104)",
    "TT_FATAL: Out of Memory: Not enough space to allocate 1061683200 B DRAM buffer across 8 banks, where each bank needs to store 132710400 B, but bank size is 4273390016 B (allocated: 4221954688 B, free: 51435328 B, largest free block: 45589184 B)",
    "Statically allocated circular buffers on core range [(x=0,y=0) - (x=7,y=3)] grow to 2587616 B which is beyond max L1 size of 1499136 B",
    "Statically allocated circular buffers in program 77 clash with L1 buffers on core range [(x=0,y=0) - (x=7,y=7)]. L1 buffer allocated at 974336 and static circular buffer region ends at 1089536",
    // Beyond the reference (docs/rules/reference.md §13): V0 (M11), no prefix (M09), a circular buffer
    // larger than its buffer (G01).
    "Out of Memory: Not enough space to allocate 98304000 B L1 buffer across 100 banks, where each bank needs to store 983040 B",
    "Not enough space to allocate 1027604480 B DRAM buffer across 12 banks, where each bank needs to store 85635072 B, but bank size is only 1073741792 B",
    "Cannot set to globally allocated buffer. Circular buffer size 28672 B exceeds allocated L1 buffer size of 4096 B",
];

/// Log text that cannot begin an allocation-failure message (no capital letters).
fn log_noise() -> impl Strategy<Value = Vec<String>> {
    proptest::collection::vec("[a-z0-9 :|_.=>{}\\[\\]()-]{0,40}", 0..6)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..config() })]

    #[test]
    fn text_around_a_message_never_changes_its_explanation(
        message in proptest::sample::select(REAL_MESSAGES),
        before in log_noise(),
        after in log_noise(),
        (same_line_before, same_line_after) in ("[a-z |:]{0,12}", "( [a-z |:]{0,12})?"),
        crlf in any::<bool>(),
        colour in proptest::sample::select(vec![("", ""), ("\x1b[1;31m", "\x1b[0m"), ("\x1b]0;t\x07", "\x1b[K")]),
        timestamp in any::<bool>(),
        pytest in any::<bool>(),
    ) {
        let eol = if crlf { "\r\n" } else { "\n" };
        let stamp = if timestamp { "2026-05-14T01:00:31.7551234Z " } else { "" };
        let marker = if pytest { "E       " } else { "" };
        let line = format!("{stamp}{marker}{same_line_before}{}{message}{}{same_line_after}", colour.0, colour.1);
        let text: String = before.iter().map(|l| format!("{stamp}{l}{eol}")).chain(std::iter::once(format!("{line}{eol}")))
            .chain(after.iter().map(|l| format!("{stamp}{l}{eol}"))).collect();
        let found = scan_log(std::io::Cursor::new(text.as_bytes())).unwrap();
        prop_assert_eq!(found.failures.len(), 1, "{:?}", text);
        let f = &found.failures[0];
        prop_assert_eq!(f.line, before.len() as u64 + 1);
        let alone = parse_allocation_failure(message).unwrap();
        prop_assert_eq!(summary(&f.failure, false), summary(&alone, false));
        prop_assert_eq!(explain(&f.failure, false), explain(&alone, false));
        prop_assert_eq!(&f.failure, &alone);
    }

    #[test]
    fn a_log_never_panics_and_its_explanation_is_printable(
        bytes in prop_oneof![
            proptest::collection::vec(any::<u8>(), 0..2000),
            proptest::collection::vec(message(), 0..8).prop_map(|m| m.join("\r\nE   ").into_bytes()),
            hostile_text().prop_map(String::into_bytes),
        ],
        hex in any::<bool>(),
    ) {
        let found = scan_log(std::io::Cursor::new(bytes)).unwrap();
        assert_printable(&render_log_text(&found, hex, false), true)?;
        let json: serde_json::Value = serde_json::from_str(&render_log_json(&found, "-", hex)).unwrap();
        prop_assert_eq!(json["failures"].as_array().map(Vec::len), Some(found.failures.len()));
    }
}
