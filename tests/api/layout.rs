//! The shape of `api/src`, checked: the files import each other without a cycle, and no
//! file is longer than 500 lines unless it says why at its top.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

const MAX_LINES: usize = 500;

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Every `.rs` file below `dir`, with its module path (`service/games.rs` →
/// `["service", "games"]`; `mod.rs`, `lib.rs` and `main.rs` are their folder's module).
fn modules(dir: &Path, prefix: &[String], out: &mut BTreeMap<Vec<String>, PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .expect("read api/src")
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

fn graph() -> BTreeMap<Vec<String>, BTreeSet<Vec<String>>> {
    let mut known = BTreeMap::new();
    modules(&src(), &[], &mut known);
    known
        .iter()
        .map(|(m, path)| {
            let deps = imports(&code(path), m, &known)
                .into_iter()
                // The crate root only declares modules.
                .filter(|d| !d.is_empty())
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
fn the_modules_of_the_server_import_each_other_without_a_cycle() {
    let graph = graph();
    assert!(graph.len() > 30, "only {} modules found", graph.len());
    // The check sees the imports it must: the service uses the store, routes the service.
    assert!(
        graph[&vec!["service".to_owned(), "games".to_owned()]].contains(&vec!["store".to_owned()])
    );
    assert!(
        graph[&vec!["routes".to_owned(), "games".to_owned()]].contains(&vec!["service".to_owned()])
    );
    if let Some(cycle) = find_cycle(&graph) {
        panic!("import cycle: {}", cycle.join(" -> "));
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
fn routes_never_call_the_store() {
    let mut known = BTreeMap::new();
    modules(&src(), &[], &mut known);
    for (m, path) in &known {
        if m.first().map(String::as_str) == Some("routes") {
            let code = code(path);
            assert!(
                !code.contains(".store."),
                "{} calls the store",
                path.display()
            );
        }
    }
}

#[test]
fn no_file_is_longer_than_500_lines_without_saying_why() {
    let mut known = BTreeMap::new();
    modules(&src(), &[], &mut known);
    for path in known.values() {
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
