//! `ttnn-tui diff BEFORE AFTER` (docs/rules/interfaces.md §1): what changed between two runs — the failures
//! gone, new and kept, the operations aligned and where the runs part, the memory after the
//! aligned operations, each side's peaks as `explain --peak` gives them, the tensors held past
//! their last use, and the first new failure explained in full: the text, and the JSON (the
//! answer layer's `DiffAnswer` serialised, `render_diff_json`).

use super::explanation::ExplainOptions;
use super::paint::Paint;
use crate::analysis::compare::{
    RunFailure, aligned_sentence, count_pair_uses, failure_words, kept_words, lead_line, pair_uses, pairs_sentence,
};
use crate::analysis::format::{counted, size};
use crate::analysis::memory::late::late_heading;
use crate::analysis::memory::usage_series::UsageSeries;
use crate::analysis::sanitize::sanitize_line;
use crate::answer::{Compared, DiffAnswer, PeakAnswer, PeakPair, Run, Side, compare_opened, open_side};
use std::fmt::Write;

/// The text: the lead line, the two runs, the failures, the alignment, the memory after the
/// aligned operations, the peaks, the late tensors, then the first new failure's whole block.
pub fn render_diff_text(c: &Compared<'_>, options: &ExplainOptions) -> String {
    let paint = Paint::new(options.color);
    let mut out = String::new();
    let _ = writeln!(out, "{}", paint.bold(&lead_line(&c.changes)));
    let run = |r: &Run| {
        format!("{}, {}", r.report.source.display_path(), counted(r.report.operations.len(), "operation", "operations"))
    };
    let _ = writeln!(out, "Before: {}. After: {}.", sanitized(&run(&c.before)), sanitized(&run(&c.after)));
    failure_lines(&mut out, c);
    let sizes = (c.before.report.operations.len(), c.after.report.operations.len());
    let _ = writeln!(out, "{}", aligned_sentence(&c.alignment, sizes, |side, k| c.name(side, k)));
    if let Some((before, after)) = c.focus_lines() {
        let counted = count_pair_uses(pair_uses(before, after, &c.alignment));
        let _ = writeln!(out, "{}", pairs_sentence(&line_words(c, before, after), &counted, |side, k| c.name(side, k)));
    }
    peak_lines(&mut out, c);
    late_lines(&mut out, c);
    if let Some(next) = c.next(options.hex) {
        let _ = writeln!(out, "\n{}", paint.bold("Next to fix, the first new failure:"));
        out.push_str(&super::plain_text::operation_block(&next, options));
    }
    out
}

/// A path as the text gives it.
fn sanitized(text: &str) -> String {
    sanitize_line(text)
}

/// The line's name: `L1 per bank on device 0`, with AFTER's device when it names it otherwise
/// (a single chip is device 0 on both sides, whatever ids the tables use).
fn line_words(c: &Compared<'_>, before: &UsageSeries, after: &UsageSeries) -> String {
    let (b, a) = (c.before.named(before.device_id), c.after.named(after.device_id));
    let mut words = format!("{} per bank on device {b}", before.buffer_type.token());
    if a != b {
        let _ = write!(words, " (device {a} after)");
    }
    words
}

/// `Gone:`, `New:` and `Still there:` lines, each failure with its summary and reason.
fn failure_lines(out: &mut String, c: &Compared<'_>) {
    let detail = |out: &mut String, f: &RunFailure| {
        let _ = writeln!(out, "  {}", f.summary);
        if let Some(reason) = f.reason {
            let _ = writeln!(out, "  {}.", reason.label());
        }
    };
    for f in &c.changes.gone {
        let _ = writeln!(out, "Gone: {}", failure_words(f));
        detail(out, f);
    }
    for f in &c.changes.new {
        let _ = writeln!(out, "New: {}", failure_words(f));
        detail(out, f);
    }
    for kept in &c.changes.kept {
        let _ = writeln!(out, "Still there: {}", kept_words(kept));
        detail(out, &kept.1);
    }
}

