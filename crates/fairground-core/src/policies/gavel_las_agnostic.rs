//! gavel-las-agnostic: Gavel's max-min fairness of GPUs held, blind to heterogeneity, and its
//! interior-point answer. Over LAS and the twin-job reduction.

use super::declared::{
    Family, InRounds, Interior, JobGrouping, PartyRule, Reads, RoundAnswer, Rounds, Walk, Warm,
};
use super::gavel_las::{max_min_solution, spread_max_min};
use super::twins::{self, Twins};
use super::{Guarantees, Policy, PolicyError, PolicyInfo, Solution};
use crate::{Allocation, Instance};

/// Gavel's heterogeneity-agnostic max-min fairness: LAS with every T_ij = 1 (so prop_i = 1):
///
/// ```text
/// maximise   min_i  sum_j g_ij / w_i
/// subject to base constraints
/// ```
///
/// It balances GPUs held, blind to which type is faster for whom; the objective is that minimum.
///
/// Its optimum is never unique (any split of the same GPU-time over the types is optimal), so
/// the allocation returned is a canonical one: the optimum closest to spreading each tenant's
/// GPUs over the types in proportion to their counts ([`spread_max_min`]), near what Gavel's
/// interior-point solver returns. A simplex vertex instead would put each job on few types, and
/// Gavel's simulator's JCTs were measured 17% apart between the two.
pub struct GavelLasAgnostic;

/// The name and the one-line summary the CLI and the playground show.
pub const INFO: PolicyInfo = PolicyInfo {
    name: "gavel-las-agnostic",
    summary: "Gavel: max-min fairness of GPUs held, ignoring heterogeneity",
    guarantees: Guarantees::NONE,
    family: Family::Gavel,
    reads: Reads::BASE,
    rounds: InRounds::Solved(Rounds {
        parties: PartyRule::AsAsked(JobGrouping::Jobs),
        answer: RoundAnswer::GavelInterior(Interior::MaxMinAgnostic),
        walk: Walk::Shuffled,
        warm: Warm::Cold,
    }),
};

impl Policy for GavelLasAgnostic {
    fn info(&self) -> PolicyInfo {
        INFO
    }

    fn allocate(&self, inst: &Instance) -> Result<Solution, PolicyError> {
        let rates: Vec<Vec<f64>> = inst
            .weight
            .iter()
            .map(|w| vec![1.0 / w; inst.types()])
            .collect();
        let vertex = max_min_solution(inst, &rates)?;
        Ok(Solution {
            allocation: spread_max_min(inst, &rates, vertex.objective)?,
            ..vertex
        })
    }
}

/// The agnostic max-min as Gavel's simulator gets it: an interior point's answer (ECOS there),
/// near the centre of the optima, each job's GPU-time spread over the types, solved over
/// classes of twin jobs ([`Twins`], [`crate::barrier`]; the program does not read throughputs,
/// so jobs of one scale factor and weight are twins):
///
/// ```text
/// maximise   z
/// subject to z <= sum_j g_cj / w_c      weight |c|
///            base constraints           (twins::base_program)
/// ```
///
/// The simulator's `gavel-las-agnostic` uses it; `solve` keeps the canonical optimum
/// ([`spread_max_min`]), which is exact and the same every time.
pub fn interior_agnostic(inst: &Instance) -> Result<Allocation, PolicyError> {
    // Blind to throughputs, jobs of one cap and weight are twins, whatever their model.
    let mut blind = inst.clone();
    blind.throughput.iter_mut().flatten().for_each(|t| *t = 1.0);
    over_twins(inst, &Twins::of(&blind, &[]))
        .map_err(|e| PolicyError::Solver(format!("agnostic max-min: {e}")))
}

fn over_twins(inst: &Instance, classes: &Twins) -> Result<Allocation, String> {
    let (mut lp, g) = twins::base_program(inst, classes, |_, _| 0.0);
    let z = lp.var(-1.0, 1.0);
    for ((&i, &size), vars) in classes.first().iter().zip(&classes.size).zip(&g) {
        let mut row: Vec<(usize, f64)> = vars.iter().map(|&v| (v, -1.0 / inst.weight[i])).collect();
        row.push((z, 1.0));
        lp.le(&row, 0.0, size as f64);
    }
    let x = lp.minimise()?;
    Ok(twins::allocation_of(inst, classes, &g, &x))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 30 random clusters of jobs from a few models: the interior answer over twins (jobs of one
    /// cap, whatever their model) is the per-job program's on the same solver (every g_ij to 1e-6
    /// GPUs), its level min_i sum_j g_ij is the simplex's max-min level to 1e-6, it keeps
    /// capacity and caps (recomputed here), and jobs of one cap hold the same.
    #[test]
    fn interior_answer_over_twins_is_the_per_job_answer_at_the_max_min_level() {
        use rand::SeedableRng;
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        for case in 0..30 {
            let jobs = crate::policies::jobs_of_models(&mut rng);
            let inst = &jobs.inst;
            let cap = |i: usize| jobs.caps[jobs.model[i]];
            let merged = interior_agnostic(inst).unwrap().gpus;
            let per_job = over_twins(inst, &Twins::none(inst, &[])).unwrap().gpus;
            for (a, b) in merged.iter().flatten().zip(per_job.iter().flatten()) {
                assert!(
                    (a - b).abs() <= 1e-6,
                    "case {case}: {merged:?} vs {per_job:?}"
                );
            }
            let level = merged
                .iter()
                .map(|g| g.iter().sum::<f64>())
                .fold(f64::INFINITY, f64::min);
            let exact = GavelLasAgnostic.solve(inst).unwrap().objective;
            assert!(
                (level - exact).abs() <= 1e-6 * exact,
                "case {case}: {level} vs {exact}"
            );
            for j in 0..inst.types() {
                let used: f64 = merged.iter().map(|g| g[j]).sum();
                assert!(used <= inst.count[j] + 1e-6, "case {case} type {j}");
            }
            for (i, g) in merged.iter().enumerate() {
                assert!(
                    g.iter().sum::<f64>() <= cap(i) + 1e-6,
                    "case {case} job {i}"
                );
                for (k, h) in merged.iter().enumerate() {
                    if cap(i) == cap(k) {
                        assert_eq!(g, h, "case {case}: jobs {i} and {k}");
                    }
                }
            }
        }
    }
}
