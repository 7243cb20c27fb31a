//! `fairground.simulate`: a workload replayed under policies, read through the CLI's own flags
//! (`fairground_cli::sweep::parse_simulate`, `fairground_cli::simulate::prepare`), so a Python
//! run is the command-line run; and schedulers written in Python, run by the engine.
//!
//! A Python scheduler is any object with `place(view) -> placements`. Each round the engine
//! passes the view (a dict, see [`view_dict`]) and reads back a list of
//! `{"job": J, "type": NAME, "gpus": N}`: the engine packs N GPUs of that type onto servers as
//! its own schedulers do (`GpuPool::take`), and then checks the round exactly as it checks
//! theirs. A placement it cannot make is an error naming the round and the placement.

use fairground_cli::simulate::{prepare, Prepared};
use fairground_cli::sweep::{parse_simulate, SweepArgs};
use fairground_sim::engine::Simulation;
use fairground_sim::metrics::SimResult;
use fairground_sim::pool::GpuPool;
use fairground_sim::schedulers::{self, Placement, RoundView, Scheduler};
use fairground_sim::SimError;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

/// Rounds run between two looks for Ctrl+C (the GIL is released while they run).
const ROUNDS_PER_CHECK: usize = 50;

/// A scheduler written in Python: `place(view)` each round. The first Python exception it
/// raises is kept, to be raised again as itself once the run stops.
struct PythonScheduler {
    object: Py<PyAny>,
    name: String,
    raised: Option<PyErr>,
}

/// The round as Python sees it: `time` and `round_s` (seconds), `types` (GPU type names),
/// `free` (GPUs of each type, all free as a round starts), `servers` (`type` and `gpus` of
/// each), and `active`: the jobs that have arrived and not finished, in arrival order, each with
/// `job` (what a placement names), `id`, `model`, `tenant`, `gpus` (how many it runs on),
/// `arrival`, `total_steps`, `remaining_steps`, `attained_gpu_s`, `rate` (steps/s on each type)
/// and `fits` (whether its memory fits each type alone).
fn view_dict<'py>(py: Python<'py>, view: &RoundView) -> PyResult<Bound<'py, PyDict>> {
    let cluster = view.cluster;
    let d = PyDict::new(py);
    d.set_item("time", view.now)?;
    d.set_item("round_s", view.round_s)?;
    d.set_item("types", &cluster.types)?;
    let free: Vec<u32> = (0..cluster.types.len())
        .map(|j| cluster.gpus_of_type(j))
        .collect();
    d.set_item("free", free)?;
    let servers = PyList::empty(py);
    for s in &cluster.servers {
        let server = PyDict::new(py);
        server.set_item("type", &cluster.types[s.gpu_type])?;
        server.set_item("gpus", s.gpus)?;
        servers.append(server)?;
    }
    d.set_item("servers", servers)?;
    let active = PyList::empty(py);
    for state in view.active {
        let job = &view.jobs[state.job];
        let a = PyDict::new(py);
        a.set_item("job", state.job)?;
        a.set_item("id", job.id)?;
        a.set_item("model", &job.job_type)?;
        a.set_item("tenant", &job.tenant)?;
        a.set_item("gpus", job.scale_factor)?;
        a.set_item("arrival", job.arrival)?;
        a.set_item("total_steps", job.total_steps)?;
        a.set_item("remaining_steps", state.remaining_steps)?;
        a.set_item("attained_gpu_s", state.attained_gpu_s)?;
        a.set_item("rate", &job.rate)?;
        let fits: Vec<bool> = (0..cluster.types.len())
            .map(|j| job.fits_alone(cluster, j))
            .collect();
        a.set_item("fits", fits)?;
        active.append(a)?;
    }
    d.set_item("active", active)?;
    Ok(d)
}

