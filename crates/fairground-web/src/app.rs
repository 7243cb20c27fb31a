//! The playground's root component: its state set-up, the solve queue and watchdog, the link
//! writer, and the page's layout. Uses every module of the crate below it.

use crate::components::{
    allocation_table, envy_table, utility_table, AllocationChart, Badges, ChartFrame, CompareTable,
    Editor, EnvyHeatmap, FrontierChart, MarketPanel, Scatter, SharedPanel, SimulateTab,
    TradesPanel, UtilityChart,
};
use crate::explain::Glossary;
use crate::present::Scheme;
use crate::sim_worker::SimulateReactor;
use crate::state::{Action, AppState, Mode, Results, MAX_FRONTIER_TENANTS};
use crate::tour::Tour;
use crate::worker::{SolveRequest, SolveTask, Wire};
use crate::{codec, export, page_engine, storage};
use fairground_core::policies;
use fairground_core::report::PolicyReport;
use gloo::timers::callback::Timeout;
use std::rc::Rc;
use yew::prelude::*;
use yew::UseReducerDispatcher;
use yew_agent::oneshot::{use_oneshot_runner, OneshotProvider};
use yew_agent::reactor::ReactorProvider;

/// Links of scenarios with more tenants x types than this are packed and written to the address
/// bar only after a pause in typing of LINK_PAUSE_MS: at 150 x 12 the browser spent ~28 ms per
/// write, and packing costs more.
const LONG_LINK_CELLS: usize = 64;
const LINK_PAUSE_MS: u32 = 400;

fn cells(scenario: &fairground_core::Scenario) -> usize {
    scenario.tenants.len() * scenario.gpu_types.len()
}

/// Posts `{ fairground: "height", height }` (the page's content height in CSS pixels: the
/// bottom of its `main`) to the page that frames this one. Not the document's scroll height,
/// which is never less than the frame's own height: a frame sized once for a taller render kept
/// that height, 60-84 px blank under "Open in Fairground" (issue 78).
fn tell_parent_height() {
    let window = gloo::utils::window();
    let Ok(Some(parent)) = window.parent() else {
        return;
    };
    let Ok(Some(main)) = gloo::utils::document().query_selector("main") else {
        return;
    };
    let scrolled = window.scroll_y().unwrap_or(0.0);
    let height = (main.get_bounding_client_rect().bottom() + scrolled).ceil() as i32;
    let message = js_sys::Object::new();
    let _ = js_sys::Reflect::set(&message, &"fairground".into(), &"height".into());
    let _ = js_sys::Reflect::set(&message, &"height".into(), &height.into());
    let _ = parent.post_message(&message, "*");
}

/// The view name a link gives the Simulation tab (`codec::View`).
const SIMULATION_VIEW: &str = "simulation";

/// Packs `scenario` and the `view` on screen into the address bar (the browser deflates it,
/// asynchronously), unless a newer edit made it `stale` meanwhile.
fn write_link(
    scenario: fairground_core::Scenario,
    view: codec::View,
    stale: Rc<std::cell::Cell<bool>>,
) {
    wasm_bindgen_futures::spawn_local(async move {
        if let Ok(fragment) = codec::to_fragment(&scenario).await {
            if !stale.get() {
                storage::set_link(&view.appended_to(&fragment));
            }
        }
    });
}
/// A solve that has not answered by then is reported (the worker may have crashed).
const WATCHDOG_MS: u32 = 30_000;

/// One solve to run: a generation's scenario, with or without the strategy-proofness probe.
#[derive(Clone)]
struct Job {
    generation: u64,
    scenario: fairground_core::Scenario,
    policies: Vec<String>,
    sp_probe: bool,
    frontier_step: Option<f64>,
    /// Probe in a second pass once the plain results are on screen.
    probe_after: bool,
}

/// Coalesces solves: at most one request is in the worker; while it runs, only the newest
/// wanted job is kept, so fast typing never queues up stale solves.
#[derive(Default)]
struct SolveQueue {
    busy: bool,
    wanted: Option<Job>,
}

