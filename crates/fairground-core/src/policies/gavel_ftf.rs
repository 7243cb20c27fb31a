use super::base::scale_factor;
use super::base::AllocationLp;
use super::gavel::{isolated_share, job_throughput};
use super::gavel_las::{max_min_solution, spread_max_min};
use super::{Policy, PolicyError, PolicyInfo, Solution};
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
