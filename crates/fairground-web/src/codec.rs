//! Scenario <-> URL fragment (`#v=<format>&s=<base64url(deflate(json))>`), and the size limits
//! that keep a hostile link or file from freezing the page. `v` is the scenario format version
//! the link was made with, so a link (an `?embed` in someone's documentation above all) keeps
//! working after the format grows; links from before it was written mean version 1.

use crate::deflate::Inflate;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use fairground_core::scenario::SCHEMA_VERSION;
use fairground_core::Scenario;

/// Longest fragment accepted (characters after `#s=`).
pub const MAX_FRAGMENT: usize = 64 * 1024;
/// Largest scenario JSON accepted, from a file, a link or storage (bytes, after inflating).
pub const MAX_JSON: usize = 1024 * 1024;

/// The fragment (without `#`) that reproduces `scenario` exactly: its JSON deflated by the
/// browser ([`crate::deflate`]), then base64url.
pub async fn to_fragment(scenario: &Scenario) -> Result<String, String> {
    let json = serde_json::to_string(scenario).map_err(|e| e.to_string())?;
    Ok(fragment_of(
        &crate::deflate::deflate(json.as_bytes()).await?,
    ))
}

/// The fragment for a scenario's deflated JSON, with this build's format version.
pub fn fragment_of(packed: &[u8]) -> String {
    format!("v={SCHEMA_VERSION}&s={}", URL_SAFE_NO_PAD.encode(packed))
}

/// Reads a scenario back from a fragment (with or without the leading `#`). `Ok(None)` when the
/// fragment holds no scenario at all; `Err` says why one could not be read.
pub async fn from_fragment(fragment: &str) -> Result<Option<Scenario>, String> {
    let Some(packed) = unpack(fragment)? else {
        return Ok(None);
    };
    let json = crate::deflate::inflate(&packed.bytes, MAX_JSON)
        .await
        .map_err(|why| match why {
            Inflate::OverLimit => over_limit(),
            Inflate::Damaged(_) => damaged(),
        })?;
    read_unpacked(json, packed.version).map(Some)
}

/// A link's payload before inflating: its format version and its deflated bytes.
pub struct Packed {
    pub version: u32,
    pub bytes: Vec<u8>,
}

/// The value of `key` in a fragment (`#a=1&b=2`, with or without the `#`).
pub fn param<'a>(fragment: &'a str, key: &str) -> Option<&'a str> {
    fragment
        .trim_start_matches('#')
        .split('&')
        .find_map(|part| part.strip_prefix(key)?.strip_prefix('='))
}

/// What a link says about what was on screen, beside its scenario: the view (`view=`:
/// `compare`, `frontier`, `simulation`; absent for one policy), the policy open (`policy=`) and
/// the guided tour's step (`tour=`, from 1), so a link reopens a slide as it was shown.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct View {
    pub view: Option<String>,
    pub policy: Option<String>,
    pub tour: Option<String>,
}

impl View {
    /// The view a fragment names; names are kept only if made of the characters policy and
    /// view names use (the reader decides whether it knows them).
    pub fn of(fragment: &str) -> View {
        let name = |key| {
            param(fragment, key)
                .filter(|v| {
                    !v.is_empty()
                        && v.len() <= 64
                        && v.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
                })
                .map(str::to_string)
        };
        View {
            view: name("view"),
            policy: name("policy"),
            tour: name("tour"),
        }
    }

    /// `fragment` (a scenario's, from [`to_fragment`]) with this view after it.
    pub fn appended_to(&self, fragment: &str) -> String {
        let mut out = fragment.to_string();
        for (key, value) in [
            ("view", &self.view),
            ("policy", &self.policy),
            ("tour", &self.tour),
        ] {
            if let Some(value) = value {
                out.push_str(&format!("&{key}={value}"));
            }
        }
        out
    }
}

/// What a link asks for that this page does not have, in words (a policy or a view of another
/// version, or a typo), so that it is not ignored silently; `None` when it names nothing
/// unknown. `views` are the view names this page knows.
pub fn unknown_in_link(fragment: &str, views: &[&str]) -> Option<String> {
    // Shown as text, cut short: a link is anyone's.
    let shown = |v: &str| -> String {
        let mut cut: String = v.chars().take(40).collect();
        if cut.len() < v.len() {
            cut.push('…');
        }
        cut
    };
    let mut missing = Vec::new();
    if let Some(p) =
        param(fragment, "policy").filter(|p| fairground_core::policies::info(p).is_none())
    {
        missing.push(format!("a policy this page does not have, '{}'", shown(p)));
    }
    if let Some(v) = param(fragment, "view").filter(|v| !views.contains(v)) {
        missing.push(format!("a view this page does not have, '{}'", shown(v)));
    }
    (!missing.is_empty()).then(|| {
        format!(
            "The link asks for {}; the page opens as it would without.",
            missing.join(" and ")
        )
    })
}

