use super::base::scale_factor;
use super::gavel::{isolated_share, job_throughput};
use super::gavel_las::max_min_solution;
use super::{Policy, PolicyError, PolicyInfo, Solution};
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
