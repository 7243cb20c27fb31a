//! The guided tour: a few steps (explain.json's `tour`), each a preset, a policy and a view with
//! a paragraph on what to look at. The arrow keys (and a presentation clicker's Page Up/Down)
//! step through it outside editable fields, and Esc leaves it; each step is a link (`#tour=3`),
//! so the list is a ready-made demo script (`docs/tour.md`, made from the same file). Leaving,
//! by Finish, "Leave the tour" or Esc, puts back the reader's scenario, view and policy. The
//! panel stays on screen (fixed at the window's foot) while a step scrolls to its figure.

use crate::explain::{use_explain, Step};
use crate::present::in_editable;
use crate::state::{Action, AppState, Mode};
use std::cell::Cell;
use std::rc::Rc;
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

/// The attribute marking what the current step talks about (style.css outlines it).
const FOCUS: &str = "data-tour-focus";

/// Scrolls as little as shows `el` whole: a figure already on screen stays put (in presenter
/// mode, the first screen is the slide).
fn scroll_to_show(el: &web_sys::Element) {
    let options = js_sys::Object::new();
    let _ = js_sys::Reflect::set(&options, &"block".into(), &"nearest".into());
    if let Ok(scroll) = js_sys::Reflect::get(el, &"scrollIntoView".into())
        .and_then(|f| f.dyn_into::<js_sys::Function>())
    {
        let _ = scroll.call1(el, &options);
    }
}

/// After the page's layout changed under the tour (presenter mode on or off): what the step
/// shows is scrolled into view again. Presenter mode starts from the top, since its first screen
/// is the slide: scrolling "as little as" from where the longer page was scrolled would leave the
/// step's badge at the screen's top edge and the lines above it cut off (CI saw the efficiency
/// line 35 px above the screen when the step was marked before the speaker pressed P).
pub fn show_again(presenting: bool) {
    let document = gloo::utils::document();
    if presenting {
        gloo::utils::window().scroll_to_with_x_and_y(0.0, 0.0);
    }
    if let Ok(Some(el)) = document.query_selector(&format!("[{FOCUS}]")) {
        scroll_to_show(&el);
    }
}

/// Un-marks what an earlier step highlighted.
fn clear_focus() {
    let document = gloo::utils::document();
    while let Ok(Some(el)) = document.query_selector(&format!("[{FOCUS}]")) {
        let _ = el.remove_attribute(FOCUS);
    }
}

/// Shows what the step talks about once the page has drawn it (a step's policy may be solved in
/// the worker): opens it when it is a badge (`<details>`), marks it, and scrolls the first one
/// into view. Keeps watching for 60 s (a busy machine's worker can take more than the 6 s it once
/// waited: CI's end-to-end run beside its builds saw the tour's first step never marked), and
/// marks again what a later render put in place of what it marked: the step's own results can
/// replace the last step's, which it may have marked first (CI saw step 5's badge unmarked).
/// A newer step (`generation`) stops it.
async fn bring_into_view(focus: Vec<String>, generation: Rc<Cell<u32>>, mine: u32) {
    let document = gloo::utils::document();
    let find = |id: &str| {
        document
            .query_selector(&format!("[data-testid=\"{id}\"]"))
            .ok()
            .flatten()
    };
    for _ in 0..600 {
        if generation.get() != mine {
            return;
        }
        let settled =
            find("solving").is_none_or(|s| s.text_content().unwrap_or_default().is_empty());
        let found: Vec<web_sys::Element> = focus.iter().filter_map(|id| find(id)).collect();
        let unmarked = found.iter().any(|el| !el.has_attribute(FOCUS));
        if settled && found.len() == focus.len() && unmarked {
            clear_focus();
            // A badge is opened, in presenter mode too: its evidence is what the step is about
            // (issue 78: outlined but closed, the audience never saw it).
            for el in &found {
                if el.tag_name().eq_ignore_ascii_case("details") {
                    let _ = el.set_attribute("open", "");
                }
                let _ = el.set_attribute(FOCUS, "");
            }
            if let Some(first) = found.first() {
                scroll_to_show(first);
            }
        }
        gloo::timers::future::TimeoutFuture::new(100).await;
    }
}

/// Where the reader was when the tour started: the tour's Finish brings them back.
#[derive(Clone)]
struct Before {
    draft: crate::draft::Draft,
    mode: Mode,
    policy: String,
}

