//! Presenter mode and the colour scheme, for a speaker: `P` (or the header's button) hides the
//! editor, enlarges text and lines, shows one figure per screen and goes full screen; in it,
//! `1`-`9` open the catalogue's first nine policies. `T` starts the guided tour (in presenter
//! mode or out); while the tour is open, Esc is the tour's (it leaves the tour), so a speaker's
//! first Esc leaves the tour and the second presenter mode. Keys act only outside editable fields, so
//! the grid's own keys stay the grid's. The scheme follows the system unless switched.

use crate::state::{Action, AppState, Mode};
use fairground_core::policies;
use wasm_bindgen::JsCast;
use yew::prelude::*;

/// What a key press outside an editable field asks of the page.
#[derive(Debug, PartialEq)]
pub enum KeyAction {
    TogglePresenting,
    Leave,
    StartTour,
    /// Open this policy (an index into the catalogue).
    Policy(usize),
}

/// The action a key stands for, `presenting` or not, `touring` (the tour open) or not (pure,
/// for the tests).
pub fn key_action(key: &str, presenting: bool, touring: bool) -> Option<KeyAction> {
    match key {
        "p" | "P" => Some(KeyAction::TogglePresenting),
        "t" | "T" if !touring => Some(KeyAction::StartTour),
        // The tour's own listener takes Esc while it is open (it leaves the tour).
        "Escape" if presenting && !touring => Some(KeyAction::Leave),
        _ if presenting => key
            .parse::<usize>()
            .ok()
            .filter(|d| (1..=9).contains(d) && *d <= policies::CATALOGUE.len())
            .map(|d| KeyAction::Policy(d - 1)),
        _ => None,
    }
}

/// Whether a key went to something that edits (an input, a select, a text area, an editable
/// element): those keys are not the page's.
pub(crate) fn in_editable(event: &KeyboardEvent) -> bool {
    let Some(target) = event.target() else {
        return false;
    };
    let Ok(element) = target.dyn_into::<web_sys::HtmlElement>() else {
        return false;
    };
    matches!(element.tag_name().as_str(), "INPUT" | "SELECT" | "TEXTAREA")
        || element.is_content_editable()
}

/// Full screen on entering presenter mode, back on leaving (both may be refused: a page in an
/// iframe without permission, a browser that asks; the mode works without).
/// Whether this page would open offline now, in words for a speaker checking before a talk
/// (short, and the longer explanation for its title): the service worker
/// (www/service-worker.js, registered by index.html) controls the page once it has kept every
/// file.
pub fn offline_status() -> (&'static str, Option<&'static str>) {
    let navigator = gloo::utils::window().navigator();
    let container = js_sys::Reflect::get(&navigator, &"serviceWorker".into())
        .ok()
        .filter(|c| !c.is_undefined());
    match container {
        None => (
            "Offline use needs https or localhost.",
            Some("Browsers keep a page for offline use on https and localhost only."),
        ),
        Some(c) => match js_sys::Reflect::get(&c, &"controller".into()) {
            Ok(controller) if !controller.is_null() && !controller.is_undefined() => (
                "Kept for offline.",
                Some("The page, its tour, the glossary and the simulator open without a network."),
            ),
            _ => (
                "Not kept for offline yet: reload once online.",
                Some("Wait a few seconds online, or reload once, then press P again to check."),
            ),
        },
    }
}

pub fn full_screen(on: bool) {
    let document = gloo::utils::document();
    if on {
        if let Some(root) = document.document_element() {
            let _ = root.request_fullscreen();
        }
    } else if document.fullscreen_element().is_some() {
        document.exit_fullscreen();
    }
}