/// What `place` returned, packed onto servers; a located error for anything the engine cannot
/// place.
fn placements(view: &RoundView, returned: &Bound<'_, PyAny>) -> Result<Vec<Placement>, String> {
    let at = format!("the round at {} s", view.now);
    let list = returned
        .try_iter()
        .map_err(|_| format!("{at}: place() returned no list of placements"))?;
    let mut pool = GpuPool::new(view.cluster);
    let mut out = Vec::new();
    for (k, item) in list.enumerate() {
        let here = format!("{at}, placement {k}");
        let item = item.map_err(|e| format!("{here}: {e}"))?;
        let field = |name: &str| {
            item.get_item(name)
                .map_err(|_| format!("{here}: no \"{name}\" (give job, type and gpus)"))
        };
        let job: usize = field("job")?
            .extract()
            .map_err(|_| format!("{here}: \"job\" is not a job number"))?;
        let type_name: String = field("type")?
            .extract()
            .map_err(|_| format!("{here}: \"type\" is not a GPU type's name"))?;
        let gpus: u32 = field("gpus")?
            .extract()
            .map_err(|_| format!("{here}: \"gpus\" is not a whole number of GPUs"))?;
        if !view.active.iter().any(|s| s.job == job) {
            return Err(format!("{here}: job {job} is not active in this round"));
        }
        let j = view
            .cluster
            .types
            .iter()
            .position(|t| *t == type_name)
            .ok_or_else(|| {
                format!(
                    "{here}: no GPU type '{type_name}' (types: {})",
                    view.cluster.types.join(", ")
                )
            })?;
        let pieces = pool.take(j, gpus).ok_or_else(|| {
            format!(
                "{here}: job {job} asks {gpus} GPU(s) of {type_name}, and {} are free",
                pool.free_on_type(j)
            )
        })?;
        out.push(Placement::exclusive(job, pieces));
    }
    Ok(out)
}

impl Scheduler for PythonScheduler {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn schedule(&mut self, view: &RoundView) -> Result<Vec<Placement>, SimError> {
        Python::attach(|py| {
            let returned =
                view_dict(py, view).and_then(|v| self.object.bind(py).call_method1("place", (v,)));
            match returned {
                Ok(r) => placements(view, &r).map_err(SimError::InvalidSchedule),
                Err(e) => {
                    let message = format!("{}.place raised {e}", self.name);
                    self.raised.get_or_insert(e);
                    Err(SimError::InvalidSchedule(message))
                }
            }
        })
    }
}

/// One policy's run, the GIL released between looks for Ctrl+C.
fn run(
    py: Python<'_>,
    prepared: &Prepared,
    scheduler: &mut (dyn Scheduler + Send),
) -> PyResult<Result<SimResult, SimError>> {
    let Prepared {
        cluster,
        jobs,
        config,
        ..
    } = prepared;
    let mut sim = match Simulation::new(cluster, jobs, config, scheduler) {
        Ok(sim) => sim,
        Err(e) => return Ok(Err(e)),
    };
    loop {
        py.check_signals()?;
        match py.detach(|| sim.step(scheduler, ROUNDS_PER_CHECK)) {
            Ok(true) => return Ok(Ok(sim.finish(scheduler))),
            Ok(false) => {}
            Err(e) => return Ok(Err(e)),
        }
    }
}

/// `--flag value` pairs from keyword options: `tenant_mix="skewed"` is `--tenant-mix skewed`,
/// True a switch alone, False or None left out, a list repeats the flag.
fn flags(options: Option<&Bound<'_, PyDict>>) -> PyResult<Vec<String>> {
    let mut args = Vec::new();
    for (key, value) in options.into_iter().flat_map(|o| o.iter()) {
        let flag = format!("--{}", key.extract::<String>()?.replace('_', "-"));
        if value.is_none() || value.extract::<bool>().ok() == Some(false) {
            continue;
        }
        if value.extract::<bool>().ok() == Some(true) {
            args.push(flag);
        } else if value.is_instance_of::<PyList>() {
            for v in value.try_iter()? {
                args.extend([flag.clone(), v?.str()?.to_string()]);
            }
        } else {
            args.extend([flag, value.str()?.to_string()]);
        }
    }
    Ok(args)
}

/// The workload's flags: a number of synthetic jobs (Gavel's generator), or a trace's path.
fn workload_flags(workload: &Bound<'_, PyAny>) -> PyResult<Vec<String>> {
    if let Ok(n) = workload.extract::<usize>() {
        return Ok(vec!["--synthetic".into(), n.to_string()]);
    }
    let path = workload.extract::<std::path::PathBuf>().map_err(|_| {
        PyValueError::new_err("workload: give a number of synthetic jobs or a trace's path")
    })?;
    Ok(vec!["--trace".into(), path.to_string_lossy().into_owned()])
}