fn pump(
    queue: Rc<std::cell::RefCell<SolveQueue>>,
    runner: yew_agent::oneshot::UseOneshotRunnerHandle<SolveTask>,
    dispatch: UseReducerDispatcher<AppState>,
) {
    let job = {
        let mut q = queue.borrow_mut();
        if q.busy {
            return;
        }
        let Some(job) = q.wanted.take() else { return };
        q.busy = true;
        job
    };
    wasm_bindgen_futures::spawn_local(async move {
        let request = SolveRequest::new(
            &job.scenario,
            job.policies.clone(),
            job.sp_probe,
            job.frontier_step,
        );
        let cells = job.scenario.tenants.len() * job.scenario.gpu_types.len();
        let answer = if page_engine::suits(&request, cells) {
            page_engine::solve(&request)
        } else {
            runner.run(request).await
        };
        match answer {
            Ok(response) => dispatch.dispatch(Action::Solved(Rc::new(Results {
                generation: job.generation,
                scenario: job.scenario.clone(),
                seconds_per_policy: response.seconds_per_policy,
                reports: response.reports,
                sp_probed: job.sp_probe,
                frontier: response.frontier,
            }))),
            Err(message) => dispatch.dispatch(Action::SolveFailed {
                generation: job.generation,
                message,
            }),
        }
        {
            let mut q = queue.borrow_mut();
            q.busy = false;
            if job.probe_after && q.wanted.is_none() {
                q.wanted = Some(Job {
                    sp_probe: true,
                    probe_after: false,
                    ..job
                });
            }
        }
        pump(queue, runner, dispatch);
    });
}

/// The root: provides the two workers to the playground. Both import the one full engine
/// (`fairground-full.js`, which documentation pages load for `compare` and `simulate`), so its
/// wasm is downloaded once (www/solve-worker.js, www/sim-worker.js say how). The solve worker
/// starts as the page opens (`lazy=false`), fetching the full engine while the first chart,
/// which the page solves itself, is drawn: every policy but the page's three
/// ([`crate::page_engine`]) is answered there, so it should be ready by a reader's first
/// switch. The simulation worker starts with the Simulation tab's first run.
#[derive(Properties, PartialEq)]
pub struct AppProps {
    /// The scenario of the link the page was opened on, read (inflated by the browser) before
    /// the first render: `main.rs`.
    pub opening: Rc<storage::OpeningLink>,
}

#[component]
pub fn App(props: &AppProps) -> Html {
    let opening = props.opening.clone();
    html! {
        // Relative, so the playground also works under a sub-path of a documentation site.
        <OneshotProvider<SolveTask, Wire> path="solve-worker.js" lazy={false}>
            <ReactorProvider<SimulateReactor, Wire> path="sim-worker.js">
                <Playground {opening} />
            </ReactorProvider<SimulateReactor, Wire>>
        </OneshotProvider<SolveTask, Wire>>
    }
}

#[derive(Properties, PartialEq)]
struct PlaygroundProps {
    opening: Rc<storage::OpeningLink>,
}

#[component]
fn Playground(props: &PlaygroundProps) -> Html {
    // The view and policy the link was made on (a speaker's link per slide).
    let view = use_memo((), |_| codec::View::of(&storage::location_hash()));
    let state = {
        let (opening, view) = (props.opening.clone(), view.clone());
        use_reducer(move || opening_state(&opening, &view))
    };
    // The simulator tab mounts on first visit and then stays, so a run survives switching away.
    let opens_on_simulation = view.view.as_deref() == Some(SIMULATION_VIEW);
    let simulating = use_state(|| opens_on_simulation);
    let sim_opened = use_state(|| opens_on_simulation);
    let embed = *use_memo((), |_| storage::embed_mode());
    // The guided tour's step on screen (a link can open on one).
    let tour = use_state(|| crate::tour::step_of(&storage::location_hash()).filter(|_| !embed));
    let runner = use_oneshot_runner::<SolveTask>();
    use_solver(state.clone(), runner.clone());
    let on_screen = if *simulating {
        SIMULATION_VIEW
    } else {
        state.mode.name()
    };
    use_saving(state.clone(), on_screen, *tour, embed);
    let presenting = use_state(|| false);
    crate::present::use_presenter_keys(state.clone(), presenting.clone(), tour.clone());
    crate::components::use_undo_keys(state.dispatcher(), !*simulating && !embed);
    let ready = use_presenter_warm_up(*presenting, sim_opened.clone(), runner);
    let scheme = use_state(|| Scheme::System);
    // In an iframe, tell the page around it how tall the results are after every render, so
    // it can size the frame to them (www/embed.html shows how).
    use_effect(move || {
        if embed {
            tell_parent_height();
        }
    });
    let body = if embed {
        let full = storage::location_hash();
        html! {
            <>
                <ResultsView state={state.clone()} />
                <p class="policy-summary">
                    <a href={format!("./{full}")} target="_blank" rel="noopener" data-testid="open-full">
                        { "Open in Fairground" }</a>{ " (the whole playground, this scenario)" }
                </p>
            </>
        }
    } else {
        html! {
            <>
                // Four GPU types or more: the editor's column widens to its grid (style.css).
                <div class={classes!("layout", (state.draft.types.len() > 3).then_some("wide-grid"))} hidden={*simulating}>
                    <Editor state={state.clone()} />
                    <ResultsView state={state.clone()} />
                </div>
                if *sim_opened {
                    <div hidden={!*simulating}><SimulateTab /></div>
                }
            </>
        }
    };
    let touring = tour.is_some();
    let simulating_now = *simulating;
    html! {
        <main class={classes!("app", embed.then_some("embed"), presenting.then_some("presenting"), touring.then_some("touring"), simulating_now.then_some("simulating"))}>
            if !embed {
                { header(&Header { state: state.clone(), presenting, ready, tour, simulating, sim_opened, scheme }) }
            }
            if let Some(notice) = &state.notice {
                <p class="notice" role="status" data-testid="notice">{ notice }
                    <button type="button" aria-label="dismiss" onclick={{
                        let state = state.clone(); Callback::from(move |_: MouseEvent| state.dispatch(Action::Notice(None)))
                    }}>{ "✕" }</button>
                </p>
            }
            { body }
        </main>
    }
}