/// The first half of [`from_fragment`]: the fragment's fields, its size limit and base64.
pub fn unpack(fragment: &str) -> Result<Option<Packed>, String> {
    let param = |key: &str| param(fragment, key);
    let Some(payload) = param("s") else {
        return Ok(None);
    };
    let version = match param("v") {
        None => 1, // links made before the version was written
        Some(v) => v
            .parse::<u32>()
            .map_err(|_| format!("the link's format version '{v}' is not a number"))?,
    };
    // Before anything is inflated: a newer format may be packed differently, and "damaged"
    // would send the reader looking for a broken link instead of a newer Fairground.
    if version == 0 || version > SCHEMA_VERSION {
        return Err(format!(
            "the link was made by a newer Fairground: its scenario is in format {version}, and \
             this page reads formats 1 to {SCHEMA_VERSION}. Open it with the Fairground that made it"
        ));
    }
    if payload.len() > MAX_FRAGMENT {
        return Err(format!(
            "the link's scenario is {} KB, over the {} KB limit",
            payload.len() / 1024,
            MAX_FRAGMENT / 1024
        ));
    }
    let bytes = URL_SAFE_NO_PAD
        .decode(payload)
        .map_err(|_| "the link's scenario is damaged (not base64url)".to_string())?;
    Ok(Some(Packed { version, bytes }))
}

/// The second half of [`from_fragment`]: the inflated JSON, read as its format `version`.
pub fn read_unpacked(json: Vec<u8>, version: u32) -> Result<Scenario, String> {
    let text =
        String::from_utf8(json).map_err(|_| "the link's scenario is not text".to_string())?;
    Scenario::from_json_of_version(&text, version).map_err(|p| format!("the link's scenario: {p}"))
}

fn damaged() -> String {
    "the link's scenario is damaged (not deflated JSON)".to_string()
}

fn over_limit() -> String {
    format!(
        "the link's scenario is over {} KB unpacked",
        MAX_JSON / 1024
    )
}

