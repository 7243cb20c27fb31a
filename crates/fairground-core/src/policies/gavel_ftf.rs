//! gavel-ftf: Gavel's finish-time fairness (Themis-style), and its interior-point form the
//! simulator's rounds take. Over the base constraints, Gavel's shared notions and the interior
//! point solver.

use super::base::scale_factor;
use super::base::AllocationLp;
use super::declared::{
    Family, Grouping, InRounds, PartyRule, Reads, RoundAnswer, Rounds, Walk, Warm,
};
use super::gavel::{isolated_share, job_throughput};
use super::gavel_las::{max_min_solution, spread_max_min};
use super::interior::{allocation_of, ConeProgram};
use super::{Guarantees, Policy, PolicyError, PolicyInfo, Solution};
use crate::lp::Lp;
use crate::Instance;

/// Gavel's finish-time fairness (Themis-style) at the first round, where every job's elapsed
/// time is zero and rho_i reduces to iso_i / thr_i:
///
/// ```text
/// maximise   min_i  thr_i / iso_i          (= minimise max_i rho_i)
/// subject to base constraints
/// ```
///
/// thr_i = sum_j T_ij x_ij and iso_i is the same under Gavel's isolated share. Weights are not
/// used, as in this first-round form. The objective reported is min_i thr_i / iso_i, so the
/// worst first-round rho is 1 / objective.
pub struct GavelFtf;

/// The name and the one-line summary the CLI and the playground show.
pub const INFO: PolicyInfo = PolicyInfo {
    name: "gavel-ftf",
    summary: "Gavel: finish-time fairness (first round): max-min of throughput vs isolated share",
    guarantees: Guarantees::NONE,
    family: Family::Gavel,
    reads: Reads::BASE,
    rounds: InRounds::Solved(Rounds {
        parties: PartyRule::Always(Grouping::Jobs),
        answer: RoundAnswer::FinishTimeFair,
        walk: Walk::Fixed,
        warm: Warm::Cold,
    }),
};

impl Policy for GavelFtf {
    fn info(&self) -> PolicyInfo {
        INFO
    }

    fn allocate(&self, inst: &Instance) -> Result<Solution, PolicyError> {
        let rates: Vec<Vec<f64>> = (0..inst.tenants())
            .map(|i| {
                let iso = job_throughput(inst, i, &isolated_share(inst, i));
                let s = scale_factor(inst, i);
                inst.throughput[i].iter().map(|t| t / (s * iso)).collect()
            })
            .collect();
        max_min_solution(inst, &rates)
    }
}

/// What finish-time fairness needs to know of a job beyond the scenario (Gavel's
/// `FinishTimeFairnessPolicyWithPerf` inputs): the time since it arrived, its steps left, and
/// the time it would have taken so far under its isolated share.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FtfHistory {
    pub elapsed_s: f64,
    pub remaining_steps: f64,
    pub isolated_s: f64,
}