/// The app's state as the page opens: the link's or the saved draft, on the link's view and
/// policy, its first chart solved on the page.
fn opening_state(opening: &storage::OpeningLink, view: &codec::View) -> AppState {
    let (draft, saved_policy, notice) = storage::initial(opening);
    let policy = view
        .policy
        .clone()
        .filter(|p| policies::info(p).is_some())
        .unwrap_or(saved_policy);
    let mut state = AppState::new(draft, &policy);
    if let Some(mode) = view.view.as_deref().and_then(Mode::from_name) {
        state.mode = mode;
    }
    if state.notice.is_none() {
        state.notice = notice.or_else(|| {
            let views = [Mode::Compare.name(), Mode::Frontier.name(), SIMULATION_VIEW];
            codec::unknown_in_link(&storage::location_hash(), &views)
        });
    }
    state.solve_on_page();
    state
}

/// Solves each new generation in the worker (coalesced; the reducer drops stale answers), and
/// says so if the worker never answers (the draft stays as it is).
#[hook]
fn use_solver(
    state: UseReducerHandle<AppState>,
    runner: yew_agent::oneshot::UseOneshotRunnerHandle<SolveTask>,
) {
    let queue = use_mut_ref(SolveQueue::default);
    let watched = state.clone();
    use_effect_with(state.generation, move |&generation| {
        let Some(scenario) = state.solvable.clone() else {
            return;
        };
        let inline_done = state
            .results
            .as_ref()
            .is_some_and(|r| r.generation == generation);
        // Nothing left to do when the page already solved it inline and wants no probe.
        let job = (!inline_done || state.want_sp).then(|| Job {
            generation,
            scenario,
            policies: state.policies_to_run(),
            frontier_step: state.frontier_step(),
            // Already solved inline: go straight to the probe.
            sp_probe: inline_done,
            probe_after: !inline_done && state.want_sp,
        });
        queue.borrow_mut().wanted = job;
        pump(queue, runner, state.dispatcher());
    });
    let state = watched;
    use_effect_with(
        (state.generation, state.solving),
        move |&(generation, solving)| {
            let timer = solving.then(|| {
                Timeout::new(WATCHDOG_MS, move || {
                    state.dispatch(Action::SolveFailed {
                        generation,
                        message: "The solver did not answer within 30 s. Your edits are kept; reload the page to restart it.".into(),
                    })
                })
            });
            move || drop(timer)
        },
    );
}

/// Autosaves the draft as typed, and the valid scenario into the URL (not in embed mode: an
/// embedded chart must not overwrite the reader's own work). Writing a long address costs the
/// browser tens of milliseconds, so a link past LONG_LINK waits for a pause in typing.
///
/// And saves the draft as it is when the page goes away (a reload, a closed tab): the effect
/// saves after each render, which a reload right after a keystroke can beat.
#[hook]
fn use_saving(
    state: UseReducerHandle<AppState>,
    on_screen: &'static str,
    tour: Option<usize>,
    embed: bool,
) {
    let latest = use_mut_ref(|| None::<(crate::draft::Draft, String)>);
    *latest.borrow_mut() = Some((state.draft.clone(), state.policy.clone()));
    use_effect_with((), move |_| {
        let listener = (!embed).then(|| {
            gloo::events::EventListener::new(&gloo::utils::window(), "pagehide", move |_| {
                if let Some((draft, policy)) = &*latest.borrow() {
                    storage::save(draft, policy);
                }
            })
        });
        move || drop(listener)
    });
    use_effect_with(
        (state.draft.clone(), state.policy.clone(), on_screen, tour),
        move |(draft, policy, on_screen, tour)| {
            let view = codec::View {
                view: (!on_screen.is_empty()).then(|| on_screen.to_string()),
                policy: Some(policy.clone()),
                tour: tour.map(|k| (k + 1).to_string()),
            };
            let mut pending = None;
            // Set when a newer edit replaces this one: a link packed for it is not written.
            let stale = Rc::new(std::cell::Cell::new(false));
            if !storage::embed_mode() {
                match state.solvable.clone() {
                    // Packing the link (JSON, deflate, base64) waits too.
                    Some(scenario) if cells(&scenario) > LONG_LINK_CELLS => {
                        let stale = stale.clone();
                        pending = Some(Timeout::new(LINK_PAUSE_MS, move || {
                            write_link(scenario, view, stale)
                        }));
                    }
                    Some(scenario) => write_link(scenario, view, stale.clone()),
                    None => {}
                }
                storage::save(draft, policy);
            }
            move || {
                stale.set(true);
                drop(pending)
            }
        },
    );
}

