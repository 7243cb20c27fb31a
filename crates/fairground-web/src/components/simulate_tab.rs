use super::{ChartFrame, Gantt, LineChart};
use crate::components::line_chart::{cdf, downsample};
use crate::sim_worker::{NamedText, SimInput, SimOutput, SimRequest, SimulateReactor, Workload};
use fairground_sim::metrics::SimResult;
use fairground_sim::sharing::GpuMemory;
use fairground_sim::workload::{parse_split, SynergyConfig, SyntheticConfig, TenantMix};
use fairground_sim::{Cluster, ServerShape};
use std::cell::RefCell;
use std::rc::Rc;
use yew::prelude::*;
use yew_agent::reactor::{use_reactor_bridge, ReactorEvent};

/// Policies offered, with those ticked at first.
const POLICIES: [(&str, bool); 25] = [
    ("fifo", true),
    ("srtf", false),
    ("las", false),
    ("tiresias", false),
    ("tiresias-2q", false),
    ("sjf-bsbf", false),
    ("sjf-ffs", false),
    ("gavel-las", true),
    ("gavel-max-sum", false),
    ("gavel-ftf", false),
    ("gavel-fifo", false),
    ("gavel-las-agnostic", false),
    ("gavel-min-makespan", false),
    ("gavel-hierarchical", false),
    ("gavel-las-packed", false),
    ("oef-coop", true),
    ("oef-noncoop", false),
    ("gandiva-fair", false),
    ("synergy-proportional", false),
    ("synergy-greedy", false),
    ("synergy-tune", false),
    ("synergy-opt", false),
    ("hadar", false),
    ("hadar:strict", false),
    ("hadare", false),
];
/// Orderings a Synergy mechanism can be paired with.
const SYNERGY_ORDERS: [&str; 6] = ["fifo", "srtf", "las", "ftf", "drf", "tetris"];

/// Which generator makes the jobs when no trace is uploaded.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Generator {
    Gavel,
    Synergy,
}

/// `A..B` with A < B, or nothing for an empty field.
fn parse_measure(text: &str) -> Result<Option<(usize, usize)>, String> {
    let text = text.trim();
    if text.is_empty() {
        return Ok(None);
    }
    let bad = || format!("steady-state ids: '{text}' should be A..B with whole numbers A < B");
    let (a, b) = text.split_once("..").ok_or_else(bad)?;
    let a: usize = a.trim().parse().map_err(|_| bad())?;
    let b: usize = b.trim().parse().map_err(|_| bad())?;
    if a >= b {
        return Err(bad());
    }
    Ok(Some((a, b)))
}

/// The policy names sent to the simulator: Synergy's mechanisms get the chosen ordering.
fn with_order(chosen: &[String], order: &str) -> Vec<String> {
    chosen
        .iter()
        .map(|p| {
            if p.starts_with("synergy-") && order != "fifo" {
                format!("{p}:{order}")
            } else {
                p.clone()
            }
        })
        .collect()
}
/// An uploaded file: its name and text.
type TraceFile = (String, String);

/// Largest trace accepted from a file (bytes).
const MAX_TRACE: f64 = 1024.0 * 1024.0;

/// Largest throughputs file accepted (bytes): Gavel's `simulation_throughputs.json` is 1.2 MB.
const MAX_THROUGHPUTS: f64 = 4.0 * 1024.0 * 1024.0;

