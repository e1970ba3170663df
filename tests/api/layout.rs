//! The shape of the server's crates, checked: within each crate the files import each
//! other without a cycle, and no file is longer than 500 lines unless it says why at its
//! top. Which crate may see which is the compiler's to check (their `Cargo.toml`s).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

const MAX_LINES: usize = 500;

/// The `src` folder of every crate of the server (`api/src` and `api/*/src`) and of the
/// engine.
fn crate_sources() -> Vec<PathBuf> {
    let api = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut found = vec![api.join("src"), api.join("../engine/src")];
    for entry in std::fs::read_dir(api)
        .expect("read api")
        .filter_map(Result::ok)
    {
        let src = entry.path().join("src");
        if entry.path().join("Cargo.toml").is_file() && src.is_dir() {
            found.push(src);
        }
    }
    found.sort();
    found
}

/// Every `.rs` file below `dir`, with its module path (`service/games.rs` →
/// `["service", "games"]`; `mod.rs`, `lib.rs` and `main.rs` are their folder's module).
fn modules(dir: &Path, prefix: &[String], out: &mut BTreeMap<Vec<String>, PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .expect("read a crate's folder")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .collect();
    entries.sort();
    for path in entries {
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default()
            .to_owned();
        if path.is_dir() {
            if name == "bin" {
                continue;
            }
            let mut p = prefix.to_vec();
            p.push(name);
            modules(&path, &p, out);
        } else if let Some(stem) = name.strip_suffix(".rs") {
            let mut p = prefix.to_vec();
            if !matches!(stem, "mod" | "lib" | "main") {
                p.push(stem.to_owned());
            }
            if stem == "main" {
                continue;
            }
            out.insert(p, path);
        }
    }
}