/// A talk must not wait on the network: on entering presenter mode, fetch the texts, have the
/// solve worker answer a small case (so the full engine is loaded and running) and start the
/// simulator's worker; then whether all of it is ready (`None` while loading).
#[hook]
fn use_presenter_warm_up(
    presenting: bool,
    sim_opened: UseStateHandle<bool>,
    runner: yew_agent::oneshot::UseOneshotRunnerHandle<SolveTask>,
) -> UseStateHandle<Option<bool>> {
    let ready = use_state(|| None::<bool>);
    {
        let ready = ready.clone();
        use_effect_with(presenting, move |&now| {
            crate::tour::show_again(now);
            if now && *ready != Some(true) {
                sim_opened.set(true);
                wasm_bindgen_futures::spawn_local(async move {
                    let texts = crate::explain::explain().await.is_ok();
                    let probe = SolveRequest::new(
                        &fairground_core::presets::textbook_two_by_two().scenario,
                        // A market mechanism: the conic solver only the full engine carries.
                        vec![fairground_core::policies::MARKET_MECHANISMS[0].into()],
                        false,
                        None,
                    );
                    ready.set(Some(texts && runner.run(probe).await.is_ok()));
                });
            }
        });
    }
    ready
}

/// What the page's header shows and sets: the playground's state and its own.
struct Header {
    state: UseReducerHandle<AppState>,
    presenting: UseStateHandle<bool>,
    ready: UseStateHandle<Option<bool>>,
    tour: UseStateHandle<Option<usize>>,
    simulating: UseStateHandle<bool>,
    sim_opened: UseStateHandle<bool>,
    scheme: UseStateHandle<Scheme>,
}

/// The page's header: the scheme and presenter buttons, the title, what presenter mode says,
/// the intro and tour, the tabs and the toolbar. (A function, not a component: a component of
/// its own cost the page's download 2.5 KB gzip.)
fn header(h: &Header) -> Html {
    let Header {
        state,
        presenting,
        ready,
        tour,
        simulating,
        sim_opened,
        scheme,
    } = h;
    let toggle_presenting = {
        let presenting = presenting.clone();
        Callback::from(move |_: MouseEvent| {
            crate::present::full_screen(!*presenting);
            presenting.set(!*presenting);
        })
    };
    let next_scheme = {
        let scheme = scheme.clone();
        Callback::from(move |_: MouseEvent| {
            let next = scheme.next();
            next.apply();
            scheme.set(next);
        })
    };
    let show_tab = |sim: bool| {
        let (simulating, sim_opened) = (simulating.clone(), sim_opened.clone());
        Callback::from(move |_: MouseEvent| {
            simulating.set(sim);
            if sim {
                sim_opened.set(true);
            }
        })
    };
    let single = state
        .results
        .as_ref()
        .and_then(|r| find_report(r, &state.policy));
    html! {
        <header>
            <div class="corner">
                <button type="button" onclick={next_scheme} data-testid="scheme">{ scheme.label() }</button>
                <button type="button" aria-pressed={presenting.to_string()} onclick={toggle_presenting}
                        title="Presenter mode (P)"
                        data-testid="present">{ "Present" }</button>
            </div>
            <h1>{ "Fairground" }</h1>
            if **presenting {
                { presenting_help(**ready, tour) }
            }
            <p class="tagline">{ "Fair, efficient GPU allocation: every policy, every fairness property, live." }</p>
            <div class="intro" data-testid="intro">
                <p>{ "Define GPU types, tenants and how fast each tenant runs on each type; the page \
                      shares the GPUs out under the policy you choose and checks every fairness \
                      property. OEF, the policy it opens on (Mo, Xu and Lau, Middleware 2024), is \
                      the most efficient allocation in which nobody envies another's GPUs and \
                      everyone does at least as well as with an equal split. " }
                   <a href="https://arxiv.org/abs/2403.18545" target="_blank" rel="noopener">{ "The paper" }</a>
                   { " · " }<a href="guide/index.html" target="_blank" data-testid="guide-link">{ "The guide" }</a>
                   { " · " }<Glossary />{ " · " }
                   <button type="button" class="link" data-testid="tour-start" onclick={{
                       let tour = tour.clone(); Callback::from(move |_: MouseEvent| tour.set(Some(0)))
                   }}>{ "Take the tour" }</button></p>
            </div>
            <Tour state={state.clone()} at={tour.clone()} />
            <nav class="tabs segmented" aria-label="views">
                <button type="button" aria-pressed={(!**simulating).to_string()} onclick={show_tab(false)} data-testid="tab-allocation">{ "Allocation" }</button>
                <button type="button" aria-pressed={simulating.to_string()} onclick={show_tab(true)} data-testid="tab-simulation">{ "Simulation" }</button>
            </nav>
            if !**simulating {
                <Toolbar state={state.clone()} report={single} />
            }
        </header>
    }
}

