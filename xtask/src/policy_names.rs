//! A policy declares itself (`PolicyInfo` in its own file): no code outside
//! `crates/fairground-core/src/policies/` compares anything with a policy's name, so no consumer
//! can be silently wrong about a new policy. `cargo xtask test` and `check-docs` run [`check`].
//!
//! A comparison is the name as a quoted literal beside `==` or `!=`, as a `match` pattern
//! (`"name" =>` or `"name" |`, `| "name"`), or inside `matches!(`. Naming a policy as data (a
//! recipe's list, a default) is not a comparison. The `#[cfg(test)]` module at a file's end is
//! left out: tests name the policies they check.

use std::path::{Path, PathBuf};

/// Every comparison with a policy name outside the policies' own files, located.
pub fn check(root: &Path) -> Result<(), String> {
    let policies = root.join("crates/fairground-core/src/policies");
    let names = declared_names(&policies)?;
    let mut found = Vec::new();
    for file in rust_files(&root.join("crates"))? {
        if file.starts_with(&policies) || file.components().any(|c| c.as_os_str() == "tests") {
            continue;
        }
        let text =
            std::fs::read_to_string(&file).map_err(|e| format!("{}: {e}", file.display()))?;
        let rel = file
            .strip_prefix(root)
            .unwrap_or(&file)
            .display()
            .to_string();
        for (line, what) in comparisons(&text, &names) {
            found.push(format!("{rel}:{line}: {what}"));
        }
    }
    if found.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "code compares with a policy's name (read what the policy declares in its PolicyInfo \
             instead; ARCHITECTURE.md, \"Where things go\"):\n  {}",
            found.join("\n  ")
        ))
    }
}

/// The names the policies' files declare (`name: "..."` in a `PolicyInfo`).
fn declared_names(dir: &Path) -> Result<Vec<String>, String> {
    let mut names = Vec::new();
    for file in rust_files(dir)? {
        let text =
            std::fs::read_to_string(&file).map_err(|e| format!("{}: {e}", file.display()))?;
        for (k, _) in text.match_indices(": PolicyInfo = PolicyInfo {") {
            if let Some(name) = text[k..].split("name: \"").nth(1) {
                names.push(name.split('"').next().unwrap_or_default().to_string());
            }
        }
    }
    if names.is_empty() {
        return Err(format!("{}: no policy declares a name", dir.display()));
    }
    Ok(names)
}

/// Every Rust file under `dir`, sorted.
pub fn rust_files(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let entries = std::fs::read_dir(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        for entry in entries {
            let path = entry.map_err(|e| format!("{}: {e}", dir.display()))?.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|x| x == "rs") {
                files.push(path);
            }
        }
    }
    files.sort();
    Ok(files)
}

/// Each line of `text` (before its test module) that compares with one of `names` (a name, or a
/// name with a `:variant`), and the comparison.
fn comparisons(text: &str, names: &[String]) -> Vec<(usize, String)> {
    let code = text.split("#[cfg(test)]").next().unwrap_or(text);
    let mut found = Vec::new();
    for (n, line) in code.lines().enumerate() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("//") {
            continue;
        }
        for name in names {
            let mut from = 0;
            while let Some(at) = line[from..].find(&format!("\"{name}")) {
                let start = from + at;
                let rest = &line[start + 1 + name.len()..];
                // The literal is the name itself or the name and a `:variant`.
                let close = rest
                    .find('"')
                    .filter(|&c| c == 0 || rest[..c].starts_with(':'));
                from = start + 1;
                let Some(close) = close else { continue };
                let before = line[..start].trim_end();
                let after = rest[close + 1..].trim_start();
                // After `|`: another pattern's alternative (`"a" | "b"`), not a closure's `||`.
                let alternative = before
                    .strip_suffix('|')
                    .is_some_and(|b| b.trim_end().ends_with('"'));
                let compared = before.ends_with("==")
                    || before.ends_with("!=")
                    || alternative
                    || before.contains("matches!(")
                    || after.starts_with("=>")
                    || after.starts_with("==")
                    || after.starts_with("!=")
                    || (after.starts_with('|') && !after.starts_with("||"));
                if compared {
                    found.push((n + 1, line.trim().to_string()));
                }
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names() -> Vec<String> {
        vec!["gavel-las".into(), "oef-coop".into(), "gandiva-fair".into()]
    }

    #[test]
    fn a_comparison_with_a_policy_name_is_found_and_naming_one_as_data_is_not() {
        let text = r#"
fn f(policy: &str) -> bool {
    let chosen = ["fifo", "gavel-las"];
    let fallback = name.unwrap_or_else(|| "gavel-las".into());
    if policy == "oef-coop" { return true; }
    match policy {
        "gandiva-fair" | "gandiva-fair:midpoint" => true,
        _ => matches!(policy, "gavel-las"),
    }
}
// policy == "oef-coop" in a comment is not code
const DEFAULT: &str = "oef-coop";
#[cfg(test)]
mod tests { fn t() { assert!(p == "gavel-las"); } }
"#;
        let lines: Vec<usize> = comparisons(text, &names())
            .into_iter()
            .map(|(n, _)| n)
            .collect();
        assert_eq!(lines, [5, 7, 7, 8]);
    }

    #[test]
    fn a_longer_name_that_starts_with_a_policy_s_is_not_it() {
        let text = "if p == \"gavel-las-agnostic\" {}\nif q == \"gavel-lasso\" {}\n";
        assert!(comparisons(text, &["gavel-las".to_string()]).is_empty());
    }

    #[test]
    fn the_project_compares_with_no_policy_name_outside_the_registry() {
        check(&crate::project_root()).unwrap();
    }
}