/// One line per device and buffer type: each run's peak, as `explain --peak` gives it, and how
/// far apart they are.
fn peak_lines(out: &mut String, c: &Compared<'_>) {
    let side = |line: Option<&PeakAnswer>, run: &Run, word: &str| {
        line.map(|l| {
            let id = l.peak.operation_id;
            let name =
                run.report.operation_index(id).map_or(String::new(), |i| format!(" {}", run.report.operations[i].name));
            format!("{} per bank {word} (operation {id}{name})", size(l.peak.used_per_bank))
        })
    };
    for PeakPair { key: (device, kind), after_device, before, after } in c.peak_pairs() {
        let (b, a) = (side(before, &c.before, "before"), side(after, &c.after, "after"));
        let change = match (before, after) {
            (Some(b), Some(a)) => match a.peak.used_per_bank.cmp(&b.peak.used_per_bank) {
                std::cmp::Ordering::Less => format!(": {} lower", size(b.peak.used_per_bank - a.peak.used_per_bank)),
                std::cmp::Ordering::Greater => {
                    format!(": {} higher", size(a.peak.used_per_bank - b.peak.used_per_bank))
                }
                std::cmp::Ordering::Equal => ": the same".to_string(),
            },
            _ => String::new(),
        };
        let both = match (b, a) {
            (Some(b), Some(a)) => format!("{b}, {a}"),
            (Some(b), None) => format!("{b}, none after"),
            (None, Some(a)) => format!("{a}, none before"),
            (None, None) => continue,
        };
        // The key is BEFORE's, else AFTER's; a single chip is device 0 on either side.
        let device = if before.is_some() { c.before.named(device) } else { c.after.named(device) };
        let after_device = after_device.map(|d| c.after.named(d)).filter(|&d| d != device);
        let after_device = after_device.map_or(String::new(), |d| format!(" (device {d} after)"));
        let _ = writeln!(out, "Peak {} use on device {device}{after_device}: {both}{change}.", kind.token());
    }
}

/// How many tensors each run holds past their last use, and what freeing them does to each line's
/// peak (`explain --late`'s headings).
fn late_lines(out: &mut String, c: &Compared<'_>) {
    let (before, after) = (c.before.memory.late.late.len(), c.after.memory.late.late.len());
    let tensors = |n: usize| counted(n, "tensor", "tensors");
    let _ = writeln!(out, "Held past their last use: {} before, {} after.", tensors(before), tensors(after));
    for (word, run) in [("Before", &c.before), ("After", &c.after)] {
        for s in run.memory.late.summary.iter().filter(|s| s.count > 0) {
            let _ = writeln!(
                out,
                "  {word}, {} on device {}: {}.",
                s.buffer_type.token(),
                run.named(s.device_id),
                late_heading(s)
            );
        }
    }
}

/// Opens both reports and gives the comparison as text or JSON, with the notes for stderr (a
/// folder of reports opens its newest, said as `explain` says it); the error is `diff_error`'s
/// line.
pub fn diff_reports(
    (before, after): (&std::path::Path, &std::path::Path),
    rank: u32,
    json: bool,
    options: &ExplainOptions,
) -> Result<(Vec<String>, String), String> {
    let (before, before_note) = open_side(before, Side::Before, rank)?;
    let (after, after_note) = open_side(after, Side::After, rank)?;
    let compared = compare_opened(&before, &after)?;
    let text = match json {
        true => render_diff_json(&compared, options),
        false => render_diff_text(&compared, options),
    };
    Ok((before_note.into_iter().chain(after_note).collect(), text))
}

/// The `diff --json` document, pretty-printed, and a newline.
pub fn render_diff_json(c: &Compared<'_>, options: &ExplainOptions) -> String {
    let mut text = serde_json::to_string_pretty(&DiffAnswer::new(c, options.hex)).unwrap_or_default();
    text.push('\n');
    text
}