/// Where a run is.
#[derive(Debug, Clone, PartialEq)]
pub enum RunState {
    Idle,
    Running {
        policies: Vec<String>,
        progress: Vec<(usize, usize)>,
    },
    Done {
        results: Vec<Result<SimResult, String>>,
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
                results,
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

fn text_input(label: &str, testid: &str, value: &UseStateHandle<String>) -> Html {
    input(label, testid, value, false)
}

fn number_input(label: &str, testid: &str, value: &UseStateHandle<String>) -> Html {
    input(label, testid, value, true)
}

fn input(label: &str, testid: &str, value: &UseStateHandle<String>, numeric: bool) -> Html {
    let value_handle = value.clone();
    let oninput = Callback::from(move |e: InputEvent| {
        let input: web_sys::HtmlInputElement = e.target_unchecked_into();
        value_handle.set(input.value());
    });
    let (class, mode) = if numeric {
        ("cell numeric", "decimal")
    } else {
        ("cell", "text")
    };
    html! {
        <label>{ label }
            <input class={class} type="text" inputmode={mode} value={(**value).clone()}
                   {oninput} data-testid={testid.to_string()} aria-label={label.to_string()} />
        </label>
    }
}

/// The simulator: configure a cluster and a workload, pick policies, run in the worker.
#[component]
pub fn SimulateTab() -> Html {
    let cluster = use_state(|| "v100=4,p100=4,k80=4".to_string());
    let jobs = use_state(|| "40".to_string());
    let rate = use_state(|| "4".to_string());
    let seed = use_state(|| "0".to_string());
    let tenants = use_state(|| "4".to_string());
    let tenant_mix = use_state(|| TenantMix::Uniform);
    let share_among = use_state(|| "jobs".to_string());
    let round = use_state(|| "360".to_string());
    let generator = use_state(|| Generator::Gavel);
    let shape = use_state(|| "8,24,500".to_string());
    let gpu_memory = use_state(String::new);
    let split = use_state(|| "20,70,10".to_string());
    let multi_gpu = use_state(|| false);
    let measure = use_state(String::new);
    let order = use_state(|| "fifo".to_string());
    let mixed_rate = use_state(|| "slowest".to_string());
    let sync_overhead = use_state(|| "10".to_string());
    // The uploaded trace's files (name, text): one, or PAI's two tables.
    let trace = use_state(|| None::<Vec<TraceFile>>);
    // Gavel's measured throughputs (name, text), if uploaded.
    let measured = use_state(|| None::<TraceFile>);
    let chosen = use_state(|| {
        POLICIES
            .iter()
            .filter(|p| p.1)
            .map(|p| p.0.to_string())
            .collect::<Vec<_>>()
    });
    let form_error = use_state(|| None::<String>);
    let run = use_reducer(|| Run {
        state: RunState::Idle,
        cluster: None,
    });
    let reader = use_mut_ref(Vec::<gloo::file::callbacks::FileReader>::new);
    let measured_reader = use_mut_ref(|| None::<gloo::file::callbacks::FileReader>);
    let bridge = {
        let run = run.dispatcher();
        use_reactor_bridge::<SimulateReactor, _>(move |event| {
            if let ReactorEvent::Output(output) = event {
                run.dispatch(RunAction::Output(output));
            }
        })
    };
    let running = matches!(run.state, RunState::Running { .. });

    let on_run = {
        let (cluster, jobs, rate, seed, tenants, round, trace, chosen, form_error, run, bridge) = (
            cluster.clone(),
            jobs.clone(),
            rate.clone(),
            seed.clone(),
            tenants.clone(),
            round.clone(),
            trace.clone(),
            chosen.clone(),
            form_error.clone(),
            run.clone(),
            bridge.clone(),
        );
        let (gpu_memory, measured) = (gpu_memory.clone(), measured.clone());
        let (mixed_rate, sync_overhead) = (mixed_rate.clone(), sync_overhead.clone());
        let (tenant_mix, share_among) = (tenant_mix.clone(), share_among.clone());
        let (generator, shape, split, multi_gpu, measure, order) = (
            generator.clone(),
            shape.clone(),
            split.clone(),
            multi_gpu.clone(),
            measure.clone(),
            order.clone(),
        );
        Callback::from(move |_: MouseEvent| {
            let parse = |text: &str, what: &str| -> Result<f64, String> {
                crate::paste::parse_number(text)
                    .filter(|v| v.is_finite() && *v > 0.0)
                    .ok_or(format!("{what}: '{text}' should be a number > 0"))
            };
            let request = (|| -> Result<(SimRequest, Cluster), String> {
                let server_shape = ServerShape::parse(&shape).map_err(|e| e.to_string())?;
                let mut parsed =
                    Cluster::parse_shaped(&cluster, &server_shape).map_err(|e| e.to_string())?;
                parsed.gpu_memory_gb = GpuMemory::parse(&gpu_memory, &parsed.types)
                    .map_err(|e| e.to_string())?
                    .0;
                let workload = match &*trace {
                    Some(files) => Workload::Trace {
                        name: files[0].0.clone(),
                        text: files[0].1.clone(),
                        second: files.get(1).cloned(),
                    },
                    None => {
                        let n = parse(&jobs, "jobs")?;
                        if n > 5000.0 || n.fract() != 0.0 {
                            return Err("jobs: a whole number up to 5,000 in the browser (use the CLI for more)".into());
                        }
                        let seed = crate::paste::parse_number(&seed)
                            .filter(|s| *s >= 0.0 && s.fract() == 0.0)
                            .ok_or("seed: a whole number >= 0")?
                            as u64;
                        let jobs_per_hour = parse(&rate, "jobs per hour")?;
                        match *generator {
                            Generator::Gavel => Workload::Synthetic(SyntheticConfig {
                                jobs: n as usize,
                                jobs_per_hour,
                                seed,
                                tenants: parse(&tenants, "tenants")? as usize,
                                tenant_mix: *tenant_mix,
                            }),
                            Generator::Synergy => Workload::Synergy(SynergyConfig {
                                jobs: n as usize,
                                jobs_per_hour,
                                split: parse_split(&split).map_err(|e| e.to_string())?,
                                multi_gpu: *multi_gpu,
                                seed,
                            }),
                        }
                    }
                };
                if chosen.is_empty() {
                    return Err("pick at least one policy".into());
                }
                let request = SimRequest {
                    cluster: (*cluster).clone(),
                    workload,
                    policies: with_order(&chosen, &order),
                    round_s: parse(&round, "round length")?,
                    server_shape: (*shape).clone(),
                    measure_ids: parse_measure(&measure)?,
                    gpu_memory: (*gpu_memory).clone(),
                    mixed_rate: (*mixed_rate).clone(),
                    sync_overhead_s: Some(
                        crate::paste::parse_number(&sync_overhead)
                            .filter(|v| v.is_finite() && *v >= 0.0)
                            .ok_or(format!(
                                "sync overhead: '{}' should be a number of seconds >= 0",
                                *sync_overhead
                            ))?,
                    ),
                    throughputs: (*measured)
                        .clone()
                        .map(|(name, text)| NamedText { name, text }),
                    share_among: (*share_among).clone(),
                };
                Ok((request, parsed))
            })();
            match request {
                Ok((request, parsed)) => {
                    form_error.set(None);
                    run.dispatch(RunAction::Start(request.policies.clone(), parsed));
                    bridge.send(SimInput::Run(Box::new(request)));
                }
                Err(why) => form_error.set(Some(why)),
            }
        })
    };
    let on_cancel = {
        let bridge = bridge.clone();
        Callback::from(move |_: MouseEvent| bridge.send(SimInput::Cancel))
    };
    let on_trace = {
        let (trace, form_error) = (trace.clone(), form_error.clone());
        Callback::from(move |e: Event| {
            let input: web_sys::HtmlInputElement = e.target_unchecked_into();
            let Some(list) = input.files() else {
                return;
            };
            // Taken before the input is cleared: the list is live and would empty.
            let files: Vec<web_sys::File> =
                (0..list.length()).filter_map(|k| list.get(k)).collect();
            input.set_value("");
            if files.is_empty() {
                return;
            }
            if files.len() > 2 {
                form_error.set(Some(format!(
                    "{} files chosen: upload one trace, or PAI's two tables (pai_job_table.csv \
                     and pai_task_table.csv) together",
                    files.len()
                )));
                return;
            }
            if let Some(big) = files.iter().find(|f| f.size() > MAX_TRACE) {
                form_error.set(Some(format!(
                    "{} is over the 1 MB limit for traces in the browser: replay it natively with \
                     `fairground simulate --trace {}` (add --from, --until or --sample N to cut it)",
                    big.name(),
                    big.name()
                )));
                return;
            }
            // Read every file, then keep them together in the order chosen.
            let read: Rc<RefCell<Vec<Option<TraceFile>>>> =
                Rc::new(RefCell::new(vec![None; files.len()]));
            let mut tasks = Vec::new();
            for (k, file) in files.into_iter().enumerate() {
                let name = file.name();
                let (trace, form_error, read) = (trace.clone(), form_error.clone(), read.clone());
                tasks.push(gloo::file::callbacks::read_as_text(
                    &gloo::file::File::from(file),
                    move |text| match text {
                        Ok(text) => {
                            read.borrow_mut()[k] = Some((name, text));
                            let all: Option<Vec<TraceFile>> =
                                read.borrow().iter().cloned().collect();
                            if let Some(all) = all {
                                trace.set(Some(all));
                            }
                        }
                        Err(e) => form_error.set(Some(format!("{name}: {e}"))),
                    },
                ));
            }
            *reader.borrow_mut() = tasks;
        })
    };
    let on_measured = {
        let (measured, form_error) = (measured.clone(), form_error.clone());
        Callback::from(move |e: Event| {
            let input: web_sys::HtmlInputElement = e.target_unchecked_into();
            let Some(file) = input.files().and_then(|list| list.get(0)) else {
                return;
            };
            input.set_value("");
            if file.size() > MAX_THROUGHPUTS {
                form_error.set(Some(format!(
                    "{} is over the 4 MB limit for a throughputs file (Gavel's \
                     simulation_throughputs.json is 1.2 MB)",
                    file.name()
                )));
                return;
            }
            let name = file.name();
            let (measured, form_error) = (measured.clone(), form_error.clone());
            *measured_reader.borrow_mut() = Some(gloo::file::callbacks::read_as_text(
                &gloo::file::File::from(file),
                move |text| match text {
                    Ok(text) => measured.set(Some((name, text))),
                    Err(e) => form_error.set(Some(format!("{name}: {e}"))),
                },
            ));
        })
    };
    let clear_measured = {
        let measured = measured.clone();
        Callback::from(move |_: MouseEvent| measured.set(None))
    };
    let clear_trace = {
        let trace = trace.clone();
        Callback::from(move |_: MouseEvent| trace.set(None))
    };
    // Synergy's evaluation set-up in one click: 128 GPUs on its servers, its workload at 9 jobs/h,
    // rounds of 300 s, its mechanisms, and a steady-state window.
    let synergy_setup = {
        let (cluster, jobs, rate, round, generator, shape, measure, chosen, trace) = (
            cluster.clone(),
            jobs.clone(),
            rate.clone(),
            round.clone(),
            generator.clone(),
            shape.clone(),
            measure.clone(),
            chosen.clone(),
            trace.clone(),
        );
        Callback::from(move |_: MouseEvent| {
            cluster.set("gpu=128".into());
            jobs.set("1000".into());
            rate.set("9".into());
            round.set("300".into());
            shape.set("8,24,500".into());
            measure.set("400..700".into());
            generator.set(Generator::Synergy);
            trace.set(None);
            chosen.set(
                ["synergy-proportional", "synergy-tune", "synergy-opt"]
                    .map(String::from)
                    .to_vec(),
            );
        })
    };
    let pick_generator = |g: Generator| {
        let generator = generator.clone();
        Callback::from(move |_: Event| generator.set(g))
    };
    let on_multi_gpu = {
        let multi_gpu = multi_gpu.clone();
        Callback::from(move |_: Event| multi_gpu.set(!*multi_gpu))
    };
    let on_order = {
        let order = order.clone();
        Callback::from(move |e: Event| {
            let select: web_sys::HtmlSelectElement = e.target_unchecked_into();
            order.set(select.value());
        })
    };
    let on_tenant_mix = {
        let tenant_mix = tenant_mix.clone();
        Callback::from(move |e: Event| {
            let select: web_sys::HtmlSelectElement = e.target_unchecked_into();
            tenant_mix.set(TenantMix::parse(&select.value()).unwrap_or_default());
        })
    };
    let on_share_among = {
        let share_among = share_among.clone();
        Callback::from(move |e: Event| {
            let select: web_sys::HtmlSelectElement = e.target_unchecked_into();
            share_among.set(select.value());
        })
    };
    let on_mixed_rate = {
        let mixed_rate = mixed_rate.clone();
        Callback::from(move |e: Event| {
            let select: web_sys::HtmlSelectElement = e.target_unchecked_into();
            mixed_rate.set(select.value());
        })
    };
    let on_cluster = {
        let cluster = cluster.clone();
        Callback::from(move |e: InputEvent| {
            let input: web_sys::HtmlInputElement = e.target_unchecked_into();
            cluster.set(input.value());
        })
    };

    html! {
        <section class="simulate" aria-label="Simulator" data-testid="simulate-tab">
            <div class="sim-form">
                <label>{ "Cluster (GPUs per type) " }
                    <input class="cell" type="text" value={(*cluster).clone()} oninput={on_cluster} data-testid="sim-cluster" aria-label="cluster" />
                </label>
                { text_input("server (GPUs, CPUs, GB)", "sim-shape", &shape) }
                { text_input("GPU memory, GB (e.g. v100=16; empty: defaults)", "sim-gpu-memory", &gpu_memory) }
                <button type="button" onclick={synergy_setup} data-testid="sim-synergy-setup"
                        title="128 GPUs on Synergy's servers, its workload at 9 jobs/h, rounds of 300 s, its mechanisms">{ "Synergy's set-up" }</button>
                if let Some(files) = &*trace {
                    <p>{ format!("Trace: {} ", files.iter().map(|f| f.0.as_str()).collect::<Vec<_>>().join(" + ")) }<button type="button" onclick={clear_trace}>{ "use the synthetic workload" }</button></p>
                } else {
                    <fieldset class="sim-generator">
                        <legend>{ "Synthetic workload" }</legend>
                        <label><input type="radio" name="generator" checked={*generator == Generator::Gavel}
                               onchange={pick_generator(Generator::Gavel)} data-testid="sim-generator-gavel" />{ "Gavel's" }</label>
                        <label><input type="radio" name="generator" checked={*generator == Generator::Synergy}
                               onchange={pick_generator(Generator::Synergy)} data-testid="sim-generator-synergy" />{ "Synergy's (model profiles)" }</label>
                    </fieldset>
                    <div class="sim-synthetic">
                        { number_input("jobs", "sim-jobs", &jobs) }
                        { number_input("jobs per hour", "sim-rate", &rate) }
                        { number_input("seed", "sim-seed", &seed) }
                        if *generator == Generator::Gavel {
                            { number_input("tenants", "sim-tenants", &tenants) }
                            <label title="uniform: every tenant the same random mix of models; skewed: each tenant draws 80% of its jobs from its own model family">{ "tenant mix " }
                                <select onchange={on_tenant_mix} data-testid="sim-tenant-mix" aria-label="tenant mix">
                                    <option value="uniform" selected={*tenant_mix == TenantMix::Uniform}>{ "uniform" }</option>
                                    <option value="skewed" selected={*tenant_mix == TenantMix::Skewed}>{ "skewed" }</option>
                                </select>
                            </label>
                        } else {
                            { text_input("split image, language, speech %", "sim-split", &split) }
                            <label><input type="checkbox" checked={*multi_gpu} onchange={on_multi_gpu} data-testid="sim-multi-gpu" />{ "multi-GPU jobs" }</label>
                        }
                    </div>
                }
                { text_input("steady-state job ids (A..B)", "sim-measure", &measure) }
                <label class="file-button">{ "Upload a trace (Gavel, CSV, Helios, Philly, or PAI's two tables)" }
                    <input type="file" multiple=true accept=".trace,.csv,.tsv,.json,text/plain" onchange={on_trace} data-testid="sim-trace" />
                </label>
                if let Some((name, _)) = &*measured {
                    <p data-testid="sim-throughputs-name">{ format!("Throughputs: {name} ") }<button type="button" onclick={clear_measured}>{ "use the built-in table" }</button></p>
                } else {
                    <label class="file-button" title="Gavel's simulation_throughputs.json: measured rates for every model and GPU count, and the co-located pairs gavel-las-packed shares GPUs by (default: six models' single-GPU figures)">{ "Measured throughputs (Gavel's simulation_throughputs.json)" }
                        <input type="file" accept=".json,application/json" onchange={on_measured} data-testid="sim-throughputs" />
                    </label>
                }
                { number_input("round (s)", "sim-round", &round) }
                <label title="Who an allocation policy shares the cluster among: each job (Gavel's formulation), or each tenant (OEF's: a tenant's GPUs then go to its jobs by what each does best)">{ "share among " }
                    <select onchange={on_share_among} data-testid="sim-share-among" aria-label="share among">
                        { for ["jobs", "tenants"].iter().map(|o| html! { <option value={*o} selected={*share_among == *o}>{ *o }</option> }) }
                    </select>
                </label>
                <fieldset class="sim-policies">
                    <legend>{ "Policies" }</legend>
                    { for POLICIES.iter().map(|(name, _)| {
                        let chosen = chosen.clone();
                        let name = name.to_string();
                        let checked = chosen.contains(&name);
                        let toggle = {
                            let name = name.clone();
                            Callback::from(move |_: Event| {
                                let mut next = (*chosen).clone();
                                if let Some(k) = next.iter().position(|n| *n == name) { next.remove(k); } else { next.push(name.clone()); }
                                chosen.set(next);
                            })
                        };
                        html! { <label><input type="checkbox" {checked} onchange={toggle} data-testid={format!("sim-policy-{name}")} />{ name }</label> }
                    }) }
                    <label>{ "Synergy ordering " }
                        <select onchange={on_order} data-testid="sim-synergy-order" aria-label="Synergy ordering">
                            { for SYNERGY_ORDERS.iter().map(|o| html! { <option value={*o} selected={*order == *o}>{ *o }</option> }) }
                        </select>
                    </label>
                    <label title="How fast a job on several GPU types runs (hadar, hadare): at its slowest worker's pace, or with batches rebalanced by speed (the sum of its GPUs' rates)">{ "mixed-type rate " }
                        <select onchange={on_mixed_rate} data-testid="sim-mixed-rate" aria-label="mixed-type rate">
                            { for ["slowest", "sum"].iter().map(|o| html! { <option value={*o} selected={*mixed_rate == *o}>{ *o }</option> }) }
                        </select>
                    </label>
                    { number_input("HadarE sync overhead (s per round)", "sim-sync-overhead", &sync_overhead) }
                </fieldset>
                <div class="sim-actions">
                    <button type="button" onclick={on_run} disabled={running} data-testid="sim-run">{ "Run" }</button>
                    <button type="button" onclick={on_cancel} disabled={!running} data-testid="sim-cancel">{ "Cancel" }</button>
                </div>
                if let Some(why) = &*form_error {
                    <p class="errors" role="alert" data-testid="sim-error">{ why }</p>
                }
                <p class="hint">{ "Throughputs: the six cited Gavel models; multi-GPU rates assume perfect scaling (use the CLI with Gavel's file for measured ones). Synergy's jobs use its ten model profiles (built-in cited copy); a CSV job_type naming one of them (alexnet, res18, ..., gnmt, m5) gets its CPU and memory sensitivity. GPU sharing (sjf-bsbf, sjf-ffs) has no measured pair slowdowns here: every pair is taken at 2x (time slicing); the CLI reads Gavel's measured pairs. Hadar may run a job on several GPU types at once, at the mixed-type rate chosen; HadarE forks a job into copies on spare servers (dashed in the Gantt chart; mixed placements outlined)." }</p>
            </div>
            { run_view(&run.state) }
        </section>
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

fn results_view(results: &[Result<SimResult, String>], cluster: &Cluster) -> Html {
    let ok: Vec<&SimResult> = results.iter().flatten().collect();
    let failures: Vec<&String> = results.iter().filter_map(|r| r.as_ref().err()).collect();
    // Each policy's own notes, and the trace reader's report once (every result carries it).
    let mut notes: Vec<String> = Vec::new();
    for r in &ok {
        if r.jobs_unfinished > 0 {
            notes.push(format!(
                "{}: stopped once the measured jobs finished; {} other jobs were still running or \
                 waiting (not in the all-jobs figures)",
                r.policy, r.jobs_unfinished
            ));
        }
        for n in &r.notes {
            if !notes.contains(n) {
                notes.push(n.clone());
            }
        }
        if !r.parties.is_empty() && r.parties != "jobs" {
            notes.push(format!("{}: shared among {}", r.policy, r.parties));
        }
        if let Some(f) = &r.tenant_fairness {
            let sum = |v: &[usize]| v.iter().sum::<usize>();
            let gain = f.mean_split_gain.iter().copied().fold(0.0, f64::max);
            notes.push(format!(
                "{}: on what tenants received, SI held at {} of {} judged (tenant, recomputation) \
                 pairs and EF at {}; by the utility the policy solved with, SI {} and EF {} of {}; \
                 the split gained tenants up to {:.1}%",
                r.policy,
                sum(&f.si_held),
                sum(&f.judged),
                sum(&f.ef_held),
                sum(&f.linear_si_held),
                sum(&f.linear_ef_held),
                sum(&f.recomputations),
                100.0 * (gain - 1.0)
            ));
        }
    }
    let cdfs: Vec<(String, Vec<(f64, f64)>)> = ok
        .iter()
        .map(|r| {
            let jcts: Vec<f64> = r
                .jobs
                .iter()
                .filter_map(|j| j.jct_s.map(|s| s / 3600.0))
                .collect();
            (r.policy.clone(), downsample(&cdf(&jcts), 600))
        })
        .collect();
    let gpus: Vec<f64> = (0..cluster.types.len())
        .map(|j| f64::from(cluster.gpus_of_type(j)))
        .collect();
    let total: f64 = gpus.iter().sum();
    let utilisation: Vec<(String, Vec<(f64, f64)>)> = ok
        .iter()
        .map(|r| {
            let points: Vec<(f64, f64)> = r
                .utilization_over_time
                .iter()
                .map(|s| {
                    (
                        (s.t0 + s.t1) / 7200.0,
                        s.busy.iter().zip(&gpus).map(|(b, n)| b * n).sum::<f64>() / total.max(1.0),
                    )
                })
                .collect();
            (r.policy.clone(), downsample(&points, 300))
        })
        .collect();
    let cpu_mem: Vec<(String, Vec<(f64, f64)>)> = ok
        .iter()
        .flat_map(|r| {
            let pick = |k: usize| -> Vec<(f64, f64)> {
                let points: Vec<(f64, f64)> = r
                    .cpu_mem_over_time
                    .iter()
                    .map(|s| {
                        (
                            (s.t0 + s.t1) / 7200.0,
                            s.busy.get(k).copied().unwrap_or(0.0),
                        )
                    })
                    .collect();
                downsample(&points, 300)
            };
            [
                (format!("{} CPU", r.policy), pick(0)),
                (format!("{} memory", r.policy), pick(1)),
            ]
        })
        .collect();
    let measured = ok.iter().find_map(|r| r.measured.as_ref());
    let gantt = ok.iter().find(|r| !r.gantt.is_empty());
    let server_types: Vec<String> = cluster
        .servers
        .iter()
        .map(|s| cluster.types[s.gpu_type].clone())
        .collect();
    let hours = |s: f64| format!("{:.2}", s / 3600.0);
    html! {
        <div class="sim-results" data-testid="sim-results">
            if !failures.is_empty() {
                <ul class="errors" role="alert">{ for failures.iter().map(|f| html! { <li>{ f.as_str() }</li> }) }</ul>
            }
            <table class="compare-table" data-testid="sim-table">
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
                        <td>{ &r.policy }</td><td class="done">{ r.jobs_completed }</td>
                        <td class="unschedulable">{ r.jobs_unschedulable.len() }</td><td class="avg-jct" data-seconds={r.avg_jct_s.to_string()}>{ hours(r.avg_jct_s) }</td>
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
            if !notes.is_empty() {
                <ul class="notice sim-notes" data-testid="sim-notes">
                    { for notes.iter().map(|n| html! { <li>{ n.as_str() }</li> }) }
                </ul>
            }
            <ChartFrame title="Job completion time, CDF" file="jct-cdf" export=true>
                <LineChart series={cdfs} x_label="JCT (hours)" y_label="share of jobs" testid="jct-cdf" />
            </ChartFrame>
            <ChartFrame title="GPU utilisation over time (all types)" file="utilisation" export=true>
                <LineChart series={utilisation} x_label="time (hours)" y_label="busy share of GPUs" testid="utilisation" />
            </ChartFrame>
            <ChartFrame title="CPU and memory booked over time" file="cpu-memory" export=true>
                <LineChart series={cpu_mem} x_label="time (hours)" y_label="share of the cluster's CPUs / memory" testid="cpu-memory" />
            </ChartFrame>
            if let Some(r) = gantt {
                <ChartFrame title={format!("GPUs over time under {}", r.policy)} file="gantt" export=true>
                    <Gantt bars={r.gantt.clone()} {server_types} />
                </ChartFrame>
            }
        </div>
    }
}
