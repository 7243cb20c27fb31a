//! Imports run one way: within each crate, the top-level modules (a file or folder under `src/`)
//! form no cycle, so ARCHITECTURE.md can say which sits below which and a shared type lives in the
//! lower one. `cargo xtask test` runs [`check`].
//!
//! A module's imports are the `crate::NAME` paths in its code (grouped ones, `crate::{a, b}`,
//! too), `super::NAME` in a file directly under `src/`, and names the crate root re-exports
//! (`pub use module::{Item, ...}` in lib.rs or main.rs) counted as their module. Comments and
//! the `#[cfg(test)]` module at a file's end are left out: a test may build its input through a
//! higher module.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;

/// Each crate's module graph checked; the first cycle in each is reported.
pub fn check(root: &Path) -> Result<(), String> {
    let crates = root.join("crates");
    let mut problems = Vec::new();
    let mut names: Vec<_> = std::fs::read_dir(&crates)
        .map_err(|e| format!("{}: {e}", crates.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("src").is_dir())
        .collect();
    names.sort();
    for dir in names {
        let graph = module_graph(&dir.join("src"))?;
        if let Some(cycle) = find_cycle(&graph) {
            problems.push(format!(
                "{}: {}",
                dir.file_name().unwrap_or_default().to_string_lossy(),
                cycle.join(" -> ")
            ));
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "modules that import each other (move the shared item to the lower one; \
             ARCHITECTURE.md says which way each crate's imports run):\n  {}",
            problems.join("\n  ")
        ))
    }
}

/// Top-level module -> the crate's other top-level modules it refers to.
pub fn module_graph(src: &Path) -> Result<BTreeMap<String, BTreeSet<String>>, String> {
    let mut reexported = HashMap::new();
    for root in ["lib.rs", "main.rs"] {
        if let Ok(text) = std::fs::read_to_string(src.join(root)) {
            reexported.extend(reexports(&text));
        }
    }
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for path in crate::policy_names::rust_files(src)? {
        let rel = path.strip_prefix(src).unwrap_or(&path);
        let top = rel
            .components()
            .next()
            .map(|c| {
                c.as_os_str()
                    .to_string_lossy()
                    .trim_end_matches(".rs")
                    .to_string()
            })
            .unwrap_or_default();
        if top == "lib" || top == "main" {
            continue;
        }
        let text =
            std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let at_top = rel.components().count() == 1;
        let refs = references(&text, at_top)
            .into_iter()
            .map(|r| reexported.get(&r).cloned().unwrap_or(r))
            .filter(|r| *r != top)
            .collect::<Vec<_>>();
        graph.entry(top).or_default().extend(refs);
    }
    // Only the crate's own modules (`crate::Scenario` that no re-export names is left out).
    let modules: BTreeSet<String> = graph.keys().cloned().collect();
    for targets in graph.values_mut() {
        targets.retain(|t| modules.contains(t));
    }
    Ok(graph)
}

/// The names a crate root re-exports, to their module: `pub use scenario::{Instance, Problem};`.
fn reexports(text: &str) -> HashMap<String, String> {
    let mut out = HashMap::new();
    for line in text.lines() {
        let Some(rest) = line.trim().strip_prefix("pub use ") else {
            continue;
        };
        let Some((module, items)) = rest.trim_end_matches(';').split_once("::") else {
            continue;
        };
        let items = items.trim_start_matches('{').trim_end_matches('}');
        for item in items.split(',') {
            let name = item.split(" as ").last().unwrap_or("").trim();
            if !name.is_empty() && !name.contains("::") {
                out.insert(name.to_string(), module.trim().to_string());
            }
        }
    }
    out
}