/// Replays `workload` on `cluster` under each of `policies` (and `scheduler`, a Python object
/// with `place(view)`, when given). Options are `fairground simulate`'s flags as keywords
/// (`throughputs="todays-gpus"`, `tenant_mix="skewed"`, ...). Returns `{"policies": {name:
/// summary}, "jobs": outcomes}`: each summary is the CLI's `--json` result without its per-job
/// list, and the outcomes (one row per job and policy, with a `policy` column) are a pandas
/// DataFrame when pandas is installed, a list of dicts otherwise.
#[pyfunction]
#[pyo3(signature = (workload, cluster, policies = Vec::new(), scheduler = None, **options))]
pub fn simulate<'py>(
    py: Python<'py>,
    workload: &Bound<'py, PyAny>,
    cluster: &str,
    policies: Vec<String>,
    scheduler: Option<Py<PyAny>>,
    options: Option<&Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyAny>> {
    if policies.is_empty() && scheduler.is_none() {
        return Err(PyValueError::new_err(
            "give policies (e.g. [\"fifo\", \"oef-coop\"]) or a scheduler",
        ));
    }
    let mut args = workload_flags(workload)?;
    args.extend(["--cluster".into(), cluster.to_string()]);
    for p in &policies {
        args.extend(["--policy".into(), p.clone()]);
    }
    args.extend(flags(options)?);
    let parsed = parse_simulate(args).map_err(PyValueError::new_err)?;
    let prepared = py
        .detach(|| prepare(&parsed))
        .map_err(PyValueError::new_err)?;

    let mut results = Vec::new();
    for name in &policies {
        let mut s = schedulers::by_name(name, &prepared.config)
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        let result = run(py, &prepared, s.as_mut())?;
        results.push(result.map_err(|e| PyValueError::new_err(format!("{name}: {e}")))?);
    }
    if let Some(object) = scheduler {
        let name = object
            .bind(py)
            .getattr("name")
            .and_then(|n| n.extract::<String>())
            .unwrap_or_else(|_| "python".into());
        let mut s = PythonScheduler {
            object,
            name: name.clone(),
            raised: None,
        };
        let result = run(py, &prepared, &mut s)?;
        if let Some(e) = s.raised.take() {
            return Err(e);
        }
        results.push(result.map_err(|e| PyValueError::new_err(format!("{name}: {e}")))?);
    }
    report(py, results)
}

fn report(py: Python<'_>, mut results: Vec<SimResult>) -> PyResult<Bound<'_, PyAny>> {
    let summaries = PyDict::new(py);
    let mut rows = Vec::new();
    for r in &mut results {
        for job in std::mem::take(&mut r.jobs) {
            let mut row =
                serde_json::to_value(&job).map_err(|e| PyValueError::new_err(e.to_string()))?;
            row["policy"] = r.policy.clone().into();
            rows.push(row);
        }
        let summary = crate::to_python(py, r)?;
        summary.del_item("jobs")?;
        summaries.set_item(&r.policy, summary)?;
    }
    let rows = crate::to_python(py, &rows)?;
    let jobs = match py.import("pandas") {
        Ok(pandas) => pandas.call_method1("DataFrame", (rows,))?,
        Err(_) => rows,
    };
    let out = PyDict::new(py);
    out.set_item("policies", summaries)?;
    out.set_item("jobs", jobs)?;
    Ok(out.into_any())
}

/// Runs a sweep's spec (`fairground sweep SPEC --out OUT`, docs/sweeps.md) and returns its
/// `results.csv`: a DataFrame with pandas, else a list of dicts of text. `shard="I/N"` runs one
/// slice of the grid, `threads` simulations at once. A folder holding this spec's results is
/// resumed, as the CLI does. Runs with the GIL released; Ctrl+C is seen when it ends.
#[pyfunction]
#[pyo3(signature = (spec, out, shard = None, threads = None))]
pub fn sweep<'py>(
    py: Python<'py>,
    spec: std::path::PathBuf,
    out: std::path::PathBuf,
    shard: Option<String>,
    threads: Option<usize>,
) -> PyResult<Bound<'py, PyAny>> {
    use clap::{Args, FromArgMatches};
    let mut args: Vec<std::ffi::OsString> = vec![spec.into(), "--out".into(), out.clone().into()];
    if let Some(shard) = shard {
        args.extend(["--shard".into(), shard.into()]);
    }
    if let Some(n) = threads {
        args.extend(["--threads".into(), n.to_string().into()]);
    }
    let command = SweepArgs::augment_args(clap::Command::new("sweep").no_binary_name(true));
    let parsed = command
        .try_get_matches_from(args)
        .and_then(|m| SweepArgs::from_arg_matches(&m))
        .map_err(|e| {
            PyValueError::new_err(e.to_string().lines().next().unwrap_or("").to_string())
        })?;
    py.detach(|| fairground_cli::sweep::run(parsed))
        .map_err(PyValueError::new_err)?;
    py.check_signals()?;
    let results = out.join("results.csv");
    match py.import("pandas") {
        Ok(pandas) => pandas.call_method1("read_csv", (results,)),
        Err(_) => {
            let text = std::fs::read_to_string(&results)
                .map_err(|e| PyValueError::new_err(format!("{}: {e}", results.display())))?;
            let csv = py.import("csv")?;
            let io = py.import("io")?;
            let reader =
                csv.call_method1("DictReader", (io.call_method1("StringIO", (text,))?,))?;
            py.import("builtins")?.call_method1("list", (reader,))
        }
    }
}