/// Presenter mode's line: its keys, and whether what the talk needs (`ready`) is loaded and kept
/// offline. Short, on one line with the buttons: the slide below keeps the screen.
fn presenting_help(ready: Option<bool>, tour: &UseStateHandle<Option<usize>>) -> Html {
    let start_tour = {
        let tour = tour.clone();
        Callback::from(move |_: MouseEvent| tour.set(Some(0)))
    };
    html! {
        <p class="presenting-help" role="status" data-testid="presenting-help">
            // The tour's control inside the line's sentence: a button of its own made the line
            // wrap at 1280 px and pushed the figure off the slide.
            { "Presenting: 1-9 policies, " }
            if tour.is_none() {
                <button type="button" class="link" onclick={start_tour} data-testid="present-tour" title="Start the guided tour (T)">{ "T tour" }</button>
                { ", " }
            }
            { "P or Esc leaves. " }
            { match ready {
                None => html! { <span data-testid="presenting-ready">{ "Loading what the talk needs…" }</span> },
                Some(true) => html! { <span data-testid="presenting-ready" title="The engine and the texts are loaded.">{ "Ready." }</span> },
                Some(false) => html! { <span data-testid="presenting-ready">{ "Not ready: the engine or the texts could not be loaded (offline?). Check the connection, then reload." }</span> },
            } }
            if ready.is_some() {
                { " " }
                { match crate::present::offline_status() {
                    (short, Some(more)) => html! { <span data-testid="presenting-offline" title={more}>{ short }</span> },
                    (short, None) => html! { <span data-testid="presenting-offline">{ short }</span> },
                } }
            }
        </p>
    }
}

fn find_report(results: &Results, policy: &str) -> Option<PolicyReport> {
    results
        .reports
        .iter()
        .flatten()
        .find(|r| r.policy == policy)
        .cloned()
}

#[derive(Properties, PartialEq)]
struct ToolbarProps {
    state: UseReducerHandle<AppState>,
    report: Option<PolicyReport>,
}

