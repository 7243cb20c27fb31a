//! The JavaScript API a documentation page can call (wasm-bindgen exports; Trunk exposes them
//! as `window.wasmBindings` once the app has loaded):
//!
//! ```js
//! const json = window.wasmBindings.solve(JSON.stringify(scenario), "oef-coop");
//! const report = JSON.parse(json);   // the object `fairground solve --json` prints
//! ```
//!
//! Errors (bad JSON, an invalid scenario, an unknown policy) are thrown as `Error` with the
//! located message.

use crate::worker::{solve_request, SolveRequest};
use fairground_core::policies;
use wasm_bindgen::prelude::*;

/// Solves `scenario_json` with `policy` and returns the CLI's `--json` object as text. The
/// strategy-proofness probe is not run (call `solve_with_probe` for it).
#[wasm_bindgen]
pub fn solve(scenario_json: &str, policy: &str) -> Result<String, JsError> {
    run(scenario_json, policy, false)
}

/// As `solve`, with the strategy-proofness probe (slower: many re-solves).
#[wasm_bindgen]
pub fn solve_with_probe(scenario_json: &str, policy: &str) -> Result<String, JsError> {
    run(scenario_json, policy, true)
}

/// The policy names, as a JSON array.
#[wasm_bindgen]
pub fn policy_names() -> String {
    let names: Vec<&str> = policies::all().iter().map(|p| p.name()).collect();
    serde_json::to_string(&names).unwrap_or_default()
}

fn run(scenario_json: &str, policy: &str, sp_probe: bool) -> Result<String, JsError> {
    let scenario = crate::codec::parse_json(scenario_json).map_err(|e| JsError::new(&e))?;
    let req = SolveRequest::new(&scenario, vec![policy.to_string()], sp_probe, None);
    let mut response = solve_request(&req).map_err(|e| JsError::new(&e))?;
    let report = response
        .reports
        .pop()
        .ok_or_else(|| JsError::new("no report"))?
        .map_err(|e| JsError::new(&e))?;
    serde_json::to_string(&report).map_err(|e| JsError::new(&e.to_string()))
}
