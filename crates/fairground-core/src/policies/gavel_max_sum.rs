//! gavel-max-sum: Gavel's maximum total raw throughput, and its interior-point answer. Over the
//! base constraints and the twin-job reduction.

use super::base::AllocationLp;
use super::canonical::spread_optimum;
use super::declared::{
    Family, InRounds, Interior, JobGrouping, PartyRule, Reads, RoundAnswer, Rounds, Walk, Warm,
};
use super::twins::{self, Twins};
use super::{Guarantees, Policy, PolicyError, PolicyInfo, Promise, Solution};
use crate::lp::Lp;
use crate::Instance;

/// Gavel's maximum total throughput, in raw units (no normalisation):
///
/// ```text
/// maximise   sum_ij T_ij g_ij            (T per GPU; = Gavel's sum_ij T'_ij x_ij, where
/// subject to base constraints             T'_ij = s_i T_ij is the whole job's throughput)
/// ```
///
/// Where two parties gain alike from a type the optimum is not unique; the allocation returned
/// is then the canonical one ([`spread_optimum`]: the fewest GPUs keeping the sum, spread over
/// the types as far as the sum allows), not the solver's vertex.
pub struct GavelMaxSum;

/// The name and the one-line summary the CLI and the playground show.
pub const INFO: PolicyInfo = PolicyInfo {
    name: "gavel-max-sum",
    summary: "Gavel: maximum total raw throughput, no fairness",
    guarantees: Guarantees {
        si: Promise::No,
        ef: Promise::No,
        pe: Promise::Always,
        sp: Promise::No,
    },
    family: Family::Gavel,
    reads: Reads::BASE,
    rounds: InRounds::Solved(Rounds {
        parties: PartyRule::AsAsked(JobGrouping::Jobs),
        answer: RoundAnswer::GavelInterior(Interior::MaxSum),
        walk: Walk::Fixed,
        warm: Warm::Cold,
    }),
};

impl Policy for GavelMaxSum {
    fn info(&self) -> PolicyInfo {
        INFO
    }

    fn allocate(&self, inst: &Instance) -> Result<Solution, PolicyError> {
        let m = AllocationLp::new(Lp::maximize(), inst, |i, j| inst.throughput[i][j]);
        let best = m.lp.solve()?.objective();
        let allocation = spread_optimum(inst, |m| {
            let sum: Vec<_> = (0..inst.tenants())
                .flat_map(|i| m.weighted(i, &inst.throughput[i]))
                .collect();
            m.lp.ge(sum, (1.0 - 1e-9) * best);
        })?;
        Ok(Solution {
            objective: best,
            allocation,
            market: None,
            shared: Vec::new(),
            trades: Vec::new(),
        })
    }
}

/// Max-sum's optimum as Gavel's simulator gets it: an interior-point method's answer, taken as
/// it is (Gavel hands the LP to ECOS and clips x to [0, 1]).
///
/// ```text
/// maximise   sum_ij T_ij g_ij     subject to base constraints, by clarabel's interior point
/// ```
///
/// Why not a vertex or [`spread_optimum`]: an interior point stops just inside the feasible set,
/// so every job holds a crumb (about 1e-9) of every type the optimum does not give it, and
/// Gavel's round mechanism ranks a job with x_ij > 0, however small, above the jobs with
/// x_ij = 0. Which jobs take the GPUs the optimum leaves idle follows those crumbs, and the
/// average JCT with them: on Gavel's max_min_fairness trace 18,533 s without the crumbs, 17,466 s
/// with them, 16,824 s in Gavel's own simulator (BENCHMARKS.md). Solved per job, as Gavel does
/// (one party per job keeps each job's own barrier term, which decides its crumb), to ECOS's
/// tolerances (1e-8). Only the simulator uses this; `gavel-max-sum` in `solve` shows the
/// canonical optimum, which has no crumbs.
///
/// Jobs of one model and scale factor are twins ([`Twins`]), so the program is solved over
/// classes of them, each row weighted by the rows it stands for: the per-job program's central
/// path, at the size of the number of models ([`crate::barrier`]). (It was solved per job by
/// clarabel before: the same JCTs to 1.4%, 3.4x the time; BENCHMARKS.md.)
pub fn interior_max_sum(inst: &Instance) -> Result<crate::Allocation, PolicyError> {
    over_twins(inst, &Twins::of(inst, &[]))
        .map_err(|e| PolicyError::Solver(format!("max-sum: {e}")))
}

