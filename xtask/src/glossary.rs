//! The guide's glossary and demo script, `docs/glossary.md` and `docs/tour.md`, made from the
//! page's own definitions and tour (`www/explain.json`, which the playground fetches when a
//! definition or the tour is opened): one text for both. `cargo xtask glossary` writes them;
//! `check-docs` (so `cargo xtask test`) fails when they are not what the data file makes.

use std::path::Path;

const DATA: &str = "www/explain.json";
const PAGE: &str = "docs/glossary.md";
const TOUR: &str = "docs/tour.md";

fn read(root: &Path) -> Result<serde_json::Value, String> {
    let text = std::fs::read_to_string(root.join(DATA)).map_err(|e| format!("{DATA}: {e}"))?;
    serde_json::from_str(&text).map_err(|e| format!("{DATA}: {e}"))
}

/// The glossary's Markdown.
fn render(doc: &serde_json::Value) -> Result<String, String> {
    let terms = doc["terms"]
        .as_array()
        .ok_or_else(|| format!("{DATA}: no `terms` list"))?;
    let mut out = String::from(
        "# Glossary\n\n\
         The terms the playground and this guide use. The page shows the same text beside its \
         verdicts (\"What is SI?\") and behind its Glossary button: both are made from \
         `www/explain.json` (edit it there, then `cargo xtask glossary`).\n",
    );
    for (k, term) in terms.iter().enumerate() {
        let field = |key: &str| term[key].as_str().unwrap_or("").trim().to_string();
        let (name, plain) = (field("name"), field("plain"));
        if field("id").is_empty() || name.is_empty() || plain.is_empty() {
            return Err(format!(
                "{DATA}: term {k} needs an id, a name and plain words"
            ));
        }
        out.push_str(&format!("\n## {name}\n\n{plain}\n"));
        let formula = field("formula");
        if !formula.is_empty() {
            out.push_str(&format!("\n`{formula}`\n"));
        }
        let guaranteed = field("guaranteed");
        if !guaranteed.is_empty() {
            out.push_str(&format!("\nGuaranteed: {guaranteed}\n"));
        }
    }
    Ok(out)
}

/// The tour as a demo script: each step's title, its link and what to say.
fn render_tour(doc: &serde_json::Value) -> Result<String, String> {
    let steps = doc["tour"]
        .as_array()
        .ok_or_else(|| format!("{DATA}: no `tour` list"))?;
    let mut out = String::from(
        "# The guided tour, as a demo script\n\n\
         The playground's tour (\"Take the tour\" under its title) in order: each step opens on \
         its own link, so a talk can put one per slide. In the page, the arrow keys (or a \
         clicker's Page Up / Page Down) step through it; press P to present. The links below are \
         relative to the playground's address (`cargo xtask serve` prints it). Made from \
         `www/explain.json` (edit it there, then `cargo xtask glossary`).\n\n\
         **Offline, for a hall without Wi-Fi.** The day before, open the playground once at the \
         address you will present from (https, or localhost with `cargo xtask serve`) and press \
         P: when it says \"Kept for offline\", every step below, the glossary and the simulator \
         work with the network gone, and a reload opens the page again (so do the step links \
         below). [Hosting](hosting.md) says more.\n",
    );
    for (k, step) in steps.iter().enumerate() {
        let field = |key: &str| step[key].as_str().unwrap_or("").trim().to_string();
        let (title, text) = (field("title"), field("text"));
        if title.is_empty() || text.is_empty() || field("policy").is_empty() {
            return Err(format!(
                "{DATA}: tour step {} needs a title, a text and a policy",
                k + 1
            ));
        }
        let view = match field("view").as_str() {
            "" => "one policy".to_string(),
            "compare" => "Compare all".to_string(),
            "frontier" => "Price of fairness".to_string(),
            other => return Err(format!("{DATA}: tour step {}: no view `{other}`", k + 1)),
        };
        out.push_str(&format!(
            "\n## {}. {title}\n\n`#tour={}`: the {} preset, {}, {view}.\n\n{text}\n",
            k + 1,
            k + 1,
            field("preset"),
            field("policy"),
        ));
        // The terms the step defines under its text: each must be in the glossary.
        let names: Vec<String> = step["terms"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|id| {
                let id = id.as_str().unwrap_or("");
                doc["terms"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .find(|t| t["id"].as_str() == Some(id))
                    .and_then(|t| t["name"].as_str())
                    .map(|name| format!("[{name}](glossary.md#{})", crate::docs::slug(name)))
                    .ok_or_else(|| {
                        format!(
                            "{DATA}: tour step {} names the term `{id}`, which `terms` lacks",
                            k + 1
                        )
                    })
            })
            .collect::<Result<_, _>>()?;
        if !names.is_empty() {
            out.push_str(&format!("\nDefined on screen: {}.\n", names.join(", ")));
        }
    }
    Ok(out)
}

/// The pages the data file makes, with where each goes.
fn pages(root: &Path) -> Result<[(&'static str, String); 2], String> {
    let doc = read(root)?;
    Ok([(PAGE, render(&doc)?), (TOUR, render_tour(&doc)?)])
}

/// Writes `docs/glossary.md` and `docs/tour.md`.
pub fn write(root: &Path) -> Result<(), String> {
    for (path, page) in pages(root)? {
        std::fs::write(root.join(path), page).map_err(|e| format!("{path}: {e}"))?;
    }
    Ok(())
}

/// Whether `docs/glossary.md` and `docs/tour.md` are what the data file makes.
pub fn check(root: &Path) -> Result<(), String> {
    for (path, made) in pages(root)? {
        let kept = std::fs::read_to_string(root.join(path)).unwrap_or_default();
        if made != kept {
            return Err(format!(
                "{path} is not what {DATA} makes: run `cargo xtask glossary`"
            ));
        }
    }
    Ok(())
}