/// Mode, policy, and keeping/sharing work: import/export JSON, CSV, share link.
#[component]
fn Toolbar(p: &ToolbarProps) -> Html {
    let state = &p.state;
    let reader = use_mut_ref(|| None::<gloo::file::callbacks::FileReader>);
    let on_policy = {
        let state = state.clone();
        Callback::from(move |e: Event| {
            let select: web_sys::HtmlSelectElement = e.target_unchecked_into();
            state.dispatch(Action::SelectPolicy(select.value()));
        })
    };
    let set_mode = |mode: Mode| {
        let state = state.clone();
        Callback::from(move |_: MouseEvent| state.dispatch(Action::SetMode(mode)))
    };
    let on_import = {
        let state = state.clone();
        Callback::from(move |e: Event| {
            let input: web_sys::HtmlInputElement = e.target_unchecked_into();
            let Some(file) = input.files().and_then(|f| f.get(0)) else {
                return;
            };
            input.set_value("");
            if file.size() > codec::MAX_JSON as f64 {
                state.dispatch(Action::Notice(Some(format!(
                    "{} is {:.0} KB, over the {} KB limit; nothing was changed.",
                    file.name(),
                    file.size() / 1024.0,
                    codec::MAX_JSON / 1024
                ))));
                return;
            }
            let name = file.name();
            let state = state.clone();
            let task =
                gloo::file::callbacks::read_as_text(&gloo::file::File::from(file), move |text| {
                    let result = text
                        .map_err(|e| e.to_string())
                        .and_then(|t| codec::parse_json(&t));
                    match result {
                        Ok(scenario) => state.dispatch(Action::Load(scenario)),
                        Err(why) => state.dispatch(Action::Notice(Some(format!(
                            "{name} could not be imported ({why}); nothing was changed."
                        )))),
                    }
                });
            *reader.borrow_mut() = Some(task);
        })
    };
    let on_export_json = {
        let state = state.clone();
        Callback::from(move |_: MouseEvent| {
            let scenario = state
                .solvable
                .clone()
                .or_else(|| state.results.as_ref().map(|r| r.scenario.clone()));
            if let Some(s) = scenario {
                let _ = export::download("scenario.json", "application/json", &s.to_json());
            }
        })
    };
    let on_export_csv = {
        let report = p.report.clone();
        Callback::from(move |_: MouseEvent| {
            if let Some(r) = &report {
                let _ = export::download(
                    &format!("allocation-{}.csv", r.policy),
                    "text/csv",
                    &export::allocation_csv(r),
                );
            }
        })
    };
    let on_share = {
        let state = state.clone();
        Callback::from(move |_: MouseEvent| {
            let href = gloo::utils::window().location().href().unwrap_or_default();
            let _ = gloo::utils::window()
                .navigator()
                .clipboard()
                .write_text(&href);
            state.dispatch(Action::Notice(Some(
                "Link copied: it opens exactly this scenario.".into(),
            )));
        })
    };
    html! {
        <div class="toolbar">
            <div class="segmented" role="group" aria-label="view">
                <button type="button" aria-pressed={(state.mode == Mode::Single).to_string()}
                        onclick={set_mode(Mode::Single)} data-testid="mode-single">{ "One policy" }</button>
                <button type="button" aria-pressed={(state.mode == Mode::Compare).to_string()}
                        onclick={set_mode(Mode::Compare)} data-testid="mode-compare">{ "Compare all" }</button>
                <button type="button" aria-pressed={(state.mode == Mode::Frontier).to_string()}
                        onclick={set_mode(Mode::Frontier)} data-testid="mode-frontier">{ "Price of fairness" }</button>
            </div>
            if state.mode == Mode::Single {
                <label>{ "Policy " }
                    <select onchange={on_policy} data-testid="policy-select">
                        { for policies::CATALOGUE.iter().map(|pol| html! {
                            <option value={pol.name} selected={pol.name == state.policy} title={pol.summary}>{ pol.name }</option>
                        }) }
                    </select>
                </label>
                <span class="policy-summary" data-testid="policy-summary">{
                    policies::info(&state.policy).map_or("", |pol| pol.summary)
                }</span>
            }
            <label class="file-button">{ "Import JSON" }
                <input type="file" accept=".json,application/json" onchange={on_import} data-testid="import" />
            </label>
            <button type="button" onclick={on_export_json} data-testid="export-json">{ "Export JSON" }</button>
            <button type="button" onclick={on_export_csv} disabled={p.report.is_none()} data-testid="export-csv">{ "Allocation CSV" }</button>
            <button type="button" onclick={on_share} data-testid="share">{ "Copy link" }</button>
        </div>
    }
}

#[derive(Properties, PartialEq)]
struct ResultsViewProps {
    state: UseReducerHandle<AppState>,
}

#[component]
fn ResultsView(p: &ResultsViewProps) -> Html {
    let state = &p.state;
    let Some(results) = state.results.clone() else {
        return html! {
            <section class="results" aria-busy="true">
                <p class="solving shown">{ if state.problems.is_empty() { "Solving…" } else { "Fix the marked cells to see results." } }</p>
            </section>
        };
    };
    let status = html! {
        <p class={classes!("solving", state.solving.then_some("shown"))} data-testid="solving" aria-live="polite">
            { if state.probe_pending() { "Probing strategy-proofness…" } else if state.solving { "Solving…" } else { "" } }
        </p>
    };
    let failures: Vec<&String> = results
        .reports
        .iter()
        .filter_map(|r| r.as_ref().err())
        .collect();
    let view = match state.mode {
        Mode::Single => match find_report(&results, &state.policy) {
            Some(report) => single_view(state, &results, report),
            None => html! { <p class="solving shown">{ "Solving…" }</p> },
        },
        Mode::Compare => compare_view(state, &results),
        Mode::Frontier => frontier_view(&results),
    };
    // Results of an earlier scenario while the draft has problems: greyed, and said so.
    let stale = !state.problems.is_empty();
    html! {
        <section class={classes!("results", stale.then_some("stale"))} aria-label="Results">
            if stale {
                <p class="stale-note" data-testid="stale-results">{ "These results are for the last valid scenario: fix the marked cells to update them." }</p>
            }
            { status }
            if !failures.is_empty() {
                <ul class="errors" role="alert">{ for failures.iter().map(|f| html! { <li>{ f.as_str() }</li> }) }</ul>
            }
            { view }
        </section>
    }
}

