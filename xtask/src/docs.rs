//! The documentation's own checks: every relative link and anchor in the Markdown files resolves
//! (`cargo xtask test` runs [`check`]), and `cargo xtask doc-moved OLD.md` says which sentences of
//! an old file are in none of today's (for moving text between pages without losing any; not in
//! CI, since the old file is not kept).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The picture the README shows, at most this many bytes (a README should load fast).
pub const SCREENSHOT: &str = "docs/playground.png";
pub const SCREENSHOT_MAX_BYTES: u64 = 100_000;

/// The Markdown files checked: the root's and `docs/`'s.
pub fn markdown_files(root: &Path) -> Result<Vec<PathBuf>, String> {
    let mut files = Vec::new();
    for dir in [root.to_path_buf(), root.join("docs")] {
        let entries = std::fs::read_dir(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        for entry in entries {
            let path = entry.map_err(|e| format!("{}: {e}", dir.display()))?.path();
            if path.extension().is_some_and(|x| x == "md") {
                files.push(path);
            }
        }
    }
    files.sort();
    Ok(files)
}

/// Every broken relative link, as `file:line: target: why`; and the screenshot's presence,
/// size and link from the README.
pub fn check(root: &Path) -> Result<(), String> {
    let mut problems = Vec::new();
    let mut anchors: HashMap<PathBuf, Vec<String>> = HashMap::new();
    for file in markdown_files(root)? {
        let text =
            std::fs::read_to_string(&file).map_err(|e| format!("{}: {e}", file.display()))?;
        let shown = file
            .strip_prefix(root)
            .unwrap_or(&file)
            .display()
            .to_string();
        for link in links(&text) {
            if let Err(why) = resolve(&file, &link.target, &mut anchors) {
                problems.push(format!("{shown}:{}: {}: {why}", link.line, link.target));
            }
        }
        let name = file.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if name != HISTORY {
            // CHANGELOG.md is dated history too: its entries may say what a release weighed.
            for (line, why) in stray_statements(&text, name == FIGURES || name == CHANGELOG) {
                problems.push(format!("{shown}:{line}: {why}"));
            }
        }
    }
    let picture = root.join(SCREENSHOT);
    match std::fs::metadata(&picture) {
        Ok(m) if m.len() > SCREENSHOT_MAX_BYTES => problems.push(format!(
            "{SCREENSHOT}: {} bytes, over {SCREENSHOT_MAX_BYTES} (cargo xtask screenshot makes it)",
            m.len()
        )),
        Ok(_) => {}
        Err(_) => problems.push(format!(
            "{SCREENSHOT}: missing (cargo xtask screenshot makes it)"
        )),
    }
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap_or_default();
    if !links(&readme).iter().any(|l| l.target == SCREENSHOT) {
        problems.push(format!("README.md does not show {SCREENSHOT}"));
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "{} problem(s) in the documentation (broken links, stray figures):\n  {}",
            problems.len(),
            problems.join("\n  ")
        ))
    }
}

/// The page that holds today's figures, and the one that keeps their history.
const FIGURES: &str = "BENCHMARKS.md";
const HISTORY: &str = "benchmarks-history.md";
const CHANGELOG: &str = "CHANGELOG.md";

/// Whether `line` states a number followed by one of `units` (`1,864 s`, `232 KB`).
fn states_figure(line: &str, units: &[&str]) -> bool {
    let words: Vec<&str> = line
        .split(|c: char| c.is_whitespace() || "()[],;:*`".contains(c))
        .filter(|w| !w.is_empty())
        .collect();
    words.windows(2).any(|pair| {
        pair[0].chars().all(|c| c.is_ascii_digit() || c == '.')
            && pair[0].starts_with(|c: char| c.is_ascii_digit())
            && units.contains(&pair[1].trim_end_matches('.'))
    })
}

/// A Markdown text's lines outside code fences, numbered from 1.
fn prose_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let mut fenced = false;
    text.lines().enumerate().filter_map(move |(k, line)| {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            return None;
        }
        (!fenced).then_some((k + 1, line))
    })
}

