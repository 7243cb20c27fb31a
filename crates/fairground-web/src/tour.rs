//! The guided tour: a few steps (explain.json's `tour`), each a preset, a policy and a view with
//! a paragraph on what to look at. The arrow keys (and a presentation clicker's Page Up/Down)
//! step through it outside editable fields; each step is a link (`#tour=3`), so the list is a
//! ready-made demo script (`docs/tour.md`, made from the same file).

use crate::explain::{use_explain, Step};
use crate::present::in_editable;
use crate::state::{Action, AppState, Mode};
use wasm_bindgen::JsCast;
use yew::prelude::*;

/// The step a link opens (`tour=` counts from 1), as an index.
pub fn step_of(fragment: &str) -> Option<usize> {
    crate::codec::param(fragment, "tour")?
        .parse::<usize>()
        .ok()?
        .checked_sub(1)
}

/// Where a key moves the tour from step `at` of `len` (pure, for the tests); `None` when the
/// key is not the tour's or there is no step that way.
pub fn key_step(key: &str, at: usize, len: usize) -> Option<usize> {
    match key {
        "ArrowRight" | "PageDown" => (at + 1 < len).then_some(at + 1),
        "ArrowLeft" | "PageUp" => at.checked_sub(1),
        _ => None,
    }
}

/// Puts the page in the step's state: its preset, its view and its policy.
fn show(state: &UseReducerHandle<AppState>, step: &Step) {
    if !step.preset.is_empty() {
        state.dispatch(Action::LoadPreset(step.preset.clone()));
    }
    state.dispatch(Action::SetMode(
        Mode::from_name(&step.view).unwrap_or(Mode::Single),
    ));
    if !step.policy.is_empty() {
        state.dispatch(Action::SelectPolicy(step.policy.clone()));
    }
}

#[derive(Properties, PartialEq)]
pub struct TourProps {
    pub state: UseReducerHandle<AppState>,
    /// The step on screen, `None` when the tour is closed.
    pub at: UseStateHandle<Option<usize>>,
}

/// The tour's panel: the step's title and text, back / next, its link, and leaving.
#[component]
pub fn Tour(p: &TourProps) -> Html {
    let loaded = use_explain(p.at.is_some());
    let steps = match &loaded {
        Some(Ok(doc)) => Some(doc.tour.clone()),
        _ => None,
    };
    let len = steps.as_ref().map_or(0, Vec::len);
    // Show each step as it is reached (and the opening link's, once the steps arrive).
    {
        let (state, steps) = (p.state.clone(), steps.clone());
        use_effect_with((*p.at, len), move |&(at, _)| {
            if let (Some(k), Some(steps)) = (at, steps) {
                if let Some(step) = steps.get(k) {
                    show(&state, step);
                }
            }
        });
    }
    // Arrow keys while the tour is open, outside editable fields.
    {
        let at = p.at.clone();
        use_effect_with((*at, len), move |&(now, len)| {
            let listener = now.map(|k| {
                // Not passive: a step's key must not also scroll the page.
                let options = gloo::events::EventListenerOptions::enable_prevent_default();
                let document = gloo::utils::document();
                gloo::events::EventListener::new_with_options(
                    &document,
                    "keydown",
                    options,
                    move |e| {
                        let Some(event) = e.dyn_ref::<KeyboardEvent>() else {
                            return;
                        };
                        if event.ctrl_key()
                            || event.meta_key()
                            || event.alt_key()
                            || in_editable(event)
                        {
                            return;
                        }
                        if let Some(next) = key_step(&event.key(), k, len) {
                            event.prevent_default();
                            at.set(Some(next));
                        }
                    },
                )
            });
            move || drop(listener)
        });
    }
    let Some(k) = *p.at else {
        return html! {};
    };
    let go = |to: Option<usize>| {
        let at = p.at.clone();
        Callback::from(move |_: MouseEvent| at.set(to))
    };
    let body = match (&loaded, steps.as_ref().and_then(|s| s.get(k))) {
        (Some(Err(why)), _) => html! { <p class="muted">{ why }</p> },
        (Some(Ok(_)), None) => {
            html! { <p class="muted">{ format!("The tour has no step {}.", k + 1) }</p> }
        }
        (None, _) => html! { <p class="muted">{ "Loading the tour…" }</p> },
        (Some(Ok(_)), Some(step)) => html! {
            <>
                <p><strong data-testid="tour-title">{ format!("Step {} of {len}: {}", k + 1, step.title) }</strong></p>
                <p data-testid="tour-text">{ &step.text }</p>
            </>
        },
    };
    html! {
        <section class="tour" aria-label="guided tour" aria-live="polite" data-testid="tour">
            { body }
            <p class="tour-nav">
                <button type="button" disabled={k == 0} onclick={go(k.checked_sub(1))} data-testid="tour-back">{ "← Back" }</button>
                <button type="button" disabled={k + 1 >= len} onclick={go(Some(k + 1))} data-testid="tour-next">{ "Next →" }</button>
                <a href={format!("#tour={}", k + 1)} data-testid="tour-link">{ "Link to this step" }</a>
                <button type="button" class="link" onclick={go(None)} data-testid="tour-leave">{ "Leave the tour" }</button>
                <span class="muted">{ " ← → step through" }</span>
            </p>
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_link_names_its_step_from_one() {
        assert_eq!(step_of("tour=1"), Some(0));
        assert_eq!(step_of("s=abc&view=compare&tour=3"), Some(2));
        assert_eq!(step_of("tour=0"), None);
        assert_eq!(step_of("tour=x"), None);
        assert_eq!(step_of("s=abc"), None);
    }

    #[test]
    fn arrows_and_clicker_keys_step_within_the_tour() {
        assert_eq!(key_step("ArrowRight", 0, 3), Some(1));
        assert_eq!(key_step("PageDown", 1, 3), Some(2));
        assert_eq!(key_step("ArrowRight", 2, 3), None, "no step past the last");
        assert_eq!(key_step("ArrowLeft", 2, 3), Some(1));
        assert_eq!(key_step("PageUp", 0, 3), None, "none before the first");
        assert_eq!(
            key_step("ArrowDown", 0, 3),
            None,
            "down is the page's scrolling"
        );
    }
}
