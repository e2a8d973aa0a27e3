//! No import circle in `src/` (issue 14): every `crate::…` and `super::…` path of a source
//! file's code (comments and test modules left out) names the file it points at; the files must
//! form no cycle. A parent `mod.rs` naming its children (`mod x; pub use x::…`) is the module
//! tree, not an import, and is not counted.
//!
//! And no file imports the `mod.rs` of a folder it sits in (issue 22 §3): what its siblings share
//! lives in a file of its own, named for what it holds, so a child never imports its parent.

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

/// The module path of a file: `src/report/memory/pictures.rs` → `["report", "memory", "pictures"]`.
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

/// The module paths named in a file's code, made absolute: the whole path up to its item, each
/// item of a `{…}` group, or the module of a `*` glob.
fn named_paths(module: &[String], code: &str) -> Vec<Vec<String>> {
    let path = Regex::new(r"\b(crate|super)((?:::(?:super|[A-Za-z_][A-Za-z0-9_]*))*)(::\{[^}]*\}|::\*)?").unwrap();
    let mut out = Vec::new();
    for cap in path.captures_iter(code) {
        let (segments, tail) = (cap.get(2).map_or("", |m| m.as_str()), cap.get(3).map_or("", |m| m.as_str()));
        if segments.is_empty() && tail.is_empty() {
            continue; // `pub(crate)`, `pub(super)`
        }
        let mut here: Vec<String> = module.to_vec();
        match &cap[1] {
            "crate" => here.clear(),
            _ => {
                here.pop();
            }
        }
        for s in segments.split("::").filter(|s| !s.is_empty()) {
            if s == "super" {
                here.pop();
            } else {
                here.push(s.to_string());
            }
        }
        match tail.strip_prefix("::{") {
            Some(group) => {
                for item in group.trim_end_matches('}').split(',') {
                    match item.trim().split("::").next().unwrap_or("").trim() {
                        "" => {}
                        "self" => out.push(here.clone()),
                        first => out.push(here.iter().cloned().chain([first.to_string()]).collect()),
                    }
                }
            }
            None => out.push(here),
        }
    }
    out
}

/// A file named by another: the file, and whether the path goes on past a `mod.rs` of a folder
/// the naming file sits in (to its parent's re-exports or items).
struct Named {
    target: PathBuf,
    through_parent: bool,
}

/// The files each file of `src/` names (itself left out; test files and test modules left out).
fn named_files() -> BTreeMap<PathBuf, Vec<Named>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    let modules: BTreeMap<Vec<String>, PathBuf> = files.iter().map(|f| (module_of(&src, f), f.clone())).collect();
    // The longest module prefix of a path that is a file of the crate.
    let file_of = |path: &[String]| (0..=path.len()).rev().find_map(|n| modules.get(&path[..n]).cloned());
    let mut named: BTreeMap<PathBuf, Vec<Named>> = BTreeMap::new();
    for file in &files {
        let name = file.file_name().unwrap().to_string_lossy();
        if name == "tests.rs" || name.ends_with("_tests.rs") || file.components().any(|c| c.as_os_str() == "tests") {
            continue;
        }
        let module = module_of(&src, file);
        for path in named_paths(&module, &code(&std::fs::read_to_string(file).unwrap())) {
            let Some(target) = file_of(&path) else { continue };
            let through_parent = target.file_name().is_some_and(|n| n == "mod.rs")
                && file.starts_with(target.parent().unwrap())
                && path.len() > module_of(&src, &target).len();
            if target != *file {
                named.entry(file.clone()).or_default().push(Named { target, through_parent });
            }
        }
    }
    named
}

/// The files each file of `src/` imports. A child naming its parent's re-exports goes up the
/// tree, which is the tree and not an edge (the second test forbids it everywhere).
fn file_edges() -> BTreeMap<PathBuf, BTreeSet<PathBuf>> {
    let mut edges: BTreeMap<PathBuf, BTreeSet<PathBuf>> = BTreeMap::new();
    for (file, named) in named_files() {
        for n in named.into_iter().filter(|n| !n.through_parent) {
            edges.entry(file.clone()).or_default().insert(n.target);
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

/// Each import of the `mod.rs` of a folder the importing file sits in, as `file → mod.rs`.
fn imports_of_own_mod_rs(named: &BTreeMap<PathBuf, Vec<Named>>) -> Vec<String> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut found = BTreeSet::new();
    for (file, targets) in named {
        let relative = file.strip_prefix(&src).unwrap().to_string_lossy().into_owned();
        for n in targets.iter().filter(|n| n.through_parent) {
            found.insert(format!("{relative} → {}", n.target.strip_prefix(&src).unwrap().display()));
        }
    }
    found.into_iter().collect()
}

#[test]
fn no_file_imports_the_mod_rs_of_its_own_folder() {
    let found = imports_of_own_mod_rs(&named_files());
    assert!(found.is_empty(), "files importing the mod.rs of a folder they sit in:\n{}", found.join("\n"));
}
