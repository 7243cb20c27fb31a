//! Scenario <-> URL fragment (`#s=<base64url(deflate(json))>`), and the size limits that keep a
//! hostile link or file from freezing the page.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use fairground_core::Scenario;

/// Longest fragment accepted (characters after `#s=`).
pub const MAX_FRAGMENT: usize = 64 * 1024;
/// Largest scenario JSON accepted, from a file, a link or storage (bytes, after inflating).
pub const MAX_JSON: usize = 1024 * 1024;

const PREFIX: &str = "s=";

/// The fragment (without `#`) that reproduces `scenario` exactly.
pub fn to_fragment(scenario: &Scenario) -> String {
    let json = serde_json::to_string(scenario).unwrap_or_default();
    let packed = miniz_oxide::deflate::compress_to_vec(json.as_bytes(), 9);
    format!("{PREFIX}{}", URL_SAFE_NO_PAD.encode(packed))
}

/// Reads a scenario back from a fragment (with or without the leading `#`). `Ok(None)` when the
/// fragment holds no scenario at all; `Err` says why one could not be read.
pub fn from_fragment(fragment: &str) -> Result<Option<Scenario>, String> {
    let fragment = fragment.trim_start_matches('#');
    let Some(payload) = fragment.strip_prefix(PREFIX) else {
        return Ok(None);
    };
    if payload.len() > MAX_FRAGMENT {
        return Err(format!(
            "the link's scenario is {} KB, over the {} KB limit",
            payload.len() / 1024,
            MAX_FRAGMENT / 1024
        ));
    }
    let packed = URL_SAFE_NO_PAD
        .decode(payload)
        .map_err(|_| "the link's scenario is damaged (not base64url)".to_string())?;
    let json =
        miniz_oxide::inflate::decompress_to_vec_with_limit(&packed, MAX_JSON).map_err(|_| {
            format!(
                "the link's scenario is damaged or over {} KB unpacked",
                MAX_JSON / 1024
            )
        })?;
    let text =
        String::from_utf8(json).map_err(|_| "the link's scenario is not text".to_string())?;
    parse_json(&text).map(Some)
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
        let start = page.find("?embed#").expect("an ?embed link") + "?embed".len();
        let end = start + page[start..].find('"').expect("a closing quote");
        let expected = presets::textbook_two_by_two().scenario;
        assert_eq!(
            from_fragment(&page[start..end]).ok().flatten(),
            Some(expected.clone()),
            "use #{}",
            to_fragment(&expected)
        );
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