/// How one tenant's utility adds up, with its numbers: the tenant holding the most kinds of GPU
/// (ties: the first), each type's GPUs times its speedup on that type.
pub fn worked_utility(inst: &fairground_core::Instance, r: &PolicyReport) -> Option<String> {
    let held = |i: usize| r.allocation.gpus[i].iter().filter(|&&g| g > 1e-9).count();
    let i = (0..r.tenants.len()).max_by_key(|&i| (held(i), std::cmp::Reverse(i)))?;
    let terms: Vec<String> = r.allocation.gpus[i]
        .iter()
        .enumerate()
        .filter(|(_, &g)| g > 1e-9)
        .map(|(j, g)| format!("{g:.3} {} × {:.3}", r.gpu_types[j], inst.speedup[i][j]))
        .collect();
    if terms.is_empty() {
        return None;
    }
    Some(format!(
        "How a tenant's utility is worked out: {} holds {} = {:.4}, GPUs weighted by its speedup \
         on each type (its throughput there over its throughput on its reference type).",
        r.tenants[i],
        terms.join(" + "),
        r.utility[i]
    ))
}

fn single_view(state: &UseReducerHandle<AppState>, results: &Results, r: PolicyReport) -> Html {
    let instance = Rc::new(match results.scenario.instance() {
        Ok(inst) => inst,
        Err(_) => return html! {},
    });
    html! {
        <>
            <p class="summary" data-testid="efficiency">
                { format!("{} — efficiency (sum of speedup-normalised utilities): {:.4}", r.policy, r.efficiency) }
            </p>
            if let Some(worked) = worked_utility(&instance, &r) {
                <p class="policy-summary" data-testid="worked-utility">{ worked }</p>
            }
            <Badges report={r.clone()} sp_pending={state.probe_pending()} state={state.clone()} />
            if let Some(market) = r.market.clone() {
                <MarketPanel {market} gpu_types={r.gpu_types.clone()} tenants={r.tenants.clone()} />
            }
            if !r.trades.is_empty() {
                <TradesPanel trades={r.trades.clone()} gpu_types={r.gpu_types.clone()} tenants={r.tenants.clone()} />
            }
            if !r.shared.is_empty() {
                <SharedPanel instance={instance.clone()} shared={r.shared.clone()} />
            }
            <ChartFrame title={if r.shared.is_empty() { "GPUs held per tenant, by type" } else { "GPUs held alone per tenant, by type" }} file={format!("allocation-{}", r.policy)} export=true
                        table={Rc::new(allocation_table(&r.tenants, &r.gpu_types, &r.allocation.gpus))}>
                <AllocationChart instance={instance} allocation={Rc::new(r.allocation.clone())} />
            </ChartFrame>
            <ChartFrame title="Utility against the sharing-incentive line" file={format!("utility-{}", r.policy)} export=true
                        table={Rc::new(utility_table(&r.tenants, &r.utility, &r.metrics.si_target))}>
                <UtilityChart tenants={r.tenants.clone()} utility={r.utility.clone()} si_target={r.metrics.si_target.clone()} />
            </ChartFrame>
            // Envy between bundles with shared GPUs is not defined (the EF badge says why).
            if r.properties.envy_freeness.holds.is_some() {
                <ChartFrame title="Envy per unit of weight: row envies column (vermillion envy, blue none, grey not constrained)" file={format!("envy-{}", r.policy)} export=true
                            table={Rc::new(envy_table(&r.tenants, &r.metrics.envy))}>
                    <EnvyHeatmap tenants={r.tenants.clone()} envy={r.metrics.envy.clone()} />
                </ChartFrame>
            }
        </>
    }
}