/// What a page outside the history must not say, by line: a work session ("session 28": a
/// reader cannot follow it), and, unless it is a `figures_page` (BENCHMARKS.md, or the dated
/// CHANGELOG.md), a fresh-clone test time or a download size, which BENCHMARKS.md alone states
/// (other pages link to it).
pub fn stray_statements(text: &str, figures_page: bool) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    for (n, line) in prose_lines(text) {
        let lower = line.to_lowercase();
        let words: Vec<&str> = lower
            .split_whitespace()
            .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()))
            .collect();
        if words
            .windows(2)
            .any(|p| p[0] == "session" && p[1].starts_with(|c: char| c.is_ascii_digit()))
        {
            found.push((n, "cites a work session (say what and when instead)".into()));
        }
        if figures_page {
            continue;
        }
        let size = ["gzip", "brotli", "download"]
            .iter()
            .any(|w| lower.contains(w))
            && states_figure(line, &["B", "KB", "kB", "MB"]);
        let time = ["clone", "xtask test"].iter().any(|w| lower.contains(w))
            && states_figure(line, &["s", "min", "minutes", "seconds"]);
        if size || time {
            found.push((
                n,
                format!(
                    "states a {} (BENCHMARKS.md holds it; link there)",
                    if size { "download size" } else { "test time" }
                ),
            ));
        }
    }
    found
}

/// A link's target and the line it is on.
#[derive(Debug, PartialEq)]
pub struct Link {
    pub line: usize,
    pub target: String,
}

/// The relative links of a Markdown text (`[text](target)` and `![alt](target)`), outside code
/// fences and inline code; web addresses and mail links are not checked.
pub fn links(text: &str) -> Vec<Link> {
    let mut out = Vec::new();
    for (n, line) in prose_lines(text) {
        let mut in_code = false;
        let bytes = line.as_bytes();
        let mut k = 0;
        while k < bytes.len() {
            match bytes[k] {
                b'`' => in_code = !in_code,
                b']' if !in_code && bytes.get(k + 1) == Some(&b'(') => {
                    if let Some(end) = line[k + 2..].find(')') {
                        let target = line[k + 2..k + 2 + end].trim();
                        // A title after the target: [x](file "title").
                        let target = target.split_whitespace().next().unwrap_or("");
                        if !target.is_empty()
                            && !target.contains("://")
                            && !target.starts_with("mailto:")
                        {
                            out.push(Link {
                                line: n,
                                target: target.to_string(),
                            });
                        }
                        k += 2 + end;
                    }
                }
                _ => {}
            }
            k += 1;
        }
    }
    out
}

/// Whether `target`, written in `from`, names an existing file (and heading).
fn resolve(
    from: &Path,
    target: &str,
    anchors: &mut HashMap<PathBuf, Vec<String>>,
) -> Result<(), String> {
    let (path, anchor) = match target.split_once('#') {
        Some((p, a)) => (p, Some(a)),
        None => (target, None),
    };
    let file = if path.is_empty() {
        from.to_path_buf()
    } else {
        from.parent().unwrap_or(Path::new(".")).join(path)
    };
    if !file.exists() {
        return Err("no such file".into());
    }
    let Some(anchor) = anchor else {
        return Ok(());
    };
    if file.extension().is_none_or(|x| x != "md") {
        return Err("an anchor into a file that is not Markdown".into());
    }
    let key = file.canonicalize().unwrap_or(file.clone());
    if !anchors.contains_key(&key) {
        let text =
            std::fs::read_to_string(&file).map_err(|e| format!("{}: {e}", file.display()))?;
        anchors.insert(key.clone(), heading_slugs(&text));
    }
    if anchors[&key].iter().any(|s| s == anchor) {
        Ok(())
    } else {
        Err(format!("no heading #{anchor} there"))
    }
}

/// The anchors GitHub gives a text's headings: lower case, punctuation dropped (hyphens and
/// underscores kept), spaces to hyphens; a repeated slug gets -1, -2, ...
pub fn heading_slugs(text: &str) -> Vec<String> {
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut slugs = Vec::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced || !line.starts_with('#') {
            continue;
        }
        let title = line.trim_start_matches('#');
        if !title.starts_with(' ') {
            continue;
        }
        let base = slug(title.trim());
        let n = seen.entry(base.clone()).or_insert(0);
        slugs.push(if *n == 0 {
            base.clone()
        } else {
            format!("{base}-{n}")
        });
        *n += 1;
    }
    slugs
}

pub fn slug(title: &str) -> String {
    title
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || *c == ' ' || *c == '-' || *c == '_')
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// `cargo xtask doc-moved OLD.md`: the sentences of OLD.md found in none of today's Markdown
/// files (whitespace and Markdown emphasis normalised), so text moved between pages can be
/// checked for losses. Exits with an error listing them, if any.
pub fn moved(root: &Path, old: &Path) -> Result<(), String> {
    let old_text = std::fs::read_to_string(old).map_err(|e| format!("{}: {e}", old.display()))?;
    let mut today = String::new();
    for file in markdown_files(root)? {
        let text =
            std::fs::read_to_string(&file).map_err(|e| format!("{}: {e}", file.display()))?;
        today.push_str(&normalise(&text));
        today.push(' ');
    }
    let missing: Vec<String> = sentences(&old_text)
        .into_iter()
        .filter(|s| !today.contains(&normalise(s)))
        .collect();
    if missing.is_empty() {
        eprintln!(
            "every sentence of {} is in today's documentation",
            old.display()
        );
        Ok(())
    } else {
        Err(format!(
            "{} sentence(s) of {} are in no Markdown file today:\n  {}",
            missing.len(),
            old.display(),
            missing.join("\n  ")
        ))
    }
}