/// The first segment of every `crate::` path in a file's code (and of `super::` ones when the
/// file sits directly under `src/`, where `super` is the crate root).
fn references(text: &str, at_top: bool) -> BTreeSet<String> {
    let code = match text.find("#[cfg(test)]") {
        Some(k) => &text[..k],
        None => text,
    };
    let mut out = BTreeSet::new();
    for line in code.lines() {
        let line = line.split("//").next().unwrap_or("");
        let mut prefixes = vec!["crate::"];
        if at_top {
            prefixes.push("super::");
        }
        for prefix in prefixes {
            for (k, _) in line.match_indices(prefix) {
                let before = line[..k].chars().next_back();
                if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$') {
                    continue; // `$crate::`, `my_crate::`
                }
                let rest = &line[k + prefix.len()..];
                if let Some(group) = rest.strip_prefix('{') {
                    let group = group.split('}').next().unwrap_or("");
                    out.extend(
                        group
                            .split(',')
                            .filter_map(|item| first_segment(item.trim())),
                    );
                } else if let Some(name) = first_segment(rest) {
                    out.insert(name);
                }
            }
        }
    }
    out
}

fn first_segment(path: &str) -> Option<String> {
    let name: String = path
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect();
    (!name.is_empty()).then_some(name)
}

/// A cycle in the graph, as its modules with the first repeated at the end, if there is one.
pub fn find_cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    // Depth-first, colouring nodes: 1 on the path, 2 done.
    fn visit<'a>(
        node: &'a str,
        graph: &'a BTreeMap<String, BTreeSet<String>>,
        colour: &mut HashMap<&'a str, u8>,
        path: &mut Vec<&'a str>,
    ) -> Option<Vec<String>> {
        colour.insert(node, 1);
        path.push(node);
        for next in graph.get(node).into_iter().flatten() {
            match colour.get(next.as_str()) {
                Some(1) => {
                    let from = path.iter().position(|n| *n == next.as_str()).unwrap_or(0);
                    let mut cycle: Vec<String> =
                        path[from..].iter().map(|s| s.to_string()).collect();
                    cycle.push(next.clone());
                    return Some(cycle);
                }
                Some(_) => {}
                None => {
                    if let Some(c) = visit(next, graph, colour, path) {
                        return Some(c);
                    }
                }
            }
        }
        path.pop();
        colour.insert(node, 2);
        None
    }
    let mut colour = HashMap::new();
    for node in graph.keys() {
        if !colour.contains_key(node.as_str()) {
            if let Some(c) = visit(node, graph, &mut colour, &mut Vec::new()) {
                return Some(c);
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_are_read_from_code_only() {
        let text = "use crate::model::{Job, SimError};\nuse crate::{Allocation, fairness::X};\n\
                    // use crate::commented::Out;\nlet x = $crate::macro_path::y; super::root_fn();\n\
                    #[cfg(test)]\nmod tests { use crate::tested::Z; }";
        let at_top = references(text, true);
        assert_eq!(
            at_top.into_iter().collect::<Vec<_>>(),
            ["Allocation", "fairness", "model", "root_fn"]
        );
        assert!(!references(text, false).contains("root_fn"));
    }

    #[test]
    fn reexports_name_their_modules() {
        let r = reexports(
            "pub use scenario::{GpuType, Instance};\npub use engine::simulate;\nuse x::Y;",
        );
        assert_eq!(r["Instance"], "scenario");
        assert_eq!(r["simulate"], "engine");
        assert!(!r.contains_key("Y"));
    }

    #[test]
    fn a_cycle_is_found_and_a_layering_is_not_one() {
        let graph = |edges: &[(&str, &str)]| {
            let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
            for (a, b) in edges {
                g.entry(a.to_string()).or_default().insert(b.to_string());
                g.entry(b.to_string()).or_default();
            }
            g
        };
        let layered = graph(&[("engine", "model"), ("engine", "error"), ("model", "error")]);
        assert_eq!(find_cycle(&layered), None);
        let circle = graph(&[("a", "b"), ("b", "c"), ("c", "a"), ("d", "a")]);
        assert_eq!(find_cycle(&circle).unwrap(), ["a", "b", "c", "a"]);
    }
}
