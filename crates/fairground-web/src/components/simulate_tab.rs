//! The Simulation tab: the form (`sim_form`), the run through the simulator's worker, and its
//! results as charts and tables. Depends on the form, the worker's messages and the charts.

use super::line_chart::Series;
use super::sim_form::{
    Field, FormAction, FormState, Generator, SimForm, TraceFile, FAMILIES, RECIPES,
};
use super::{gantt_table, ChartFrame, Gantt, LineChart};
use crate::sim_worker::{SimInput, SimOutput, SimSummary, SimulateReactor};
use fairground_chart::table::{sampled, DataTable};
use fairground_sim::Cluster;
use std::cell::RefCell;
use std::rc::Rc;
use yew::prelude::*;
use yew_agent::reactor::{use_reactor_bridge, ReactorEvent};

/// Largest trace accepted from a file (bytes).
const MAX_TRACE: f64 = 1024.0 * 1024.0;

/// Largest throughputs file accepted (bytes): Gavel's `simulation_throughputs.json` is 1.2 MB.
const MAX_THROUGHPUTS: f64 = 4.0 * 1024.0 * 1024.0;

/// The event index.html dispatches on the window when a worker's script or engine fails to load.
const WORKER_FAILED: &str = "fairground:worker-failed";

/// Where a run is.
#[derive(Debug, Clone, PartialEq)]
pub enum RunState {
    Idle,
    Running {
        policies: Vec<String>,
        progress: Vec<(usize, usize)>,
    },
    Done {
        results: Rc<Vec<Result<SimSummary, String>>>,
        cluster: Cluster,
    },
    Failed(String),
    Cancelled,
}

pub enum RunAction {
    Start(Vec<String>, Cluster),
    Output(SimOutput),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Run {
    pub state: RunState,
    cluster: Option<Cluster>,
}

impl Reducible for Run {
    type Action = RunAction;

