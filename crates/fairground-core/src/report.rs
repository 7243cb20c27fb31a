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

/// For an envy-free allocation that is not Pareto efficient: how much efficiency an allocation
/// adds that leaves nobody worse off and is envy-free too
/// ([`crate::policies::most_efficient_envy_free_above`]). Not asked with co-located pairs (the
/// program has no shared GPUs); a re-solve the solver cannot finish leaves it unknown.
fn gain_keeping_envy_freeness(
    inst: &Instance,
    checks: &properties::PropertyReport,
    metrics: &Metrics,
) -> Result<Option<f64>, PolicyError> {
    let pe = &checks.pareto_efficiency;
    if pe.holds != Some(false)
        || checks.envy_freeness.holds != Some(true)
        || !inst.co_located.is_empty()
    {
        return Ok(None);
    }
    match crate::policies::most_efficient_envy_free_above(inst, &metrics.utility) {
        Ok(h) => {
            let gain = h.utilities(inst).iter().sum::<f64>() - metrics.efficiency;
            // Within the Pareto test's own tolerance, no gain.
            let tolerance = crate::fairness::TOLERANCE * metrics.efficiency.abs();
            Ok(Some(if gain > tolerance { gain } else { 0.0 }))
        }
        // Out of time is the caller's to report; a solver failure only leaves this unknown.
        Err(PolicyError::OutOfTime(t)) => Err(PolicyError::OutOfTime(t)),
        Err(_) => Ok(None),
    }
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
    let mut checks = properties::check_solution(inst, &solution, &metrics);
    checks.pareto_efficiency.gain_keeping_ef = gain_keeping_envy_freeness(inst, &checks, &metrics)?;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policies;
    use crate::presets;

    fn report(scenario: &Scenario, policy: &str) -> PolicyReport {
        let inst = scenario.instance().unwrap();
        run(scenario, &inst, policies::by_name(policy).unwrap(), None).unwrap()
    }

    /// The textbook 2 x 2 (slow, fast; vision 1/2, rl 1/1), by hand: the equal split gives
    /// vision 1.5 and rl 1 (efficiency 2.5) and is envy-free (the bundles are the same). Fast to
    /// vision, slow to rl gives 2 and 1: nobody worse off, +0.5, and still envy-free (vision
    /// values its fast GPU 2 against 1, rl both bundles 1). So the improvement keeps EF.
    #[test]
    fn an_envy_free_improvement_of_the_equal_split_is_found() {
        let r = report(&presets::textbook_two_by_two().scenario, "equal-share");
        let pe = &r.properties.pareto_efficiency;
        assert_eq!(r.properties.envy_freeness.holds, Some(true));
        assert_eq!(pe.holds, Some(false));
        assert!((pe.gain - 0.5).abs() < 1e-6, "{}", pe.gain);
        let keeping = pe.gain_keeping_ef.expect("asked: EF holds, PE fails");
        assert!((keeping - 0.5).abs() < 1e-6, "{keeping}");
    }

    /// oef-coop is the most efficient allocation with SI and EF; an envy-free allocation leaving
    /// nobody below oef-coop's utilities meets SI too, so it cannot be more efficient (the
    /// paper's definition, not the code): on Gavel's measured models its PE gap is all the
    /// price of envy-freeness.
    #[test]
    fn oef_coops_pareto_gap_is_the_price_of_envy_freeness() {
        let r = report(&presets::default_scenario(), "oef-coop");
        let pe = &r.properties.pareto_efficiency;
        assert_eq!(pe.holds, Some(false), "the landing scenario's PE gap");
        assert!(pe.gain > 1e-4 * r.efficiency, "{}", pe.gain);
        assert_eq!(pe.gain_keeping_ef, Some(0.0));
        // Not asked where PE holds or EF fails.
        let las = report(&presets::default_scenario(), "gavel-max-sum");
        assert_eq!(las.properties.pareto_efficiency.holds, Some(true));
        assert_eq!(las.properties.pareto_efficiency.gain_keeping_ef, None);
    }
}