/// The max-sum program over classes of twins: [`twins::base_program`] at cost -T_ij per job.
fn over_twins(inst: &Instance, classes: &Twins) -> Result<crate::Allocation, String> {
    let (lp, g) = twins::base_program(inst, classes, |i, j| -inst.throughput[i][j]);
    let x = lp.minimise()?;
    Ok(twins::allocation_of(inst, classes, &g, &x))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One V100 and one K80. Job A (cap 1) does 4 steps/s on the V100 and 1 on the K80; job B
    /// (cap 1) 2 and 1.5. The most steps/s: A on the V100, B on the K80 (4 + 1.5 = 5.5; the
    /// other way 1 + 2 = 3). The interior answer is that optimum, to the solver's tolerance,
    /// with a crumb for A on the K80 and B on the V100: above 0, far below anything a check
    /// would see. Two identical jobs on one GPU: any split is optimal, and an interior point's
    /// answer is the centre of those, half each.
    #[test]
    fn the_interior_answer_is_the_optimum_with_crumbs_and_splits_ties_evenly() {
        let inst = crate::policies::test_instance(
            &[("v100", 1), ("k80", 1)],
            &[
                (&[4.0, 1.0], Some(1.0), None),
                (&[2.0, 1.5], Some(1.0), None),
            ],
        );
        let g = interior_max_sum(&inst).unwrap().gpus;
        assert!(
            (g[0][0] - 1.0).abs() < 1e-6 && (g[1][1] - 1.0).abs() < 1e-6,
            "{g:?}"
        );
        for crumb in [g[0][1], g[1][0]] {
            assert!(crumb > 0.0 && crumb < 1e-6, "{g:?}");
        }
        let best = GavelMaxSum.solve(&inst).unwrap().objective;
        assert!((best - 5.5).abs() < 1e-9);
        let sum = 4.0 * g[0][0] + g[0][1] + 2.0 * g[1][0] + 1.5 * g[1][1];
        assert!((sum - best).abs() < 1e-6 * best, "{sum}");

        let twins = crate::policies::test_instance(
            &[("v100", 1)],
            &[(&[3.0], Some(1.0), None), (&[3.0], Some(1.0), None)],
        );
        let g = interior_max_sum(&twins).unwrap().gpus;
        assert!(
            (g[0][0] - 0.5).abs() < 1e-6 && (g[1][0] - 0.5).abs() < 1e-6,
            "{g:?}"
        );
    }

    /// 30 random clusters of jobs from a few models: the program over classes of twins ends
    /// where the per-job program on the same interior point ends (every g_ij to 1e-6 GPUs), its
    /// total throughput is the simplex's optimum to 1e-6, and it keeps every base constraint
    /// (recomputed here).
    #[test]
    fn over_twins_is_the_per_job_answer() {
        use rand::SeedableRng;
        let mut rng = rand::rngs::StdRng::seed_from_u64(41);
        for case in 0..30 {
            let jobs = crate::policies::jobs_of_models(&mut rng);
            let inst = &jobs.inst;
            let twins = Twins::of(inst, &[]);
            assert!(twins.size.len() <= jobs.rates.len(), "case {case}");
            let merged = over_twins(inst, &twins).unwrap().gpus;
            let per_job = over_twins(inst, &Twins::none(inst, &[])).unwrap().gpus;
            for (a, b) in merged.iter().flatten().zip(per_job.iter().flatten()) {
                assert!(
                    (a - b).abs() <= 1e-6,
                    "case {case}: {merged:?} vs {per_job:?}"
                );
            }
            let best = GavelMaxSum.solve(inst).unwrap().objective;
            let sum: f64 = (0..inst.tenants())
                .map(|i| {
                    (0..inst.types())
                        .map(|j| inst.throughput[i][j] * merged[i][j])
                        .sum::<f64>()
                })
                .sum();
            assert!(
                (sum - best).abs() <= 1e-6 * best,
                "case {case}: {sum} vs {best}"
            );
            for j in 0..inst.types() {
                let used: f64 = merged.iter().map(|g| g[j]).sum();
                assert!(used <= inst.count[j] + 1e-6, "case {case} type {j}");
            }
            for (i, g) in merged.iter().enumerate() {
                let cap = jobs.caps[jobs.model[i]];
                assert!(g.iter().sum::<f64>() <= cap + 1e-6, "case {case}");
            }
        }
    }

    /// Rates from 1e-3 to 1e4 steps/s, 300 jobs of 30 models on up to 800 GPUs a type, caps up
    /// to 8: the interior answer over twins still reaches the simplex's total to 1e-6 and keeps
    /// capacity and caps, and the agnostic one the simplex's level.
    #[test]
    fn over_twins_holds_across_wide_rates_and_large_clusters() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(3);
        for case in 0..4 {
            let types = 3;
            let models: Vec<(Vec<f64>, f64)> = (0..30)
                .map(|_| {
                    let rates = (0..types)
                        .map(|_| 10f64.powf(rng.random_range(-3.0..4.0)))
                        .collect();
                    (rates, f64::from(1u32 << rng.random_range(0..4)))
                })
                .collect();
            let jobs: Vec<usize> = (0..300).map(|_| rng.random_range(0..30)).collect();
            let counts = [
                ("a", rng.random_range(1..=800)),
                ("b", rng.random_range(1..=800)),
                ("c", rng.random_range(1..=800)),
            ];
            let spec: Vec<(&[f64], Option<f64>, Option<f64>)> = jobs
                .iter()
                .map(|&m| (models[m].0.as_slice(), Some(models[m].1), None))
                .collect();
            let inst = crate::policies::test_instance(&counts, &spec);
            let g = interior_max_sum(&inst).unwrap().gpus;
            let best = GavelMaxSum.solve(&inst).unwrap().objective;
            let sum: f64 = (0..jobs.len())
                .map(|i| {
                    (0..types)
                        .map(|j| inst.throughput[i][j] * g[i][j])
                        .sum::<f64>()
                })
                .sum();
            assert!(
                (sum - best).abs() <= 1e-6 * best,
                "case {case}: {sum} vs {best}"
            );
            for j in 0..types {
                let used: f64 = g.iter().map(|gi| gi[j]).sum();
                assert!(used <= inst.count[j] * (1.0 + 1e-7), "case {case} type {j}");
            }
            for (i, gi) in g.iter().enumerate() {
                assert!(gi.iter().sum::<f64>() <= models[jobs[i]].1 * (1.0 + 1e-7));
            }
            let a = crate::policies::interior_agnostic(&inst).unwrap().gpus;
            let level = a
                .iter()
                .map(|r| r.iter().sum::<f64>())
                .fold(f64::INFINITY, f64::min);
            let exact = crate::policies::GavelLasAgnostic
                .solve(&inst)
                .unwrap()
                .objective;
            assert!(
                (level - exact).abs() <= 1e-6 * exact,
                "case {case}: {level} vs {exact}"
            );
        }
    }
}