    fn reduce(self: Rc<Self>, action: RunAction) -> Rc<Self> {
        let cluster = self.cluster.clone();
        let state = match (action, &self.state) {
            (RunAction::Start(policies, cluster), _) => {
                let progress = vec![(0, 0); policies.len()];
                return Rc::new(Run {
                    state: RunState::Running { policies, progress },
                    cluster: Some(cluster),
                });
            }
            (
                RunAction::Output(SimOutput::Progress {
                    policy,
                    done,
                    total,
                }),
                RunState::Running { policies, progress },
            ) => {
                let mut progress = progress.clone();
                if let Some(p) = progress.get_mut(policy) {
                    *p = (done, total);
                }
                RunState::Running {
                    policies: policies.clone(),
                    progress,
                }
            }
            (RunAction::Output(SimOutput::Done(results)), _) => RunState::Done {
                results: Rc::new(results),
                cluster: cluster.clone().unwrap_or(Cluster {
                    types: vec![],
                    servers: vec![],
                    gpu_memory_gb: vec![],
                }),
            },
            (RunAction::Output(SimOutput::Failed(why)), _) => RunState::Failed(why),
            (RunAction::Output(SimOutput::Cancelled), _) => RunState::Cancelled,
            (RunAction::Output(SimOutput::Progress { .. }), _) => return self,
        };
        Rc::new(Run { state, cluster })
    }
}

/// One field of the form: a text field, or a select when it has choices.
fn field_view(field: Field, form: &UseReducerHandle<FormState>) -> Html {
    let spec = field.spec();
    let value = form.form.get(field).to_string();
    let dispatch = form.dispatcher();
    if spec.choices.is_empty() {
        let oninput = Callback::from(move |e: InputEvent| {
            let input: web_sys::HtmlInputElement = e.target_unchecked_into();
            dispatch.dispatch(FormAction::Set(field, input.value()));
        });
        html! {
            <label title={spec.hint}>{ spec.label }
                <input class="cell" type="text" {value} {oninput} data-testid={spec.testid} aria-label={spec.label} />
            </label>
        }
    } else {
        let onchange = Callback::from(move |e: Event| {
            let select: web_sys::HtmlSelectElement = e.target_unchecked_into();
            dispatch.dispatch(FormAction::Set(field, select.value()));
        });
        html! {
            <label title={spec.hint}>{ spec.label }
                <select {onchange} data-testid={spec.testid} aria-label={spec.label}>
                    { for spec.choices.iter().map(|c| html! { <option value={*c} selected={value == *c}>{ *c }</option> }) }
                </select>
            </label>
        }
    }
}

/// Reads `files` as text, then hands them over together, in the order chosen.
fn read_files(
    files: Vec<web_sys::File>,
    done: Callback<Vec<TraceFile>>,
    failed: Callback<String>,
) -> Vec<gloo::file::callbacks::FileReader> {
    let read: Rc<RefCell<Vec<Option<TraceFile>>>> = Rc::new(RefCell::new(vec![None; files.len()]));
    files
        .into_iter()
        .enumerate()
        .map(|(k, file)| {
            let name = file.name();
            let (read, done, failed) = (read.clone(), done.clone(), failed.clone());
            gloo::file::callbacks::read_as_text(&gloo::file::File::from(file), move |text| {
                match text {
                    Ok(text) => {
                        read.borrow_mut()[k] = Some((name, text));
                        let all: Option<Vec<TraceFile>> = read.borrow().iter().cloned().collect();
                        if let Some(all) = all {
                            done.emit(all);
                        }
                    }
                    Err(e) => failed.emit(format!("{name}: {e}")),
                }
            })
        })
        .collect()
}

/// The files chosen in a file input, taken before the input is cleared (the list is live).
fn chosen_files(e: &Event) -> Vec<web_sys::File> {
    let input: web_sys::HtmlInputElement = e.target_unchecked_into();
    let files = input
        .files()
        .map(|list| (0..list.length()).filter_map(|k| list.get(k)).collect())
        .unwrap_or_default();
    input.set_value("");
    files
}

/// The simulator: recipes, a cluster, a workload and policies by family; runs in the worker.
#[component]
pub fn SimulateTab() -> Html {
    let form = use_kept_form();
    let form_error = use_state(|| None::<String>);
    let run = use_reducer(|| Run {
        state: RunState::Idle,
        cluster: None,
    });
    let bridge = {
        let run = run.dispatcher();
        use_reactor_bridge::<SimulateReactor, _>(move |event| {
            if let ReactorEvent::Output(output) = event {
                run.dispatch(RunAction::Output(output));
            }
        })
    };
    let worker_failed = use_worker_failure(run.dispatcher());
    use_results_in_view(&run.state);
    let running = matches!(run.state, RunState::Running { .. });
    let on_run = {
        let (form, form_error, run, bridge) = (
            form.clone(),
            form_error.clone(),
            run.clone(),
            bridge.clone(),
        );
        Callback::from(move |_: MouseEvent| match form.form.request() {
            Ok(_) if worker_failed.is_some() => {
                let why = (*worker_failed).clone().unwrap_or_default();
                run.dispatch(RunAction::Output(SimOutput::Failed(why)));
            }
            Ok((request, cluster)) => {
                form_error.set(None);
                run.dispatch(RunAction::Start(request.policies.clone(), cluster));
                bridge.send(SimInput::Run(Box::new(request)));
            }
            Err(why) => form_error.set(Some(why)),
        })
    };
    let on_cancel = Callback::from(move |_: MouseEvent| bridge.send(SimInput::Cancel));
    let uploads = use_uploads(form.dispatcher(), form_error.clone());
    // Ctrl+Z in the form undoes its last change (a recipe included).
    let on_key = {
        let form = form.dispatcher();
        Callback::from(move |e: KeyboardEvent| {
            if super::editor::undo_key(&e.key(), e.ctrl_key() || e.meta_key(), e.shift_key())
                == Some(true)
            {
                e.prevent_default();
                form.dispatch(FormAction::Undo);
            }
        })
    };
    html! {
        <section class="simulate" aria-label="Simulator" data-testid="simulate-tab">
            <div class="sim-form" onkeydown={on_key}>
                { recipes_fieldset(&form) }
                <fieldset>
                    <legend>{ "Cluster" }</legend>
                    { field_view(Field::Cluster, &form) }{ field_view(Field::Shape, &form) }{ field_view(Field::GpuMemory, &form) }
                    if form.form.measured.is_none() {
                        { field_view(Field::Table, &form) }
                    }
                </fieldset>
                { workload_fieldset(&form, uploads) }
                { policies_fieldset(&form) }
                <div class="sim-actions">
                    <button type="button" onclick={on_run} disabled={running} data-testid="sim-run">{ "Run" }</button>
                    <button type="button" onclick={on_cancel} disabled={!running} data-testid="sim-cancel">{ "Cancel" }</button>
                    { overall_view(&run.state) }
                </div>
                if let Some(why) = &*form_error {
                    <p class="errors" role="alert" data-testid="sim-error">{ why }</p>
                }
            </div>
            { run_view(&run.state) }
        </section>
    }
}

/// The form's state, opening as the link (or the last visit) left it, every change kept in the
/// link and for the next visit.
#[hook]
fn use_kept_form() -> UseReducerHandle<FormState> {
    let form = use_reducer(|| {
        let mut state = FormState::default();
        if let Some(text) = crate::storage::sim_settings() {
            state.form = SimForm::default().with_settings(&text);
        }
        state
    });
    let settings = form.form.to_settings();
    use_effect_with(settings, |settings| {
        let default = SimForm::default().to_settings();
        crate::storage::set_sim_settings((settings != &default).then_some(settings.as_str()));
    });
    form
}

/// index.html reports a worker that could not load (offline before any complete visit): the
/// worker starts with the tab, so this can come before any run. A run then fails at once with
/// the reason and what to do, rather than wait on a worker that will never answer.
#[hook]
fn use_worker_failure(run: UseReducerDispatcher<Run>) -> UseStateHandle<Option<String>> {
    let worker_failed = use_state(|| None::<String>);
    {
        let worker_failed = worker_failed.clone();
        use_effect_with((), move |_| {
            let listener = gloo::events::EventListener::new(
                &gloo::utils::window(),
                WORKER_FAILED,
                move |event| {
                    let detail = js_sys::Reflect::get(event, &"detail".into()).ok();
                    let field = |name: &str| {
                        detail
                            .as_ref()
                            .and_then(|d| js_sys::Reflect::get(d, &name.into()).ok())
                            .and_then(|v| v.as_string())
                            .unwrap_or_default()
                    };
                    if field("worker") == "simulation" {
                        let why = format!(
                            "The simulation engine could not be loaded ({}). Check the \
                             connection, then reload the page: your scenario is kept.",
                            field("message")
                        );
                        worker_failed.set(Some(why.clone()));
                        run.dispatch(RunAction::Output(SimOutput::Failed(why)));
                    }
                },
            );
            move || drop(listener)
        });
    }
    worker_failed
}

/// Finished results are brought into view (they appear below the form).
#[hook]
fn use_results_in_view(state: &RunState) {
    let done = matches!(state, RunState::Done { .. });
    let results = match state {
        RunState::Done { results, .. } => Some(results.clone()),
        _ => None,
    };
    use_effect_with(results, move |_| {
        if done {
            let found = gloo::utils::document()
                .query_selector("[data-testid=\"sim-results\"]")
                .ok()
                .flatten();
            if let Some(el) = found {
                el.scroll_into_view();
            }
        }
    });
}

/// The upload buttons' callbacks: a trace (one file, or PAI's two tables) and Gavel's measured
/// throughputs, each refused over its size limit, read into the form.
struct Uploads {
    trace: Callback<Event>,
    measured: Callback<Event>,
}

#[hook]
fn use_uploads(
    form: UseReducerDispatcher<FormState>,
    form_error: UseStateHandle<Option<String>>,
) -> Uploads {
    let readers = use_mut_ref(Vec::<gloo::file::callbacks::FileReader>::new);
    let failed = Callback::from(move |why: String| form_error.set(Some(why)));
    let trace = {
        let (form, readers, failed) = (form.clone(), readers.clone(), failed.clone());
        Callback::from(move |e: Event| {
            let files = chosen_files(&e);
            let problem = if files.len() > 2 {
                Some(format!(
                    "{} files chosen: upload one trace, or PAI's two tables (pai_job_table.csv \
                     and pai_task_table.csv) together",
                    files.len()
                ))
            } else {
                files.iter().find(|f| f.size() > MAX_TRACE).map(|big| {
                    format!(
                        "{} is over the 1 MB limit for traces in the browser: replay it natively with \
                         `fairground simulate --trace {}` (add --from, --until or --sample N to cut it)",
                        big.name(),
                        big.name()
                    )
                })
            };
            match problem {
                Some(why) => failed.emit(why),
                None if !files.is_empty() => {
                    let form = form.clone();
                    let done = Callback::from(move |all: Vec<TraceFile>| {
                        form.dispatch(FormAction::Trace(Some(Rc::new(all))))
                    });
                    *readers.borrow_mut() = read_files(files, done, failed.clone());
                }
                None => {}
            }
        })
    };
    let measured = Callback::from(move |e: Event| {
        let files = chosen_files(&e);
        let Some(file) = files.first() else {
            return;
        };
        if file.size() > MAX_THROUGHPUTS {
            failed.emit(format!(
                "{} is over the 4 MB limit for a throughputs file (Gavel's \
                 simulation_throughputs.json is 1.2 MB)",
                file.name()
            ));
            return;
        }
        let form = form.clone();
        let done = Callback::from(move |mut all: Vec<TraceFile>| {
            form.dispatch(FormAction::Measured(all.pop().map(Rc::new)))
        });
        *readers.borrow_mut() = read_files(files, done, failed.clone());
    });
    Uploads { trace, measured }
}

/// A button dispatching the form action `make` makes.
fn act(form: &UseReducerHandle<FormState>, make: fn() -> FormAction) -> Callback<MouseEvent> {
    let form = form.dispatcher();
    Callback::from(move |_: MouseEvent| form.dispatch(make()))
}

/// The recipes (a published evaluation's set-up each), the form's undo, and what the last
/// recipe changed.
fn recipes_fieldset(form: &UseReducerHandle<FormState>) -> Html {
    html! {
        <fieldset class="sim-recipes">
            <legend>{ "Recipes: a published evaluation's set-up, scaled to the browser" }</legend>
            { for RECIPES.iter().enumerate().map(|(k, r)| {
                let form = form.dispatcher();
                let sets: Vec<String> = r.fields.iter().map(|(f, v)| format!("{} {v}", f.spec().label)).collect();
                html! {
                    <button type="button" data-testid={r.testid} title={format!("sets {}; policies {}", sets.join(", "), r.policies.join(", "))}
                            onclick={Callback::from(move |_: MouseEvent| form.dispatch(FormAction::Recipe(k)))}>{ format!("{} set-up", r.name) }</button>
                }
            }) }
            <button type="button" onclick={act(form, || FormAction::Undo)} disabled={!form.can_undo()}
                    title="Undo the last change to the form (Ctrl+Z)" data-testid="sim-undo">{ "Undo" }</button>
            if let Some((name, changes)) = &form.applied {
                <p class="notice" role="status" data-testid="sim-recipe-changes">
                    { format!("{name} set-up changed {}. Undo puts them back.", if changes.is_empty() { "nothing".to_string() } else { changes.join("; ") }) }
                </p>
            }
        </fieldset>
    }
}

/// The workload: an uploaded trace or a generator and its settings, and the uploads.
fn workload_fieldset(form: &UseReducerHandle<FormState>, uploads: Uploads) -> Html {
    let f = &form.form;
    let field = |k: Field| field_view(k, form);
    let generator_choice = |g: Generator, label: &'static str, testid: &'static str| {
        let form = form.dispatcher();
        html! {
            <label><input type="radio" name="generator" checked={f.generator == g}
                   onchange={Callback::from(move |_: Event| form.dispatch(FormAction::Generator(g)))} data-testid={testid} />{ label }</label>
        }
    };
    html! {
        <fieldset>
            <legend>{ "Workload" }</legend>
            if let Some(files) = &f.trace {
                <p>{ format!("Trace: {} ", files.iter().map(|f| f.0.as_str()).collect::<Vec<_>>().join(" + ")) }
                   <button type="button" onclick={act(form, || FormAction::Trace(None))}>{ "use the synthetic workload" }</button></p>
            } else {
                <div class="sim-generator" role="radiogroup" aria-label="synthetic workload">
                    { generator_choice(Generator::Gavel, "Gavel's generator", "sim-generator-gavel") }
                    { generator_choice(Generator::Synergy, "Synergy's (model profiles)", "sim-generator-synergy") }
                </div>
                { field(Field::Jobs) }{ field(Field::Rate) }{ field(Field::Seed) }
                if f.generator == Generator::Gavel {
                    { field(Field::Tenants) }{ field(Field::TenantMix) }
                } else {
                    { field(Field::Split) }
                    <label><input type="checkbox" checked={f.multi_gpu} data-testid="sim-multi-gpu"
                           onchange={{ let form = form.dispatcher(); let on = !f.multi_gpu; Callback::from(move |_: Event| form.dispatch(FormAction::MultiGpu(on))) }} />{ "multi-GPU jobs" }</label>
                }
            }
            { field(Field::Measure) }{ field(Field::Round) }
            <label class="file-button">{ "Upload a trace (Gavel, CSV, Helios, Philly, or PAI's two tables)" }
                <input type="file" multiple=true accept=".trace,.csv,.tsv,.json,text/plain" onchange={uploads.trace} data-testid="sim-trace" />
            </label>
            if let Some(m) = &f.measured {
                <p data-testid="sim-throughputs-name">{ format!("Throughputs: {} ", m.0) }<button type="button" onclick={act(form, || FormAction::Measured(None))}>{ "use the built-in table" }</button></p>
            } else {
                <label class="file-button" title="Gavel's simulation_throughputs.json: measured rates for every model and GPU count, and the co-located pairs gavel-las-packed shares GPUs by. Without it: six cited models' single-GPU rates, multi-GPU rates by perfect scaling">{ "Measured throughputs (Gavel's simulation_throughputs.json)" }
                    <input type="file" accept=".json,application/json" onchange={uploads.measured} data-testid="sim-throughputs" />
                </label>
            }
        </fieldset>
    }
}

/// The policies by family: each family collapsed to a line naming what is chosen in it, its
/// settings in view.
fn policies_fieldset(form: &UseReducerHandle<FormState>) -> Html {
    let f = &form.form;
    html! {
        <fieldset class="sim-policies">
            <legend>{ "Policies, by family" }</legend>
            <p class="hint">{ "Open a family to choose among its policies; its line says which are chosen." }</p>
            { for FAMILIES.iter().map(|family| {
                // Collapsed, each family's line names what is chosen in it, so the
                // form stays short and Run in view (the browser keeps a family open).
                let members = family.policies();
                let chosen: Vec<&str> = members.iter().map(|p| p.0).filter(|name| f.chosen.iter().any(|c| c == name)).collect();
                let line = if chosen.is_empty() {
                    format!("{}: none of {} chosen", family.name, members.len())
                } else {
                    format!("{}: {} of {} chosen ({})", family.name, chosen.len(), members.len(), chosen.join(", "))
                };
                html! {
                <div class="sim-family">
                <details>
                    <summary data-testid="sim-family">{ line }</summary>
                    <p class="hint">{ family.blurb }</p>
                    { for members.into_iter().map(|(name, summary)| {
                        let form = form.dispatcher();
                        html! {
                            <label class="sim-policy">
                                <input type="checkbox" checked={f.chosen.iter().any(|c| c == name)} data-testid={format!("sim-policy-{name}")}
                                       onchange={Callback::from(move |_: Event| form.dispatch(FormAction::Toggle(name.to_string())))} />
                                <code>{ name }</code>{ " " }<span class="hint">{ summary }</span>
                            </label>
                        }
                    }) }
                </details>
                // The family's settings stay in view: they are the run's, not a choice
                // of policy.
                { for family.options.iter().map(|&k| field_view(k, form)) }
                </div>
            } }) }
        </fieldset>
    }
}

/// A run's progress over all its policies: rounds done and rounds in all (0 of 0 until the
/// first policy reports its length).
pub fn overall(progress: &[(usize, usize)]) -> (usize, usize) {
    progress
        .iter()
        .fold((0, 0), |(d, t), &(done, total)| (d + done, t + total))
}

/// The run's progress beside Run, in the bar that stays at the screen's foot: visible from the
/// moment Run is pressed (issue 78: the per-policy bars appear below the form, off screen on a
/// long form, so nothing visible changed after Run).
fn overall_view(state: &RunState) -> Html {
    let RunState::Running { policies, progress } = state else {
        return html! {};
    };
    let (done, total) = overall(progress);
    let finished = progress.iter().filter(|(d, t)| *t > 0 && d >= t).count();
    html! {
        <span class="sim-overall" role="status" data-testid="sim-overall">
            if total == 0 {
                { "Starting… " }<progress></progress>
            } else {
                { format!("Running: {finished} of {} policies done ", policies.len()) }
                <progress max={total.to_string()} value={done.to_string()}></progress>
                { format!(" {}%", (100 * done) / total.max(1)) }
            }
        </span>
    }
}

fn run_view(state: &RunState) -> Html {
    match state {
        RunState::Idle => html! {},
        RunState::Cancelled => {
            html! { <p class="notice" data-testid="sim-status">{ "Cancelled." }</p> }
        }
        RunState::Failed(why) => {
            html! { <p class="errors" role="alert" data-testid="sim-status">{ why }</p> }
        }
        RunState::Running { policies, progress } => html! {
            <div data-testid="sim-status" aria-live="polite">
                { for policies.iter().zip(progress).map(|(name, (done, total))| html! {
                    <label class="sim-progress">{ format!("{name} ") }
                        <progress max={(*total).max(1).to_string()} value={done.to_string()}></progress>
                        { format!(" {done}/{total}") }
                    </label>
                }) }
            </div>
        },
        RunState::Done { results, cluster } => results_view(results, cluster),
    }
}

fn results_view(results: &Rc<Vec<Result<SimSummary, String>>>, cluster: &Cluster) -> Html {
    let ok: Vec<&SimSummary> = results.iter().flatten().collect();
    let failures: Vec<&String> = results.iter().filter_map(|r| r.as_ref().err()).collect();
    // Each policy's notes, and the trace reader's report once (every result carries it).
    let mut notes: Vec<&str> = Vec::new();
    for n in ok.iter().flat_map(|r| &r.notes) {
        if !notes.contains(&n.as_str()) {
            notes.push(n);
        }
    }
    let series = |pick: fn(&SimSummary) -> &Vec<(f64, f64)>,
                  suffix: &str|
     -> Vec<(String, Vec<(f64, f64)>)> {
        ok.iter()
            .map(|r| (format!("{}{suffix}", r.policy), pick(r).clone()))
            .collect()
    };
    let cdfs = series(|r| &r.jct_cdf, "");
    let utilisation = series(|r| &r.busy, "");
    let cpu_mem: Vec<(String, Vec<(f64, f64)>)> = series(|r| &r.cpu, " CPU")
        .into_iter()
        .zip(series(|r| &r.mem, " memory"))
        .flat_map(|(a, b)| [a, b])
        .collect();
    let measured = ok.iter().find_map(|r| r.measured.as_ref());
    let hours = |s: f64| format!("{:.2}", s / 3600.0);
    let cant_run: Vec<(&str, usize)> = ok
        .iter()
        .filter(|r| r.unschedulable > 0)
        .map(|r| (r.policy.as_str(), r.unschedulable))
        .collect();
    html! {
        <div class="sim-results" data-testid="sim-results">
            <p role="status" data-testid="sim-done">{ format!(
                "Done: {} {} ran{}. The table, the charts and each policy's Gantt chart follow.",
                ok.len(),
                if ok.len() == 1 { "policy" } else { "policies" },
                if failures.is_empty() { String::new() } else { format!(", {} could not", failures.len()) },
            ) }</p>
            if !failures.is_empty() {
                <ul class="errors" role="alert">{ for failures.iter().map(|f| html! { <li>{ f.as_str() }</li> }) }</ul>
            }
            <table class="compare-table" data-testid="sim-table" tabindex="0">
                <thead><tr>
                    <th>{ "policy" }</th><th>{ "done" }</th><th title="jobs needing more GPUs than any type has">{ "can't run" }</th><th>{ "avg JCT h" }</th><th>{ "median h" }</th><th>{ "p99 h" }</th>
                    <th>{ "makespan h" }</th><th>{ "avg rho" }</th>
                    { for cluster.types.iter().map(|t| html! { <th>{ format!("util {t}") }</th> }) }
                    <th title="CPU-seconds booked over the cluster's CPUs x makespan">{ "util CPU" }</th>
                    <th title="GB-seconds booked over the cluster's memory x makespan">{ "util mem" }</th>
                    if let Some(m) = measured {
                        <th title="mean JCT of the jobs with ids in this range (steady state)">{ format!("ids {}..{} avg JCT h", m.from_id, m.to_id) }</th>
                        <th>{ "p99 h" }</th>
                    }
                </tr></thead>
                <tbody>{ for ok.iter().map(|r| html! {
                    <tr data-policy={r.policy.clone()}>
                        <td>{ &r.policy }</td><td class="done">{ r.completed }</td>
                        <td class="unschedulable">{ r.unschedulable }</td><td class="avg-jct" data-seconds={r.avg_jct_s.to_string()}>{ hours(r.avg_jct_s) }</td>
                        <td>{ hours(r.median_jct_s) }</td><td>{ hours(r.p99_jct_s) }</td><td>{ hours(r.makespan_s) }</td>
                        <td>{ format!("{:.3}", r.avg_rho) }</td>
                        { for r.utilization.iter().map(|u| html! { <td>{ format!("{u:.3}") }</td> }) }
                        <td class="util-cpu">{ format!("{:.3}", r.cpu_utilization) }</td>
                        <td class="util-mem">{ format!("{:.3}", r.mem_utilization) }</td>
                        if let Some(m) = &r.measured {
                            <td class="measured-jct" data-seconds={m.avg_jct_s.to_string()}>{ hours(m.avg_jct_s) }</td>
                            <td>{ hours(m.p99_jct_s) }</td>
                        }
                    </tr>
                }) }</tbody>
            </table>
            if !cant_run.is_empty() {
                <p class="hint" data-testid="sim-cant-run">{ format!(
                    "\"can't run\" counts the jobs that asked for more GPUs than any one GPU type \
                     in this cluster has: {}. They were never placed, and are left out of the \
                     completion times.",
                    cant_run.iter().map(|(p, n)| format!("under {p}, {n} {}", if *n == 1 { "job" } else { "jobs" })).collect::<Vec<_>>().join("; ")
                ) }</p>
            }
            if !notes.is_empty() {
                <ul class="notice sim-notes" data-testid="sim-notes">
                    { for notes.iter().map(|n| html! { <li>{ *n }</li> }) }
                </ul>
            }
            <ChartFrame title="Job completion time, CDF" file="jct-cdf" export=true table={line_table(&cdfs, "JCT (hours)")}>
                <LineChart series={cdfs} x_label="JCT (hours)" y_label="share of jobs" testid="jct-cdf" />
            </ChartFrame>
            <ChartFrame title="GPU utilisation over time (all types)" file="utilisation" export=true table={line_table(&utilisation, "time (hours)")}>
                <LineChart series={utilisation} x_label="time (hours)" y_label="busy share of GPUs" testid="utilisation" />
            </ChartFrame>
            <ChartFrame title="CPU and memory booked over time" file="cpu-memory" export=true table={line_table(&cpu_mem, "time (hours)")}>
                <LineChart series={cpu_mem} x_label="time (hours)" y_label="share of the cluster's CPUs / memory" testid="cpu-memory" />
            </ChartFrame>
            <GanttPanel results={results.clone()} cluster={cluster.clone()} />
        </div>
    }
}

/// A line chart's numbers: each line read at 11 evenly spaced x values (see [`sampled`]).
fn line_table(lines: &[(String, Vec<(f64, f64)>)], x_name: &str) -> Rc<DataTable> {
    let series: Vec<Series> = lines
        .iter()
        .map(|(label, points)| Series::new(label.clone(), points.clone()))
        .collect();
    Rc::new(sampled(&series, x_name, 11, 2))
}

#[derive(Properties, PartialEq)]
struct GanttPanelProps {
    results: Rc<Vec<Result<SimSummary, String>>>,
    cluster: Cluster,
}

/// The Gantt chart of the policy chosen among those whose run recorded one, or why there is
/// none (runs past `SimConfig::gantt_max_jobs` jobs record no bars).
#[component]
fn GanttPanel(p: &GanttPanelProps) -> Html {
    let chosen = use_state(|| 0usize);
    let drawn: Vec<&SimSummary> = p
        .results
        .iter()
        .flatten()
        .filter(|r| !r.gantt.is_empty())
        .collect();
    let Some(&r) = drawn.get(*chosen).or(drawn.first()) else {
        let jobs = p
            .results
            .iter()
            .flatten()
            .map(|r| r.jobs)
            .max()
            .unwrap_or(0);
        let most = fairground_sim::config::SimConfig::default().gantt_max_jobs;
        return html! {
            <p class="notice" data-testid="gantt-none">{ format!(
                "No chart of each GPU over time: it is drawn for runs of up to {most} jobs, and this one has {jobs}. \
                 Run fewer jobs, or a shorter trace, to see where each job ran."
            ) }</p>
        };
    };
    let server_types: Vec<String> = p
        .cluster
        .servers
        .iter()
        .map(|s| p.cluster.types[s.gpu_type].clone())
        .collect();
    let onchange = {
        let chosen = chosen.clone();
        Callback::from(move |e: Event| {
            let select: web_sys::HtmlSelectElement = e.target_unchecked_into();
            chosen.set(select.selected_index().max(0) as usize);
        })
    };
    html! {
        <>
            <label class="gantt-pick">{ "GPUs over time under " }
                <select {onchange} data-testid="gantt-policy" aria-label="policy of the GPU chart">
                    { for drawn.iter().map(|d| html! { <option selected={d.policy == r.policy}>{ d.policy.clone() }</option> }) }
                </select>
            </label>
            <ChartFrame title={format!("GPUs over time under {}", r.policy)} file="gantt" export=true
                        table={Rc::new(gantt_table(&r.gantt, &r.gantt_jobs, &server_types))}>
                <Gantt bars={r.gantt.clone()} jobs={r.gantt_jobs.clone()} server_types={server_types.clone()} types={p.cluster.types.clone()} />
            </ChartFrame>
        </>
    }
}

#[cfg(test)]
mod tests {
    use super::overall;

    #[test]
    fn overall_progress_sums_every_policy_s_rounds() {
        assert_eq!(overall(&[]), (0, 0));
        assert_eq!(overall(&[(0, 0), (0, 0)]), (0, 0));
        assert_eq!(overall(&[(10, 40), (40, 40), (0, 20)]), (50, 100));
    }
}
