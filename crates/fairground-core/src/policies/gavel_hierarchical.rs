//! gavel-hierarchical: Gavel's hierarchical max-min fairness over the scenario's entities. Over
//! water filling and the entity tree's priority weights.

use super::declared::{
    Family, Grouping, InRounds, PartyRule, Reads, RoundAnswer, Rounds, Walk, Warm,
};
use super::gavel_water_filling::water_filling;
use super::{Guarantees, Policy, PolicyError, PolicyInfo, Solution};
use crate::entities::priority_weights;
use crate::Instance;

/// Gavel's hierarchical max-min fairness: water filling whose priority weights come from the
/// scenario's entity tree and are recomputed every round ([`crate::entities`]):
///
/// ```text
/// p = priority_weights(tree, w, frozen)    the root's weight passed down to rising tenants:
///                                          fairness: by weight; fifo: to the first in line
/// water filling (gavel-water-filling's rounds) with these p
/// ```
///
/// So an entity's weight is shared by its tenants that can still use more; when one is
/// saturated (its cap, or nothing more to gain) its part goes to the others, and under `fifo`
/// to the next tenant in line. Without entities every tenant is at the top level and this is
/// `gavel-water-filling`. The objective reported is the lowest level u_i reached (LAS's
/// normalised throughput times the tenant's size).
pub struct GavelHierarchical;

/// The name and the one-line summary the CLI and the playground show.
pub const INFO: PolicyInfo = PolicyInfo {
    name: "gavel-hierarchical",
    summary: "Gavel: hierarchical max-min fairness over the scenario's entities (fairness or FIFO within each)",
    guarantees: Guarantees::NONE,
    family: Family::Gavel,
    reads: Reads {
        entities: true,
        ..Reads::BASE
    },
    rounds: InRounds::Solved(Rounds {
        parties: PartyRule::Always(Grouping::TenantsThenJobs),
        answer: RoundAnswer::Solve,
        walk: Walk::Fixed,
        warm: Warm::Cold,
    }),
};

impl Policy for GavelHierarchical {
    fn info(&self) -> PolicyInfo {
        INFO
    }

