//! The guide, served beside the playground: every page of `docs/` and the project's top-level
//! Markdown files, rendered to HTML into `dist/guide/` when the site is built, with links
//! between them rewritten to the rendered pages. The playground's intro links to it, so a
//! reader of the page reaches the same text a reader of the repository does.

use pulldown_cmark::{html, CowStr, Event, Options, Parser, Tag, TagEnd};
use std::path::{Component, Path, PathBuf};

/// Each page of the site's guide: its Markdown source (from the project root) and its HTML
/// name in `dist/guide/`. The root files' names differ from docs/'s (README, reproduction).
fn pages(root: &Path) -> Result<Vec<(PathBuf, String)>, String> {
    let mut pages = Vec::new();
    let docs = std::fs::read_dir(root.join("docs")).map_err(|e| format!("docs/: {e}"))?;
    for entry in docs.flatten() {
        let name = entry.file_name().to_string_lossy().to_string();
        if let Some(stem) = name.strip_suffix(".md") {
            let html = if stem == "README" { "index" } else { stem };
            pages.push((PathBuf::from("docs").join(&name), format!("{html}.html")));
        }
    }
    for (source, html) in [
        ("README.md", "readme.html"),
        ("ARCHITECTURE.md", "architecture.html"),
        ("BENCHMARKS.md", "benchmarks.html"),
        ("REPRODUCTION.md", "reproduction-results.html"),
        ("CHANGELOG.md", "changelog.html"),
    ] {
        if root.join(source).exists() {
            pages.push((PathBuf::from(source), html.to_string()));
        }
    }
    pages.sort();
    Ok(pages)
}

