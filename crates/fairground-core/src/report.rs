//! One policy's full result on one scenario, as the CLI prints it with `--json` (and as the
//! playground's JavaScript API will return it).

use crate::metrics::Metrics;
use crate::policies::Market;
use crate::properties::{self, EfCheck, PeCheck, SiCheck, SpProbe, SpProbeConfig};
use crate::{Allocation, Instance, Policy, PolicyError, Scenario};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PolicyReport {
    pub policy: String,
    /// The policy's own objective, as it defines it.
    pub objective: f64,
    /// sum_i u_i.
    pub efficiency: f64,
    pub gpu_types: Vec<String>,
    pub tenants: Vec<String>,
    /// allocation[i][j]: GPUs of type j tenant i holds on average.
    pub allocation: Allocation,
    pub utility: Vec<f64>,
    pub metrics: Metrics,
    pub properties: Properties,
    /// GPU prices (nash-welfare) and kept fractions (partial-allocation); absent for the others.
    // Always written (null when absent): the playground's worker codec (bincode) cannot skip fields.
    #[serde(default)]
    pub market: Option<Market>,
    /// shared[p][j]: GPUs of type j the scenario's co_located pair p holds together
    /// (gavel-las-packed); empty when nobody shares. `utility` and `metrics` count them.
    #[serde(default)]
    pub shared: Vec<Vec<f64>>,
    /// shared_by[p]: the two tenants (indices into `tenants`) of pair p, beside `shared`.
    #[serde(default)]
    pub shared_by: Vec<(usize, usize)>,
    /// gandiva-fair: the trades from the starting shares to `allocation`, in order; empty for
    /// the others.
    #[serde(default)]
    pub trades: Vec<crate::policies::Trade>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Properties {
    pub sharing_incentive: SiCheck,
    pub envy_freeness: EfCheck,
    pub pareto_efficiency: PeCheck,
    /// None when the probe was not asked for.
    pub strategy_proofness_probe: Option<SpProbe>,
}

/// Solves `scenario` (already validated into `inst`) with `policy` and checks every property;
/// `sp` runs the strategy-proofness probe too (it re-solves the policy many times).
pub fn run(
    scenario: &Scenario,
    inst: &Instance,
    policy: &dyn Policy,
    sp: Option<&SpProbeConfig>,
) -> Result<PolicyReport, PolicyError> {
    // Under a time limit (crate::deadline), a run that starts after it does not start at all.
    crate::deadline::check()?;
    let solution = policy.solve(inst)?;
    let metrics = Metrics::of_solution(inst, &solution);
    let checks = properties::check_solution(inst, &solution, &metrics);
    let probe = sp
        .map(|config| properties::sp_probe(scenario, policy, config))
        .transpose()?;
    Ok(PolicyReport {
        policy: policy.name().to_string(),
        objective: solution.objective,
        efficiency: metrics.efficiency,
        gpu_types: inst.type_names.clone(),
        tenants: inst.tenant_names.clone(),
        utility: metrics.utility.clone(),
        allocation: solution.allocation,
        market: solution.market,
        shared_by: if solution.shared.is_empty() {
            Vec::new()
        } else {
            inst.co_located.iter().map(|p| (p.a, p.b)).collect()
        },
        shared: solution.shared,
        trades: solution.trades,
        metrics,
        properties: Properties {
            sharing_incentive: checks.sharing_incentive,
            envy_freeness: checks.envy_freeness,
            pareto_efficiency: checks.pareto_efficiency,
            strategy_proofness_probe: probe,
        },
    })
}
