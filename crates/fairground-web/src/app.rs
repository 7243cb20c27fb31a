use crate::components::AllocationChart;
use crate::state::{Action, AppState};
use fairground_core::{policies, presets};
use yew::prelude::*;

/// The playground's root: owns the reducer and lays out the editor and the results.
#[component]
pub fn App() -> Html {
    let state = use_reducer(AppState::default);

    let on_policy = {
        let state = state.clone();
        Callback::from(move |e: Event| {
            let select: web_sys::HtmlSelectElement = e.target_unchecked_into();
            state.dispatch(Action::SelectPolicy(select.value()));
        })
    };

    let preset = presets::all()
        .into_iter()
        .find(|p| p.scenario == state.scenario);

    html! {
        <main class="app">
            <header>
                <h1>{ "Fairground" }</h1>
                <p class="tagline">{ "Fair, efficient GPU allocation: every policy, every fairness property, live." }</p>
            </header>
            <section class="scenario">
                if let Some(p) = preset {
                    <h2>{ p.title }</h2>
                    <p class="description">{ p.description }</p>
                }
                <label>
                    { "Policy " }
                    <select onchange={on_policy} data-testid="policy-select">
                        { for policies::all().into_iter().map(|p| html! {
                            <option value={p.name()} selected={p.name() == state.policy}>{ p.name() }</option>
                        }) }
                    </select>
                </label>
            </section>
            <section class="results">
                { match &state.result {
                    Ok(outcome) => html! {
                        <>
                            <p class="summary" data-testid="efficiency">
                                { format!("Efficiency (sum of speedup-normalised utilities): {:.4}",
                                          outcome.solution.allocation.efficiency(&outcome.instance)) }
                            </p>
                            <AllocationChart instance={outcome.instance.clone()}
                                             allocation={std::rc::Rc::new(outcome.solution.allocation.clone())} />
                        </>
                    },
                    Err(messages) => html! {
                        <ul class="errors" role="alert">
                            { for messages.iter().map(|m| html! { <li>{ m }</li> }) }
                        </ul>
                    },
                } }
            </section>
        </main>
    }
}
