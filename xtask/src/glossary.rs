//! The guide's glossary, `docs/glossary.md`, made from the page's own definitions
//! (`www/explain.json`, which the playground fetches when a definition is opened): one text for
//! both. `cargo xtask glossary` writes it; `check-docs` (so `cargo xtask test`) fails when it
//! is not what the data file makes.

use std::path::Path;

const DATA: &str = "www/explain.json";
const PAGE: &str = "docs/glossary.md";

/// The Markdown the data file makes.
pub fn render(root: &Path) -> Result<String, String> {
    let text = std::fs::read_to_string(root.join(DATA)).map_err(|e| format!("{DATA}: {e}"))?;
    let doc: serde_json::Value = serde_json::from_str(&text).map_err(|e| format!("{DATA}: {e}"))?;
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

/// Writes `docs/glossary.md`.
pub fn write(root: &Path) -> Result<(), String> {
    let page = render(root)?;
    std::fs::write(root.join(PAGE), page).map_err(|e| format!("{PAGE}: {e}"))
}

/// Whether `docs/glossary.md` is what the data file makes.
pub fn check(root: &Path) -> Result<(), String> {
    let made = render(root)?;
    let kept = std::fs::read_to_string(root.join(PAGE)).unwrap_or_default();
    if made == kept {
        Ok(())
    } else {
        Err(format!(
            "{PAGE} is not what {DATA} makes: run `cargo xtask glossary`"
        ))
    }
}