/// `target` (a link in the page at `from`, both from the project root) without `.` and `..`.
fn resolve(from: &Path, target: &str) -> PathBuf {
    let mut out = PathBuf::new();
    for part in from
        .parent()
        .unwrap_or(Path::new(""))
        .join(target)
        .components()
    {
        match part {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// Where a link of the page at `from` goes in the site: a rendered page (with its anchor), an
/// image copied beside them, an outside address as it is, or `None` for a file the site does
/// not serve (source code, licences), whose link becomes plain text.
fn site_link(from: &Path, dest: &str, pages: &[(PathBuf, String)]) -> Option<String> {
    if dest.contains("://") || dest.starts_with('#') || dest.starts_with("mailto:") {
        return Some(dest.to_string());
    }
    let (path, anchor) = dest.split_once('#').map_or((dest, ""), |(p, a)| (p, a));
    let target = resolve(from, path);
    let anchor = if anchor.is_empty() {
        String::new()
    } else {
        format!("#{anchor}")
    };
    if let Some((_, html)) = pages.iter().find(|(source, _)| *source == target) {
        return Some(format!("{html}{anchor}"));
    }
    (target.extension().and_then(|e| e.to_str()) == Some("png") && target.starts_with("docs")).then(
        || {
            target
                .file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .to_string()
        },
    )
}

/// One page as HTML: its Markdown with links rewritten, in a plain shell titled by its first
/// heading, with a way back to the guide's index and to the playground.
fn render(source: &Path, text: &str, pages: &[(PathBuf, String)]) -> String {
    let title = text
        .lines()
        .find_map(|l| l.strip_prefix("# "))
        .unwrap_or("Fairground")
        .to_string();
    let mut dropped = 0usize; // links turned to text, whose ends are dropped too
    let events = Parser::new_ext(text, Options::ENABLE_TABLES).filter_map(|event| match event {
        Event::Start(Tag::Link {
            link_type,
            dest_url,
            title,
            id,
        }) => match site_link(source, &dest_url, pages) {
            Some(to) => Some(Event::Start(Tag::Link {
                link_type,
                dest_url: CowStr::from(to),
                title,
                id,
            })),
            None => {
                dropped += 1;
                None
            }
        },
        Event::Start(Tag::Image {
            link_type,
            dest_url,
            title,
            id,
        }) => {
            let to = site_link(source, &dest_url, pages).unwrap_or_default();
            Some(Event::Start(Tag::Image {
                link_type,
                dest_url: CowStr::from(to),
                title,
                id,
            }))
        }
        Event::End(TagEnd::Link) if dropped > 0 => {
            dropped -= 1;
            None
        }
        other => Some(other),
    });
    let mut body = String::new();
    html::push_html(&mut body, events);
    let title = title.replace('&', "&amp;").replace('<', "&lt;");
    format!(
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta name=\"color-scheme\" content=\"light dark\">\n\
         <link rel=\"icon\" href=\"data:,\">\n<title>{title} — Fairground guide</title>\n\
         <style>body{{font:16px/1.5 system-ui,sans-serif;max-width:48rem;margin:2rem auto;padding:0 1rem}}\
         pre,code{{font-size:0.9em}}pre{{overflow-x:auto}}table{{border-collapse:collapse}}\
         td,th{{border:1px solid #8888;padding:0.2rem 0.5rem}}img{{max-width:100%}}</style>\n</head>\n<body>\n\
         <nav><a href=\"index.html\">The guide</a> · <a href=\"../\">The playground</a></nav>\n\
         <main>\n{body}</main>\n</body>\n</html>\n"
    )
}

/// Renders the guide into `dist/guide/`.
pub fn build(root: &Path, dist: &Path) -> Result<(), String> {
    let out = dist.join("guide");
    std::fs::create_dir_all(&out).map_err(|e| format!("{}: {e}", out.display()))?;
    let pages = pages(root)?;
    for (source, html) in &pages {
        let text = std::fs::read_to_string(root.join(source))
            .map_err(|e| format!("{}: {e}", source.display()))?;
        std::fs::write(out.join(html), render(source, &text, &pages))
            .map_err(|e| format!("guide/{html}: {e}"))?;
    }
    // The pictures the pages show (site_link sends docs/*.png here).
    let docs = std::fs::read_dir(root.join("docs")).map_err(|e| format!("docs/: {e}"))?;
    for image in docs.flatten().map(|e| e.path()) {
        if image.extension().and_then(|e| e.to_str()) == Some("png") {
            let name = image.file_name().unwrap_or_default();
            std::fs::copy(&image, out.join(name))
                .map_err(|e| format!("{}: {e}", image.display()))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table() -> Vec<(PathBuf, String)> {
        vec![
            (PathBuf::from("docs/README.md"), "index.html".into()),
            (PathBuf::from("docs/glossary.md"), "glossary.html".into()),
            (PathBuf::from("README.md"), "readme.html".into()),
        ]
    }

    #[test]
    fn links_go_to_the_rendered_pages() {
        let from = Path::new("docs/playground.md");
        let t = table();
        assert_eq!(
            site_link(from, "glossary.md#sharing-incentive-si", &t).as_deref(),
            Some("glossary.html#sharing-incentive-si")
        );
        assert_eq!(
            site_link(from, "../README.md", &t).as_deref(),
            Some("readme.html")
        );
        assert_eq!(
            site_link(Path::new("README.md"), "docs/README.md", &t).as_deref(),
            Some("index.html")
        );
        assert_eq!(
            site_link(from, "playground.png", &t).as_deref(),
            Some("playground.png")
        );
        assert_eq!(
            site_link(from, "https://arxiv.org/abs/2403.18545", &t).as_deref(),
            Some("https://arxiv.org/abs/2403.18545")
        );
        assert_eq!(site_link(from, "#keys", &t).as_deref(), Some("#keys"));
        // Files the site does not serve: their links become text.
        assert_eq!(
            site_link(from, "../crates/fairground-web/src/app.rs", &t),
            None
        );
        assert_eq!(site_link(Path::new("README.md"), "LICENSE-MIT", &t), None);
    }

    #[test]
    fn a_page_renders_with_its_title_and_rewritten_links() {
        let html = render(
            Path::new("docs/playground.md"),
            "# The <playground>\n\nSee the [glossary](glossary.md) and [code](../src/x.rs).\n",
            &table(),
        );
        assert!(html.contains("<title>The &lt;playground> — Fairground guide</title>"));
        assert!(html.contains("<a href=\"glossary.html\">glossary</a>"));
        assert!(html.contains("and code.</p>"), "{html}");
    }
}
