//! The full engine's part of the JavaScript API: `compare` (every policy, the market mechanisms
//! among them) and `simulate`. The light engine (`fairground-lite`) has the rest (`api.rs`);
//! `fairground.js` (www/) loads this engine the first time one of these is called.

use crate::api::{failure, located, object, options, probe, scenario, throw, to_js, STOP_NOTE};
use fairground_core::report::{self, PolicyReport};
use fairground_core::{deadline, policies};
use fairground_sim::metrics::SimResult;
use fairground_web::sim_worker::{self, SimRequest, Workload};
use fairground_web::worker::with_remembered_rows;
use serde::Serialize;
use wasm_bindgen::prelude::*;

/// About a second of simulation on a laptop (BENCHMARKS.md: 10,000 jobs take 1.9-3.4 s in a
/// worker); larger runs belong to the CLI or the playground's worker.
pub const MAX_SIM_JOBS: usize = 2_000;
/// Largest trace text accepted, as the playground's upload.
const MAX_TRACE_BYTES: usize = 1024 * 1024;

/// One entry of `compare` or `simulate`: a policy's result, or why it failed.
#[derive(Serialize)]
#[serde(untagged)]
enum Entry<T> {
    Done(Box<T>),
    Failed { policy: String, error: String },
}

impl<T> Entry<T> {
    fn of(policy: &str, result: Result<T, String>) -> Self {
        match result {
            Ok(r) => Entry::Done(Box::new(r)),
            Err(error) => Entry::Failed {
                policy: policy.to_string(),
                error,
            },
        }
    }
}

/// `compare(scenario, { probe, seconds }?)`: every policy's report in the CLI's order
/// (`fairground compare --json`); a policy that fails is `{ policy, error }` in its place, as is
/// each policy not finished within the call's time limit (the reports done by then are kept).
#[wasm_bindgen]
pub fn compare(scenario: JsValue, options: JsValue) -> Result<JsValue, JsError> {
    let (scenario, inst) = self::scenario(&scenario)?;
    let opts = self::options(&options)?;
    let sp = probe(&opts, &scenario)?;
    let seconds = opts.seconds()?;
    let entries: Vec<Entry<PolicyReport>> = deadline::within(seconds, || {
        with_remembered_rows(|| {
            policies::all()
                .into_iter()
                .map(|p| {
                    let report =
                        report::run(&scenario, &inst, p, sp.as_ref()).map_err(|e| failure(&e));
                    Entry::of(p.name(), report)
                })
                .collect()
        })
    });
    to_js(&entries)
}

/// `simulate(request, { seconds }?)`: runs the simulator as the playground's Simulation tab does, e.g.
/// `{ cluster: "v100=4,k80=4", workload: { Synthetic: { jobs: 200, jobs_per_hour: 20, seed: 0,
/// tenants: 4 } }, policies: ["fifo", "las"] }` (optional: `round_s` 360, `server_shape`
/// "8,24,500", `measure_ids`, `gpu_memory`, `mixed_rate`, `sync_overhead_s`; a trace is
/// `{ Trace: { name, text } }`). One result per policy, or `{ policy, error }` in its place, as for
/// each policy not finished within the time limit.
#[wasm_bindgen]
pub fn simulate(request: JsValue, options: JsValue) -> Result<JsValue, JsError> {
    let opts = self::options(&options)?;
    if opts.policy.is_some() || opts.probe {
        return Err(throw(
            "simulate's only option is seconds (its policies are the request's `policies`)",
        ));
    }
    let seconds = opts.seconds()?;
    let de = serde_wasm_bindgen::Deserializer::from(object(&request, "the request")?.clone());
    let req: SimRequest =
        serde_path_to_error::deserialize(de).map_err(|err| located("request", err))?;
    let jobs = match &req.workload {
        Workload::Synthetic(cfg) => cfg.jobs,
        Workload::Synergy(cfg) => cfg.jobs,
        Workload::Trace { text, second, .. } => {
            let bytes = text.len() + second.as_ref().map_or(0, |(_, t)| t.len());
            if bytes > MAX_TRACE_BYTES {
                return Err(throw(format!(
                    "the trace is {} KB, over this module's {} KB: run `fairground simulate \
                     --trace FILE` (with --from/--until/--sample to cut it)",
                    bytes / 1024,
                    MAX_TRACE_BYTES / 1024
                )));
            }
            0 // counted once read, below
        }
    };
    if jobs > MAX_SIM_JOBS {
        return Err(throw(format!(
            "{jobs} jobs is past this module's {MAX_SIM_JOBS} (it runs on the page's thread): \
             use the playground's Simulation tab or `fairground simulate`"
        )));
    }
    let results = deadline::within(seconds, || {
        sim_worker::run_to_end(&req, MAX_SIM_JOBS, STOP_NOTE)
    })
    .map_err(throw)?;
    let entries: Vec<Entry<SimResult>> = req
        .policies
        .iter()
        .zip(results)
        .map(|(name, r)| Entry::of(name, r))
        .collect();
    to_js(&entries)
}
