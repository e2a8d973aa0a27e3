//! `docs/keys.md` lists every key of every pane as the binding tables say: its generated block is
//! rebuilt here from `bindings.rs` and must equal the page's, so a key added, renamed or moved
//! without the page fails this test (which prints the block to paste).

use super::bindings::{GLOBAL, MOVES, POPUP, pane_title, tables};
use super::keys::{Binding, PANES};

const PAGE: &str = include_str!("../../docs/keys.md");
const BEGIN: &str = "<!-- keys: generated from src/app/bindings.rs; src/app/keys_page.rs checks this block -->\n";
const END: &str = "<!-- end of keys -->";

/// The tables several panes share, each listed once under its own heading.
const SHARED: [(&[Binding], &str); 3] =
    [(MOVES, "Moving in a list, a table or a tree"), (GLOBAL, "Every tab"), (POPUP, "Every popup")];

/// The title of a shared table, when `table` is one (consts have no address to compare: the rows
/// are compared).
fn shared_title(table: &[Binding]) -> Option<&'static str> {
    let rows = |t: &[Binding]| t.iter().map(|b| (b.label, b.description, b.hint)).collect::<Vec<_>>();
    SHARED.iter().find(|(t, _)| rows(t) == rows(table)).map(|(_, title)| *title)
}

fn rows(out: &mut String, table: &[Binding]) {
    out.push_str("| Keys | What they do | Shown |\n| --- | --- | --- |\n");
    for b in table {
        let shown = if b.hint { "status bar" } else { "`?` only" };
        out.push_str(&format!("| `{}` | {} | {shown} |\n", b.label, b.description));
    }
}

/// The block as the binding tables give it: each pane's own keys and the shared tables it takes
/// (in the order they are matched), then each shared table.
fn generated() -> String {
    let mut out = String::new();
    for pane in PANES {
        out.push_str(&format!("\n### {}\n\n", pane_title(pane)));
        let mut also = Vec::new();
        for table in tables(pane) {
            match shared_title(table) {
                Some(title) => also.push(format!("[{title}](#{})", anchor(title))),
                None => rows(&mut out, table),
            }
        }
        if !also.is_empty() {
            out.push_str(&format!("\nAlso: {}.\n", also.join(", ")));
        }
    }
    for (table, title) in SHARED {
        out.push_str(&format!("\n### {title}\n\n"));
        rows(&mut out, table);
    }
    out.push('\n');
    out
}

/// A heading's anchor as GitHub makes it: lower case, spaces to dashes, punctuation dropped.
fn anchor(title: &str) -> String {
    let lower = title.to_lowercase();
    lower
        .chars()
        .filter(|c| c.is_alphanumeric() || *c == ' ' || *c == '-')
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

#[test]
fn the_keys_page_lists_every_binding_of_every_pane() {
    let start = PAGE.find(BEGIN).expect("docs/keys.md has the generated block's opening line") + BEGIN.len();
    let end = start + PAGE[start..].find(END).expect("docs/keys.md has the generated block's closing line");
    let expected = generated();
    let page = &PAGE[start..end];
    assert!(page == expected, "docs/keys.md's key tables are out of date; replace the block with:\n{expected}");
}