/// Gavel's finish-time fairness with each job's history, as its simulator runs it:
///
/// ```text
/// minimise   max_i rho_i(x),   rho_i = (t_i + R_i / thr_i(x)) / (I_i + R_i / iso_i)
/// subject to base constraints
/// ```
///
/// t_i = `elapsed_s`, R_i = `remaining_steps`, I_i = `isolated_s`, thr_i = sum_j T_ij g_ij (the
/// whole job's steps/s) and iso_i the same under Gavel's isolated share. Gavel hands this convex
/// program to ECOS. Here, with D_i = I_i + R_i / iso_i, rho_i = (t_i thr_i + R_i) / (D_i thr_i)
/// is a ratio of affine functions of the allocation, so the min-max is solved by the
/// generalised Dinkelbach method of Crouzeix, Ferland and Schaible (1985): from x_0 (the
/// isolated share), with lambda_k = max_i rho_i(x_k),
///
/// ```text
/// x_{k+1} = argmax_x min_i [(lambda_k D_i - t_i) thr_i(x) - R_i] / (D_i thr_i(x_k))
/// ```
///
/// (one LP: maximise z s.t. base, row_i >= z). The rows are 0 where rho_i = lambda_k, and the
/// LP's optimum is >= 0 (x_k itself reaches it), so lambda falls until the optimum is 0: the
/// least max rho. Dividing by each job's denominator at x_k is what makes it converge fast
/// (superlinearly near the optimum; a plain parametric step crawls when the worst jobs differ in
/// t_i / D_i). Stops when lambda falls by less than a relative 1e-9, or after 30 LPs. The
/// allocation returned is the canonical one at the final lambda ([`spread_max_min`] with rates
/// T_ij (lambda D_i - t_i) / R_i and level 1, i.e. every rho_i <= lambda); the objective is
/// 1 / lambda, as the first-round form reports min thr/iso. Returns each tenant's iso_i too,
/// which the caller needs to update I_i.
///
/// With t_i = I_i = 0 this is the first-round form [`GavelFtf`] solves.
///
/// The simulator runs [`finish_time_fairness_interior`] instead (Gavel's own way, one convex
/// solve); this exact LP method is the independent value its tests check the worst rho against.
pub fn finish_time_fairness(
    inst: &Instance,
    history: &[FtfHistory],
) -> Result<(Solution, Vec<f64>), PolicyError> {
    // Whole-job throughputs (steps/s), as Gavel's: sum_j T_ij g_ij with T per GPU
    // (`job_throughput` is per GPU of the job: this divided by s_i).
    let iso: Vec<f64> = (0..inst.tenants())
        .map(|i| scale_factor(inst, i) * job_throughput(inst, i, &isolated_share(inst, i)))
        .collect();
    let denominator: Vec<f64> = history
        .iter()
        .zip(&iso)
        .map(|(h, iso)| h.isolated_s + h.remaining_steps / iso)
        .collect();
    let thr = |i: usize, bundle: &[f64]| -> f64 {
        inst.throughput[i]
            .iter()
            .zip(bundle)
            .map(|(t, g)| t * g)
            .sum()
    };
    let worst = |gpus: &[Vec<f64>]| {
        (0..inst.tenants())
            .map(|i| {
                let h = &history[i];
                (h.elapsed_s + h.remaining_steps / thr(i, &gpus[i])) / denominator[i]
            })
            .fold(0.0_f64, f64::max)
    };
    let mut gpus: Vec<Vec<f64>> = (0..inst.tenants())
        .map(|i| isolated_share(inst, i))
        .collect();
    let mut lambda = worst(&gpus);
    if !lambda.is_finite() {
        return Err(PolicyError::Infeasible(
            "a job can run on no GPU type of the cluster".into(),
        ));
    }
    for _ in 0..30 {
        let mut m = AllocationLp::new(Lp::maximize(), inst, |_, _| 0.0);
        let z = m.lp.var_scaled(1.0, lambda);
        for (i, h) in history.iter().enumerate() {
            let scale = denominator[i] * thr(i, &gpus[i]);
            let slope = (lambda * denominator[i] - h.elapsed_s) / scale;
            let coeff: Vec<f64> = inst.throughput[i].iter().map(|t| t * slope).collect();
            let mut row = m.weighted(i, &coeff);
            row.push((z, -1.0));
            m.lp.ge(row, h.remaining_steps / scale);
        }
        let sol = m.lp.solve()?;
        let next_gpus = m.read(&sol).gpus;
        let next = worst(&next_gpus);
        // No progress (or a NaN from a job the LP left without GPUs): keep x_k.
        if next.is_nan() || next >= lambda {
            break;
        }
        let done = next >= lambda * (1.0 - 1e-9);
        gpus = next_gpus;
        lambda = next;
        if done {
            break;
        }
    }
    // Only the worst rho is pinned: among the allocations with every rho_i <= lambda, the
    // canonical one.
    let rates: Vec<Vec<f64>> = history
        .iter()
        .enumerate()
        .map(|(i, h)| {
            let scale = (lambda * denominator[i] - h.elapsed_s) / h.remaining_steps;
            inst.throughput[i].iter().map(|t| t * scale).collect()
        })
        .collect();
    let allocation = spread_max_min(inst, &rates, 1.0)?;
    Ok((
        Solution {
            allocation,
            objective: 1.0 / lambda,
            market: None,
            shared: Vec::new(),
            trades: Vec::new(),
        },
        iso,
    ))
}