/// Closes the tour and puts the page back as it was before its first step (Finish, "Leave the
/// tour" and Esc alike).
fn leave(
    at: &UseStateHandle<Option<usize>>,
    state: &UseReducerHandle<AppState>,
    before: &Rc<std::cell::RefCell<Option<Before>>>,
) {
    if let Some(b) = before.borrow_mut().take() {
        if b.draft != state.draft {
            state.dispatch(Action::Restore(b.draft));
        }
        state.dispatch(Action::SetMode(b.mode));
        state.dispatch(Action::SelectPolicy(b.policy));
    }
    at.set(None);
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
    let before = use_mut_ref(|| None::<Before>);
    let generation = use_mut_ref(|| Rc::new(Cell::new(0u32)));
    // Where the reader was, kept as the tour opens (from its button or a step's link).
    {
        let (state, before, generation) = (p.state.clone(), before.clone(), generation.clone());
        use_effect_with(p.at.is_some(), move |&open| {
            if open && before.borrow().is_none() {
                *before.borrow_mut() = Some(Before {
                    draft: state.draft.clone(),
                    mode: state.mode,
                    policy: state.policy.clone(),
                });
            } else if !open {
                *before.borrow_mut() = None;
                // The last step's watch stops, so it marks nothing after the tour has closed.
                let generation = generation.borrow().clone();
                generation.set(generation.get().wrapping_add(1));
                clear_focus();
            }
        });
    }
    // Show each step as it is reached (and the opening link's, once the steps arrive), then
    // what it talks about.
    {
        let (state, steps, generation) = (p.state.clone(), steps.clone(), generation.clone());
        use_effect_with((*p.at, len), move |&(at, _)| {
            if let (Some(k), Some(steps)) = (at, steps) {
                if let Some(step) = steps.get(k) {
                    show(&state, step);
                    let generation = generation.borrow().clone();
                    let mine = generation.get().wrapping_add(1);
                    generation.set(mine);
                    clear_focus();
                    wasm_bindgen_futures::spawn_local(bring_into_view(
                        step.focus.clone(),
                        generation,
                        mine,
                    ));
                }
            }
        });
    }
    // Arrow keys while the tour is open, outside editable fields; Esc leaves it.
    {
        let (at, state, before) = (p.at.clone(), p.state.clone(), before.clone());
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
                        if event.key() == "Escape" {
                            event.prevent_default();
                            leave(&at, &state, &before);
                        } else if let Some(next) = key_step(&event.key(), k, len) {
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
    // Finish and Leave alike: the tour closes and the page is put back as it was before the
    // first step (issue 78: Leave once kept the tour's scenario).
    let finish = {
        let (at, state, before) = (p.at.clone(), p.state.clone(), before.clone());
        Callback::from(move |_: MouseEvent| leave(&at, &state, &before))
    };
    let terms = match &loaded {
        Some(Ok(doc)) => doc.terms.clone(),
        _ => Vec::new(),
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
                if !step.terms.is_empty() {
                    <dl class="tour-terms" data-testid="tour-terms">
                        { for step.terms.iter().filter_map(|id| terms.iter().find(|t| &t.id == id)).map(|t| html! {
                            <>
                                <dt data-term={t.id.clone()}>{ &t.name }</dt>
                                <dd>{ crate::explain::first_sentence(&t.plain) }</dd>
                            </>
                        }) }
                    </dl>
                }
            </>
        },
    };
    let last = k + 1 >= len;
    html! {
        <section class="tour" aria-label="guided tour" aria-live="polite" data-testid="tour">
            { body }
            <p class="tour-nav">
                <button type="button" disabled={k == 0} onclick={go(k.checked_sub(1))} data-testid="tour-back">{ "← Back" }</button>
                if last && len > 0 {
                    <button type="button" onclick={finish.clone()} data-testid="tour-finish" title="Close the tour and go back to where you were">{ "Finish" }</button>
                } else {
                    <button type="button" disabled={len == 0} onclick={go(Some(k + 1))} data-testid="tour-next">{ "Next →" }</button>
                }
                <a href={format!("#tour={}", k + 1)} data-testid="tour-link">{ "Link to this step" }</a>
                <button type="button" class="link" onclick={finish.clone()} data-testid="tour-leave" title="Close the tour and go back to where you were (Esc)">{ "Leave the tour" }</button>
                <span class="muted">{ " ← → step through, Esc leaves" }</span>
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
    fn a_term_is_defined_in_its_first_sentence() {
        use crate::explain::first_sentence;
        assert_eq!(
            first_sentence("How far a guarantee is relaxed. At eps = 1 there is none."),
            "How far a guarantee is relaxed."
        );
        // "0.5" or "e.g." inside a sentence is not its end: only a full stop and a space is.
        assert_eq!(first_sentence("Adds 0.5 (20%). More."), "Adds 0.5 (20%).");
        assert_eq!(first_sentence("One sentence only."), "One sentence only.");
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