fn frontier_view(results: &Results) -> Html {
    let frontier = match &results.frontier {
        Some(Ok(f)) => Rc::new(f.clone()),
        Some(Err(why)) => {
            return html! { <p class="errors" role="alert">{ format!("The frontier could not be computed: {why}") }</p> }
        }
        None if results.scenario.tenants.len() > MAX_FRONTIER_TENANTS => {
            return html! {
                <p class="notice" data-testid="frontier-too-big">{ format!(
                    "The price-of-fairness frontier is computed in the page up to {MAX_FRONTIER_TENANTS} \
                     tenants ({} here): it solves dozens of LPs of oef-coop's size. Run \
                     `fairground frontier SCENARIO.json` (docs/mechanisms.md) for this scenario.",
                    results.scenario.tenants.len()
                ) }</p>
            }
        }
        None => return html! { <p class="solving shown">{ "Solving…" }</p> },
    };
    html! {
        <>
            <p class="summary" data-testid="frontier-summary">
                { format!("The most efficient allocation when each guarantee is relaxed by eps: \
                    u_i(g_i) >= (1 - eps) u_i(e_i) (SI), u_i(g_i)/w_i >= (1 - eps) u_i(g_k)/w_k (EF). \
                    Exact LP optima every {} in eps, straight lines between. Each policy sits at the \
                    eps it needs for both.", frontier.step) }
            </p>
            <ul class="price-of-fairness" data-testid="price-of-fairness">
                { for frontier.curves.iter().map(|c| html! {
                    <li data-guarantee={c.guarantee.label()}>{ format!("{}: costs {:.2}% of the maximum efficiency {:.4}",
                        c.guarantee.label(), 100.0 * c.price_of_fairness, frontier.max_efficiency) }</li>
                }) }
            </ul>
            <ChartFrame title="Price of fairness: efficiency against relaxation" file="frontier" export=true>
                <FrontierChart frontier={frontier.clone()} />
            </ChartFrame>
            <table class="compare-table" data-testid="frontier-table" tabindex="0">
                <thead><tr><th>{ "policy" }</th><th>{ "efficiency" }</th><th>{ "eps SI" }</th><th>{ "eps EF" }</th><th>{ "eps both" }</th></tr></thead>
                <tbody>
                    { for frontier.policies.iter().map(|pt| html! {
                        <tr data-policy={pt.policy.clone()}><td>{ pt.policy.clone() }</td>
                            <td>{ format!("{:.4}", pt.efficiency) }</td>
                            <td>{ format!("{:.4}", pt.eps_sharing_incentive) }</td>
                            <td>{ format!("{:.4}", pt.eps_envy_freeness) }</td>
                            <td>{ format!("{:.4}", pt.eps_both) }</td></tr>
                    }) }
                </tbody>
            </table>
            if !frontier.failed.is_empty() {
                <ul class="errors" role="alert">{ for frontier.failed.iter().map(|f| html! { <li>{ f.clone() }</li> }) }</ul>
            }
        </>
    }
}

fn compare_view(state: &UseReducerHandle<AppState>, results: &Results) -> Html {
    // A click on a point opens that policy.
    let on_pick = {
        let state = state.dispatcher();
        Callback::from(move |name: String| {
            state.dispatch(Action::SetMode(Mode::Single));
            state.dispatch(Action::SelectPolicy(name));
        })
    };
    let reports: Vec<PolicyReport> = results.reports.iter().flatten().cloned().collect();
    let si_points = reports
        .iter()
        .map(|r| {
            (
                r.policy.clone(),
                r.properties.sharing_incentive.worst_ratio,
                r.efficiency,
            )
        })
        .collect::<Vec<_>>();
    // A policy whose answer shares GPUs has no envy to plot (EF is not defined there).
    let envy_points = reports
        .iter()
        .filter(|r| r.properties.envy_freeness.holds.is_some())
        .map(|r| {
            (
                r.policy.clone(),
                r.properties.envy_freeness.worst_envy.max(0.0),
                r.efficiency,
            )
        })
        .collect::<Vec<_>>();
    html! {
        <>
            <div class="compare-charts">
                <ChartFrame title="Efficiency against the worst sharing-incentive ratio" file="compare-si" export=true>
                    <Scatter points={si_points} x_label="worst SI ratio (>= 1 is fair)" y_label="efficiency" testid="compare-si" on_pick={on_pick.clone()} />
                </ChartFrame>
                <ChartFrame title="Efficiency against the worst envy" file="compare-envy" export=true>
                    <Scatter points={envy_points} x_label="worst envy (0 is envy-free)" y_label="efficiency" testid="compare-envy" {on_pick} />
                </ChartFrame>
            </div>
            <CompareTable {reports} />
        </>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fairground_core::presets;

    /// The textbook 2 x 2 under the equal split, by hand: vision holds half of each GPU, at
    /// speedups 1 (slow, its reference) and 2 (fast): 0.5 + 1 = 1.5.
    #[test]
    fn the_worked_utility_adds_up_by_hand() {
        let scenario = presets::textbook_two_by_two().scenario;
        let inst = scenario.instance().unwrap();
        let r = fairground_core::report::run(
            &scenario,
            &inst,
            policies::by_name("equal-share").unwrap(),
            None,
        )
        .unwrap();
        let worked = worked_utility(&inst, &r).unwrap();
        assert!(
            worked.contains("vision holds 0.500 slow × 1.000 + 0.500 fast × 2.000 = 1.5000"),
            "{worked}"
        );
    }
}