/// Gavel's finish-time fairness with each job's history, solved as Gavel's simulator solves it:
/// the convex program handed whole to an interior point (clarabel; Gavel's is ECOS), its answer
/// taken as it is.
///
/// ```text
/// minimise   rho
/// subject to t_i / D_i + v_i <= rho                 for every job i
///            v_i tau_i >= R_i / (D_i iso_i)          (a rotated second-order cone)
///            tau_i = sum_j T_ij g_ij / iso_i,  base constraints
/// ```
///
/// with t_i, R_i, D_i = I_i + R_i / iso_i as in [`finish_time_fairness`]: v_i >= R_i / (D_i
/// thr_i), so rho >= max_i rho_i, with equality at the optimum. Everything is measured in units
/// of order one (tau_i in iso_i, v_i and rho in D_i) so the solver's tolerances are relative.
/// Where the optimum is not unique (only the worst jobs' rho is pinned), an interior point lands
/// near the centre of the optimal allocations and leaves every job a crumb (about 1e-9) of every
/// type, as Gavel's ECOS answer does; Gavel's round mechanism ranks any x_ij > 0 above x_ij = 0,
/// so both decide its JCTs (see [`super::gavel_max_sum::interior_max_sum`]). One solve, where
/// [`finish_time_fairness`] takes a Dinkelbach sequence of LPs and two more for its canonical
/// optimum. Returns each job's iso_i too, as [`finish_time_fairness`] does.
pub fn finish_time_fairness_interior(
    inst: &Instance,
    history: &[FtfHistory],
) -> Result<(Solution, Vec<f64>), PolicyError> {
    let (n, k) = (inst.tenants(), inst.types());
    let iso: Vec<f64> = (0..n)
        .map(|i| scale_factor(inst, i) * job_throughput(inst, i, &isolated_share(inst, i)))
        .collect();
    if iso.iter().any(|&v| v.is_nan() || v <= 0.0) {
        return Err(PolicyError::Infeasible(
            "a job can run on no GPU type of the cluster".into(),
        ));
    }
    let denominator: Vec<f64> = history
        .iter()
        .zip(&iso)
        .map(|(h, iso)| h.isolated_s + h.remaining_steps / iso)
        .collect();
    // Variables: g (n * k), then v_i, then rho.
    let v = |i: usize| n * k + i;
    let rho = n * k + n;
    let mut program = ConeProgram::with_base_constraints(inst);
    for (i, h) in history.iter().enumerate() {
        let row = program.b.len();
        program.entry(row, v(i), 1.0);
        program.entry(row, rho, -1.0);
        program.b.push(-h.elapsed_s / denominator[i]);
    }
    program.close_nonnegative();
    // One cone per job: (v + tau, v - tau, 2 sqrt(c)) with c = R / (D iso).
    for (i, h) in history.iter().enumerate() {
        let first = program.b.len();
        for (sign, row) in [(-1.0, first), (1.0, first + 1)] {
            program.entry(row, v(i), -1.0);
            for j in 0..k {
                let t = inst.throughput[i][j] / iso[i];
                if t != 0.0 {
                    program.entry(row, i * k + j, sign * t);
                }
            }
        }
        program.b.extend([0.0, 0.0]);
        program
            .b
            .push(2.0 * (h.remaining_steps / (denominator[i] * iso[i])).sqrt());
        program.close_second_order();
    }
    let mut c = vec![0.0; rho + 1];
    c[rho] = 1.0;
    let x = program.minimise(&c, "finish-time fairness")?;
    Ok((
        Solution {
            allocation: allocation_of(inst, &x),
            objective: 1.0 / x[rho],
            market: None,
            shared: Vec::new(),
            trades: Vec::new(),
        },
        iso,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One GPU of one type, two jobs of 1 step/s each, capped at 1 GPU. iso = 1/2 each.
    /// Job 0: t = 100 s, R = 100, I = 0; job 1: t = 0, R = 100, I = 0. D = 200 for both.
    /// rho_0 = (100 + 100 / g_0) / 200, rho_1 = (100 / g_1) / 200 with g_0 + g_1 = 1. Equal
    /// at the optimum: 100 + 100/g_0 = 100/(1 - g_0)  =>  g_0^2 + g_0 - 1 = 0,
    /// g_0 = (sqrt 5 - 1)/2 = 0.618..., rho = 100 / (200 (1 - g_0)) = 1.309...
    #[test]
    fn history_moves_time_to_the_job_that_waited() {
        let one: &[f64] = &[1.0];
        let inst = super::super::test_instance(
            &[("v100", 1)],
            &[(one, Some(1.0), None), (one, Some(1.0), None)],
        );
        let history = [
            FtfHistory {
                elapsed_s: 100.0,
                remaining_steps: 100.0,
                isolated_s: 0.0,
            },
            FtfHistory {
                elapsed_s: 0.0,
                remaining_steps: 100.0,
                isolated_s: 0.0,
            },
        ];
        let (sol, iso) = finish_time_fairness(&inst, &history).unwrap();
        let g0 = (5f64.sqrt() - 1.0) / 2.0;
        assert_eq!(iso, vec![0.5, 0.5]);
        assert!(
            (sol.allocation.gpus[0][0] - g0).abs() < 1e-6,
            "{:?}",
            sol.allocation
        );
        assert!((1.0 / sol.objective - 100.0 / (200.0 * (1.0 - g0))).abs() < 1e-6);
        // Without history both get half: the first-round form.
        let fresh = [history[1], history[1]];
        let (sol, _) = finish_time_fairness(&inst, &fresh).unwrap();
        assert!((sol.allocation.gpus[0][0] - 0.5).abs() < 1e-9);
        assert!((sol.objective - GavelFtf.solve(&inst).unwrap().objective).abs() < 1e-9);
    }

    /// The interior point on the hand case above: the same g_0 = (sqrt 5 - 1)/2 (the optimum
    /// is unique there), and, on a three-type case with history, the same worst rho as the
    /// Dinkelbach LPs (a different algorithm) to the solvers' tolerances.
    #[test]
    fn the_interior_point_reaches_the_same_least_worst_rho() {
        let one: &[f64] = &[1.0];
        let inst = super::super::test_instance(
            &[("v100", 1)],
            &[(one, Some(1.0), None), (one, Some(1.0), None)],
        );
        let waited = FtfHistory {
            elapsed_s: 100.0,
            remaining_steps: 100.0,
            isolated_s: 0.0,
        };
        let fresh = FtfHistory {
            elapsed_s: 0.0,
            ..waited
        };
        let (sol, iso) = finish_time_fairness_interior(&inst, &[waited, fresh]).unwrap();
        let g0 = (5f64.sqrt() - 1.0) / 2.0;
        assert_eq!(iso, vec![0.5, 0.5]);
        assert!((sol.allocation.gpus[0][0] - g0).abs() < 1e-6, "{sol:?}");
        assert!((1.0 / sol.objective - 100.0 / (200.0 * (1.0 - g0))).abs() < 1e-6);

        let inst = super::super::test_instance(
            &[("v100", 2), ("p100", 3), ("k80", 4)],
            &[
                (&[4.0, 2.5, 1.0], Some(1.0), None),
                (&[3.0, 2.0, 1.5], Some(2.0), None),
                (&[8.0, 5.0, 1.0], Some(1.0), None),
                (&[1.0, 1.0, 0.8], Some(4.0), None),
            ],
        );
        let history = [
            (500.0, 4e4, 300.0),
            (0.0, 9e4, 0.0),
            (2e3, 1e4, 1500.0),
            (50.0, 3e4, 10.0),
        ]
        .map(|(elapsed_s, remaining_steps, isolated_s)| FtfHistory {
            elapsed_s,
            remaining_steps,
            isolated_s,
        });
        let (interior, _) = finish_time_fairness_interior(&inst, &history).unwrap();
        let (exact, _) = finish_time_fairness(&inst, &history).unwrap();
        let (a, b) = (1.0 / interior.objective, 1.0 / exact.objective);
        assert!((a - b).abs() < 1e-6 * b, "interior {a}, Dinkelbach {b}");
        interior.allocation.check(&inst).unwrap();
        // The worst rho of the allocation itself, from the definition.
        let worst = (0..4)
            .map(|i| {
                let h = history[i];
                let thr: f64 = (0..3)
                    .map(|j| inst.throughput[i][j] * interior.allocation.gpus[i][j])
                    .sum();
                let iso =
                    job_throughput(&inst, i, &isolated_share(&inst, i)) * scale_factor(&inst, i);
                (h.elapsed_s + h.remaining_steps / thr) / (h.isolated_s + h.remaining_steps / iso)
            })
            .fold(0.0_f64, f64::max);
        assert!(
            (worst - b).abs() < 1e-6 * b,
            "allocation's worst rho {worst}, least {b}"
        );
    }

    /// Without history the worst rho is the first-round form's, with jobs of several GPUs too:
    /// 4 GPUs; a 1-GPU job and a 2-GPU job at 1 step/s per GPU. Isolated share: 2 GPUs each,
    /// so the 1-GPU job uses 1 (iso 1) and the 2-GPU job 2 (iso 2). Both can have their iso:
    /// rho = 1, with room to spare. The least max rho: the 2-GPU job gets its 2 GPUs
    /// (rho 1) and the 1-GPU job its 1 (rho 1); no allocation gives the 2-GPU job more.
    #[test]
    fn without_history_it_is_the_first_round_form_for_multi_gpu_jobs() {
        let one: &[f64] = &[1.0];
        let inst = super::super::test_instance(
            &[("v100", 4)],
            &[(one, Some(1.0), None), (one, Some(2.0), None)],
        );
        let fresh = FtfHistory {
            elapsed_s: 0.0,
            remaining_steps: 50.0,
            isolated_s: 0.0,
        };
        let (sol, iso) = finish_time_fairness(&inst, &[fresh, fresh]).unwrap();
        assert_eq!(iso, vec![1.0, 2.0]);
        assert!((sol.objective - 1.0).abs() < 1e-9, "{}", sol.objective);
        assert!((sol.objective - GavelFtf.solve(&inst).unwrap().objective).abs() < 1e-9);
        assert!((sol.allocation.gpus[1][0] - 2.0).abs() < 1e-7);
    }
}