/// The code of a file that takes part in the build of the library: without its comments
/// and without its `#[cfg(test)]` part (which may `use super::*`).
fn code(path: &Path) -> String {
    let text = std::fs::read_to_string(path).expect("read");
    let text = match text.find("#[cfg(test)]") {
        Some(i) => &text[..i],
        None => &text[..],
    };
    text.lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The module paths named by `crate::a::b…`, `super::a…` and `self::a…` in `code` of
/// module `at`, each resolved to the deepest module that exists.
fn imports(
    code: &str,
    at: &[String],
    known: &BTreeMap<Vec<String>, PathBuf>,
) -> BTreeSet<Vec<String>> {
    let mut found = BTreeSet::new();
    let bytes = code.as_bytes();
    for (anchor, base) in [
        ("crate::", Vec::new()),
        ("super::", at[..at.len().saturating_sub(1)].to_vec()),
        ("self::", at.to_vec()),
    ] {
        let mut from = 0;
        while let Some(i) = code[from..].find(anchor) {
            let start = from + i;
            from = start + anchor.len();
            // `crate::` must not be the tail of another word (e.g. `$crate::` is fine).
            if start > 0 && (bytes[start - 1].is_ascii_alphanumeric() || bytes[start - 1] == b'_') {
                continue;
            }
            let rest: String = code[from..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == ':')
                .collect();
            let mut path = base.clone();
            for seg in rest.split("::").filter(|s| !s.is_empty()) {
                path.push(seg.to_owned());
            }
            while !path.is_empty() && !known.contains_key(&path) {
                path.pop();
            }
            if path != at {
                found.insert(path);
            }
        }
    }
    // Paths relative to this module: `use records::Player`, `games::play_move`.
    for child in known
        .keys()
        .filter(|k| k.len() == at.len() + 1 && k.starts_with(at))
    {
        let name = format!("{}::", child[at.len()]);
        let mut from = 0;
        while let Some(i) = code[from..].find(&name) {
            let start = from + i;
            from = start + name.len();
            let before = code[..start].chars().next_back().unwrap_or(' ');
            if !(before.is_ascii_alphanumeric() || before == '_' || before == ':') {
                found.insert(child.clone());
            }
        }
    }
    found
}

fn graph(src: &Path) -> BTreeMap<Vec<String>, BTreeSet<Vec<String>>> {
    let mut known = BTreeMap::new();
    modules(src, &[], &mut known);
    known
        .iter()
        .map(|(m, path)| {
            let deps = imports(&code(path), m, &known)
                .into_iter()
                // A module may use what its parents define (`super::Backgammon` in the
                // files that hold parts of its impl): only other branches count.
                .filter(|d| !m.starts_with(d))
                .collect();
            (m.clone(), deps)
        })
        .collect()
}

/// A cycle through `graph`, if there is one.
fn find_cycle(graph: &BTreeMap<Vec<String>, BTreeSet<Vec<String>>>) -> Option<Vec<String>> {
    fn visit(
        node: &Vec<String>,
        graph: &BTreeMap<Vec<String>, BTreeSet<Vec<String>>>,
        state: &mut BTreeMap<Vec<String>, u8>,
        stack: &mut Vec<Vec<String>>,
    ) -> Option<Vec<String>> {
        state.insert(node.clone(), 1);
        stack.push(node.clone());
        for next in graph.get(node).into_iter().flatten() {
            match state.get(next).copied().unwrap_or(0) {
                1 => {
                    let i = stack.iter().position(|n| n == next).unwrap_or(0);
                    let mut cycle: Vec<String> = stack[i..].iter().map(|m| m.join("::")).collect();
                    cycle.push(next.join("::"));
                    return Some(cycle);
                }
                0 => {
                    if let Some(c) = visit(next, graph, state, stack) {
                        return Some(c);
                    }
                }
                _ => {}
            }
        }
        stack.pop();
        state.insert(node.clone(), 2);
        None
    }
    let mut state = BTreeMap::new();
    for node in graph.keys() {
        if state.get(node).copied().unwrap_or(0) == 0 {
            if let Some(c) = visit(node, graph, &mut state, &mut Vec::new()) {
                return Some(c);
            }
        }
    }
    None
}

#[test]
fn the_modules_of_each_crate_import_each_other_without_a_cycle() {
    let sources = crate_sources();
    assert!(sources.len() >= 7, "only {} crates found", sources.len());
    for src in sources {
        let graph = graph(&src);
        // The check sees the imports it must: every crate's modules use each other.
        let edges: usize = graph.values().map(BTreeSet::len).sum();
        assert!(edges > 0, "no imports seen in {}", src.display());
        if let Some(cycle) = find_cycle(&graph) {
            panic!("import cycle in {}: {}", src.display(), cycle.join(" -> "));
        }
    }
}

#[test]
fn the_cycle_check_finds_a_cycle() {
    let m = |s: &str| vec![s.to_owned()];
    let mut g = BTreeMap::new();
    g.insert(m("a"), BTreeSet::from([m("b")]));
    g.insert(m("b"), BTreeSet::from([m("c")]));
    g.insert(m("c"), BTreeSet::from([m("a")]));
    assert_eq!(
        find_cycle(&g),
        Some(vec!["a".into(), "b".into(), "c".into(), "a".into()])
    );
    g.insert(m("c"), BTreeSet::new());
    assert_eq!(find_cycle(&g), None);
}

#[test]
fn no_file_is_longer_than_500_lines_without_saying_why() {
    let mut files = Vec::new();
    for src in crate_sources() {
        let mut known = BTreeMap::new();
        modules(&src, &[], &mut known);
        files.extend(known.into_values());
    }
    // A module's unit tests (`tests.rs`, `tests_2b.rs`) are lists of cases, as long as
    // the rules they check.
    files.retain(|path| {
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default();
        !name.starts_with("tests")
    });
    for path in &files {
        let text = std::fs::read_to_string(path).expect("read");
        let lines = text.lines().count();
        let says_why = text
            .lines()
            .take(10)
            .any(|l| l.contains("Longer than 500 lines because"));
        assert!(
            lines <= MAX_LINES || says_why,
            "{} has {lines} lines",
            path.display()
        );
    }
}

#[test]
fn the_clock_is_the_one_reader_of_the_wall_clock() {
    for src in crate_sources() {
        let mut known = BTreeMap::new();
        modules(&src, &[], &mut known);
        for path in known.values() {
            if path.ends_with("clock.rs") {
                continue;
            }
            let code = code(path);
            assert!(
                !code.contains("Utc::now") && !code.contains("SystemTime::now"),
                "{} reads the wall clock; take a `Clock`",
                path.display()
            );
        }
    }
}
