//! The JavaScript API documentation pages call, in both engines: `solve` and `policies` (the
//! light engine adds `renderChart`, `fairground-lite/draw.rs`; the full engine `compare` and
//! `simulate`, `api_full.rs`). Plain objects in
//! and out (serde-wasm-bindgen); every error is thrown as an `Error` whose message is the CLI's
//! located one. `www/fairground.js` is the module pages import: it loads the light engine
//! (`fairground-lite`, the LP policies) and the full one when first needed.
//!
//! ```js
//! import init, { solve, compare, simulate, policies, renderChart } from "./fairground.js";
//! // compare and simulate return promises: they load the full engine the first time.
//! await init();
//! const policy = policies()[0].name;               // the catalogue's first: oef-coop
//! const report = solve(scenario, policy);          // what `fairground solve --json` prints
//! renderChart(document.getElementById("chart"), scenario, { policy });
//! ```
//!
//! Everything runs on the caller's thread, so what a page may ask is bounded as the playground's
//! editor is ([`MAX_TENANTS`] x [`MAX_TYPES`], [`MAX_PROBE_TENANTS`] for the probe,
//! 2,000 jobs): past that, a message pointing to the CLI, never a frozen tab. Within
//! those sizes a call can still take seconds (a `compare` at 150 x 12 with jobs, 16 s), so every
//! call but `policies` stops at a time limit ([`DEFAULT_SECONDS`], or `options.seconds`) with a
//! message; `compare` and `simulate` keep the policies done by then.

use fairground_core::report::{self, PolicyReport};
use fairground_core::{deadline, policies, Instance, Scenario, SpProbeConfig};
use fairground_web::state::{
    MAX_INTERACTIVE_PAIRS, MAX_INTERACTIVE_TENANTS, MAX_INTERACTIVE_TYPES,
};
use fairground_web::worker::with_remembered_rows;
// The including binary's policies: every one in the full engine, the LP ones in the light one.
use crate::REGISTRY;
use serde::{Deserialize, Serialize};
use wasm_bindgen::prelude::*;

/// The editor's limits, for the same reason: everything here runs on the page's thread.
pub const MAX_TENANTS: usize = MAX_INTERACTIVE_TENANTS;
pub const MAX_TYPES: usize = MAX_INTERACTIVE_TYPES;
/// The strategy-proofness probe re-solves the policy tens of times per tenant.
pub const MAX_PROBE_TENANTS: usize = 20;
/// How long a call may hold the page's thread unless `options.seconds` says otherwise.
pub const DEFAULT_SECONDS: f64 = 3.0;

/// Options of `solve`, `compare` and `renderChart` (all optional).
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(crate) struct Options {
    /// The policy (`solve`, `renderChart`; default oef-coop).
    pub(crate) policy: Option<String>,
    /// Run the strategy-proofness probe too.
    pub(crate) probe: bool,
    /// The time limit of the call, in seconds (default [`DEFAULT_SECONDS`]).
    pub(crate) seconds: Option<f64>,
}

impl Options {
    /// The call's time limit: `seconds` if given (a positive number), else the default.
    pub(crate) fn seconds(&self) -> Result<f64, JsError> {
        match self.seconds {
            None => Ok(DEFAULT_SECONDS),
            Some(s) if s.is_finite() && s > 0.0 => Ok(s),
            Some(s) => Err(throw(format!(
                "options.seconds: the time limit must be a positive number of seconds (got {s})"
            ))),
        }
    }
}

/// What follows "stopped at the time limit of N s": why, and what to do about it.
pub(crate) const STOP_NOTE: &str =
    ", as this module runs on the page's thread: options.seconds sets a \
                         longer limit; the playground and the CLI have none";

/// Why a policy failed, and for one stopped at the call's time limit, what to do about it.
pub(crate) fn failure(err: &fairground_core::PolicyError) -> String {
    match err {
        fairground_core::PolicyError::OutOfTime(_) => format!("{err}{STOP_NOTE}"),
        _ => err.to_string(),
    }
}

pub(crate) fn throw(message: impl std::fmt::Display) -> JsError {
    JsError::new(&message.to_string())
}

/// `what.path: message`, as the CLI locates a scenario's problems.
pub(crate) fn located(
    what: &str,
    err: serde_path_to_error::Error<serde_wasm_bindgen::Error>,
) -> JsError {
    let path = err.path().to_string();
    // serde-wasm-bindgen's message is a JavaScript Error's text, "Error: ..."; the path says it.
    let message = err.into_inner().to_string();
    let message = message.strip_prefix("Error: ").unwrap_or(&message);
    throw(format!("{what}.{path}: {message}"))
}

/// A problem's message without serde_json's "at line 1 column 57": the text was made here from
/// the caller's object, so a position in it means nothing to them; the path says where.
fn without_position(problem: fairground_core::Problem) -> String {
    let message = match problem.message.rfind(" at line ") {
        Some(at) => &problem.message[..at],
        None => &problem.message,
    };
    format!("{}: {message}", problem.path)
}

pub(crate) fn to_js<T: Serialize>(value: &T) -> Result<JsValue, JsError> {
    value
        .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .map_err(throw)
}

/// A plain object, or the message saying what was received instead.
pub(crate) fn object<'a>(value: &'a JsValue, what: &str) -> Result<&'a JsValue, JsError> {
    if value.is_object() && !js_sys::Array::is_array(value) {
        Ok(value)
    } else {
        let got = if value.is_null() {
            "null".to_string()
        } else if js_sys::Array::is_array(value) {
            "an array".to_string()
        } else {
            value.js_typeof().as_string().unwrap_or_default()
        };
        Err(throw(format!("{what} must be an object (got {got})")))
    }
}