/// Parses scenario JSON from anywhere outside (a file, storage), within the size limit.
pub fn parse_json(text: &str) -> Result<Scenario, String> {
    if text.len() > MAX_JSON {
        return Err(format!(
            "the scenario is {} KB, over the {} KB limit",
            text.len() / 1024,
            MAX_JSON / 1024
        ));
    }
    Scenario::from_json(text).map_err(|p| p.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use fairground_core::presets;

    // Natively there is no browser to deflate: these run the async functions' halves with
    // miniz_oxide, which made the links of builds before the browser's own deflate (the same
    // raw deflate). tests/browser.rs runs the real ones, on these links too.
    fn to_fragment(scenario: &Scenario) -> String {
        let json = serde_json::to_string(scenario).unwrap();
        fragment_of(&miniz_oxide::deflate::compress_to_vec(json.as_bytes(), 9))
    }

    fn from_fragment(fragment: &str) -> Result<Option<Scenario>, String> {
        let Some(packed) = unpack(fragment)? else {
            return Ok(None);
        };
        let json = miniz_oxide::inflate::decompress_to_vec_with_limit(&packed.bytes, MAX_JSON)
            .map_err(|e| match e.status {
                miniz_oxide::inflate::TINFLStatus::HasMoreOutput => over_limit(),
                _ => damaged(),
            })?;
        read_unpacked(json, packed.version).map(Some)
    }

    #[test]
    fn round_trips_exactly() {
        let s = presets::default_scenario();
        let fragment = to_fragment(&s);
        assert!(fragment.len() < 600, "{}", fragment.len());
        assert_eq!(from_fragment(&format!("#{fragment}")).unwrap(), Some(s));
    }

    /// The embed demo page (www/embed.html) must link to the textbook 2 x 2 preset.
    #[test]
    fn the_embed_demo_links_the_textbook_preset() {
        let page = include_str!("../../../www/embed.html");
        let start = page.find("?embed#").expect("an ?embed link") + "?embed#".len();
        let end = start + page[start..].find('"').expect("a closing quote");
        let link = page[start..end].replace("&amp;", "&"); // as the browser reads the attribute
        assert!(
            link.starts_with("v=1&s="),
            "the demo's link carries its format version"
        );
        let expected = presets::textbook_two_by_two().scenario;
        assert_eq!(
            from_fragment(&link).ok().flatten(),
            Some(expected.clone()),
            "use #{}",
            to_fragment(&expected)
        );
    }

    /// Links people have already put in their pages: one made today (format 1, `v=1`) and one
    /// from before the version was written. Both must keep opening this scenario, whatever the
    /// format becomes (a later version upgrades them in `Scenario::from_json_of_version`).
    #[test]
    fn links_made_earlier_keep_opening_their_scenario() {
        let expected = presets::textbook_two_by_two().scenario;
        let today = "v=1&s=bY9BCsMgEEXvMmsR7dKrhFKkWBXMKDomtCF379RFSWmWw_vv82eDxdUWM4LRAnzpN3oW18BMG6CdHRhoKa8g4J47Eqd28SUP2-hIrgLIoUX68Zc4-pmFmrsPpXN40lKJi1SsrC768PGlOnTXdGboP4NPzHW2Kb4sjT_GYMfL9jc";
        assert_eq!(from_fragment(today).unwrap(), Some(expected.clone()));
        let unversioned = today.trim_start_matches("v=1&");
        assert_eq!(from_fragment(unversioned).unwrap(), Some(expected.clone()));
        // A link made today reads as version 1 even if its JSON names no version (the field's
        // default is the build's current version, which will move).
        let bare =
            r#"{"gpu_types":[{"name":"a","count":1}],"tenants":[{"name":"t","throughput":[1]}]}"#;
        let packed = miniz_oxide::deflate::compress_to_vec(bare.as_bytes(), 9);
        let link = format!("v=1&s={}", URL_SAFE_NO_PAD.encode(packed));
        assert_eq!(from_fragment(&link).unwrap().unwrap().version, 1);
        // What this build writes carries its version, and reads back.
        assert!(to_fragment(&expected).starts_with(&format!("v={SCHEMA_VERSION}&s=")));
        // A link from a newer build says so instead of misreading it.
        let newer = today.replace("v=1", &format!("v={}", SCHEMA_VERSION + 1));
        assert!(from_fragment(&newer)
            .unwrap_err()
            .contains("newer Fairground"));
        assert!(from_fragment("v=x&s=AAAA")
            .unwrap_err()
            .contains("not a number"));
    }

    /// A link carries the view and policy on screen; odd values are dropped, never echoed.
    #[test]
    fn a_link_carries_the_view_on_screen() {
        let scenario = to_fragment(&presets::textbook_two_by_two().scenario);
        let view = View {
            view: Some("compare".into()),
            policy: Some("gavel-las".into()),
            tour: Some("6".into()),
        };
        let link = view.appended_to(&scenario);
        assert!(link.ends_with("&view=compare&policy=gavel-las&tour=6"));
        assert_eq!(View::of(&format!("#{link}")), view);
        // The scenario still opens from it.
        assert_eq!(
            from_fragment(&link).unwrap(),
            Some(presets::textbook_two_by_two().scenario)
        );
        assert_eq!(View::of(&scenario), View::default());
        let odd = View::of("s=AAAA&view=<b>x</b>&policy=a%20b");
        assert_eq!(odd, View::default());
    }

    #[test]
    fn a_link_naming_what_the_page_lacks_says_so() {
        let views = ["compare", "frontier", "simulation"];
        assert_eq!(
            unknown_in_link("s=abc&view=compare&policy=oef-coop", &views),
            None
        );
        assert_eq!(unknown_in_link("s=abc", &views), None);
        let why = unknown_in_link("s=abc&policy=oef-koop", &views).unwrap();
        assert!(
            why.contains("a policy this page does not have, 'oef-koop'"),
            "{why}"
        );
        let why = unknown_in_link("view=slides&policy=x", &views).unwrap();
        assert!(
            why.contains("'x' and a view this page does not have, 'slides'"),
            "{why}"
        );
        let long = "y".repeat(100);
        let why = unknown_in_link(&format!("policy={long}"), &views).unwrap();
        assert!(why.contains(&format!("'{}…'", "y".repeat(40))), "{why}");
    }

    #[test]
    fn other_fragments_are_not_scenarios() {
        assert_eq!(from_fragment("").unwrap(), None);
        assert_eq!(from_fragment("#results").unwrap(), None);
    }

    #[test]
    fn damaged_or_oversized_links_are_refused_with_a_reason() {
        assert!(from_fragment("#s=!!!").unwrap_err().contains("damaged"));
        assert!(from_fragment("#s=AAAA").unwrap_err().contains("damaged"));
        // A version this build does not know is named, whatever its payload.
        for v in ["2", "99", "0"] {
            let why = from_fragment(&format!("#v={v}&s=AAAA")).unwrap_err();
            assert!(
                why.contains(&format!("format {v},")) && why.contains("newer Fairground"),
                "{why}"
            );
        }
        let huge = format!("s={}", "A".repeat(MAX_FRAGMENT + 1));
        assert!(from_fragment(&huge).unwrap_err().contains("limit"));
        // A small fragment that inflates past the limit (a zip bomb) is refused too.
        let bomb = miniz_oxide::deflate::compress_to_vec(&vec![b' '; MAX_JSON + 10], 9);
        let fragment = format!("s={}", URL_SAFE_NO_PAD.encode(bomb));
        assert!(fragment.len() < MAX_FRAGMENT);
        assert!(from_fragment(&fragment).unwrap_err().contains("over"));
        assert!(parse_json(&" ".repeat(MAX_JSON + 1))
            .unwrap_err()
            .contains("limit"));
    }
}
