//! The solve task that runs in the web worker (yew-agent oneshot): every request is validated
//! and solved in full, and the reply carries per-policy reports or a readable failure.

use fairground_core::report::{self, PolicyReport};
use fairground_core::{policies, Scenario, SpProbeConfig};
use serde::{Deserialize, Serialize};
use yew_agent::prelude::*;

/// Crosses to the worker through yew-agent's bincode codec, which cannot skip fields, so the
/// scenario travels as its JSON text (the schema omits absent optional fields).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SolveRequest {
    pub scenario_json: String,
    /// Policy names to run, in order.
    pub policies: Vec<String>,
    /// Run the strategy-proofness probe as well (many re-solves).
    pub sp_probe: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SolveResponse {
    /// One entry per requested policy: its report or why it failed.
    pub reports: Vec<Result<PolicyReport, String>>,
}

/// Validates and solves (pure: the same function runs on the main thread in tests and for the
/// JavaScript API).
pub fn solve_request(req: &SolveRequest) -> Result<SolveResponse, String> {
    let scenario = Scenario::from_json(&req.scenario_json).map_err(|p| p.to_string())?;
    let inst = scenario.instance().map_err(|problems| {
        problems
            .iter()
            .map(|p| p.to_string())
            .collect::<Vec<_>>()
            .join("; ")
    })?;
    let sp = req.sp_probe.then(SpProbeConfig::default);
    let reports = req
        .policies
        .iter()
        .map(|name| {
            let policy =
                policies::by_name(name).ok_or_else(|| format!("unknown policy '{name}'"))?;
            report::run(&scenario, &inst, policy, sp.as_ref()).map_err(|e| format!("{name}: {e}"))
        })
        .collect();
    Ok(SolveResponse { reports })
}

#[oneshot]
pub async fn SolveTask(req: SolveRequest) -> Result<SolveResponse, String> {
    solve_request(&req)
}

impl SolveRequest {
    pub fn new(scenario: &Scenario, policies: Vec<String>, sp_probe: bool) -> Self {
        SolveRequest {
            scenario_json: serde_json::to_string(scenario).unwrap_or_default(),
            policies,
            sp_probe,
        }
    }
}
