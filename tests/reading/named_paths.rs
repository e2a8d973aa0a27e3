//! Every file of this repository that the code or the docs name by its path is there (issue 30
//! §1: comments pointed at files that had moved or gone). Paths into other repositories (the
//! reference's `docs/src/…`, tt-metal's tests, the log excerpts' `.py` files) are not this
//! repository's and are not checked.

use regex::Regex;
use std::path::{Path, PathBuf};

/// Every file under `dir` whose name ends in one of `extensions`.
fn files(dir: &Path, extensions: &[&str], out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            if !path.ends_with("snapshots") && !path.ends_with("target") {
                files(&path, extensions, out);
            }
        } else if path.extension().and_then(|e| e.to_str()).is_some_and(|e| extensions.contains(&e)) {
            out.push(path);
        }
    }
}

/// The repository's own paths a text names: `src/…`, `tests/…`, `examples/…` (`.rs`),
/// `docs/…` (`.md`, not the reference's `docs/src/`), `scripts/…`.
fn named(text: &str) -> Vec<String> {
    let path = Regex::new(
        r"\b((?:src|tests|examples)/[A-Za-z0-9_./-]*[A-Za-z0-9_]\.rs|docs/[A-Za-z0-9_./-]*[A-Za-z0-9_]\.md|scripts/[A-Za-z0-9_./-]*[A-Za-z0-9_]\.(?:py|sh|tsv))\b",
    )
    .unwrap();
    path.captures_iter(text).map(|c| c[1].to_string()).filter(|p| !p.starts_with("docs/src/")).collect()
}

#[test]
fn every_path_the_code_and_the_docs_name_is_there() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut texts = vec![root.join("README.md")];
    for (dir, extensions) in [("src", &["rs"][..]), ("docs", &["md"]), ("examples", &["rs"]), ("tests", &["rs"])] {
        files(&root.join(dir), extensions, &mut texts);
    }
    let mut missing = Vec::new();
    for text in &texts {
        let content = std::fs::read_to_string(text).unwrap();
        for path in named(&content) {
            if !root.join(&path).exists() {
                missing.push(format!("{}: {path}", text.strip_prefix(root).unwrap().display()));
            }
        }
    }
    missing.sort();
    missing.dedup();
    assert!(missing.is_empty(), "paths named but not in the repository:\n{}", missing.join("\n"));
}

#[test]
fn the_paths_it_checks() {
    let text = "see src/report/memory/pictures.rs and docs/rules/memory.md §4, not docs/src/x.md, nor tests/t.py";
    assert_eq!(named(text), ["src/report/memory/pictures.rs", "docs/rules/memory.md"]);
}