/// Whitespace collapsed, emphasis and heading marks dropped.
fn normalise(text: &str) -> String {
    text.replace(['*', '#'], "")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// A text's sentences: split after '.', '!', '?' or ':' followed by a space or a line's end, and
/// at blank lines, table rows and list items; fragments under 20 characters are dropped (they
/// say nothing on their own).
pub fn sentences(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for block in text.split("\n\n") {
        for piece in block.split("\n- ").flat_map(|p| p.split("\n|")) {
            let joined = piece.split_whitespace().collect::<Vec<_>>().join(" ");
            let mut current = String::new();
            let chars: Vec<char> = joined.chars().collect();
            for (k, &c) in chars.iter().enumerate() {
                current.push(c);
                let ends = matches!(c, '.' | '!' | '?' | ':')
                    && chars.get(k + 1).is_none_or(|n| *n == ' ');
                if ends {
                    out.push(std::mem::take(&mut current));
                }
            }
            out.push(current);
        }
    }
    out.into_iter()
        .map(|s| s.trim().trim_start_matches("- ").to_string())
        .filter(|s| s.chars().count() >= 20)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sessions_sizes_and_times_belong_to_the_figures_pages() {
        let text = "Measured (session 28).\nThe engine is 232 KB gzip.\n\
                    A fresh clone's test takes about 31 min.\nThe session ends.\n\
                    ```sh\ngzip 5 KB\n```\nIt sums 5 B of weights.\n";
        let lines: Vec<usize> = stray_statements(text, false).iter().map(|f| f.0).collect();
        assert_eq!(lines, [1, 2, 3]);
        // BENCHMARKS.md states figures, but cites no session either.
        let lines: Vec<usize> = stray_statements(text, true).iter().map(|f| f.0).collect();
        assert_eq!(lines, [1]);
        assert!(states_figure("(1,864 s)", &["s"]));
        assert!(!states_figure("v100 s0", &["s"]));
    }

    #[test]
    fn slugs_are_githubs() {
        let text = "# Fairground\n\n## Sweeps: grids of simulations as data (`fairground sweep`)\n\
                    ```sh\n# not a heading\n```\n### Limits\n## Limits\n#not a heading\n";
        assert_eq!(
            heading_slugs(text),
            [
                "fairground",
                "sweeps-grids-of-simulations-as-data-fairground-sweep",
                "limits",
                "limits-1"
            ]
        );
    }

    #[test]
    fn links_outside_code_are_found_with_their_lines() {
        let text = "See [the guide](docs/README.md) and ![pic](docs/p.png \"title\").\n\
                    `[not](a-link)` and [web](https://x.org)\n```\n[no](code.md)\n```\n\
                    [anchor](#limits)";
        assert_eq!(
            links(text),
            [
                Link {
                    line: 1,
                    target: "docs/README.md".into()
                },
                Link {
                    line: 1,
                    target: "docs/p.png".into()
                },
                Link {
                    line: 6,
                    target: "#limits".into()
                },
            ]
        );
    }

    #[test]
    fn a_missing_file_or_heading_is_reported() {
        let dir = std::env::temp_dir().join(format!("xtask-docs-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("docs")).unwrap();
        std::fs::write(dir.join("docs/a.md"), "# A page\n\n## Its part\n").unwrap();
        let from = dir.join("README.md");
        let mut anchors = HashMap::new();
        assert!(resolve(&from, "docs/a.md", &mut anchors).is_ok());
        assert!(resolve(&from, "docs/a.md#its-part", &mut anchors).is_ok());
        assert_eq!(
            resolve(&from, "docs/a.md#other", &mut anchors),
            Err("no heading #other there".to_string())
        );
        assert_eq!(
            resolve(&from, "docs/b.md", &mut anchors),
            Err("no such file".to_string())
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn sentences_split_where_a_reader_would() {
        let text = "The first sentence is here. The second one: follows it.\n\n\
                    - **A list item** that is long enough\n- short\n\n| a table | row cell here |";
        assert_eq!(
            sentences(text),
            [
                "The first sentence is here.",
                "**A list item** that is long enough",
                "| a table | row cell here |"
            ]
        );
    }
}