    fn allocate(&self, inst: &Instance) -> Result<Solution, PolicyError> {
        let filled = water_filling(inst, &|frozen| {
            priority_weights(&inst.entities, &inst.weight, frozen)
        })?;
        let objective = filled.levels.iter().copied().fold(f64::INFINITY, f64::min);
        Ok(Solution {
            objective,
            allocation: filled.allocation,
            market: None,
            shared: Vec::new(),
            trades: Vec::new(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Scenario;

    fn solve(json: &str, policy: &dyn Policy) -> Vec<f64> {
        let inst = Scenario::from_json(json).unwrap().instance().unwrap();
        let sol = policy.solve(&inst).unwrap();
        sol.allocation.gpus.iter().map(|row| row[0]).collect()
    }

    /// One type of 12 GPUs; entity A (fairness) holds a1, a2, entity B (fifo) holds b1 (at
    /// most 2 GPUs), b2, b3; A and B weigh the same.
    const TWO_ENTITIES: &str = r#"{
        "gpu_types": [{"name": "v100", "count": 12}],
        "entities": [{"name": "A"}, {"name": "B", "within": "fifo"}],
        "tenants": [
            {"name": "a1", "throughput": [1], "entity": "A"},
            {"name": "a2", "throughput": [1], "entity": "A"},
            {"name": "b1", "throughput": [1], "entity": "B", "max_gpus": 2},
            {"name": "b2", "throughput": [1], "entity": "B"},
            {"name": "b3", "throughput": [1], "entity": "B"}
        ]}"#;

    #[test]
    fn entities_share_by_weight_and_fifo_serves_in_line() {
        // By hand. Round 1: weights a1 1/4, a2 1/4, b1 1/2 (B's first in line); b1 reaches its
        // cap of 2 with a1 = a2 = 1 and is frozen. Round 2: B's half passes to b2; the 8 GPUs
        // left go 1/4, 1/4, 1/2: a1 = a2 = 3, b2 = 4, and the cluster is full. Round 3: b3, last
        // in line, gets B's weight but there is nothing left: 0.
        let got = solve(TWO_ENTITIES, &GavelHierarchical);
        let want = [3.0, 3.0, 2.0, 4.0, 0.0];
        for (g, w) in got.iter().zip(want) {
            assert!((g - w).abs() < 1e-6, "{got:?}");
        }
        // Without the hierarchy (water filling over tenants): b1 at its cap, the rest 2.5 each.
        let flat = solve(TWO_ENTITIES, &super::super::GavelWaterFilling);
        let want = [2.5, 2.5, 2.0, 2.5, 2.5];
        for (g, w) in flat.iter().zip(want) {
            assert!((g - w).abs() < 1e-6, "{flat:?}");
        }
    }

    #[test]
    fn weights_count_at_each_level() {
        // A weighs 3 against B's 1; inside A, a2 weighs 2 against a1's 1: A gets 9 of 12 GPUs,
        // 3 to a1 and 6 to a2; B's 3 to b1 (fairness, alone).
        let json = r#"{
            "gpu_types": [{"name": "v100", "count": 12}],
            "entities": [{"name": "A", "weight": 3}, {"name": "B"}],
            "tenants": [
                {"name": "a1", "throughput": [1], "entity": "A"},
                {"name": "a2", "throughput": [1], "entity": "A", "weight": 2},
                {"name": "b1", "throughput": [1], "entity": "B"}
            ]}"#;
        let got = solve(json, &GavelHierarchical);
        for (g, w) in got.iter().zip([3.0, 6.0, 3.0]) {
            assert!((g - w).abs() < 1e-6, "{got:?}");
        }
    }

    #[test]
    fn without_entities_it_is_water_filling() {
        // Same levels as gavel-water-filling on random scenarios (jobs with caps, 3 types).
        for seed in 0..6 {
            let inst = crate::presets::random_scenario(8, 3, seed, true)
                .instance()
                .unwrap();
            let levels = |policy: &dyn Policy| -> Vec<f64> {
                let sol = policy.solve(&inst).unwrap();
                (0..inst.tenants())
                    .map(|i| {
                        let prop = super::super::proportional_throughput(&inst, i);
                        (0..inst.types())
                            .map(|j| inst.throughput[i][j] * sol.allocation.gpus[i][j])
                            .sum::<f64>()
                            / prop
                    })
                    .collect()
            };
            let (h, w) = (
                levels(&GavelHierarchical),
                levels(&super::super::GavelWaterFilling),
            );
            for (a, b) in h.iter().zip(&w) {
                assert!(
                    (a - b).abs() <= 1e-6 * b.max(1e-9),
                    "seed {seed}: {h:?} vs {w:?}"
                );
            }
        }
    }

    /// Gavel's own policy on a contended instance: 6 jobs (scale factors 1-4) in two entities,
    /// e0 (weight 3, fairness) and e1 (weight 2, fifo), on 1 + 2 + 2 GPUs. Tenants are the jobs
    /// with per-GPU throughput (the job's over its scale factor) and `max_gpus` = scale factor.
    const GAVEL_CASE: &str = r#"{"gpu_types": [{"name": "k80", "count": 1}, {"name": "p100", "count": 2}, {"name": "v100", "count": 2}], "entities": [{"name": "e0", "weight": 3, "within": "fairness"}, {"name": "e1", "weight": 2, "within": "fifo"}], "tenants": [{"name": "j0", "throughput": [0.48351443489540374, 0.5829014146425714, 0.8500204571334278], "weight": 2.0, "max_gpus": 1, "entity": "e0"}, {"name": "j1", "throughput": [0.04894375822997086, 0.49148120003752527, 0.49853900300147197], "weight": 1.0, "max_gpus": 2, "entity": "e1"}, {"name": "j2", "throughput": [0.25386952877685703, 0.35940592914003416, 0.8180181487450805], "weight": 1.0, "max_gpus": 1, "entity": "e0"}, {"name": "j3", "throughput": [0.4200621621781709, 0.45969302477922863, 0.9428544472679827], "weight": 1.0, "max_gpus": 1, "entity": "e1"}, {"name": "j4", "throughput": [0.15134991645026727, 0.23778801074684808, 0.25152516152916277], "weight": 3.0, "max_gpus": 4, "entity": "e0"}, {"name": "j5", "throughput": [0.2306474179450056, 0.6527621581816389, 0.6884560624069965], "weight": 1.0, "max_gpus": 1, "entity": "e0"}]}"#;

    #[test]
    fn matches_gavels_own_water_filling_with_entities() {
        // Each job's effective throughput sum_j T_ij x_ij as Gavel's
        // MaxMinFairnessWaterFillingPolicyWithPerf (stanford-futuredata/gavel c4fa400,
        // policies/max_min_fairness_water_filling.py, cvxpy with ECOS and GLPK_MI) returns it
        // for this instance, with priority_reweighting_policies {e0: fairness, e1: fifo},
        // entity weights {e0: 3, e1: 2} and the tenants' weights as priority weights. The
        // second job in e1's line (j3) gets nothing: j1 saturates nowhere.
        let gavel = [0.640472, 0.905303, 0.249422, 0.0, 0.324115, 0.278523];
        let inst = Scenario::from_json(GAVEL_CASE).unwrap().instance().unwrap();
        let sol = GavelHierarchical.solve(&inst).unwrap();
        for (i, want) in gavel.iter().enumerate() {
            let got: f64 = (0..inst.types())
                .map(|j| inst.throughput[i][j] * sol.allocation.gpus[i][j])
                .sum();
            assert!(
                (got - want).abs() <= 1e-5 * want.max(1.0),
                "job {i}: {got} vs Gavel's {want}"
            );
        }
    }
}
