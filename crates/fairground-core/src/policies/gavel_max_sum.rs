use super::base::AllocationLp;
use super::canonical::spread_optimum;
use super::interior::{allocation_of, ConeProgram};
use super::{Policy, PolicyError, PolicyInfo, Solution};
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
/// (one party per job keeps each job's own barrier term, which decides its crumb), with
/// clarabel's default tolerances (1e-8), which are ECOS's ([`super::interior`]). Only the simulator uses this;
/// `gavel-max-sum` in `solve` shows the canonical optimum, which has no crumbs.
pub fn interior_max_sum(inst: &Instance) -> Result<crate::Allocation, PolicyError> {
    let mut program = ConeProgram::with_base_constraints(inst);
    program.close_nonnegative();
    let c: Vec<f64> = inst.throughput.iter().flatten().map(|t| -t).collect();
    let x = program.minimise(&c, "max-sum")?;
    Ok(allocation_of(inst, &x))
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
}