/// Reads a scenario object with the CLI's located messages (its JSON path), then checks it
/// as the CLI does, and refuses one past the interactive limits.
pub(crate) fn scenario(value: &JsValue) -> Result<(Scenario, Instance), JsError> {
    let value = object(value, "the scenario")?;
    // Read as the JSON text it stringifies to, by the reader the workers and the CLI use: the
    // same located messages, unknown fields refused as there, and one scenario reader in the
    // wasm instead of a second for JavaScript objects (12 KB raw).
    let text = js_sys::JSON::stringify(value)
        .ok()
        .and_then(|t| t.as_string())
        .ok_or_else(|| throw("the scenario could not be written as JSON (a cycle?)"))?;
    let scenario = Scenario::from_json(&text).map_err(|p| throw(without_position(p)))?;
    let (tenants, types) = (scenario.tenants.len(), scenario.gpu_types.len());
    if tenants > MAX_TENANTS || types > MAX_TYPES {
        return Err(throw(format!(
            "the scenario has {tenants} tenants x {types} GPU types, past this module's limit \
             of {MAX_TENANTS} x {MAX_TYPES} (it runs on the page's thread): use `fairground \
             solve` for larger ones"
        )));
    }
    if scenario.co_located.len() > MAX_INTERACTIVE_PAIRS {
        return Err(throw(format!(
            "the scenario has {} co-located pairs, past this module's limit of \
             {MAX_INTERACTIVE_PAIRS}: use `fairground solve` for more",
            scenario.co_located.len()
        )));
    }
    let inst = scenario.instance().map_err(|problems| {
        let lines: Vec<String> = problems.iter().map(|p| p.to_string()).collect();
        throw(format!(
            "the scenario has {} problem(s): {}",
            problems.len(),
            lines.join("; ")
        ))
    })?;
    Ok((scenario, inst))
}

pub(crate) fn options(value: &JsValue) -> Result<Options, JsError> {
    if value.is_undefined() || value.is_null() {
        return Ok(Options::default());
    }
    if let Some(policy) = value.as_string() {
        return Ok(Options {
            policy: Some(policy),
            ..Options::default()
        });
    }
    let value = object(value, "the options")?;
    // serde-wasm-bindgen reads only the fields it knows: a misspelt option is found here.
    for key in js_sys::Object::keys(value.unchecked_ref::<js_sys::Object>()).iter() {
        let key = key.as_string().unwrap_or_default();
        if !["policy", "probe", "seconds"].contains(&key.as_str()) {
            return Err(throw(format!(
                "options.{key}: unknown option (the options are policy, probe and seconds)"
            )));
        }
    }
    let de = serde_wasm_bindgen::Deserializer::from(value.clone());
    serde_path_to_error::deserialize(de).map_err(|err| located("options", err))
}

pub(crate) fn probe(opts: &Options, scenario: &Scenario) -> Result<Option<SpProbeConfig>, JsError> {
    if !opts.probe {
        return Ok(None);
    }
    let tenants = scenario.tenants.len();
    if tenants > MAX_PROBE_TENANTS {
        return Err(throw(format!(
            "the strategy-proofness probe runs here up to {MAX_PROBE_TENANTS} tenants (this \
             scenario has {tenants}): use `fairground solve` for it"
        )));
    }
    Ok(Some(SpProbeConfig::default()))
}

pub(crate) fn solve_report(scenario: &JsValue, opts: &JsValue) -> Result<PolicyReport, JsError> {
    let (scenario, inst) = self::scenario(scenario)?;
    let opts = options(opts)?;
    let name = opts
        .policy
        .clone()
        .unwrap_or_else(|| policies::DEFAULT_POLICY.into());
    let policy = REGISTRY.by_name(&name).ok_or_else(|| {
        if policies::info(&name).is_some() {
            // The light engine's only gap: the market mechanisms need the full one.
            return throw(format!(
                "{name} needs the full engine (its conic solver): `await loadFullEngine()` \
                 first; compare and simulate load it themselves"
            ));
        }
        let names: Vec<&str> = policies::CATALOGUE.iter().map(|p| p.name).collect();
        throw(format!(
            "unknown policy '{name}' (policies: {})",
            names.join(", ")
        ))
    })?;
    let sp = probe(&opts, &scenario)?;
    let seconds = opts.seconds()?;
    deadline::within(seconds, || {
        with_remembered_rows(|| report::run(&scenario, &inst, policy, sp.as_ref()))
    })
    .map_err(|e| throw(format!("{name}: {}", failure(&e))))
}

/// `solve(scenario, policy?)` or `solve(scenario, { policy, probe, seconds })`: the object
/// `fairground solve --json` prints (policy default oef-coop; the probe only when asked; an
/// `Error` once the call passes its time limit).
#[wasm_bindgen]
pub fn solve(scenario: JsValue, options: JsValue) -> Result<JsValue, JsError> {
    to_js(&solve_report(&scenario, &options)?)
}

/// `policies()`: `[{ name, family, summary }]`, every allocation policy in the CLI's order.
#[wasm_bindgen]
pub fn policies() -> Result<JsValue, JsError> {
    to_js(&listed(policies::CATALOGUE))
}

/// One entry of `policies()`.
#[derive(Serialize)]
pub(crate) struct Listed {
    name: &'static str,
    family: &'static str,
    summary: &'static str,
}

/// What `policies()` returns for the policies `catalogue` declares.
pub(crate) fn listed(catalogue: &[policies::PolicyInfo]) -> Vec<Listed> {
    catalogue
        .iter()
        .map(|p| Listed {
            name: p.name,
            family: p.family.name(),
            summary: p.summary,
        })
        .collect()
}