/// Listens for the presenter's keys while the page is open; `tour` is the tour's step on
/// screen (`T` opens its first).
#[hook]
pub fn use_presenter_keys(
    state: UseReducerHandle<AppState>,
    presenting: UseStateHandle<bool>,
    tour: UseStateHandle<Option<usize>>,
) {
    let touring = tour.is_some();
    use_effect_with((*presenting, touring), move |&(now, touring)| {
        let listener =
            gloo::events::EventListener::new(&gloo::utils::document(), "keydown", move |event| {
                let Some(event) = event.dyn_ref::<KeyboardEvent>() else {
                    return;
                };
                if event.ctrl_key() || event.meta_key() || event.alt_key() || in_editable(event) {
                    return;
                }
                match key_action(&event.key(), now, touring) {
                    // An embed has no tour (nor header) to open.
                    Some(KeyAction::StartTour) => {
                        let embedded = gloo::utils::document()
                            .query_selector("main.embed")
                            .ok()
                            .flatten()
                            .is_some();
                        if !embedded {
                            tour.set(Some(0));
                        }
                    }
                    Some(KeyAction::TogglePresenting) => {
                        full_screen(!now);
                        presenting.set(!now);
                    }
                    Some(KeyAction::Leave) => {
                        full_screen(false);
                        presenting.set(false);
                    }
                    Some(KeyAction::Policy(k)) => {
                        state.dispatch(Action::SetMode(Mode::Single));
                        state.dispatch(Action::SelectPolicy(
                            policies::CATALOGUE[k].name.to_string(),
                        ));
                    }
                    None => {}
                }
            });
        move || drop(listener)
    });
}

/// The colour scheme: the system's, or one the reader chose (`data-theme` on the root element,
/// which style.css reads).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Scheme {
    System,
    Light,
    Dark,
}

impl Scheme {
    pub fn next(self) -> Scheme {
        match self {
            Scheme::System => Scheme::Light,
            Scheme::Light => Scheme::Dark,
            Scheme::Dark => Scheme::System,
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Scheme::System => "Colours: system",
            Scheme::Light => "Colours: light",
            Scheme::Dark => "Colours: dark",
        }
    }

    /// Puts the scheme on the root element.
    pub fn apply(self) {
        if let Some(root) = gloo::utils::document().document_element() {
            let _ = match self {
                Scheme::System => root.remove_attribute("data-theme"),
                Scheme::Light => root.set_attribute("data-theme", "light"),
                Scheme::Dark => root.set_attribute("data-theme", "dark"),
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_switch_presenting_and_policies_only_when_presenting() {
        assert_eq!(
            key_action("p", false, false),
            Some(KeyAction::TogglePresenting)
        );
        assert_eq!(
            key_action("P", true, false),
            Some(KeyAction::TogglePresenting)
        );
        assert_eq!(key_action("Escape", true, false), Some(KeyAction::Leave));
        assert_eq!(key_action("Escape", false, false), None);
        assert_eq!(key_action("1", true, false), Some(KeyAction::Policy(0)));
        assert_eq!(key_action("9", true, false), Some(KeyAction::Policy(8)));
        assert_eq!(
            key_action("1", false, false),
            None,
            "digits are the grid's outside"
        );
        assert_eq!(key_action("0", true, false), None);
        assert_eq!(key_action("x", true, false), None);
    }

    #[test]
    fn t_starts_the_tour_and_esc_leaves_the_tour_before_presenter_mode() {
        assert_eq!(key_action("t", true, false), Some(KeyAction::StartTour));
        assert_eq!(key_action("T", false, false), Some(KeyAction::StartTour));
        assert_eq!(key_action("t", true, true), None, "already open");
        // While the tour is open, Esc is the tour's: presenter mode stays.
        assert_eq!(key_action("Escape", true, true), None);
        assert_eq!(key_action("Escape", true, false), Some(KeyAction::Leave));
        // The catalogue's first policy is the one the page opens on.
        assert_eq!(policies::CATALOGUE[0].name, "oef-coop");
    }

    #[test]
    fn the_scheme_cycles_through_three() {
        let s = Scheme::System;
        assert_eq!(s.next().next().next(), s);
        assert_ne!(s.next(), s);
    }
}
