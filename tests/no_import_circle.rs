//! No import circle in `src/` (issue 14): every `crate::…` and `super::…` path of a source
//! file's code (comments and test modules left out) names the file it points at; the files must
//! form no cycle. A parent `mod.rs` naming its children (`mod x; pub use x::…`) is the module
//! tree, not an import, and is not counted.

use regex::Regex;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Every `.rs` file under `dir`.
fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The module path of a file: `src/report/memory.rs` → `["report", "memory"]`.
fn module_of(src: &Path, file: &Path) -> Vec<String> {
    let relative = file.strip_prefix(src).unwrap().with_extension("");
    let mut parts: Vec<String> = relative.iter().map(|p| p.to_string_lossy().into_owned()).collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib" | "main")) {
        parts.pop();
    }
    parts
}

/// The code of a file without comments and without its `#[cfg(test)]` tail (test modules sit at
/// the end of a file in this project).
fn code(text: &str) -> String {
    let text = text.split("#[cfg(test)]").next().unwrap_or("");
    text.lines().filter(|l| !l.trim_start().starts_with("//")).collect::<Vec<_>>().join("\n")
}

/// The module paths named in a file's code, made absolute.
fn named_paths(module: &[String], code: &str) -> Vec<Vec<String>> {
    let path =
        Regex::new(r"\b((?:crate|super)(?:::(?:super|[a-z_][a-z0-9_]*))*)(?:::\{([^}]*)\}|::[A-Za-z_])").unwrap();
    let mut out = Vec::new();
    for cap in path.captures_iter(code) {
        let mut here: Vec<String> = module.to_vec();
        let mut segments = cap[1].split("::");
        match segments.next() {
            Some("crate") => here.clear(),
            _ => {
                here.pop();
            }
        }
        for s in segments {
            if s == "super" {
                here.pop();
            } else {
                here.push(s.to_string());
            }
        }
        match cap.get(2) {
            Some(group) => {
                for item in group.as_str().split(',') {
                    let first = item.trim().split("::").next().unwrap_or("").trim();
                    if !first.is_empty() {
                        out.push(here.iter().cloned().chain([first.to_string()]).collect());
                    }
                }
            }
            None => out.push(here),
        }
    }
    out
}

/// The files each file of `src/` names, itself and its parent `mod.rs` left out.
fn file_edges() -> BTreeMap<PathBuf, BTreeSet<PathBuf>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    let modules: BTreeMap<Vec<String>, PathBuf> = files.iter().map(|f| (module_of(&src, f), f.clone())).collect();
    // The longest module prefix of a path that is a file of the crate.
    let file_of = |path: &[String]| (0..=path.len()).rev().find_map(|n| modules.get(&path[..n]).cloned());
    let mut edges: BTreeMap<PathBuf, BTreeSet<PathBuf>> = BTreeMap::new();
    for file in &files {
        let name = file.file_name().unwrap().to_string_lossy();
        if name == "tests.rs" || name.ends_with("_tests.rs") || file.components().any(|c| c.as_os_str() == "tests") {
            continue;
        }
        let module = module_of(&src, file);
        for path in named_paths(&module, &code(&std::fs::read_to_string(file).unwrap())) {
            let Some(target) = file_of(&path) else { continue };
            // A child naming its parent's re-exports goes up the tree: that is the tree.
            let parent_of_file = target.file_name().is_some_and(|n| n == "mod.rs")
                && file.starts_with(target.parent().unwrap())
                && path.len() > module_of(&src, &target).len();
            if target != *file && !parent_of_file {
                edges.entry(file.clone()).or_default().insert(target);
            }
        }
    }
    edges
}

/// Whether `to` can be reached from `from` along the edges.
fn reaches(edges: &BTreeMap<PathBuf, BTreeSet<PathBuf>>, from: &Path, to: &Path) -> bool {
    let mut seen = BTreeSet::new();
    let mut stack = vec![from.to_path_buf()];
    while let Some(f) = stack.pop() {
        for next in edges.get(&f).into_iter().flatten() {
            if next == to {
                return true;
            }
            if seen.insert(next.clone()) {
                stack.push(next.clone());
            }
        }
    }
    false
}

#[test]
fn no_file_imports_a_file_that_imports_it() {
    let edges = file_edges();
    assert!(edges.len() > 50, "the paths of src/ were read: {} files import others", edges.len());
    let mut circles = Vec::new();
    for (a, targets) in &edges {
        for b in targets.iter().filter(|b| reaches(&edges, b, a)) {
            circles.push(format!("{} → {} → … → {}", a.display(), b.display(), a.display()));
        }
    }
    assert!(circles.is_empty(), "import circles:\n{}", circles.join("\n"));
}
