//! Where work is kept between visits: the draft (as typed) in localStorage, the scenario in the
//! URL fragment. On start, a shared link wins over the saved draft unless the draft was saved
//! for that very link (then the draft keeps any half-typed cells).

use crate::codec;
use crate::draft::Draft;
use fairground_core::{presets, Scenario};
use serde::{Deserialize, Serialize};

const KEY: &str = "fairground.draft.v1";

#[derive(Serialize, Deserialize)]
struct Saved {
    draft: Draft,
    /// The fragment the page showed when this draft was saved.
    fragment: String,
    policy: String,
}

fn storage() -> Option<web_sys::Storage> {
    web_sys::window()?.local_storage().ok().flatten()
}

pub fn location_hash() -> String {
    web_sys::window()
        .and_then(|w| w.location().hash().ok())
        .unwrap_or_default()
}

/// `?embed` shows the results only, for iframes in documentation pages.
pub fn embed_mode() -> bool {
    web_sys::window()
        .and_then(|w| w.location().search().ok())
        .is_some_and(|s| {
            s.trim_start_matches('?')
                .split('&')
                .any(|p| p == "embed" || p.starts_with("embed="))
        })
}

/// The scenario of the link the page opened on (`codec::from_fragment` of the address's
/// fragment): none, one, or why it could not be read.
pub type OpeningLink = Result<Option<Scenario>, String>;

/// What the page opens on, given the link it was opened on: (draft, policy, notice for the
/// user).
pub fn initial(link: &OpeningLink) -> (Draft, String, Option<String>) {
    let hash = location_hash();
    let saved: Option<Saved> = storage()
        .and_then(|s| s.get_item(KEY).ok().flatten())
        .filter(|text| text.len() <= codec::MAX_JSON)
        .and_then(|text| serde_json::from_str(&text).ok());
    let policy = saved
        .as_ref()
        .map_or(fairground_core::policies::DEFAULT_POLICY.to_string(), |s| {
            s.policy.clone()
        });
    match link {
        Ok(Some(scenario)) => match saved {
            // The same scenario's link (the view it shows may have changed since).
            Some(s) if codec::param(&s.fragment, "s") == codec::param(&hash, "s") => {
                (s.draft, policy, None)
            }
            _ => (Draft::from_scenario(scenario), policy, None),
        },
        Ok(None) => match saved {
            Some(s) => (s.draft, policy, None),
            None => (
                Draft::from_scenario(&presets::default_scenario()),
                policy,
                None,
            ),
        },
        Err(why) => {
            let notice = Some(format!(
                "The link's scenario could not be opened: {why}. Showing your last work instead."
            ));
            match saved {
                Some(s) => (s.draft, policy, notice),
                None => (
                    Draft::from_scenario(&presets::default_scenario()),
                    policy,
                    notice,
                ),
            }
        }
    }
}

/// Puts `fragment` (a scenario from [`codec::to_fragment`]) into the address bar, without adding
/// a history entry. The Simulation tab's settings (`sim=`, [`set_sim_settings`]) stay in it.
pub fn set_link(fragment: &str) {
    let current = location_hash();
    let sim = crate::codec::param(&current, SIM_PARAM)
        .map(|s| format!("&{SIM_PARAM}={s}"))
        .unwrap_or_default();
    replace_hash(&format!("{fragment}{sim}"));
}

fn replace_hash(fragment: &str) {
    if let Some(Ok(history)) = web_sys::window().map(|w| w.history()) {
        let _ = history.replace_state_with_url(
            &wasm_bindgen::JsValue::NULL,
            "",
            Some(&format!("#{fragment}")),
        );
    }
}

/// The link's field for the Simulation tab's settings (`SimForm::to_settings`'s text).
const SIM_PARAM: &str = "sim";
/// Where the Simulation tab's settings are kept between visits.
const SIM_KEY: &str = "fairground.sim.v1";

/// The Simulation tab's settings to open with: the link's, else the ones saved last.
pub fn sim_settings() -> Option<String> {
    let hash = location_hash();
    crate::codec::param(&hash, SIM_PARAM)
        .map(str::to_string)
        .or_else(|| storage()?.get_item(SIM_KEY).ok().flatten())
}

/// Keeps the Simulation tab's settings, in the link and for the next visit; `None` (the
/// defaults) takes them out of both.
pub fn set_sim_settings(settings: Option<&str>) {
    let hash = location_hash();
    let mut parts: Vec<&str> = hash
        .trim_start_matches('#')
        .split('&')
        .filter(|p| !p.is_empty() && !p.starts_with("sim="))
        .collect();
    let field = settings.map(|s| format!("{SIM_PARAM}={s}"));
    if let Some(field) = &field {
        parts.push(field);
    }
    replace_hash(&parts.join("&"));
    if let Some(store) = storage() {
        let _ = match settings {
            Some(s) => store.set_item(SIM_KEY, s),
            None => store.remove_item(SIM_KEY),
        };
    }
}

/// Saves the draft as typed, with the link currently in the address bar.
pub fn save(draft: &Draft, policy: &str) {
    let saved = Saved {
        draft: draft.clone(),
        fragment: location_hash().trim_start_matches('#').to_string(),
        policy: policy.to_string(),
    };
    if let (Some(store), Ok(text)) = (storage(), serde_json::to_string(&saved)) {
        let _ = store.set_item(KEY, &text);
    }
}
