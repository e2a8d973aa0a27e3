//! `ttnn-tui whatif`: the replay's answer (`answer::WhatIfAnswer`) as text and as JSON.

use crate::answer::WhatIfAnswer;
use std::fmt::Write;

/// The answer as text: a heading naming the operation, the fixes and what tt-metal would do,
/// the room left for circular buffers, the self-check, and the notes.
pub fn render_whatif_text(w: &WhatIfAnswer) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "Operation {} {}: what if", w.operation_id, w.operation_name);
    for line in &w.lines {
        let _ = writeln!(out, "  {line}");
    }
    out
}

/// The answer as one pretty-printed JSON document and a newline.
pub fn render_whatif_json(w: &WhatIfAnswer) -> String {
    super::json::pretty(w)
}
